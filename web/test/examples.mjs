// The example apps end to end in headless Chromium (issue 24): web/examples/
// assistant-ui (assistant-ui's LocalRuntime with sessiontree/assistant-ui's
// history adapter) and web/examples/ai-sdk (the AI SDK's useChat with
// sessiontree/ai-sdk's syncChat), each built with Vite into web/examples/dist,
// served by web/serve, against the local mock of the model APIs (mock.mjs).
// Each: send, a reply streams, an edit makes a branch, ‹ › switches, a reload
// of the reply makes another, a page reload keeps everything, a second tab
// sees the first's change, nothing lost (every message in the stored tree).
// Then the numbers, no assertions on them: what the page fetches to be ready
// (gzip -9) and send → first token and ‹ › switch times, medians, against the
// same app without sessiontree (its baseline.html).
//   node web/test/examples.mjs [assistant-ui|ai-sdk]   (after make build and web/.bin/serve;
//   EXAMPLES_BUILD=0 serves the last build)
import assert from "node:assert/strict";
import fs from "node:fs/promises";
import path from "node:path";
import zlib from "node:zlib";
import { pathToFileURL } from "node:url";
import { repo, serveDist, launchChromium, step } from "./start.mjs";
import { startMock, REPLY } from "./mock.mjs";

const examples = path.join(repo, "web/examples");
const dist = path.join(examples, "dist");
const shots = path.join(repo, "web/test/screenshots");
const only = process.argv[2];
const APPS = ["assistant-ui", "ai-sdk"].filter((a) => !only || a === only);
const SENDS = 5; // sends timed per variant
const SWITCHES = 10; // ‹ › switches timed per variant

// ---- build --------------------------------------------------------------------------------
const { build } = await import(pathToFileURL(path.join(repo, ".tools/node_modules/vite/dist/node/index.js")).href);
const { exampleConfig } = await import(pathToFileURL(path.join(examples, "vite.shared.js")).href);
for (const app of process.env.EXAMPLES_BUILD === "0" ? [] : APPS) {
  for (const baseline of [false, true]) {
    const t0 = performance.now();
    await build(await exampleConfig(path.join(examples, app), { baseline }));
    console.log(`# built ${app}${baseline ? " (baseline)" : ""} with Vite in ${Math.round(performance.now() - t0)} ms`);
  }
}

const mock = await startMock();
const served = await serveDist(dist);
const server = served.server;
const base = served.base.replace(/\/$/, "");
const chrome = await launchChromium("examples", { viewport: { width: 900, height: 900 } });
const errors = [];
const numbers = [];
let failed = false;

// A driver of either app: both render .msg[data-role] with .body, .picker
// (.prev, .count, .next), .edit, .reload, .editing (.input, .save) and the
// composer (.composer .input, .send); <html data-running> says whether a reply
// is streaming.
async function openApp(url, fetched) {
  const page = await chrome.browser.newPage();
  page.setDefaultTimeout(20000);
  page.on("pageerror", (e) => errors.push(`page error: ${e.message}`));
  page.on("crash", () => errors.push(`the page crashed: ${url}`));
  page.on("response", (r) => r.status() >= 400 && errors.push(`HTTP ${r.status()} for ${r.url()}`));
  page.on("console", (m) => m.type() === "error" && errors.push(`console: ${m.text()}`));
  if (fetched) page.on("requestfinished", (r) => fetched.add(new URL(r.url()).pathname));
  await page.goto(url);
  await page.waitForSelector("main[data-ready='1']");
  return page;
}
const norm = (s) => s.replace(/\s+/g, " ").trim();
const REPLY_TEXT = norm(REPLY);
const messages = (page) => page.$$eval(".msg[data-role]", (els) => els.map((e) => ({ role: e.dataset.role, text: e.querySelector(".body").textContent.replace(/\s+/g, " ").trim() })));
const idle = (page) => page.waitForFunction(() => document.documentElement.dataset.running === "0" && document.querySelector(".composer .send"));
const msg = (page, i) => page.locator(".msg[data-role]").nth(i);
const count = (page, i) => msg(page, i).locator(".picker .count").textContent();
async function settled(page, n) {
  await page.waitForFunction((n) => document.documentElement.dataset.running === "0" && document.querySelectorAll(".msg[data-role]").length === n, n);
  await page.waitForFunction(() => {
    const last = [...document.querySelectorAll(".msg[data-role='assistant'] .body")].at(-1);
    return last && last.textContent.trim().endsWith("Text after the fence.");
  });
}

