// The demo page end to end in headless Chromium: starts web/serve on a free
// loopback port, plays a whole session as a user would, saves screenshots and
// prints timings (measured, never asserted). Fails on any console error, page
// error or dialog.   node web/test/e2e.mjs   (after make web-dist)
import { spawn } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import assert from "node:assert/strict";
import { bigTree } from "./bigtree.mjs";
import { step } from "./start.mjs";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const { chromium } = createRequire(path.join(repo, ".tools", "package.json"))("playwright-core");
const shots = path.join(repo, "web/test/screenshots");
const XSS = "<img src=x onerror=alert(1)>";

let server;
let browser;
let userDataDir;
const started = performance.now();
const numbers = {};

function startServer() {
  server = spawn(path.join(repo, "web/.bin/serve"), ["-dir", path.join(repo, "web/dist"), "-addr", "127.0.0.1:0"], { stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("web/serve did not start within 10 s")), 10000);
    let out = "";
    server.stdout.on("data", (b) => {
      out += b;
      const m = out.match(/serving (http:\/\/\S+)/);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    server.on("exit", (code) => reject(new Error(`web/serve exited with ${code}`)));
  });
}

function stopServer() {
  if (server && server.exitCode === null) server.kill();
}
process.on("exit", stopServer);

async function main() {
  const base = await startServer();
  await fs.mkdir(shots, { recursive: true });
  userDataDir = await fs.mkdtemp(path.join(os.tmpdir(), "st-web-e2e-"));
  browser = await chromium.launchPersistentContext(userDataDir, {
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run"],
    viewport: { width: 1440, height: 900 },
    acceptDownloads: true,
  });
  const page = browser.pages()[0] ?? (await browser.newPage());
  page.setDefaultTimeout(15000);
  const errors = [];
  const dialogs = [];
  let allowNetworkErrors = false;
  page.on("console", (m) => {
    if (m.type() !== "error") return;
    if (allowNetworkErrors && /Failed to load resource|ERR_/.test(m.text())) return;
    errors.push(`console: ${m.text()} (${m.location().url})`);
  });
  page.on("pageerror", (e) => errors.push(`page error: ${e.message}`));
  // Dates are formatted by formatters made once: Date's toLocale*String with
  // options makes one each call (the sidebar's 2,000 rows: 194 ms, against 2.8).
  await page.addInitScript(() => {
    window.__dateFormatsMade = 0;
    for (const name of ["toLocaleString", "toLocaleDateString", "toLocaleTimeString"]) {
      const real = Date.prototype[name];
      Date.prototype[name] = function (...args) {
        window.__dateFormatsMade++;
        return real.apply(this, args);
      };
    }
  });
  page.on("dialog", (d) => {
    dialogs.push(d.message());
    d.dismiss().catch(() => {});
  });

  const ready = async () => {
    await page.waitForSelector("body[data-ready='1']");
    return page.evaluate(() => window.sessiontreeDemo.timings.interactive);
  };
  const msgs = page.locator("#messages article.msg");
  const texts = () => msgs.locator(".msg-body").allTextContents();
  const demo = (f, arg) => page.evaluate(f, arg);
  const saved = () => page.evaluate(() => window.sessiontreeDemo.saved());
  const act = async (index, action) => {
    const m = msgs.nth(index);
    await m.hover();
    await m.locator(`[data-action="${action}"]`).click();
  };
  const send = async (text, expect) => {
    await page.fill("#input", text);
    await page.press("#input", "Enter");
    await page.waitForFunction((n) => document.querySelectorAll("#messages article.msg").length === n && !document.querySelector(".typing"), expect);
  };
  const modal = async (values, button) => {
    await page.waitForSelector("#dialog[open]");
    for (const [name, value] of Object.entries(values)) await page.fill(`#dialog [name="${name}"]`, value);
    await page.locator(`#dialog button[type=submit]`).click();
    if (button !== "stay") await page.waitForSelector("#dialog:not([open])", { state: "attached" });
  };

  await step("the page starts (wasm, IndexedDB, an empty conversation)", async () => {
    const t0 = Date.now();
    await page.goto(base);
    numbers.ttiFresh = await ready();
    numbers.ttiFreshWall = Date.now() - t0;
    await page.waitForSelector(".welcome");
    assert.match(await page.textContent("#assistant-chip"), /Demo assistant/);
    // The module was compiled in sessiontree's compiler worker, not on the
    // page's thread: the page fetched that worker's script and no module.
    const fetched = await page.evaluate(() => performance.getEntriesByType("resource").map((e) => new URL(e.name).pathname.split("/").pop()));
    assert.ok(fetched.includes("sessiontree.compile.js"), `the compiler worker started: ${fetched.join(" ")}`);
    assert.ok(!fetched.some((f) => f.endsWith(".wasm")), `the page's thread fetched no module: ${fetched.join(" ")}`);
  });

  await step("without its compiler worker (the file not served) the module starts on the page's thread", async () => {
    await page.route("**/sessiontree.compile.js", (route) => route.fulfill({ status: 404, body: "" }));
    allowNetworkErrors = true;
    await page.reload();
    await ready();
    allowNetworkErrors = false;
    const fetched = await page.evaluate(() => performance.getEntriesByType("resource").map((e) => new URL(e.name).pathname.split("/").pop()));
    assert.ok(fetched.includes("sessiontree.wasm"), `the page fetched the module itself: ${fetched.join(" ")}`);
    await page.unroute("**/sessiontree.compile.js");
    await page.waitForSelector(".welcome");
  });

  await step("chat: two turns with the demo assistant", async () => {
    await send("Hello tree", 2);
    await send("Tell me about forks?", 4);
    const t = await texts();
    assert.equal(t[0], "Hello tree");
    assert.match(t[1], /you wrote \u201cHello tree\u201d/);
    assert.match(await msgs.nth(1).locator(".role").textContent(), /Demo assistant · offline/);
  });

  await step("edit and resend: a new sibling with its own reply", async () => {
    await act(0, "edit");
    await page.fill("#messages .editor", "Hello edited tree");
    await page.click('[data-action="save-edit"]');
    await page.waitForFunction(() => document.querySelectorAll("#messages article.msg").length === 2 && !document.querySelector(".typing"));
    assert.equal((await texts())[0], "Hello edited tree");
    assert.equal(await msgs.nth(0).locator(".switcher .count").textContent(), "2/2");
  });

  await step("switch siblings back and forth: each brings back its own deeper branch", async () => {
    await msgs.nth(0).locator('[data-action="prev"]').click();
    await page.waitForFunction(() => document.querySelectorAll("#messages article.msg").length === 4);
    let t = await texts();
    assert.equal(t[0], "Hello tree");
    assert.equal(t[2], "Tell me about forks?");
    assert.equal(await msgs.nth(0).locator(".switcher .count").textContent(), "1/2");
    await msgs.nth(0).locator('[data-action="next"]').click();
    await page.waitForFunction(() => document.querySelectorAll("#messages article.msg").length === 2);
    assert.equal((await texts())[0], "Hello edited tree");
    await msgs.nth(0).locator('[data-action="prev"]').click();
    await page.waitForFunction(() => document.querySelectorAll("#messages article.msg").length === 4);
    t = await texts();
    assert.equal(t[2], "Tell me about forks?");
  });

  await step("regenerate: a second reply, switchable", async () => {
    const before = (await texts())[3];
    await act(3, "regenerate");
    await page.waitForFunction(() => document.querySelector("#messages article.msg:nth-child(4) .switcher .count")?.textContent === "2/2");
    const after = (await texts())[3];
    assert.notEqual(after, before);
    assert.match(after, /reply variant 2/);
    await msgs.nth(3).locator('[data-action="prev"]').click();
    await page.waitForFunction((b) => document.querySelectorAll("#messages article.msg .msg-body")[3]?.textContent === b, before);
  });

  await step("rewind: the later messages are kept on a branch", async () => {
    await act(1, "rewind");
    await page.waitForFunction(() => document.querySelectorAll("#messages article.msg").length === 2);
    await page.waitForSelector(".toast >> text=/kept on/");
    await send("After rewind", 4);
    const names = await page.locator("#branch-list .branch-name").allTextContents();
    assert.ok(names.length >= 4, `branches: ${names}`);
  });

  await step("branch here, named: at the first user message, it is sent again (changed) on the new branch and answered", async () => {
    await act(0, "branch");
    await modal({ message: "Hello tree, on an idea", name: "idea" });
    await page.waitForSelector('#branch-list li.active[data-branch="idea"]');
    await page.waitForFunction(() => document.querySelectorAll("#messages article.msg").length === 2 && !document.querySelector(".typing"));
    assert.equal((await texts())[0], "Hello tree, on an idea");
    await send("On the idea branch", 4);
  });

  await step("label a message; text typed in an open editor stays through the redraw", async () => {
    await act(1, "edit");
    await msgs.nth(1).locator("textarea.editor").fill("typed, not saved");
    await act(0, "label");
    await modal({ label: "start here" });
    await page.waitForSelector("#messages article.msg .label-chip >> text=start here");
    assert.equal(await msgs.nth(1).locator("textarea.editor").inputValue(), "typed, not saved", "the redraw threw the editor's text away");
    await msgs.nth(1).locator(".edit-buttons button.ghost").click(); // Cancel
    assert.equal(await page.locator("#messages textarea.editor").count(), 0);
  });

  await step("summarize a branch: the stub without a model", async () => {
    await page.click('#branch-list li[data-branch="main"] [data-action="summarize"]');
    await page.waitForSelector('#branch-list li[data-branch="main"] .branch-summary');
    assert.match(await page.textContent('#branch-list li[data-branch="main"] .branch-summary'), /unsummarized\]\s*— stub/);
  });

  await step("branches: switch from the list, delete a name (its messages stay)", async () => {
    await page.click('#branch-list li[data-branch="main"] .branch-open');
    await page.waitForSelector('#branch-list li.active[data-branch="main"]');
    assert.equal((await texts()).at(-2), "After rewind");
    const nodes = await demo(() => window.sessiontreeDemo.tree.stats().nodes);
    assert.equal(await page.locator('#branch-list li[data-branch="main"] [data-action="delete-name"]').isDisabled(), true);
    await page.click('#branch-list li[data-branch="branch-2"] [data-action="delete-name"]');
    await page.waitForSelector('#branch-list li[data-branch="branch-2"]', { state: "detached" });
    await page.click("#btn-tree");
    await page.waitForFunction(() => window.sessiontreeDemo.treeView?.boxes.length > 0);
    assert.match(await page.textContent("#treepane .tree-info"), new RegExp(`${await page.textContent("#branch-count")} branches`));
    assert.ok(!(await demo(() => window.sessiontreeDemo.treeView.boxes.some((b) => b.names?.includes("branch-2")))), "no box carries the deleted name");
    await page.click("#btn-tree");
    assert.equal(await demo(() => window.sessiontreeDemo.tree.stats().nodes), nodes);
    await page.click('#branch-list li[data-branch="idea"] .branch-open');
    await page.waitForSelector('#branch-list li.active[data-branch="idea"]');
  });

  await step("an OpenAI-compatible endpoint: reply, summary, then unreachable (message kept)", async () => {
    let calls = 0;
    await page.route("http://llm.test/**", (route) => {
      if (route.request().method() === "GET") {
        route.fulfill({ contentType: "application/json", headers: { "access-control-allow-origin": "*" }, body: JSON.stringify({ data: [{ id: "mock-model" }] }) });
        return;
      }
      calls++;
      const body = JSON.parse(route.request().postData());
      assert.equal(body.model, "mock-model");
      assert.ok(body.messages.every((m) => !("model" in m)), "the tree's own fields are not sent");
      const summary = body.messages[0].role === "system";
      route.fulfill({ contentType: "application/json", headers: { "access-control-allow-origin": "*" }, body: JSON.stringify({ model: "mock-model", choices: [{ message: { role: "assistant", content: summary ? "Mocked summary of the branch" : "Mocked reply" } }] }) });
    });
    await page.click("#btn-settings");
    await page.check('#dialog input[value="endpoint"]');
    await modal({ url: "http://llm.test/v1", key: "sk-test", model: "mock-model" });
    assert.match(await page.textContent("#assistant-chip"), /mock-model/);
    await send("Hi model", 6);
    assert.equal((await texts())[5], "Mocked reply");
    assert.match(await msgs.nth(5).locator(".role").textContent(), /mock-model/);
    await page.click('#branch-list li[data-branch="branch-1"] [data-action="summarize"]');
    await page.waitForSelector('#branch-list li[data-branch="branch-1"] .branch-summary >> text=Mocked summary of the branch');
    assert.equal(calls, 2);
    await page.unroute("http://llm.test/**");
    await page.route("http://llm.test/**", (route) => route.abort("connectionrefused"));
    allowNetworkErrors = true;
    await page.fill("#input", "Are you there?");
    await page.press("#input", "Enter");
    await page.waitForSelector("#banner:not([hidden]) >> text=/could not reach/");
    allowNetworkErrors = false;
    assert.equal((await texts()).at(-1), "Are you there?");
    await page.waitForSelector('#messages article.msg:last-child [data-action="reply"]');
    await page.unroute("http://llm.test/**");
    await page.click("#btn-settings");
    await page.check('#dialog input[value="demo"]');
    await modal({});
    await page.click("#banner .banner-close");
    await msgs.last().locator('[data-action="reply"]').click();
    await page.waitForFunction(() => document.querySelectorAll("#messages article.msg").length === 8 && !document.querySelector(".typing"));
  });

  await step("search across all branches, open a hit on another branch", async () => {
    await page.fill("#search", "forks");
    await page.waitForSelector("#search-results .hit");
    await page.locator("#search-results .hit").first().click();
    await page.waitForFunction(() => [...document.querySelectorAll("#messages .msg-body")].some((b) => b.textContent === "Tell me about forks?"));
    await page.fill("#search", "");
  });

  await step("opening a message whose branch name was deleted never moves main or brings a deleted name back", async () => {
    await page.click('#branch-list li[data-branch="main"] .branch-open');
    await page.waitForSelector('#branch-list li.active[data-branch="main"]');
    const n = await msgs.count();
    await send("Nameless marker", n + 2);
    await act(n - 1, "rewind"); // the marker and its reply are kept on a fresh branch
    await page.waitForFunction((k) => document.querySelectorAll("#messages article.msg").length === k, n);
    const kept = (await page.textContent(".toast >> text=/kept on/")).match(/\u201c([^\u201d]+)\u201d/)[1];
    const mainLeaf = await demo(() => window.sessiontreeDemo.tree.pathOf("main").at(-1));
    await page.click(`#branch-list li[data-branch="${kept}"] [data-action="delete-name"]`);
    await page.waitForSelector(`#branch-list li[data-branch="${kept}"]`, { state: "detached" });
    await page.fill("#search", "Nameless marker");
    await page.locator("#search-results .hit").first().click();
    await page.waitForFunction(() => [...document.querySelectorAll("#messages .msg-body")].some((b) => b.textContent === "Nameless marker"));
    await page.fill("#search", "");
    const after = await demo(() => ({ main: window.sessiontreeDemo.tree.pathOf("main").at(-1), active: window.sessiontreeDemo.tree.activeBranch, names: window.sessiontreeDemo.tree.branches().map((b) => b.name) }));
    assert.equal(after.main, mainLeaf, "main stays where it was");
    assert.ok(!after.names.includes(kept), `the deleted name ${kept} stays deleted: ${after.names}`);
    assert.notEqual(after.active, "main");
    assert.match(after.active, /^branch-\d+$/, "the message opens on a fresh branch of its own");
    await page.waitForSelector(`#branch-list li.active[data-branch="${after.active}"]`);
  });

  await step("the XSS message is shown as text and never runs", async () => {
    const n = await msgs.count();
    await send(XSS, n + 2);
    assert.equal((await texts())[n], XSS);
    assert.equal(await page.locator("#messages img").count(), 0);
    assert.match((await texts())[n + 1], /<img src=x onerror=alert\(1\)>/);
    await page.waitForTimeout(200);
    assert.deepEqual(dialogs, []);
  });

  await step("screenshots: chat and tree view; click a node in the tree", async () => {
    await saved();
    await page.screenshot({ path: path.join(shots, "chat.png") });
    await page.click("#btn-tree");
    await page.waitForFunction(() => window.sessiontreeDemo.treeView?.boxes.length > 0);
    const target = await demo(() => {
      const t = window.sessiontreeDemo.tree;
      const path = t.activePath();
      const other = t.branches().find((b) => b.leaf && !path.includes(b.leaf));
      return other.leaf;
    });
    const p = await demo((id) => window.sessiontreeDemo.treeView.pointOf(id), target);
    assert.ok(p, `the tree view has ${target}: ${await demo((id) => JSON.stringify([window.sessiontreeDemo.treeView.boxOf.size, window.sessiontreeDemo.tree.stats(), window.sessiontreeDemo.tree.node(id)]), target)}`);
    await page.mouse.move(p.x, p.y);
    await page.waitForTimeout(50);
    await page.screenshot({ path: path.join(shots, "tree.png") });
    await page.mouse.click(p.x, p.y);
    await page.waitForFunction((id) => window.sessiontreeDemo.tree.activePath().at(-1) === id, target);
    await page.mouse.move(5, 300);
    // The README's picture: chat and tree side by side, no tooltip or notice.
    await page.click('#branch-list li[data-branch="main"] .branch-open');
    await page.waitForSelector('#branch-list li.active[data-branch="main"]');
    await page.evaluate(() => document.querySelectorAll(".toast").forEach((t) => t.remove()));
    await page.click("#tree-fit");
    await page.waitForTimeout(50);
    await page.screenshot({ path: path.join(shots, "showcase.png") });
  });

  let exported;
  await step("export .tree.json (and Markdown)", async () => {
    await page.click("#btn-export");
    await page.waitForSelector("#dialog[open]");
    const [dl] = await Promise.all([page.waitForEvent("download"), page.locator("#dialog button[type=submit]").click()]);
    assert.match(dl.suggestedFilename(), /\.tree\.json$/);
    exported = await fs.readFile(await dl.path(), "utf8");
    const file = JSON.parse(exported);
    assert.equal(file.format, "sessiontree");
    assert.equal(Object.keys(file.nodes).length, await demo(() => window.sessiontreeDemo.tree.stats().nodes));
    assert.ok(Object.values(file.nodes).some((n) => n.message.content === XSS));
    await page.waitForSelector("#dialog:not([open])", { state: "attached" });
    await page.click("#btn-export");
    await page.waitForSelector("#dialog[open]");
    if (await page.locator('#dialog input[value="markdown"]').count()) {
      // Other tools' formats (and merge, and projectFor) are a second module, fetched on first use only:
      // here the endpoint step above loaded it (its requests are the library's projection).
      await page.check('#dialog input[value="markdown"]');
      const [md] = await Promise.all([page.waitForEvent("download"), page.locator("#dialog button[type=submit]").click()]);
      assert.match(md.suggestedFilename(), /\.md$/);
      assert.match(await fs.readFile(await md.path(), "utf8"), /^# Conversation[\s\S]*## user/);
      assert.ok(await demo(async () => (await import("./sessiontree.js")).memoryUsage().interchange > 0), "the interchange module is loaded");
    } else {
      await page.keyboard.press("Escape");
    }
  });

  await step("import: file picker and drag and drop, each a new conversation", async () => {
    const count = await page.locator("#conv-list li").count();
    await page.setInputFiles("#file", { name: "copy.tree.json", mimeType: "application/json", buffer: Buffer.from(exported) });
    await page.waitForFunction((n) => document.querySelectorAll("#conv-list li").length === n + 1, count);
    assert.equal(await page.textContent("#conv-title"), "copy");
    assert.equal(await demo(() => window.sessiontreeDemo.tree.save()), exported);
    const dt = await page.evaluateHandle((text) => {
      const d = new DataTransfer();
      d.items.add(new File([text], "dropped.tree.json", { type: "application/json" }));
      return d;
    }, exported);
    await page.dispatchEvent("#messages", "dragenter", { dataTransfer: dt });
    await page.waitForSelector("#drop:not([hidden])");
    await page.dispatchEvent("#messages", "drop", { dataTransfer: dt });
    await page.waitForFunction((n) => document.querySelectorAll("#conv-list li").length === n + 2, count);
    assert.equal(await page.textContent("#conv-title"), "dropped");
  });

  await step("import another tool's export (a pi session), format detected", async () => {
    assert.ok((await page.textContent("#formats-note")).includes("pi"), "the page lists pi among the formats it imports");
    const pi = await fs.readFile(path.join(repo, "core/formats/testdata/pi/labels.jsonl"));
    await page.setInputFiles("#file", { name: "labels.pi.jsonl", mimeType: "application/jsonl", buffer: pi });
    await page.waitForFunction(() => document.querySelector("#conv-title").textContent === "labels.pi");
    await page.waitForSelector(".toast >> text=/Read as pi/");
    assert.equal((await texts())[0], "hi");
    assert.ok(await page.locator("#messages .switcher").count() > 0, "the pi session's fork shows a switcher");
  });

  await step("import a ChatGPT export (the project's fixture, a conversation with two forks): its branches in the tree view", async () => {
    assert.ok((await page.textContent("#formats-note")).includes("ChatGPT"), "the page lists ChatGPT among the formats it imports");
    const file = path.join(repo, "core", "formats", "testdata", "chatgpt", "forks.json");
    await page.setInputFiles("#file", { name: "forks.json", mimeType: "application/json", buffer: await fs.readFile(file) });
    await page.waitForFunction(() => document.querySelector("#conv-title").textContent === "forks");
    await page.waitForSelector(".toast >> text=/Read as chatgpt: 12 messages/");
    assert.ok(await demo(() => window.sessiontreeDemo.tree.branches().length) > 1, "the export's forks are branches");
    await page.screenshot({ path: path.join(shots, "import-chatgpt.png") });
  });

  await step("a tool call and its result are shown as closed blocks; editing the call's message edits its text only: the call is kept, how the model ended is dropped", async () => {
    const file = await fs.readFile(path.join(repo, "core", "formats", "testdata", "claudecode", "agent.jsonl"));
    await page.setInputFiles("#file", { name: "agent.jsonl", mimeType: "application/jsonl", buffer: file });
    await page.waitForFunction(() => document.querySelector("#conv-title")?.textContent === "agent");
    const id = await demo(() => {
      const t = window.sessiontreeDemo.tree;
      const { ids, messages } = t.pathWindow(0, t.pathLength());
      return ids[messages.findIndex((m) => Array.isArray(m.content) && m.content.some((p) => p.type === "tool_use"))];
    });
    const msg = page.locator(`#messages article.msg[data-id="${id}"]`);
    // Shown as closed blocks: the tool's name and input, the result's text (not "[tool_use]").
    assert.equal(await msg.locator("details.tool-block:not([open]) > summary").textContent(), "Tool call: Glob");
    assert.match(await msg.locator("details.tool-block .details-body").textContent(), /"pattern": "\*\*\/\*\.go"/);
    const result = page.locator("#messages article.msg details.tool-block", { hasText: "Tool result" }).first();
    assert.match(await result.locator(".details-body").textContent(), /main\.go\ncmd\.go/);
    assert.ok(!/\[tool_(use|result)\]/.test(await page.textContent("#messages")), "a tool part shown as [tool_use]");
    await msg.hover();
    await msg.locator('[data-action="edit"]').click();
    assert.equal(await msg.locator("textarea.editor").inputValue(), "", "the editor holds the text only (this message has none)");
    await msg.locator("textarea.editor").fill("Let me look.");
    await msg.locator('[data-action="save-edit"]').click();
    const edited = await demo(() => window.sessiontreeDemo.tree.pathWindow(0, window.sessiontreeDemo.tree.pathLength()).messages.find((m) => JSON.stringify(m).includes("Let me look.")));
    assert.deepEqual(edited.content, [{ type: "text", text: "Let me look." }, { type: "tool_use", id: "toolu_glob", name: "Glob", input: { pattern: "**/*.go" } }]);
    assert.equal(edited.stop_reason, undefined);
    assert.equal(edited.usage, undefined);
    assert.equal(edited.id, undefined);
  });

  await step("a corrupt import: a clear message, nothing lost", async () => {
    const convs = await page.locator("#conv-list li").count();
    const before = await demo(() => window.sessiontreeDemo.tree.save());
    await page.setInputFiles("#file", { name: "broken.tree.json", mimeType: "application/json", buffer: Buffer.from(exported.slice(0, exported.length / 2)) });
    await page.waitForSelector("#banner:not([hidden])");
    const banner = await page.textContent("#banner");
    // The whole banner: its sentence and the close button (×), nothing else (no Retry here).
    assert.match(banner, /^Could not import \u201cbroken\.tree\.json\u201d: .+\(corrupt\)\. Nothing was changed\.\u00d7$/);
    assert.equal(await page.locator("#conv-list li").count(), convs);
    assert.equal(await demo(() => window.sessiontreeDemo.tree.save()), before);
    await page.click("#banner .banner-close");
  });

  await step("reload: every conversation and the active branch come back", async () => {
    await page.locator("#conv-list li").last().locator(".conv-open").click();
    await page.waitForFunction(() => document.querySelector("#conv-title").textContent === "Hello tree");
    const first = (await texts())[0];
    const dir = first === "Hello tree" ? "next" : "prev";
    await msgs.nth(0).locator(`[data-action="${dir}"]`).click(); // the other first message's branch
    await page.waitForFunction((f) => document.querySelector("#messages .msg-body").textContent !== f, first);
    await saved();
    const snapshot = () => demo(() => ({
      convs: [...document.querySelectorAll("#conv-list .conv-name")].map((e) => e.textContent),
      title: document.querySelector("#conv-title").textContent,
      active: window.sessiontreeDemo.tree.activeBranch,
      path: window.sessiontreeDemo.tree.activePath(),
      file: window.sessiontreeDemo.tree.save(),
      texts: [...document.querySelectorAll("#messages .msg-body")].map((e) => e.textContent),
    }));
    const before = await snapshot();
    await page.reload();
    numbers.ttiReload = await ready();
    const after = await snapshot();
    assert.deepEqual(after, before);
  });

  await step("a stored conversation that fails to load: a clear message, its data kept, the rest works", async () => {
    const broken = '{"id":"x","children":[],"message":';
    const id = await page.evaluate(async (row) => {
      const li = [...document.querySelectorAll("#conv-list li")].find((e) => e.querySelector(".conv-name").textContent === "copy");
      const db = await new Promise((resolve, reject) => {
        const r = indexedDB.open("sessiontree-demo");
        r.onsuccess = () => resolve(r.result);
        r.onerror = () => reject(r.error);
      });
      // One node record of the conversation, cut short.
      const tx = db.transaction("rows", "readwrite");
      tx.objectStore("rows").put(row, [li.dataset.id, "n", "x"]);
      await new Promise((resolve) => { tx.oncomplete = resolve; });
      db.close();
      return li.dataset.id;
    }, broken);
    await page.reload();
    await ready();
    await page.click(`#conv-list li[data-id="${id}"] .conv-open`);
    await page.waitForSelector(".error-card >> text=could not be opened");
    assert.match(await page.textContent(".error-card"), /corrupt/);
    // Nothing can be sent into it: a message typed there would go nowhere.
    assert.equal(await page.isDisabled("#input"), true, "the composer of a conversation that failed to open is enabled");
    assert.equal(await page.isDisabled("#send"), true);
    const [dl] = await Promise.all([page.waitForEvent("download"), page.click(".error-card button")]);
    assert.ok((await fs.readFile(await dl.path(), "utf8")).includes(`"x":${broken}`), "the download holds the stored records as they are");
    await page.locator("#conv-list li").last().locator(".conv-open").click();
    await page.waitForFunction(() => document.querySelector("#conv-title").textContent === "Hello tree" && document.querySelectorAll("#messages article.msg").length > 0);
  });

  await step("an import whose tab closed before its records were all written is removed at the next start; one under way elsewhere is left alone", async () => {
    // In the page (its CSP allows no eval): "plant", "read" or "clean" the records below.
    const idb = (op) => page.evaluate(async (op) => {
      const db = await new Promise((resolve, reject) => {
        const r = indexedDB.open("sessiontree-demo");
        r.onsuccess = () => resolve(r.result);
        r.onerror = () => reject(r.error);
      });
      const tx = db.transaction(["meta", "rows"], "readwrite");
      const req = (r) => new Promise((resolve) => { r.onsuccess = () => resolve(r.result); });
      const meta = tx.objectStore("meta"), rows = tx.objectStore("rows");
      let out = null;
      const now = Date.now();
      if (op === "plant") {
        // What feedRows leaves when its tab closes mid-import: a meta record marked
        // importing (2 minutes ago) and some of the rows; and an import under way now.
        meta.put({ id: "half-import", title: "half imported", createdAt: now, updatedAt: now, rev: 1, importing: now - 120000, root: "a", activeBranch: "main" });
        rows.put('{"id":"a","children":["b"],"message":{"role":"user","content":"hi"},"created_at_ms":1}', ["half-import", "n", "a"]);
        meta.put({ id: "live-import", title: "importing elsewhere", createdAt: now, updatedAt: now, rev: 1, importing: now, root: "a", activeBranch: "main" });
      } else if (op === "read") {
        out = {
          half: (await req(meta.get("half-import"))) ?? null,
          rows: await req(rows.getAllKeys(IDBKeyRange.bound(["half-import"], ["half-import", []]))),
          live: (await req(meta.get("live-import"))) ?? null,
        };
      } else meta.delete("live-import");
      await new Promise((resolve) => { tx.oncomplete = resolve; });
      db.close();
      return out;
    }, op);
    await idb("plant");
    await page.reload();
    await ready();
    await page.waitForSelector(".toast >> text=half imported");
    const names = await page.$$eval("#conv-list .conv-name", (els) => els.map((e) => e.textContent));
    assert.ok(!names.includes("half imported") && !names.includes("importing elsewhere"), `listed: ${names.join(", ")}`);
    const left = await idb("read");
    assert.equal(left.half, null, "the interrupted import's meta is still stored");
    assert.deepEqual(left.rows, [], "the interrupted import's rows are still stored");
    assert.equal(left.live?.title, "importing elsewhere", "an import under way in another tab was removed");
    await idb("clean");
  });

  const big = await bigTree(pathToFileURL(path.join(repo, "web/dist/sessiontree.js")).href, 10000);
  await step("a 10,000-node import, then navigating it", async () => {
    const t0 = Date.now();
    await page.setInputFiles("#file", { name: "big.tree.json", mimeType: "application/json", buffer: Buffer.from(big.json) });
    await page.waitForFunction(() => document.querySelector("#conv-title").textContent === "big" && window.sessiontreeDemo.treeView?.boxes.length > 0);
    // 921 boxes: the 500 around the active message, then More lays out all.
    assert.ok(await demo(() => window.sessiontreeDemo.treeView.partial && window.sessiontreeDemo.treeView.boxes.length <= 500), "a window of the boxes");
    await page.click("#tree-more");
    await page.waitForFunction(() => window.sessiontreeDemo.treeView.nodeCount === 10000);
    numbers.import10k = Date.now() - t0;
    numbers.layout10k = await demo(() => window.sessiontreeDemo.treeView.layoutMs);
    numbers.boxes10k = await demo(() => window.sessiontreeDemo.treeView.boxes.length);
    await page.waitForTimeout(100);
    await page.screenshot({ path: path.join(shots, "tree-10k.png") });
    const clicks = [];
    for (const id of big.visit) {
      const p = await demo((id) => window.sessiontreeDemo.treeView.pointOf(id), id);
      assert.ok(p, `node ${id} is in the tree view`);
      const c0 = Date.now();
      await page.mouse.click(p.x, p.y);
      await page.waitForFunction((id) => window.sessiontreeDemo.tree.activePath().includes(id) && document.querySelector(`#messages [data-id="${id}"]`), id);
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r())));
      clicks.push({ wall: Date.now() - c0, inPage: await demo(() => window.sessiontreeDemo.timings.treeClick) });
    }
    numbers.click10k = clicks;
    await page.fill("#search", "needle-4985");
    await page.waitForSelector("#search-results .hit");
    numbers.search10k = await demo(() => window.sessiontreeDemo.timings.search);
    const s0 = Date.now();
    await page.locator("#search-results .hit").first().click();
    await page.waitForFunction(() => [...document.querySelectorAll("#messages .msg-body")].some((b) => b.textContent.includes("needle-4985")));
    numbers.searchOpen10k = Date.now() - s0;
    await page.fill("#search", "");
    // Pan and zoom: frames drawn while the view moves.
    const canvas = await page.locator(".tree-canvas").boundingBox();
    const f0 = Date.now();
    await page.mouse.move(canvas.x + 200, canvas.y + 200);
    for (let i = 0; i < 10; i++) await page.mouse.wheel(0, 120);
    await page.click("#tree-fit");
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r())));
    numbers.zoomOut10k = Date.now() - f0;
    await page.screenshot({ path: path.join(shots, "tree-10k-fit.png") });
    await page.click("#tree-active");
    await saved();
    const r0 = Date.now();
    await page.reload();
    numbers.ttiReload10k = await ready();
    numbers.ttiReload10kWall = Date.now() - r0;
    assert.equal(await demo(() => window.sessiontreeDemo.tree.stats().nodes), 10000);
  });

  await step("the tree view takes a send without a new layout: the run box at the leaf grows, and the view is what a fresh layout gives", async () => {
    if ((await page.getAttribute("#btn-tree", "aria-pressed")) !== "true") await page.click("#btn-tree");
    await page.waitForFunction(() => window.sessiontreeDemo.treeView?.boxes.length > 0 && window.sessiontreeDemo.tree);
    // The same boxes as a layout of a read now (t.subtreeAround the leaf, the
    // view's limit): first and last node, run length, branch ends, messages.
    const sameAsFresh = () => demo(() => {
      const v = window.sessiontreeDemo.treeView;
      const t = window.sessiontreeDemo.tree;
      const read = t.subtreeAround(t.pathWindow(-1).ids[0], { limit: v.limit }).nodes;
      const fresh = read.map((e) => `${e.id}|${e.last}|${e.run}|${e.branches.join(",")}`).sort();
      const shown = v.boxes.map((x) => `${x.id}|${x.last}|${x.run}|${(x.names ?? []).join(",")}`).sort();
      const a = new Set(shown);
      const b = new Set(fresh);
      return { missing: fresh.filter((x) => !a.has(x)), extra: shown.filter((x) => !b.has(x)), count: v.nodeCount, nodes: read.reduce((n, e) => n + e.run, 0) };
    });
    const before = await demo(() => ({ extended: window.sessiontreeDemo.treeView.extended ?? 0, layouts: window.sessiontreeDemo.timings.treeLayout }));
    const leaf0 = await demo(() => window.sessiontreeDemo.tree.pathWindow(-1).ids[0]);
    await page.fill("#input", "grows the run box");
    await page.press("#input", "Enter");
    await page.waitForFunction((leaf0) => {
      const t = window.sessiontreeDemo.tree;
      const w = t.pathWindow(-2);
      return !document.querySelector(".typing") && w.messages[1]?.role === "assistant" && t.node(w.ids[0]).parent === leaf0;
    }, leaf0);
    const after = await demo(() => ({ extended: window.sessiontreeDemo.treeView.extended ?? 0, update: window.sessiontreeDemo.timings.treeUpdate }));
    assert.equal(after.extended - before.extended, 2, "the send and its reply each grew the leaf's box");
    let d = await sameAsFresh();
    assert.deepEqual([d.missing, d.extra, d.count], [[], [], d.nodes], "after sends, the view is the fresh layout");
    numbers.treeAppend10k = after.update;
    // A fork is laid out anew, and is what a fresh layout gives as well.
    const replies = await demo(() => window.sessiontreeDemo.tree.siblings(window.sessiontreeDemo.tree.pathWindow(-1).ids[0]).siblings.length);
    await msgs.last().hover();
    await msgs.last().locator('[data-action="regenerate"]').click();
    await page.waitForFunction((k) => !document.querySelector(".typing") && window.sessiontreeDemo.tree.siblings(window.sessiontreeDemo.tree.pathWindow(-1).ids[0]).siblings.length === k + 1, replies);
    d = await sameAsFresh();
    assert.deepEqual([d.missing, d.extra, d.count], [[], [], d.nodes], "after a regenerate, the view is the fresh layout");
    await saved();
  });

  await step("a label on a message that is a box of its own keeps every box in its place; one inside a run lays the tree out anew", async () => {
    const view = () => demo(() => {
      const v = window.sessiontreeDemo.treeView;
      const t = window.sessiontreeDemo.tree;
      const fresh = t.subtreeAround(t.pathWindow(-1).ids[0], { limit: v.limit }).nodes.map((e) => `${e.id}|${e.last}|${e.run}|${e.label ?? ""}|${e.branches.join(",")}`).sort();
      const shown = v.boxes.map((x) => `${x.id}|${x.last}|${x.run}|${x.label ?? ""}|${(x.names ?? []).join(",")}`).sort();
      return { same: JSON.stringify(fresh) === JSON.stringify(shown), places: v.boxes.map((x) => `${x.id}@${x.x},${x.y}`).join(" "), patched: v.patched ?? 0, view: [v.k, v.tx, v.ty] };
    });
    const n = await msgs.count();
    // The regenerated reply: a fork's child and a branch's end, a box of its own.
    const leaf = await demo(() => window.sessiontreeDemo.tree.pathWindow(-1).ids[0]);
    assert.equal(await demo((id) => window.sessiontreeDemo.treeView.boxOf.get(id)?.run, leaf), 1);
    const before = await view();
    await act(n - 1, "label");
    await modal({ label: "kept in place" });
    await page.waitForFunction((k) => (window.sessiontreeDemo.treeView.patched ?? 0) === k + 1, before.patched);
    const after = await view();
    assert.ok(after.same, "after a label, the boxes say what a fresh read says");
    assert.equal(after.places, before.places, "no box moved");
    assert.deepEqual(after.view, before.view, "the view did not move");
    assert.equal(await demo((id) => window.sessiontreeDemo.treeView.boxOf.get(id).label, leaf), "kept in place");
    // The message two before: inside a run, which the label parts.
    await act(n - 3, "label");
    await modal({ label: "parts a run" });
    await page.waitForFunction(() => window.sessiontreeDemo.treeView.boxes.some((b) => b.label === "parts a run"));
    const parted = await view();
    assert.ok(parted.same, "after a label inside a run, the boxes are what a fresh read gives");
    assert.equal(parted.patched, after.patched, "a parted run is laid out anew");
    await saved();
  });

  await step("a tree with more boxes than the view lays out: the boxes around the active message, kept in step by a send, a label and a switch without reading the tree again; More widens it", async () => {
    const { init, SessionTree } = await import(pathToFileURL(path.join(repo, "web/dist/sessiontree.js")).href);
    await init();
    // 6,000 messages, an edited question with its answer every 5: ~2,400 boxes.
    const messages = Array.from({ length: 6000 }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: `${i % 2 ? "Answer" : "Question"} ${i}` }));
    const built = SessionTree.fromLinear(messages, 1_700_000_000_000);
    const path0 = built.activePath();
    for (let i = 5, at = 1_750_000_000_000; i < 5990; i += 5) {
      built.edit(path0[i - (i % 2)], { role: "user", content: `Another question ${i}` }, at++);
      built.append({ role: "assistant", content: `Another answer ${i}` }, at++);
    }
    built.switchBranch("main");
    const file = built.save();
    const whole = built.subtree(null, { runs: true }).nodes.length;
    built.free();
    if ((await page.getAttribute("#btn-tree", "aria-pressed")) !== "true") await page.click("#btn-tree");
    await page.setInputFiles("#file", { name: "windowed.tree.json", mimeType: "application/json", buffer: Buffer.from(file) });
    await page.waitForFunction(() => document.querySelector("#conv-title").textContent === "windowed" && window.sessiontreeDemo.treeView?.boxes.length > 0 && document.body.dataset.ready === "1");
    // The view against a fresh read around the leaf it shows, box by box.
    const view = () => demo(() => {
      const v = window.sessiontreeDemo.treeView;
      const t = window.sessiontreeDemo.tree;
      const leaf = t.pathWindow(-1).ids[0];
      const key = (id, last, run, label, names) => `${id}|${last}|${run}|${label ?? ""}|${(names ?? []).join(",")}`;
      const fresh = t.subtreeAround(leaf, { limit: v.limit }).nodes.map((e) => key(e.id, e.last, e.run, e.label, e.branches)).sort();
      const shown = v.boxes.map((b) => key(b.id, b.last, b.run, b.label, b.names)).sort();
      const on = t.onPath(v.boxIds());
      return {
        same: JSON.stringify(fresh) === JSON.stringify(shown), boxes: v.boxes.length, partial: v.partial, above: v.above, leaf, hasLeaf: v.boxOf.get(leaf)?.last === leaf,
        highlight: v.boxIds().every((id, i) => v.active.has(id) === on[i]), reads: v.reads ?? 0, extended: v.extended ?? 0, patched: v.patched ?? 0,
        more: !document.querySelector("#tree-more").hidden, info: document.querySelector("#treepane .tree-info").title,
      };
    });
    let v = await view();
    assert.ok(v.partial && v.above > 0 && v.boxes <= 500 && v.boxes > 400 && whole > 2000, `a window of the ${whole} boxes: ${JSON.stringify(v)}`);
    assert.ok(v.same && v.hasLeaf && v.highlight && v.more, `the window is a fresh read around the leaf: ${JSON.stringify(v)}`);
    assert.match(v.info, /^[\d,]+ boxes: the [\d,]+ around the active message, [\d,]+ messages above them/);
    // A send and its reply: the leaf's box grows twice, nothing is read again.
    const before = v;
    await page.fill("#input", "a send into a window");
    await page.press("#input", "Enter");
    await page.waitForFunction((leaf0) => {
      const t = window.sessiontreeDemo.tree;
      const w = t.pathWindow(-2);
      return !document.querySelector(".typing") && w.messages[1]?.role === "assistant" && t.node(w.ids[0]).parent === leaf0;
    }, before.leaf);
    v = await view();
    assert.deepEqual([v.reads, v.extended - before.extended], [before.reads, 2], "a send grows the leaf's box without a read");
    assert.ok(v.same && v.hasLeaf && v.highlight, `after a send, the view is a fresh read: ${JSON.stringify(v)}`);
    // A label on the message that starts the leaf's box parts the box (a
    // labelled message is a box of its own): read again. A new label on it
    // then rewrites that box's words only.
    const start = await demo(() => window.sessiontreeDemo.treeView.boxOf.get(window.sessiontreeDemo.tree.pathWindow(-1).ids[0]).id);
    const m = page.locator(`#messages article.msg[data-id="${start}"]`);
    await m.hover();
    await m.locator('[data-action="label"]').click();
    await modal({ label: "parts a box" });
    await page.waitForFunction((k) => window.sessiontreeDemo.treeView.reads === k + 1, v.reads);
    v = await view();
    assert.ok(v.same && v.highlight, `after a label that parts a box, the view is a fresh read: ${JSON.stringify(v)}`);
    await m.hover();
    await m.locator('[data-action="label"]').click();
    await modal({ label: "renamed" });
    await page.waitForFunction((k) => (window.sessiontreeDemo.treeView.patched ?? 0) === k + 1, v.patched);
    const labelled = await view();
    assert.equal(labelled.reads, v.reads, "a new label on a labelled message reads nothing else");
    assert.ok(labelled.same && labelled.highlight, `after a label, the view is a fresh read: ${JSON.stringify(labelled)}`);
    // ‹ › to the other version of that message (a fork in view): the highlight moves, nothing is read.
    await m.hover();
    await m.locator('[data-action="next"]').click();
    await page.waitForFunction((leaf) => window.sessiontreeDemo.tree.pathWindow(-1).ids[0] !== leaf, labelled.leaf);
    v = await view();
    assert.ok(v.hasLeaf && v.highlight && v.reads === labelled.reads, `a switch inside the window moves the highlight only: ${JSON.stringify(v)}`);
    // More: four times the boxes (2,000), then the whole tree (and the box the label parted off).
    await page.click("#tree-more");
    await page.waitForFunction((k) => window.sessiontreeDemo.treeView.reads === k + 1, v.reads);
    v = await view();
    assert.ok(v.partial && v.boxes <= 2000 && v.boxes > 1900 && v.same && v.hasLeaf && v.highlight, `More: four times the boxes: ${JSON.stringify(v)}`);
    await page.click("#tree-more");
    await page.waitForFunction((k) => window.sessiontreeDemo.treeView.reads === k + 1, v.reads);
    v = await view();
    assert.ok(!v.partial && !v.more && v.boxes === whole + 1 && v.same, `More lays out the whole tree: ${JSON.stringify(v)}`);
    await saved();
  });

  // A 1 MB message (a pasted log, a model writing out base64) held the page
  // 3.6 s to draw, one unbroken word of it 8.5 s, on arrival and at every open.
  await step("a message over 64 KB shows its first part and a button for the rest; the message itself is whole (Dec 7)", async () => {
    await page.keyboard.press("Control+Shift+O");
    const word = "QUJD".repeat(150_000); // one unbroken 600 KB word, as base64 is
    await page.evaluate((t) => { document.getElementById("input").value = t; document.getElementById("composer").requestSubmit(); }, word);
    await page.waitForFunction(() => document.querySelectorAll("#messages article.msg").length === 2 && !document.querySelector(".typing"));
    const first = page.locator("#messages article.msg").first();
    const shown = await first.locator(".msg-body").evaluate((b) => b.textContent.length);
    assert.ok(shown < 70 * 1024, `${shown} characters drawn of ${word.length}`);
    assert.match(await first.locator(".fold-note").textContent(), /KB more not shown/);
    assert.equal((await page.evaluate(() => window.sessiontreeDemo.tree.pathWindow(0, 1).messages[0].content)).length, word.length, "the message is stored whole");
    await first.locator(".show-all").click();
    assert.ok((await first.locator(".msg-body").evaluate((b) => b.textContent.length)) >= word.length, "Show all shows it all");
    await saved();
  });

  await step("narrow screen (phone width): the chat, and the tree pane with a usable toolbar (screenshots)", async () => {
    await page.locator("#conv-list li").last().locator(".conv-open").click();
    const treeOpen = async (open) => {
      if ((await page.getAttribute("#btn-tree", "aria-pressed")) !== String(open)) await page.click("#btn-tree");
      await page.waitForSelector(`#btn-tree[aria-pressed="${open}"]`);
    };
    await treeOpen(false);
    await page.setViewportSize({ width: 390, height: 800 });
    await page.waitForTimeout(400); // the sidebar slides out of view
    // A Markdown table wider than the screen scrolls sideways: its words are not broken letter by letter.
    await page.fill("#input", "| Language | Typing | Performance | Ecosystem | Concurrency |\n|---|---|---|---|---|\n| Python | dynamic | interpreted | enormous | asyncio |");
    await page.press("#input", "Enter");
    await page.waitForFunction(() => !document.querySelector(".typing") && document.querySelector("#messages article.msg.user table"));
    const broken = await demo(() => {
      const table = [...document.querySelectorAll("#messages article.msg.user table")].at(-1);
      table.scrollIntoView();
      return [...table.querySelectorAll("td, th")].filter((c) => {
        const r = document.createRange();
        r.selectNodeContents(c);
        return r.getClientRects().length > 1;
      }).map((c) => c.textContent);
    });
    assert.deepEqual(broken, [], "one-word cells broken across lines");
    await page.screenshot({ path: path.join(shots, "phone-table.png") });
    await page.evaluate(() => { const m = document.getElementById("messages"); m.scrollTop = m.scrollHeight; });
    await page.screenshot({ path: path.join(shots, "phone.png") });
    await treeOpen(true);
    await page.waitForFunction(() => window.sessiontreeDemo.treeView?.boxes.length > 0);
    // Every control of the toolbar is on screen, not covered, and works.
    const controls = ["#tree-compact", "#tree-active", "#tree-fit", "#tree-out", "#tree-in"];
    for (const sel of controls) {
      const box = await page.locator(sel).boundingBox();
      assert.ok(box && box.x >= 0 && box.x + box.width <= 390 && box.y >= 0 && box.y + box.height <= 800, `${sel} on screen: ${JSON.stringify(box)}`);
      const hit = await page.evaluate(([s, x, y]) => document.elementFromPoint(x, y)?.closest("label, button") === document.querySelector(s).closest("label, button"), [sel, box.x + box.width / 2, box.y + box.height / 2]);
      assert.ok(hit, `${sel} is not covered`);
    }
    const canvas = await page.locator("#treepane .tree-canvas").boundingBox();
    assert.ok(canvas.height > 400 && canvas.width >= 380, `the tree has the screen: ${JSON.stringify(canvas)}`);
    const k0 = await page.evaluate(() => window.sessiontreeDemo.treeView.k);
    await page.click("#tree-in");
    await page.waitForFunction((k) => window.sessiontreeDemo.treeView.k > k, k0);
    await page.click("#tree-fit");
    await page.waitForTimeout(100);
    await page.screenshot({ path: path.join(shots, "phone-tree.png") });
    await treeOpen(false);
    await page.setViewportSize({ width: 1440, height: 900 });
  });

  assert.deepEqual(dialogs, [], "no dialog fired");
  assert.deepEqual(errors, [], "no console or page error");
  // Counted since the last load of the page (a reload starts again), which
  // drew the conversations' list and a chat's messages.
  assert.equal(await page.evaluate(() => window.__dateFormatsMade), 0, "the page formatted dates with Date's toLocale*String (a formatter made each call)");
}

