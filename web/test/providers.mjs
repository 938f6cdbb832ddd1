// The demo against model endpoints, end to end in headless Chromium: a local
// mock of an OpenAI-compatible chat completions server and of Anthropic's
// Messages API (started here, on a free loopback port) that streams or not,
// fails with 500, fails once, hangs, or goes quiet mid-stream. Checks that
// tokens arrive progressively, Stop keeps the partial reply, Markdown and code
// render, each request body is accepted by its API's published request types
// (the official SDKs' create-params types, checked by tsc: web/test/schema.mjs),
// and a two-chat ChatGPT export becomes two titled conversations. Screenshots
// go to web/test/screenshots.   node web/test/providers.mjs   (after make web-dist)
import fs from "node:fs/promises";
import path from "node:path";
import assert from "node:assert/strict";
import { repo, serveDist, launchChromium, openPage, step } from "./start.mjs";
import { judgeBodies } from "./schema.mjs";
import { startMock, REPLY } from "./mock.mjs";

const shots = path.join(repo, "web/test/screenshots");

const shown = []; // { api, body }: the request Settings shows as what will be sent

const mockServer = await startMock();
const mock = mockServer.url;
const requests = mockServer.requests; // { api, body, headers, at }

// ---- the page ---------------------------------------------------------------------------
const { server: serve, base } = await serveDist();
const chrome = await launchChromium("providers", { viewport: { width: 1280, height: 900 } });
const browser = chrome.browser;
const errors = [];
let allowNetworkErrors = false;