// send types text and sends it; resolves to the ms from the click to the
// reply's first token painted (measured in the page).
async function send(page, text) {
  await page.fill(".composer .input", text);
  return page.evaluate(() => new Promise((resolve) => {
    const before = document.querySelectorAll(".msg[data-role='assistant']").length;
    const t0 = performance.now();
    const check = () => {
      const replies = document.querySelectorAll(".msg[data-role='assistant']");
      if (replies.length > before && replies[replies.length - 1].querySelector(".body").textContent.trim() !== "") {
        obs.disconnect();
        resolve(performance.now() - t0);
      }
    };
    const obs = new MutationObserver(check);
    obs.observe(document.body, { subtree: true, childList: true, characterData: true });
    document.querySelector(".composer .send").click();
  }));
}

// flip clicks ‹ (or ›) at message i; resolves to the ms from the click to
// the last change of the page once message i's n/m changed (measured in the
// page: the change, then 150 ms without one).
async function flip(page, i, dir = "prev") {
  const ms = await page.evaluate(({ i, dir }) => new Promise((resolve, reject) => {
    const el = () => document.querySelectorAll(".msg[data-role]")[i];
    const count = () => el()?.querySelector(".picker .count")?.textContent;
    const was = count();
    let last = 0, quiet;
    const t0 = performance.now();
    const done = () => { obs.disconnect(); resolve(last - t0); };
    const obs = new MutationObserver(() => {
      if (!last && count() === was) return;
      last = performance.now();
      clearTimeout(quiet);
      quiet = setTimeout(done, 150);
    });
    obs.observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
    const button = el().querySelector(`.picker .${dir}`);
    if (!button) return reject(new Error(`no ${dir} button at message ${i}`));
    button.click();
    setTimeout(() => { obs.disconnect(); reject(new Error(`${dir} at message ${i} changed nothing in 5 s (was ${was})`)); }, 5000);
  }), { i, dir });
  await idle(page);
  return ms;
}

async function editUser(page, i, text) {
  await msg(page, i).hover();
  await msg(page, i).locator(".edit").click();
  await page.fill(".editing .input", text);
  await page.click(".editing .save");
}

