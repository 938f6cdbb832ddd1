// make bench-huge: the demo with a huge session, as a user meets it, in headless
// Chromium, against the same in a 100-message chat (issue 16's targets):
//   - import a .tree.json until the last 50 messages are painted, and until stored;
//   - open it again (a reload) until the last 50 messages are painted;
//   - the longest main-thread task of each (PerformanceObserver "longtask");
//   - a send until the user's text shows (main-thread time in the submit, and
//     wall time until painted) and until stored; a ‹ › switch until painted;
//   - memory: the modules' (memoryUsage) + the JS heaps (CDP Runtime.getHeapUsage:
//     objects and ArrayBuffers),
//     the page's and its workers', sampled together: their peak during the
//     import, against the file's size; the module's growth over a free() and
//     a second load of the same file.
//   node web/bench/huge.mjs            (after make web-dist; BENCH_HUGE_N=20000 for a quicker look)
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import assert from "node:assert/strict";
import { repo, serveDist, launchChromium, openPage } from "../test/start.mjs";

const BIG = Number(process.env.BENCH_HUGE_N ?? 200000);
const SMALL = 100;
const SENDS = 5;
const SWITCHES = 6;

/** A chat of n messages (~500 bytes each in the file) on main with a fork 8 messages before the leaf. */
async function chat(n) {
  const { init, SessionTree } = await import(pathToFileURL(path.join(repo, "web/dist/sessiontree.js")).href);
  await init();
  const filler = "The tree keeps every branch of the conversation; this sentence pads a message. ".repeat(4);
  const messages = new Array(n);
  for (let i = 0; i < n; i++) messages[i] = { role: i % 2 ? "assistant" : "user", content: `${i % 2 ? "Answer" : "Question"} ${i}: ${filler}` };
  const t = SessionTree.fromLinear(messages, 1_700_000_000_000);
  const forkAt = t.pathWindow(n - 8, n - 7).ids[0];
  t.edit(forkAt, { role: "user", content: "The other version of a late question" }, 1_800_000_000_000);
  t.append({ role: "assistant", content: "The other version's answer" }, 1_800_000_000_001);
  t.switchBranch("main");
  const file = path.join(os.tmpdir(), `st-bench-huge-${n}.tree.json`);
  const json = t.save();
  const nodes = t.stats().nodes;
  t.free();
  await fs.writeFile(file, json);
  return { n, file, bytes: Buffer.byteLength(json), nodes, forkIndex: n - 8, name: `huge-${n}` };
}

