// make bench-js: sessiontree against the plain-JS peer in Node and in headless
// Chromium (same run), the time of a merge with each flavour (the lean module
// with the interchange helper, the full module merging in place) in Node and
// Chromium, plus the gzipped size and time to ready of the lean module, the full
// one and the helper against a bare Go WebAssembly program.
// Prints tables; asserts nothing.
import http from "node:http";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { init, SessionTree } from "../sessiontree.js";
import { PlainTree } from "./peer.js";
import { runWorkloads, workloads } from "./workloads.js";
import { printMergeTable } from "./merge.js";
import { moduleSizes, sizeTable } from "./sizes.js";

const js = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const repo = path.dirname(js);
const reps = Number(process.env.BENCH_REPS ?? 9); // timed rounds per side and workload
const warmup = Number(process.env.BENCH_WARMUP ?? 3); // untimed rounds before them
const only = process.env.BENCH_ONLY ?? ""; // e.g. BENCH_ONLY=projection: the workloads whose name has it

function table(title, rows) {
  console.log(`\n${title}`);
  console.log("| workload | kind | sessiontree ms | plain JS ms | ratio | best-of ratio | target |");
  console.log("|---|---|---:|---:|---:|---:|---:|");
  let logSum = 0, logBest = 0;
  for (const r of rows) {
    const ratio = r.ours / r.peer, best = r.oursBest / r.peerBest;
    logSum += Math.log(ratio);
    logBest += Math.log(best);
    console.log(`| ${r.name} | ${r.kind} | ${r.ours.toFixed(1)} | ${r.peer.toFixed(1)} | ${ratio.toFixed(2)}× | ${best.toFixed(2)}× | ≤ ${r.kind === "bulk" ? "1.5" : "3"}× |`);
  }
  console.log(`| geometric mean | | | | ${Math.exp(logSum / rows.length).toFixed(2)}× | ${Math.exp(logBest / rows.length).toFixed(2)}× | |`);
}

const scaled = workloads.filter((w) => w.roundsScale).map((w) => `${reps * w.roundsScale} for ${w.name.split(" ")[0]}`);
const rounds = `median of ${reps} rounds${scaled.length ? ` (${scaled.join(", ")})` : ""} after ${warmup} warm-up rounds, each side`;

// 1. Node.
await init();
table(`Node ${process.version} (${rounds})`, runWorkloads(SessionTree, PlainTree, reps, only, warmup));

// 1b. Merge, in Node, each flavour in a worker thread of its own (its own main
// module): lean, t.merge saves both trees, the interchange helper merges them,
// and the main module loads the result under t's handle; full, core's Merge
// runs on the live tree in the main module.
const mergeTitle = (where) => `Merge, ${where} (${rounds}): t.merge of two copies 100 operations apart (50 each side)`;
const benchMerge = !only || "merge".includes(only);
if (benchMerge) {
  const inWorker = (flavour) => new Promise((resolve, reject) => {
    const w = new Worker(new URL("./merge-worker.mjs", import.meta.url), { workerData: { flavour, reps, warmup } });
    w.once("message", (rows) => { w.terminate(); resolve(rows); });
    w.once("error", reject);
  });
  const lean = await inWorker("lean");
  printMergeTable(mergeTitle(`Node ${process.version}`), lean, await inWorker("full"));
}

// 2. The bare Go program, built now with the same flags as the module.
const tmp = await fs.mkdtemp(path.join(os.tmpdir(), "st-bench-"));
const sizes = await moduleSizes();
const bare = sizes.bare_path;