// The stored tree, read through the page's store (window.example.store).
const stored = (page) => page.evaluate(async () => {
  const { store } = window.example;
  await store.saved();
  const conv = await store.open(store.conversations[0].id);
  const t = conv.tree;
  const texts = t.subtree(null).nodes.map(({ id }) => {
    const m = t.node(id).message;
    const parts = m.parts ?? (Array.isArray(m.content) ? m.content : [{ type: "text", text: m.content }]);
    return parts.filter((p) => p.type === "text").map((p) => p.text).join("").replace(/\s+/g, " ").trim();
  });
  const out = { nodes: t.stats().nodes, texts, branches: t.branches().length };
  await conv.close();
  return out;
});

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
async function gzipped(dir, paths) {
  let js = 0, wasm = 0;
  for (const p of paths) {
    const file = path.join(dir, decodeURIComponent(p).replace(/^\/[^/]+\//, ""));
    const body = await fs.readFile(file).catch(() => null);
    if (!body || file.endsWith(".html")) continue;
    const n = zlib.gzipSync(body, { level: 9 }).length;
    if (file.endsWith(".wasm")) wasm += n; else js += n;
  }
  return { js, wasm };
}

// measure opens a fresh page of a variant: what it fetched to be ready,
// SENDS sends, then an edit and SWITCHES ‹ › switches where it has branches.
async function measure(app, variant, page0) {
  const fetched = new Set();
  const file = variant === "baseline" ? `${app}-baseline/baseline.html` : `${app}/index.html`;
  const page = page0 ?? await openApp(`${base}/${file}?api=${mock.url}/openai/v1`, fetched);
  const size = await gzipped(path.join(dist, variant === "baseline" ? `${app}-baseline` : app), fetched);
  await page.evaluate(() => new Promise((r) => setTimeout(r, 300))); // the store's worker settles
  const start = (await messages(page)).length;
  const sends = [];
  for (let k = 0; k < SENDS; k++) {
    sends.push(await send(page, `timed ${k} [stream]`));
    await settled(page, start + 2 * (k + 1));
  }
  let switches = null;
  if (app === "assistant-ui" || variant === "sessiontree") {
    const at = start + 2 * (SENDS - 1); // the last user message
    await editUser(page, at, `timed ${SENDS - 1}, edited [stream]`);
    await settled(page, at + 2);
    switches = [];
    for (let k = 0; k < SWITCHES; k++) switches.push(await flip(page, at, k % 2 ? "next" : "prev"));
  }
  await page.close();
  return { app, variant, size, send: median(sends), switch: switches && median(switches) };
}

try {
  await fs.mkdir(shots, { recursive: true });
  for (const app of APPS) {
    const url = `${base}/${app}/index.html?api=${mock.url}/openai/v1`;
    const page = await openApp(url);

    await step(`${app}: send, and the reply streams in`, async () => {
      assert.deepEqual(await messages(page), []);
      const lengths = page.evaluate(() => new Promise((resolve) => {
        const seen = [];
        const obs = new MutationObserver(() => {
          const b = document.querySelector(".msg[data-role='assistant'] .body");
          if (b && b.textContent.length && b.textContent.length !== seen.at(-1)) seen.push(b.textContent.length);
          if (b?.textContent.trim().endsWith("Text after the fence.")) { obs.disconnect(); resolve(seen); }
        });
        obs.observe(document.body, { subtree: true, childList: true, characterData: true });
      }));
      await send(page, "hello [stream]");
      const seen = await lengths;
      assert.ok(seen.length >= 5 && seen[0] < seen.at(-1) / 4, `painted progressively: ${seen.join(", ")}`);
      await settled(page, 2);
      await send(page, "second [stream]");
      await settled(page, 4);
      assert.deepEqual(await messages(page), [
        { role: "user", text: "hello [stream]" }, { role: "assistant", text: REPLY_TEXT },
        { role: "user", text: "second [stream]" }, { role: "assistant", text: REPLY_TEXT },
      ]);
    });

    await step(`${app}: an edit of the first message makes a branch (‹ 2/2 ›), its reply streams`, async () => {
      await editUser(page, 0, "hello again [stream]");
      await settled(page, 2);
      assert.deepEqual((await messages(page)).map((m) => m.text), ["hello again [stream]", REPLY_TEXT]);
      assert.equal(await count(page, 0), "2/2");
    });

    await step(`${app}: ‹ goes back to the first version with its own continuation, › forward again`, async () => {
      await flip(page, 0, "prev");
      assert.deepEqual((await messages(page)).map((m) => m.text), ["hello [stream]", REPLY_TEXT, "second [stream]", REPLY_TEXT]);
      assert.equal(await count(page, 0), "1/2");
      await flip(page, 0, "next");
      assert.deepEqual((await messages(page)).map((m) => m.text), ["hello again [stream]", REPLY_TEXT]);
      await flip(page, 0, "prev");
    });

    await step(`${app}: Reload of the last reply makes another version (‹ 2/2 ›)`, async () => {
      await msg(page, 3).hover();
      await msg(page, 3).locator(".reload").click();
      await page.waitForFunction(() => document.documentElement.dataset.running === "1").catch(() => {});
      await settled(page, 4);
      assert.equal(await count(page, 3), "2/2");
      await page.screenshot({ path: path.join(shots, `example-${app}.png`) });
    });

    const before = await stored(page);
    await step(`${app}: a page reload keeps everything, on the path the user was on`, async () => {
      assert.equal(before.nodes, 7, `hello, second, hello again, 4 replies: ${JSON.stringify(before.texts)}`);
      await page.reload();
      await page.waitForSelector("main[data-ready='1']");
      await page.waitForFunction(() => document.querySelectorAll(".msg[data-role]").length === 4);
      assert.deepEqual((await messages(page)).map((m) => m.text), ["hello [stream]", REPLY_TEXT, "second [stream]", REPLY_TEXT]);
      await page.waitForSelector(".msg[data-role] .picker .count");
      assert.equal(await count(page, 0), "1/2");
      assert.equal(await count(page, 3), "2/2");
      await flip(page, 3, "prev");
      assert.equal(await count(page, 3), "1/2");
    });

    await step(`${app}: a second tab sees the conversation, then the first tab's send`, async () => {
      const second = await openApp(url);
      await second.waitForFunction(() => document.querySelectorAll(".msg[data-role]").length === 4);
      await send(page, "third [stream]");
      await settled(page, 6);
      await second.waitForFunction(() => document.querySelectorAll(".msg[data-role]").length === 6 && [...document.querySelectorAll(".msg[data-role] .body")].at(-1).textContent.trim().endsWith("Text after the fence."));
      assert.deepEqual((await messages(second)).map((m) => m.text), (await messages(page)).map((m) => m.text));
      await second.close();
    });

    await step(`${app}: nothing lost: every message in the stored tree`, async () => {
      const after = await stored(page);
      assert.equal(after.nodes, 9);
      for (const t of ["hello [stream]", "hello again [stream]", "second [stream]", "third [stream]"]) assert.ok(after.texts.includes(t), `${t} is stored`);
      assert.equal(after.texts.filter((t) => t === REPLY_TEXT).length, 5, "every reply is stored");
    });
    await page.close();
    assert.deepEqual(errors, [], "errors on the pages");

    // The numbers: a fresh page of each variant (the sessiontree one in a fresh database).
    for (const variant of ["sessiontree", "baseline"]) {
      if (variant === "sessiontree") {
        const p = await openApp(url);
        await p.evaluate(async () => {
          const { store } = window.example;
          for (const c of store.conversations) await store.delete(c.id);
        });
        await p.close();
      }
      numbers.push(await measure(app, variant));
    }
  }
  assert.deepEqual(errors, [], "errors on the pages");
  console.log("\n# The example apps, each against the same app without sessiontree (headless Chromium, the local mock streaming a token every 40 ms)");
  console.log("| app | variant | fetched to be ready, JS+CSS (gzip -9) | wasm (gzip -9) | send → first token (median of 5) | ‹ › switch (median of 10) |");
  console.log("|---|---|---:|---:|---:|---:|");
  for (const n of numbers) {
    console.log(`| ${n.app} | ${n.variant} | ${(n.size.js / 1024).toFixed(0)} KB | ${n.size.wasm ? (n.size.wasm / 1024).toFixed(0) + " KB" : "—"} | ${n.send.toFixed(1)} ms | ${n.switch === null ? "— (no branches)" : n.switch.toFixed(1) + " ms"} |`);
  }
  console.log("examples: all passed");
} catch (e) {
  failed = true;
  console.error("FAIL", e?.stack ?? e, errors);
} finally {
  await chrome.close();
  server.kill();
  mock.close();
}
process.exit(failed ? 1 : 0);