// Runs in the page before its scripts: records long tasks, and the first frame
// at which the chat shows at least `want` messages (window.__painted).
function probe() {
  window.__long = [];
  try {
    window.__obs = new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__long.push([e.startTime, e.duration]); });
    window.__obs.observe({ type: "longtask", buffered: true });
  } catch {}
  window.__watch = (want, test) => new Promise((resolve) => {
    const tick = () => {
      const els = document.querySelectorAll("#messages article.msg");
      if (els.length >= want && (!test || test(els))) resolve(performance.now());
      else requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
  // Entries reach an observer's callback when the page is idle: take those still queued.
  window.__longest = (from, to = Infinity) => {
    for (const e of window.__obs?.takeRecords() ?? []) window.__long.push([e.startTime, e.duration]);
    return Math.max(0, ...window.__long.filter(([s, d]) => s + d >= from && s <= to).map(([, d]) => d));
  };
}

/**
 * The JS heaps of the page's workers (the demo's worker, an import's checker),
 * summed: CDP's Runtime.getHeapUsage through the page's session, attached to
 * each worker as it starts. Returns the function that asks them.
 */
async function workerHeaps(cdp) {
  const sessions = new Set();
  const waiting = new Map();
  let seq = 0;
  cdp.on("Target.attachedToTarget", ({ sessionId, targetInfo }) => { if (targetInfo.type === "worker") sessions.add(sessionId); });
  cdp.on("Target.detachedFromTarget", ({ sessionId }) => sessions.delete(sessionId));
  cdp.on("Target.receivedMessageFromTarget", ({ message }) => {
    const m = JSON.parse(message);
    waiting.get(m.id)?.((m.result?.usedSize ?? 0) + (m.result?.backingStorageSize ?? 0));
    waiting.delete(m.id);
  });
  await cdp.send("Target.setAutoAttach", { autoAttach: true, waitForDebuggerOnStart: false, flatten: false });
  const ask = (sessionId) => new Promise((resolve) => {
    const id = ++seq;
    waiting.set(id, resolve);
    cdp.send("Target.sendMessageToTarget", { sessionId, message: JSON.stringify({ id, method: "Runtime.getHeapUsage" }) }).catch(() => resolve(0));
    setTimeout(() => { waiting.delete(id); resolve(0); }, 2000); // a worker busy in one long call
  });
  return async () => (await Promise.all([...sessions].map(ask))).reduce((a, b) => a + b, 0);
}

const shots = path.join(repo, "web/test/screenshots");
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function measure(browser, base, c, errors) {
  const page = await openPage(browser, base, errors, 600000);
  if (process.env.BENCH_HUGE_VERBOSE) page.on("console", (m) => console.error(`[page] ${m.text()}`));
  const cdp = await browser.newCDPSession(page);
  // A JS heap here: V8's objects and the ArrayBuffers' backing stores (a
  // file's bytes read into JS), not the module's memory (counted apart).
  const heap = async () => { const u = await cdp.send("Runtime.getHeapUsage"); return u.usedSize + (u.backingStorageSize ?? 0); };
  const wasm = () => page.evaluate(async () => {
    const m = await import("./sessiontree.js");
    const u = m.memoryUsage();
    return u.main + u.interchange;
  });
  const want = Math.min(50, c.n);
  const r = { n: c.n, mb: c.bytes / 1e6 };

  // Import: the change event to the frame showing the last message, then stored.
  await page.evaluate(() => {
    window.__import = new Promise((resolve) => document.getElementById("file").addEventListener("change", () => resolve(performance.now()), { once: true, capture: true }));
  });
  // Sampled every 100 ms, together: the page's JS heap and module memory, the
  // workers' module memory and JS heaps (CDP, through the page's session).
  const workerWasm = () => page.evaluate(async () => {
    const u = await window.sessiontreeDemo.workerMemory?.();
    return u ? u.main + u.interchange : 0;
  }).catch(() => 0);
  const pageWasm = () => wasm().catch(() => 0);
  const heapsOfWorkers = await workerHeaps(cdp);
  const wasmBefore = await pageWasm();
  const heapBefore = await heap();
  let peakHeap = heapBefore;
  let peakParts = null;
  let peakWorker = 0;
  let peakWorkerHeap = 0;
  let peakTotal = 0;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const [h, pw, ww, wh] = await Promise.all([heap().catch(() => 0), pageWasm(), workerWasm(), heapsOfWorkers()]);
      peakHeap = Math.max(peakHeap, h);
      peakWorker = Math.max(peakWorker, ww);
      peakWorkerHeap = Math.max(peakWorkerHeap, wh);
      if (h + pw + ww + wh > peakTotal) {
        peakTotal = h + pw + ww + wh;
        peakParts = { pageHeap: h, pageWasm: pw, workersWasm: ww, workersHeap: wh };
      }
      await new Promise((res) => setTimeout(res, 100));
    }
  })();
  await page.setInputFiles("#file", c.file);
  const imp = await page.evaluate(async ({ want, last }) => {
    const t0 = await window.__import;
    const painted = await window.__watch(want, (els) => els[els.length - 1].querySelector(".msg-body")?.textContent.startsWith(last));
    console.log(`bench-huge: import painted after ${Math.round(performance.now() - t0)} ms`);
    await window.sessiontreeDemo.saved();
    const stored = performance.now();
    const longest = window.__longest(t0, stored);
    const tasks = window.__long.filter(([st, d]) => st + d >= t0 && st <= stored).map(([st, d]) => `${Math.round(st - t0)}+${Math.round(d)}`).join(" ");
    return { painted: painted - t0, stored: stored - t0, longest, tasks, timings: window.sessiontreeDemo.timings, check: window.sessiontreeDemo.timings.checkMemory ?? 0 };
  }, { want, last: `Answer ${c.n - 1}:` });
  sampling = false;
  await sampler;
  r.importPainted = imp.painted;
  r.importStored = imp.stored;
  r.importLongest = imp.longest;
  // BENCH_HUGE_TASKS=1: the import's long tasks too (start+duration, ms from the import's start).
  if (process.env.BENCH_HUGE_TASKS) console.log(`# ${c.n} import: long tasks ${imp.tasks}; ${JSON.stringify(imp.timings, (k, v) => (typeof v === "number" ? Math.round(v) : v))}`);
  r.wasm = await wasm();
  r.heap = await heap();
  r.workerWasm = Math.max(peakWorker, imp.check, await workerWasm());
  r.workerHeap = peakWorkerHeap;
  // The import's checker (a worker stopped once it answers, before the page
  // loads the file) reports its own peak, which a sample may miss: counted
  // with the page as it was before the import and the largest worker heaps seen.
  const checkPoint = imp.check + wasmBefore + heapBefore + peakWorkerHeap;
  r.peak = Math.max(peakTotal, checkPoint);
  r.peakParts = checkPoint > peakTotal ? { checker: imp.check, pageWasm: wasmBefore, pageHeap: heapBefore, workersHeap: peakWorkerHeap } : peakParts;
  // Every part's own peak, summed, as if they had all peaked at once.
  r.peakSum = r.wasm + r.workerWasm + Math.max(peakHeap, r.heap) + peakWorkerHeap;

  // Sends: the submit handler's main-thread time, until the text is painted, until stored.
  const sends = [];
  for (let k = 0; k < SENDS; k++) {
    sends.push(await page.evaluate(async (text) => {
      const frame = () => new Promise((res) => requestAnimationFrame(() => setTimeout(res, 0)));
      const shows = () => [...document.querySelectorAll("#messages .msg-body")].some((e) => e.textContent === text);
      const t0 = performance.now();
      document.getElementById("input").value = text;
      document.getElementById("composer").requestSubmit();
      const sync = performance.now() - t0;
      while (!shows()) await frame();
      const shown = performance.now() - t0;
      await window.sessiontreeDemo.saved();
      const stored = performance.now() - t0;
      while (document.querySelector(".typing")) await frame();
      await window.sessiontreeDemo.saved();
      return { sync, shown, stored };
    }, `bench send ${k}`));
  }
  r.sendSyncMax = Math.max(...sends.map((s) => s.sync));
  r.sendStoredMax = Math.max(...sends.map((s) => s.stored));
  r.sendSync = median(sends.map((s) => s.sync));
  r.sendShown = median(sends.map((s) => s.shown));
  r.sendStored = median(sends.map((s) => s.stored));

  // ‹ › at the fork (the reply of each send made the path 2 longer; the fork stays at its index).
  const switches = [];
  for (let k = 0; k < SWITCHES; k++) {
    switches.push(await page.evaluate(async ({ i, dir }) => {
      const t0 = performance.now();
      document.querySelector(`#messages [data-index="${i}"] [data-action="${dir}"]`).click();
      await new Promise((res) => requestAnimationFrame(() => setTimeout(res, 0)));
      return performance.now() - t0;
    }, { i: c.forkIndex, dir: k % 2 ? "prev" : "next" }));
  }
  r.switch = median(switches);
  r.switchMax = Math.max(...switches);

  // Free and load the same file again: the module's memory must not grow.
  r.reloadGrowth = await page.evaluate(async () => {
    const { SessionTree, memoryUsage } = await import("./sessiontree.js");
    const bytes = new TextEncoder().encode(window.sessiontreeDemo.tree.save());
    const a = SessionTree.load(bytes);
    a.free();
    const m1 = memoryUsage().main;
    const b = SessionTree.load(bytes);
    b.free();
    return memoryUsage().main - m1;
  });

  // Open it again: a reload, from navigation start to the frame showing the last 50 messages.
  await page.evaluate(() => window.sessiontreeDemo.saved());
  await page.reload();
  const open = await page.evaluate(async (want) => {
    const painted = await window.__watch(want);
    await new Promise((res) => { const w = () => (document.body.dataset.ready === "1" ? res() : setTimeout(w, 20)); w(); });
    const longest = window.__longest(0, performance.now());
    const tasks = window.__long.map(([s, d]) => `${Math.round(s)}+${Math.round(d)}`).join(" ") + " | marks " + performance.getEntriesByType("mark").map((m) => `${m.name}@${Math.round(m.startTime)}`).join(" ");
    const t = window.sessiontreeDemo.timings;
    return { painted, longest, whole: t.interactive, tasks, timings: { openPreview: t.openPreview, openRead: t.openRead, openLoad: t.openLoad, open: t.open } };
  }, want);
  // BENCH_HUGE_TASKS=1: the open's long tasks (start+duration, ms from navigation) and the open's own timings.
  if (process.env.BENCH_HUGE_TASKS) console.log(`# ${c.n} open: long tasks ${open.tasks}; painted ${Math.round(open.painted)}; ${JSON.stringify(open.timings, (k, v) => (typeof v === "number" ? Math.round(v) : v))}`);
  r.openPainted = open.painted;
  r.openWhole = open.whole;
  r.openLongest = open.longest;
  // As a user sees it: the chat, then the tree view (t.subtree: a chain is one box).
  await fs.mkdir(shots, { recursive: true });
  await page.screenshot({ path: path.join(shots, `bench-huge-${c.n}.png`) });
  await page.click("#btn-tree");
  await page.waitForFunction(() => window.sessiontreeDemo.treeView?.boxes.length > 0);
  r.treeLayout = await page.evaluate(() => window.sessiontreeDemo.timings.treeLayout);
  await page.waitForTimeout(200);
  await page.screenshot({ path: path.join(shots, `bench-huge-${c.n}-tree.png`) });
  await page.click("#btn-tree");
  await page.close();
  return r;
}