// 3. Chromium: the same workloads, then time to ready in fresh pages.
const types = { ".js": "text/javascript", ".wasm": "application/wasm" };
const pages = {
  "/bench": `<!doctype html><script type="module">
    import { init, SessionTree } from "/sessiontree.js";
    import { PlainTree } from "/bench/peer.js";
    import { runWorkloads } from "/bench/workloads.js";
    await init();
    window.__rows = runWorkloads(SessionTree, PlainTree, ${reps}, ${JSON.stringify(only)}, ${warmup});
  </script>`,
  "/ready-st": `<!doctype html><script type="module">
    import { init } from "/sessiontree.js";
    const t0 = performance.now();
    await init(new URL("/sessiontree.wasm?" + Math.random(), location.href));
    window.__ms = performance.now() - t0;
  </script>`,
  // The full module as the main one (init({ full: true }) loads this file).
  "/ready-full": `<!doctype html><script type="module">
    import { init } from "/sessiontree.js";
    const t0 = performance.now();
    await init(new URL("/sessiontree-interchange.wasm?" + Math.random(), location.href));
    window.__ms = performance.now() - t0;
  </script>`,
  "/merge-lean": `<!doctype html><script type="module">
    import { init, initInterchange, SessionTree } from "/sessiontree.js";
    import { mergeRows } from "/bench/merge.js";
    await Promise.all([init(), initInterchange()]);
    window.__rows = mergeRows(SessionTree, ${reps}, ${warmup});
  </script>`,
  "/merge-full": `<!doctype html><script type="module">
    import { init, SessionTree } from "/sessiontree.js";
    import { mergeRows } from "/bench/merge.js";
    await init({ full: true });
    window.__rows = mergeRows(SessionTree, ${reps}, ${warmup});
  </script>`,
  "/ready-interchange": `<!doctype html><script type="module">
    import { init, initInterchange } from "/sessiontree.js";
    await init();
    const t0 = performance.now();
    await initInterchange(new URL("/sessiontree-interchange.wasm?" + Math.random(), location.href));
    window.__ms = performance.now() - t0;
  </script>`,
  "/ready-bare": `<!doctype html><script src="/wasm_exec.js"></script><script type="module">
    const t0 = performance.now();
    const go = new Go();
    const { instance } = await WebAssembly.instantiateStreaming(fetch("/bare.wasm?" + Math.random()), go.importObject);
    go.run(instance);
    if (!globalThis.bareReady) throw new Error("bare program not ready");
    window.__ms = performance.now() - t0;
  </script>`,
};
const server = http.createServer(async (req, res) => {
  const p = new URL(req.url, "http://x").pathname;
  if (pages[p]) return res.writeHead(200, { "content-type": "text/html" }).end(pages[p]);
  const file = p === "/bare.wasm" ? bare : path.join(js, path.normalize(p));
  if (!file.startsWith(js) && file !== bare) return res.writeHead(403).end();
  let body;
  try {
    body = await fs.readFile(file);
  } catch {
    return res.writeHead(404).end();
  }
  res.writeHead(200, { "content-type": types[path.extname(file)] ?? "application/octet-stream", "cache-control": "no-store" }).end(body);
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const base = `http://127.0.0.1:${server.address().port}`;
const { chromium } = createRequire(path.join(repo, ".tools", "package.json"))("playwright-core");
const userDataDir = await fs.mkdtemp(path.join(tmp, "chromium-"));
const browser = await chromium.launchPersistentContext(userDataDir, {
  executablePath: "/usr/bin/chromium", headless: true,
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run"],
});
try {
  const page = await browser.newPage();
  page.on("pageerror", (e) => console.error("page error:", e));
  await page.goto(`${base}/bench`);
  const rows = await (await page.waitForFunction(() => window.__rows, null, { timeout: 600000, polling: 500 })).jsonValue();
  table(`Chromium ${browser.browser()?.version() ?? ""} (${rounds})`, rows);
  await page.close();

  if (benchMerge) {
    const merge = {};
    for (const flavour of ["lean", "full"]) {
      const p = await browser.newPage();
      p.on("pageerror", (e) => console.error("page error:", e));
      await p.goto(`${base}/merge-${flavour}`);
      merge[flavour] = await (await p.waitForFunction(() => window.__rows, null, { timeout: 600000, polling: 500 })).jsonValue();
      await p.close();
    }
    printMergeTable(mergeTitle("Chromium"), merge.lean, merge.full);
  }

  const ready = { st: [], bare: [], full: [], interchange: [] };
  const readyRounds = 25; // one page load is ~50 ms: a steadier median costs little
  for (let i = 0; i < readyRounds; i++) {
    // Alternate which program goes first: the first page of a round pays more.
    // The lean module and the bare program always load first and second, so
    // neither runs while the larger full module's background tier-up
    // compilation from the page before still takes a core.
    for (const which of i % 2 ? ["st", "bare", "full", "interchange"] : ["bare", "st", "full", "interchange"]) {
      const p = await browser.newPage();
      await p.goto(`${base}/ready-${which}`);
      ready[which].push(await (await p.waitForFunction(() => window.__ms, null, { timeout: 60000 })).jsonValue());
      await p.close();
    }
  }
  const median = (a) => a.sort((x, y) => x - y)[a.length >> 1];
  const ms = (a) => `${median(a).toFixed(1)} ms`;
  console.log(`\nModule size and time to ready (fetch + compile + instantiate + run), Chromium, median of ${readyRounds}`);
  console.log(sizeTable(sizes));
  console.log(`| time to ready | ${ms(ready.st)} | ${ms(ready.full)} | ${ms(ready.bare)} | ${(median(ready.st) / median(ready.bare)).toFixed(2)}× | ${(median(ready.full) / median(ready.bare)).toFixed(2)}× | ≤ 1.3× |`);
  console.log(`| the full file as the lean module's helper: time to ready after init (initInterchange) | | ${ms(ready.interchange)} | | | | |`);
} finally {
  await browser.close();
  server.close();
  await fs.rm(tmp, { recursive: true, force: true });
  await sizes.remove();
}