let failed = false;
try {
  await main();
} catch (e) {
  failed = true;
  console.error("FAIL", e);
} finally {
  await browser?.close().catch(() => {});
  stopServer();
  if (userDataDir) await fs.rm(userDataDir, { recursive: true, force: true });
}
const ms = (v) => (typeof v === "number" ? `${Math.round(v)} ms` : v);
console.log(`# screenshots: ${shots}`);
console.log(`# time to interactive (navigation start to ready, in page): fresh ${ms(numbers.ttiFresh)}, reload ${ms(numbers.ttiReload)}, reload with the 10k-node conversation open ${ms(numbers.ttiReload10k)}`);
if (numbers.import10k) {
  console.log(`# 10k nodes: import + layout + first draw ${ms(numbers.import10k)} (layout ${ms(numbers.layout10k)}, ${numbers.boxes10k} boxes); search ${ms(numbers.search10k)}, open a hit ${ms(numbers.searchOpen10k)}; zoom out + fit ${ms(numbers.zoomOut10k)}`);
  console.log(`# 10k nodes: tree clicks (click to rendered, wall / in page): ${(numbers.click10k ?? []).map((c) => `${c.wall}/${Math.round(c.inPage)}`).join(", ")} ms`);
}
console.log(`# ${failed ? "FAILED" : "passed"} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
process.exit(failed ? 1 : 0);