const { server, base } = await serveDist();
const chrome = await launchChromium("bench-huge", { viewport: { width: 1280, height: 900 } });
await chrome.browser.addInitScript(probe);
const errors = [];
let failed = false;
try {
  const results = [];
  for (const n of [SMALL, BIG]) {
    const t0 = performance.now();
    const c = await chat(n);
    console.log(`# ${n.toLocaleString("en")} messages: ${c.nodes.toLocaleString("en")} nodes, ${(c.bytes / 1e6).toFixed(1)} MB (built in ${Math.round(performance.now() - t0)} ms)`);
    results.push(await measure(chrome.browser, base, c, errors));
    await fs.rm(c.file, { force: true });
  }
  assert.deepEqual(errors, [], "errors on the page");
  const [s, b] = results;
  const ms = (x) => `${Math.round(x)} ms`;
  const mb = (x) => `${(x / 1e6).toFixed(0)} MB`;
  const rows = [
    ["import until the last 50 messages are painted", ms(s.importPainted), ms(b.importPainted), b.importPainted / s.importPainted, ""],
    ["import until stored", ms(s.importStored), ms(b.importStored), b.importStored / s.importStored, ""],
    ["import: longest main-thread task", ms(s.importLongest), ms(b.importLongest), null, "≤ 100 ms"],
    ["open (reload) until the last 50 messages are painted", ms(s.openPainted), ms(b.openPainted), b.openPainted / s.openPainted, "≤ 1 s"],
    ["open: longest main-thread task", ms(s.openLongest), ms(b.openLongest), null, "≤ 100 ms"],
    ["open until the whole tree is loaded (the page ready)", ms(s.openWhole), ms(b.openWhole), b.openWhole / s.openWhole, ""],
    ["send: main thread in the submit", ms(s.sendSync), ms(b.sendSync), b.sendSync / s.sendSync, "≤ 50 ms, ≤ 1.5×"],
    ["send: main thread in the submit, the slowest", ms(s.sendSyncMax), ms(b.sendSyncMax), b.sendSyncMax / s.sendSyncMax, ""],
    ["send: until the user's text is painted", ms(s.sendShown), ms(b.sendShown), b.sendShown / s.sendShown, ""],
    ["send: until stored", ms(s.sendStored), ms(b.sendStored), b.sendStored / s.sendStored, "≤ 150 ms, ≤ 1.5×"],
    ["send: until stored, the slowest", ms(s.sendStoredMax), ms(b.sendStoredMax), b.sendStoredMax / s.sendStoredMax, ""],
    ["‹ › switch until painted", ms(s.switch), ms(b.switch), b.switch / s.switch, "≤ 100 ms, ≤ 1.5×"],
    ["‹ › switch until painted, the slowest", ms(s.switchMax), ms(b.switchMax), b.switchMax / s.switchMax, ""],
    ["tree view: t.subtree + layout", ms(s.treeLayout), ms(b.treeLayout), b.treeLayout / s.treeLayout, ""],
    ["peak memory during the import (the page's and the workers' modules and JS heaps, at once) / file", "", `${mb(b.peak)} / ${mb(b.mb * 1e6)}`, b.peak / (b.mb * 1e6), "≤ 3×"],
    ["the same, each part's own peak summed / file", "", `${mb(b.peakSum)} / ${mb(b.mb * 1e6)}`, b.peakSum / (b.mb * 1e6), ""],
    ["module memory after the import (page)", mb(s.wasm), mb(b.wasm), null, ""],
    ["module memory of the workers (their peak; stopped when idle)", mb(s.workerWasm), mb(b.workerWasm), null, ""],
    ["JS heap after the import (page)", mb(s.heap), mb(b.heap), null, ""],
    ["JS heap of the workers (their peak)", mb(s.workerHeap), mb(b.workerHeap), null, ""],
    ["module growth: free() then the same file again", mb(s.reloadGrowth), mb(b.reloadGrowth), null, "0"],
  ];
  const parts = (p) => Object.entries(p ?? {}).map(([k, v]) => `${k} ${mb(v)}`).join(", ");
  console.log(`# the peak during the import, ${BIG.toLocaleString("en")} messages: ${parts(b.peakParts)}`);
  console.log(`\n== demo with a huge session (headless Chromium; medians of ${SENDS} sends, ${SWITCHES} switches)`);
  console.log(`| measured | ${SMALL} messages | ${BIG.toLocaleString("en")} messages (${b.mb.toFixed(0)} MB) | ratio | target |`);
  console.log("|---|---|---|---|---|");
  for (const [what, a, z, ratio, target] of rows) console.log(`| ${what} | ${a} | ${z} | ${ratio === null ? "" : `${ratio.toFixed(2)}×`} | ${target} |`);
} catch (e) {
  failed = true;
  console.error("FAIL", e?.stack ?? e, errors);
} finally {
  await chrome.close();
  server.kill();
}
process.exit(failed ? 1 : 0);