let failed = false;
try {
  await fs.mkdir(shots, { recursive: true });
  const page = await openPage(browser, base, errors, 20000, () => allowNetworkErrors);
  const msgs = page.locator("#messages article.msg");
  const settings = async (values, { api, mode = "endpoint" } = {}) => {
    await page.click("#btn-settings");
    await page.waitForSelector("#dialog[open]");
    await page.check(`#dialog input[name="mode"][value="${mode}"]`);
    if (api) await page.check(`#dialog input[name="api"][value="${api}"]`);
    for (const [k, v] of Object.entries(values)) await page.fill(`#dialog [name="${k}"]`, v);
    await page.locator("#dialog button[type=submit]").click();
    await page.waitForSelector("#dialog:not([open])", { state: "attached" });
  };
  // Sends text and records the lengths of the reply as it is painted.
  const sendWatching = (text) => page.evaluate((text) => {
    const lengths = [];
    const box = document.getElementById("messages");
    const obs = new MutationObserver(() => {
      const b = box.querySelector(".typing .msg-body");
      if (b && b.textContent.length && b.textContent.length !== lengths.at(-1)) lengths.push(b.textContent.length);
    });
    obs.observe(box, { subtree: true, childList: true, characterData: true });
    window.__lengths = lengths;
    window.__stopWatching = () => obs.disconnect();
    document.getElementById("input").value = text;
    document.getElementById("composer").requestSubmit();
  }, text);
  const settled = () => page.waitForFunction(() => !document.querySelector(".typing"));
  // Edits the chat's first message to text and waits for the reply to the new version.
  const editFirst = async (text) => {
    const first = msgs.first();
    await first.hover();
    await first.locator('[data-action="edit"]').click();
    await page.fill("#messages .editor", text);
    await page.click('[data-action="save-edit"]');
    await settled();
  };
  const lastBody = () => msgs.last().locator(".msg-body");

  await step("OpenAI-compatible, streamed: tokens painted as they arrive, Markdown and code rendered", async () => {
    await settings({ url: `${mock}/openai/v1`, key: "sk-test", model: "mock-gpt", timeout: "2", system: "Answer briefly." }, { api: "openai-chat" });
    await sendWatching("Hello streaming [stream]");
    await page.waitForSelector(".typing.streaming");
    await page.screenshot({ path: path.join(shots, "streaming.png") });
    await settled();
    const lengths = await page.evaluate(() => { window.__stopWatching(); return window.__lengths; });
    assert.ok(lengths.length >= 5 && lengths.every((n, i) => !i || n > lengths[i - 1]), `painted progressively: ${lengths.join(", ")}`);
    const body = lastBody();
    assert.equal(await body.locator("h1").textContent(), "Plan");
    assert.equal(await body.locator("strong").textContent(), "bold");
    assert.equal(await body.locator("a").getAttribute("rel"), "noopener noreferrer nofollow");
    assert.equal(await body.locator("li").count(), 2);
    assert.equal(await body.locator("table td").count(), 2);
    assert.equal(await body.locator(".code-lang").textContent(), "python");
    assert.ok(await body.locator("pre code.hljs .hljs-built_in, pre code.hljs span").count() > 0, "the code is highlighted");
    assert.ok(await body.locator(".code-copy").count() === 1, "a copy button on the code block");
    assert.match(await body.textContent(), /Text after the fence\./);
    assert.match(await msgs.last().locator(".role").textContent(), /openai-mock/);
    const req = requests.at(-1);
    assert.equal(req.api, "openai");
    assert.equal(req.body.stream, true);
    assert.deepEqual(req.body.messages[0], { role: "system", content: "Answer briefly." });
    assert.equal(req.headers.authorization, "Bearer sk-test");
    console.log(`#    painted lengths while streaming: ${lengths.slice(0, 8).join(", ")}, … (${lengths.length} paints)`);
  });

  await step("code fences: text on a fence line and after a closing fence is shown", async () => {
    await settings({}, { mode: "demo" });
    await page.fill("#input", "```python print(1)``` and after");
    await page.press("#input", "Enter");
    await settled();
    const t = await msgs.nth(-2).locator(".msg-body").textContent();
    assert.match(t, /python print\(1\)/);
    assert.match(t, /and after/);
    await page.fill("#input", "```js\nlet a = 1;\n```\nafter the fence <b>not bold</b>");
    await page.press("#input", "Enter");
    await settled();
    const b = msgs.nth(-2).locator(".msg-body");
    assert.equal(await b.locator(".code-lang").textContent(), "js");
    assert.match(await b.textContent(), /after the fence <b>not bold<\/b>/);
    assert.equal(await b.locator("b").count(), 0, "raw HTML stays text");
  });

  await step("Stop keeps the partial reply, marked incomplete", async () => {
    await settings({}, { mode: "endpoint" });
    await sendWatching("Tell me slowly [slow]");
    await page.waitForFunction(() => (document.querySelector(".typing .msg-body")?.textContent.length ?? 0) > 10);
    await page.click("#stop");
    await settled();
    const last = msgs.last();
    assert.match(await last.locator(".msg-status").textContent(), /incomplete \(stopped\)/);
    const kept = await last.locator(".msg-body").textContent();
    assert.ok(kept.length > 5 && kept.length < REPLY.length - 20, `partial text kept (${kept.length} characters)`);
    const stored = await page.evaluate(() => window.sessiontreeDemo.tree.pathWindow(-1).messages[0]);
    assert.equal(stored.incomplete, true);
    assert.equal(stored.stop_reason, "stopped");
    await page.screenshot({ path: path.join(shots, "stopped.png") });
    // Edited by the user, the new version is whole: not incomplete, no stop_reason.
    await last.hover();
    await last.locator('[data-action="edit"]').click();
    await page.fill("#messages .editor", "My own answer, whole.");
    await page.click('[data-action="save-edit"]');
    await page.waitForFunction(() => window.sessiontreeDemo.tree.pathWindow(-1).messages[0].content === "My own answer, whole.");
    const edited = await page.evaluate(() => window.sessiontreeDemo.tree.pathWindow(-1).messages[0]);
    assert.equal(edited.incomplete, undefined);
    assert.equal(edited.stop_reason, undefined);
    assert.equal(await msgs.last().locator(".msg-status").count(), 0, "the edited reply is shown incomplete");
    await msgs.last().locator('[data-action="prev"]').click(); // back on main, where the next steps go on
    await page.waitForFunction(() => window.sessiontreeDemo.tree.activeBranch === "main");
  });

  await step("an endpoint that goes quiet mid-stream: the reply so far is kept (timeout)", async () => {
    await sendWatching("Then go quiet [quiet]");
    await settled();
    assert.match(await msgs.last().locator(".msg-status").textContent(), /incomplete \(timeout\)/);
  });

  // Sends text, waits for the reply, and returns how it was stored and shown.
  const endOf = async (text) => {
    await page.fill("#input", text);
    await page.press("#input", "Enter");
    await settled();
    const m = await page.evaluate(() => window.sessiontreeDemo.tree.pathWindow(-1).messages[0]);
    const status = await msgs.last().locator(".msg-status").textContent().catch(() => null);
    return `${m.incomplete ? `incomplete ${m.stop_reason}` : "whole"} | ${status}`;
  };

  await step("OpenAI-compatible: a stream cut off before [DONE] and one at the token limit are kept, marked incomplete", async () => {
    assert.equal(await endOf("Cut me off [cut]"), "incomplete cut | incomplete (cut)");
    assert.equal(await endOf("Run out of tokens [length]"), "incomplete length | incomplete (length)");
    assert.equal(await endOf("A whole one [stream]"), "whole | null");
  });

  await step("an error the server reports in the stream after some text: the text kept, the server's words in the banner", async () => {
    assert.equal(await endOf("Break down [miderr]"), "incomplete error | incomplete (error)");
    assert.match(await page.textContent("#banner:not([hidden]) .banner-text"), /^The reply was cut short: .+ reported: the mock broke mid-stream\. What came is kept/);
    await page.click("#banner .banner-close");
  });

  await step("HTTP 500: retried, then a clear error; 503 once: retried and answered", async () => {
    allowNetworkErrors = true;
    const before = requests.length;
    await page.fill("#input", "Fail please [fail500]");
    await page.press("#input", "Enter");
    await page.waitForSelector("#banner:not([hidden]) >> text=/HTTP 500: the mock is down/");
    assert.equal(requests.length - before, 3, "the first try and two retries");
    assert.equal(await lastBody().textContent(), "Fail please [fail500]");
    await page.click("#banner .banner-close");
    await page.fill("#input", "Once more [flaky]");
    await page.press("#input", "Enter");
    await page.waitForSelector(".toast >> text=/Retrying \\(1\\/2\\)/");
    await settled();
    assert.match(await lastBody().textContent(), /Text after the fence/);
    allowNetworkErrors = false;
  });

  await step("an HTML error page, a stream that is not the API's and one with no text: a short error with the page's title, never its markup, and no empty reply stored; Stop before the first token is a notice, not an error (Dec 6, night)", async () => {
    allowNetworkErrors = true;
    const nodes = async () => page.evaluate(() => window.sessiontreeDemo.tree.stats().nodes);
    for (const [text, want] of [
      ["A proxy in the way [html500]", /HTTP 500: an HTML page, \u201c502 Bad Gateway\u201d\. Your message is kept\.$/],
      ["Speak nonsense [garbage]", /sent an event stream that is not OpenAI's: \u201c\{not json\u201d\. Your message is kept\.$/],
      ["Say nothing [empty]", /ended its stream without any text\. Your message is kept\.$/],
    ]) {
      const before = await nodes();
      await page.fill("#input", text);
      await page.press("#input", "Enter");
      const banner = await page.waitForSelector("#banner:not([hidden]) .banner-text");
      const said = await banner.textContent();
      assert.match(said, want);
      assert.doesNotMatch(said, /<|alert/, "markup in the banner");
      assert.equal(await nodes(), before + 1, "a reply was stored");
      assert.equal(await lastBody().textContent(), text);
      await page.click("#banner .banner-close");
    }
    await page.evaluate(() => document.querySelectorAll(".toast").forEach((t) => t.remove()));
    await page.fill("#input", "Wait for it [hang]");
    await page.press("#input", "Enter");
    await page.waitForSelector("#stop:not([hidden])");
    await page.click("#stop");
    await page.waitForSelector(".toast >> text=/Stopped before a reply came/");
    assert.equal(await page.isVisible("#banner .banner-text"), false, "an error banner for the user's own stop");
    allowNetworkErrors = false;
  });

  await step("HTTP 429 with Retry-After: a short wait is waited, a long one is not retried by itself and the error says when", async () => {
    allowNetworkErrors = true;
    let before = requests.length;
    await page.fill("#input", "Busy for long [busy30]");
    await page.press("#input", "Enter");
    await page.waitForSelector("#banner:not([hidden]) >> text=/HTTP 429: rate limited\\. The server asks to wait 30 s: try again after \\d/");
    assert.equal(requests.length - before, 1, "not retried by itself");
    await page.click("#banner .banner-close");
    before = requests.length;
    await page.fill("#input", "Busy for a second [busy1]");
    await page.press("#input", "Enter");
    await page.waitForSelector(".toast >> text=/Retrying in 1 s \\(1\\/2\\)/");
    await settled();
    assert.equal(requests.length - before, 2);
    const gap = requests.at(-1).at - requests.at(-2).at;
    assert.ok(gap >= 900, `the second try came ${gap} ms after the first, not after the Retry-After`);
    assert.match(await lastBody().textContent(), /Text after the fence/);
    allowNetworkErrors = false;
  });

  await step("a server that hangs: one timeout (not retried by itself), then an error; the message is kept", async () => {
    allowNetworkErrors = true;
    const before = requests.length;
    await page.fill("#input", "Anyone there? [hang]");
    await page.press("#input", "Enter");
    await page.waitForSelector("#banner:not([hidden]) >> text=/sent nothing within 2 s/", { timeout: 30000 });
    assert.equal(requests.length - before, 1);
    assert.equal(await lastBody().textContent(), "Anyone there? [hang]");
    await page.click("#banner .banner-close");
    allowNetworkErrors = false;
  });

  await step("Anthropic Messages, streamed and not: the body is the API's; what is sent is shown in Settings", async () => {
    await settings({ url: `${mock}/anthropic/v1`, key: "ak-test", model: "mock-claude" }, { api: "anthropic" });
    await sendWatching("Hello Claude [stream]");
    await settled();
    const lengths = await page.evaluate(() => { window.__stopWatching(); return window.__lengths; });
    assert.ok(lengths.length >= 5, `painted progressively: ${lengths.length} paints (banner: ${await page.textContent("#banner")}; last: ${await lastBody().textContent()})`);
    assert.match(await msgs.last().locator(".role").textContent(), /anthropic-mock/);
    assert.equal(await lastBody().locator(".code-lang").textContent(), "python");
    const req = requests.at(-1);
    assert.equal(req.api, "anthropic");
    assert.equal(req.body.system, "Answer briefly.");
    assert.equal(req.headers["x-api-key"], "ak-test");
    assert.equal(req.headers["anthropic-version"], "2023-06-01");
    await page.click("#btn-settings");
    const preview = await page.locator("#dialog pre.preview").textContent();
    assert.match(preview, /POST \/messages/);
    assert.match(preview, /"max_tokens"/);
    shown.push({ api: "anthropic", body: JSON.parse(preview.slice(preview.indexOf("POST /messages\n") + 15)) }); // judged with the sent bodies
    await page.locator("#dialog [name=model]").focus();
    await page.waitForFunction(() => document.querySelectorAll("#dialog datalist option").length === 2);
    await page.screenshot({ path: path.join(shots, "settings-request.png") });
    await page.keyboard.press("Escape");
  });

  await step("a streamed, Markdown-rendered reply in a branched chat (screenshot)", async () => {
    await editFirst("Plan a small garden, with a table and some code [stream]");
    assert.equal(await msgs.first().locator(".switcher .count").textContent(), "2/2");
    await page.evaluate(() => { document.getElementById("messages").scrollTop = 0; });
    await page.screenshot({ path: path.join(shots, "streamed-markdown-branched.png") });
    // The branch list previews the reply's words, not its Markdown syntax.
    assert.match(await page.textContent('#branch-list li[data-branch="main"] .branch-preview'), /^Plan Here is bold text, a link and a list/);
    // A summary is asked for without streaming: the whole JSON answer is read.
    const other = await page.evaluate(() => window.sessiontreeDemo.tree.branches().find((b) => b.name !== window.sessiontreeDemo.tree.activeBranch).name);
    await page.click(`#branch-list li[data-branch="${other}"] [data-action="summarize"]`);
    await page.waitForSelector(`#branch-list li[data-branch="${other}"] .branch-summary >> text=/Plan/`);
    assert.equal(requests.at(-1).api, "anthropic");
    assert.ok(!requests.at(-1).body.stream, "a summary is not streamed");
  });

  await step("Anthropic: a stream cut off before message_stop and one at max_tokens are kept, marked incomplete", async () => {
    assert.equal(await endOf("Cut me off [cut]"), "incomplete cut | incomplete (cut)");
    assert.equal(await endOf("Run out of tokens [length]"), "incomplete max_tokens | incomplete (max_tokens)");
    assert.equal(await endOf("Break down [miderr]"), "incomplete error | incomplete (error)");
    assert.match(await page.textContent("#banner:not([hidden]) .banner-text"), /reported: the mock broke mid-stream/);
    await page.click("#banner .banner-close");
  });

  await step("scrolled up while a reply streams: the view stays there when the reply lands", async () => {
    await page.fill("#input", "A long answer while I read above [slow]");
    await page.press("#input", "Enter");
    await page.waitForSelector(".typing.streaming");
    const box = await page.locator("#messages").boundingBox();
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.wheel(0, -1500);
    await page.waitForTimeout(300);
    const top = await page.evaluate(() => document.getElementById("messages").scrollTop);
    await settled();
    await page.waitForTimeout(200);
    const [after, bottom] = await page.evaluate(() => { const m = document.getElementById("messages"); return [m.scrollTop, m.scrollHeight - m.clientHeight]; });
    assert.ok(bottom - after > 300, `the view jumped to the bottom when the reply landed (${top} → ${after} of ${bottom})`);
  });

  await step("another branch opened while a reply streams: the reply is not drawn there, lands on its own branch, and the view stays", async () => {
    const asking = await page.evaluate(() => window.sessiontreeDemo.tree.activeBranch);
    await page.fill("#input", "Answer on this branch [slow]");
    await page.press("#input", "Enter");
    await page.waitForSelector(".typing.streaming");
    await page.click('#branch-list li[data-branch="main"] .branch-open');
    await page.waitForFunction(() => window.sessiontreeDemo.tree.activeBranch === "main");
    assert.equal(await page.locator(".typing").count(), 0, "the streaming reply is drawn under another branch");
    await page.waitForSelector(".toast >> text=/The reply came on the branch/", { timeout: 20000 });
    assert.equal(await page.evaluate(() => window.sessiontreeDemo.tree.activeBranch), "main", "the view was switched when the reply landed");
    const leaf = await page.evaluate((b) => {
      const t = window.sessiontreeDemo.tree;
      return t.node(t.branches().find((x) => x.name === b).leaf).message;
    }, asking);
    assert.equal(leaf.role, "assistant");
    assert.match(leaf.content, /Text after the fence/);
  });

  await step("a two-chat ChatGPT export becomes two conversations with their titles", async () => {
    const file = path.join(repo, "core", "formats", "testdata", "chatgpt", "two-conversations.json");
    await page.setInputFiles("#file", { name: "conversations.json", mimeType: "application/json", buffer: await fs.readFile(file) });
    await page.waitForSelector(".toast >> text=/2 conversations/");
    const names = await page.locator("#conv-list .conv-name").allTextContents();
    assert.ok(names.includes("Library hours") && names.includes("Welsh"), `titles: ${names.join(" | ")}`);
    assert.equal(await page.textContent("#conv-title"), "Library hours");
    assert.equal(await page.locator("#messages .msg-body .empty").count(), 0, "the hidden system node is not shown as (no text)");
  });

  await step("an import made while a reply streams is stored and listed, not opened, and said so (.tree.json and other formats)", async () => {
    const current = () => page.evaluate(() => localStorage.getItem("sessiontree-demo.current"));
    const stored = () => page.evaluate(async () => (await window.sessiontreeDemo.store.list()).length);
    const [conv, before, tree] = [await current(), await stored(), await page.evaluate(() => window.sessiontreeDemo.tree.save())];
    await page.fill("#input", "Tell me slowly while I import [slow]");
    await page.press("#input", "Enter");
    await page.waitForSelector(".typing.streaming");
    // Another export than the one already imported (that one would be merged into its chats).
    const file = path.join(repo, "core", "formats", "testdata", "chatgpt", "forks.json");
    await page.setInputFiles("#file", { name: "later.json", mimeType: "application/json", buffer: await fs.readFile(file) });
    await page.waitForSelector(".toast >> text=/Imported .later\\.json.: it is in the list, not opened/");
    await page.setInputFiles("#file", { name: "later.tree.json", mimeType: "application/json", buffer: Buffer.from(tree) });
    await page.waitForSelector(".toast >> text=/Imported .later\\.tree\\.json.: it is in the list, not opened/");
    assert.ok(await page.locator(".typing").count() === 1, "the reply was still on its way");
    assert.equal(await current(), conv, "the chat stays on the reply");
    await settled();
    await page.evaluate(() => window.sessiontreeDemo.saved());
    // The .tree.json is the open chat's own: not merged into it while its reply streams, listed on its own.
    assert.equal(await stored(), before + 2, "one conversation from the export, one from the .tree.json");
  });

  await step("search covers every conversation, with clean snippets; a hit opens its conversation", async () => {
    await page.fill("#search", "shwmae");
    const hit = page.locator('#search-results .hit[data-conv]');
    await hit.first().waitFor();
    assert.match(await hit.first().textContent(), /Welsh/);
    assert.doesNotMatch(await page.textContent("#search-results"), /\\n/);
    await hit.first().click();
    await page.waitForFunction(() => document.querySelector("#conv-title").textContent === "Welsh" && [...document.querySelectorAll("#messages .msg-body")].some((b) => b.textContent.includes("Shwmae")));
    await page.fill("#search", "");
  });

  await step("keyboard only: composer, send, Esc stops, ↑ edits, ‹ › keep the focus, Alt+arrows, tree nodes, new chat", async () => {
    await page.click('#conv-list li:has-text("Hello streaming") .conv-open'); // the branched chat
    await page.waitForFunction(() => document.querySelector("#conv-title").textContent.startsWith("Hello streaming"));
    await settings({}, { mode: "endpoint", api: "openai-chat" });
    await settings({ url: `${mock}/openai/v1` });
    await page.locator("body").click({ position: { x: 5, y: 890 } });
    await page.keyboard.press("/");
    assert.equal(await page.evaluate(() => document.activeElement.id), "input");
    await page.keyboard.type("Keyboard only, slowly [slow]");
    await page.keyboard.press("Enter");
    await page.waitForFunction(() => (document.querySelector(".typing .msg-body")?.textContent.length ?? 0) > 5);
    await page.keyboard.press("Escape");
    await settled();
    assert.match(await msgs.last().locator(".msg-status").textContent(), /incomplete \(stopped\)/);
    await page.focus("#input");
    await page.keyboard.press("ArrowUp");
    await page.waitForSelector("#messages .editor");
    assert.equal(await page.evaluate(() => document.activeElement.className), "editor");
    await page.keyboard.press("Escape");
    assert.equal(await page.evaluate(() => document.activeElement.id), "input", "the focus goes back to the composer when the ↑ editor closes");
    // With the mouse: Send and Stop hide themselves; the focus goes to the composer, not to nowhere.
    await page.fill("#input", "Clicked, slowly [slow]");
    await page.click("#send");
    await page.waitForSelector(".typing.streaming");
    assert.equal(await page.evaluate(() => document.activeElement.id), "input", "the focus after clicking Send");
    await page.click("#stop");
    await settled();
    assert.equal(await page.evaluate(() => document.activeElement.id), "input", "the focus after clicking Stop");
    // ‹ › by keyboard: the focus stays on the switcher after the redraw.
    const sw = page.locator("#messages article.msg .switcher [data-action]:not([disabled])").first();
    assert.ok(await sw.count() > 0, "the branched chat shows a switcher");
    {
      const action = await sw.getAttribute("data-action");
      await sw.focus();
      await page.keyboard.press("Enter");
      await page.waitForTimeout(100);
      const focused = await page.evaluate(() => ({ action: document.activeElement.dataset.action, inMsg: !!document.activeElement.closest("article.msg") }));
      assert.ok(focused.inMsg && ["prev", "next"].includes(focused.action), `the focus stayed on the switcher (${JSON.stringify(focused)}, pressed ${action})`);
      const before = await page.evaluate(() => window.sessiontreeDemo.tree.activeBranch + window.sessiontreeDemo.tree.pathWindow(-1).ids[0]);
      await page.keyboard.press(action === "prev" ? "Alt+ArrowRight" : "Alt+ArrowLeft");
      await page.waitForFunction((b) => window.sessiontreeDemo.tree.activeBranch + window.sessiontreeDemo.tree.pathWindow(-1).ids[0] !== b, before);
    }
    // The tree view: a node chosen with arrows and opened with Enter.
    await page.focus("#btn-tree");
    await page.keyboard.press("Enter");
    await page.focus(".tree-canvas");
    const leafBefore = await page.evaluate(() => window.sessiontreeDemo.tree.pathWindow(-1).ids[0]);
    await page.keyboard.press("ArrowUp");
    await page.keyboard.press("ArrowUp");
    assert.match(await page.getAttribute(".tree-canvas", "aria-label"), /^Tree: \w+ message/);
    await page.keyboard.press("Enter");
    await page.waitForFunction((l) => window.sessiontreeDemo.tree.pathWindow(-1).ids[0] !== l || document.querySelector("#messages .flash"), leafBefore);
    await page.focus("#btn-tree");
    await page.keyboard.press("Enter");
    const convs = await page.locator("#conv-list li").count();
    await page.keyboard.press("Control+Shift+O");
    await page.waitForFunction((n) => document.querySelectorAll("#conv-list li").length === n + 1, convs);
    assert.equal(await page.evaluate(() => document.activeElement.id), "input");
    assert.equal(await page.getAttribute("#announce", "aria-live"), "polite");
  });

  await step("while a reply streams, an editor opened before it starts no second reply, and Esc in the editor or the search box leaves the reply alone (Dec 7)", async () => {
    await page.keyboard.press("Control+Shift+O"); // a chat of its own
    await settings({ url: `${mock}/openai/v1` }, { mode: "endpoint", api: "openai-chat" });
    await sendWatching("First, quickly [stream]");
    await settled();
    const first = msgs.first();
    await first.hover();
    await first.locator('[data-action="edit"]').click(); // left open while the next reply streams
    await page.fill("#messages .editor", "First, edited [stream]");
    const before = requests.length;
    await sendWatching("Second, slowly [slow]");
    await page.waitForFunction(() => (document.querySelector(".typing .msg-body")?.textContent.length ?? 0) > 5);
    await page.click('[data-action="save-edit"]');
    await page.waitForFunction(() => [...document.querySelectorAll(".toast")].some((t) => t.textContent.includes("A reply is on its way")));
    assert.equal(requests.length, before + 1, "a second request went out while the first reply streamed");
    assert.equal(await page.inputValue("#messages .editor"), "First, edited [stream]", "the edit's text stays in the editor");
    await page.focus("#messages .editor");
    await page.keyboard.press("Escape");
    await page.waitForFunction(() => !document.querySelector("#messages .editor"));
    await page.fill("#search", "nothing");
    await page.focus("#search");
    await page.keyboard.press("Escape");
    await page.waitForTimeout(300);
    assert.ok(await page.locator(".typing").count(), "Esc in the editor or the search box stopped the reply");
    assert.equal(await page.inputValue("#search"), "", "Esc in the search box clears it");
    await settled();
    const last = await page.evaluate(() => window.sessiontreeDemo.tree.pathWindow(-1).messages[0]);
    assert.equal(last.incomplete, undefined, `the reply was cut: ${last.stop_reason}`);
    assert.equal(requests.length, before + 1);
  });

  await step("a reply streaming when its tab is closed is kept as far as it came, marked incomplete, at the chat's next open (Dec 7)", async () => {
    const other = await openPage(browser, base, errors, 20000, () => allowNetworkErrors); // the same chat, in a second tab
    await other.waitForFunction(() => document.querySelector("#conv-title").textContent.startsWith("First"));
    await other.fill("#input", "Close me midway [slow]");
    await other.press("#input", "Enter");
    await other.waitForFunction(() => (document.querySelector(".typing .msg-body")?.textContent.length ?? 0) > 10);
    const painted = await other.evaluate(() => document.querySelector(".typing .msg-body").textContent);
    allowNetworkErrors = true; // the stream the closed tab cut
    await other.close({ runBeforeUnload: true });
    const again = await openPage(browser, base, errors, 20000, () => allowNetworkErrors);
    await again.waitForFunction(() => window.sessiontreeDemo.tree?.pathWindow(-1).messages[0]?.role === "assistant");
    const kept = await again.evaluate(() => window.sessiontreeDemo.tree.pathWindow(-2).messages);
    assert.equal(kept[0].content, "Close me midway [slow]");
    assert.equal(kept[1].incomplete, true);
    assert.equal(kept[1].stop_reason, "interrupted");
    assert.ok(kept[1].content.length >= painted.trim().length && REPLY.startsWith(kept[1].content.trim()), `kept ${JSON.stringify(kept[1].content)}, painted ${JSON.stringify(painted)}`);
    // Opened again: it is not added twice.
    await again.reload();
    await again.waitForFunction(() => window.sessiontreeDemo.tree?.pathLength() > 0);
    await again.waitForTimeout(500);
    const n = await again.evaluate(() => window.sessiontreeDemo.tree.children(window.sessiontreeDemo.tree.pathWindow(-2).ids[0]).length);
    assert.equal(n, 1, "the kept reply was added twice");
    await again.close();
    allowNetworkErrors = false;
  });

  await step("a summary that comes after its chat was left is attached nowhere, and said so in words (Dec 7)", async () => {
    await page.keyboard.press("Control+Shift+O");
    await settings({ url: `${mock}/openai/v1` }, { mode: "endpoint", api: "openai-chat" });
    await sendWatching("Summarize me [stream]");
    await settled();
    await editFirst("Summarize me, another way [stream]");
    const title = await page.textContent("#conv-title");
    const other = await page.evaluate(() => window.sessiontreeDemo.tree.branches().find((b) => b.name !== window.sessiontreeDemo.tree.activeBranch).name);
    // The summary's request (not streamed) held 1.5 s: the user opens another chat meanwhile.
    await page.route("**/openai/v1/chat/completions", async (route) => {
      if (route.request().method() === "POST" && !JSON.parse(route.request().postData()).stream) await new Promise((r) => setTimeout(r, 1500));
      await route.continue();
    });
    try {
      await page.click(`#branch-list li[data-branch="${other}"] [data-action="summarize"]`);
      await page.keyboard.press("Control+Shift+O");
      await page.waitForFunction(() => [...document.querySelectorAll(".toast")].some((t) => t.textContent.includes("was not attached")), null, { timeout: 10000 });
      assert.equal(await page.isVisible("#banner"), false, `an error banner: ${await page.textContent("#banner")}`);
      assert.ok(!(await page.textContent("#conv-title")).startsWith(title.slice(0, 12)) || title === "New chat", "the page went back to the chat left");
      const summaries = await page.evaluate(() => window.sessiontreeDemo.tree.branches().map((b) => b.summary));
      assert.ok(summaries.every((x) => x === null), "the chat opened got the summary");
    } finally {
      await page.unroute("**/openai/v1/chat/completions");
    }
  });

  await step("every request body is accepted by its API's published request types (tsc over the openai and @anthropic-ai/sdk types)", async () => {
    const t0 = performance.now();
    const all = [...requests, ...shown];
    const verdict = await judgeBodies(all);
    assert.deepEqual(verdict.errors, [], "tsc on the request bodies");
    const n = (api) => all.filter((r) => r.api === api).length;
    console.log(`#    ${verdict.checked} bodies (${n("openai")} chat completions, ${n("anthropic")} Messages; ${shown.length} of them the request Settings shows) type-checked in ${Math.round(performance.now() - t0)} ms`);
  });

  assert.deepEqual(errors, [], "errors on the page");
  console.log(`web providers: all passed; ${requests.length} requests, each accepted by its API's SDK request types`);
} catch (e) {
  failed = true;
  console.error("FAIL", e?.stack ?? e, errors);
} finally {
  await chrome.close();
  serve.kill();
  mockServer.close();
}
process.exit(failed ? 1 : 0);
