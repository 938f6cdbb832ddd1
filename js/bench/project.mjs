// make bench-project: what a chat's request costs as the session grows (issue
// 22). For a 100-message chat and chats of 20k and 200k messages (~500
// characters each, a fork every 2,000 messages), of two shapes (a chat, and an
// agent session of tool calls and results), with each flavour (the full module
// projecting its live tree; the lean module with the interchange helper), in
// Node and in headless Chromium: the first request after the tree was built
// and the module tidied what the build left (settled(): the user's pause), then, after twice as many untimed rounds, the median of rounds of (the
// user's turn, t.projectFor("openai-chat", { budget: 32000 }), the reply),
// and that median against the 100-message
// chat's, measured in the same run. Prints tables; asserts nothing.
// PROJECT_N=100,20000 for a quicker look; PROJECT_CHROMIUM=0 for Node alone.
import http from "node:http";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { Worker, isMainThread, parentPort, workerData } from "node:worker_threads";

const here = path.dirname(fileURLToPath(import.meta.url));
const js = path.dirname(here);
const repo = path.dirname(js);
const sizes = (process.env.PROJECT_N ?? "100,20000,200000").split(",").map(Number);
const rounds = Number(process.env.PROJECT_ROUNDS ?? 15);
const flavours = ["full", "lean"];

// run measures every size and shape with one flavour, in this thread.
async function run(api, flavour, sizes, rounds) {
  const { init, initInterchange, SessionTree } = api.st;
  const { build, measure } = api.work;
  await init(flavour === "full" ? { full: true } : undefined);
  if (flavour === "lean") await initInterchange();
  { // warm up: the module's code tiers up on the first calls
    const w = build(SessionTree, "agent", 500);
    await measure(w, "agent", { rounds: 10, unbudgeted: true });
    w.free();
  }
  const rows = [];
  for (const shape of ["chat", "agent"]) {
    for (const n of sizes) {
      const t0 = performance.now();
      const t = build(SessionTree, shape, n);
      const built = performance.now() - t0;
      // The user's pause after opening the chat: the module tidies what the
      // build left in idle slices (settled(); js/sessiontree.js tidyLater).
      const { steps: tidy } = await api.st.settled();
      const r = rounds;
      const m = await measure(t, shape, { rounds: r, warm: 2 * rounds, unbudgeted: n <= 100, pause: api.st.settled });
      t.free();
      rows.push({ flavour, shape, n, built, tidy, rounds: r, ...m });
    }
  }
  return rows;
}

function print(title, rows) {
  console.log(`\n${title}`);
  console.log("| flavour | shape | messages | tidy slices | first request ms | request ms, median (best) | ÷ 100-message chat, median (best) | messages sent (left out) | target |");
  console.log("|---|---|---:|---:|---:|---:|---:|---:|---:|");
  for (const r of rows) {
    const base = rows.find((b) => b.flavour === r.flavour && b.shape === r.shape && b.n === Math.min(...sizes));
    const ratio = r.budgeted / base.budgeted, best = r.best / base.best;
    console.log(`| ${r.flavour} | ${r.shape} | ${r.n} | ${r.tidy} | ${r.first.toFixed(1)} | ${r.budgeted.toFixed(2)} (${r.best.toFixed(2)})${r.unbudgeted !== null ? `; no budget: ${r.unbudgeted.toFixed(2)}` : ""} | ${r.n === base.n ? "" : `${ratio.toFixed(2)}× (${best.toFixed(2)}×)`} | ${r.sent} (${r.left}) | ${r.n === base.n ? "" : "≤ 1.5×"} |`);
  }
}

if (!isMainThread) {
  const st = await import("../sessiontree.js");
  const work = await import("./projection.js");
  parentPort.postMessage(await run({ st, work }, workerData.flavour, workerData.sizes, workerData.rounds));
} else {
  // 1. Node: each flavour in a worker thread of its own (its own module).
  const node = [];
  for (const flavour of flavours) {
    node.push(...await new Promise((resolve, reject) => {
      const w = new Worker(fileURLToPath(import.meta.url), { workerData: { flavour, sizes, rounds } });
      w.once("message", resolve);
      w.once("error", reject);
    }));
  }
  print(`Node ${process.version}: t.projectFor("openai-chat", { budget: 32000 }) after the user's turn; median of ${rounds} rounds after ${2 * rounds}`, node);

  // 2. Chromium: each flavour in a page of its own.
  if (process.env.PROJECT_CHROMIUM !== "0") {
    const types = { ".js": "text/javascript", ".mjs": "text/javascript", ".wasm": "application/wasm", ".html": "text/html" };
    const page = (flavour) => `<!doctype html><script type="module">
      import * as st from "/sessiontree.js";
      import * as work from "/bench/projection.js";
      ${run.toString()}
      window.__rows = await run({ st, work }, ${JSON.stringify(flavour)}, ${JSON.stringify(sizes)}, ${rounds});
    </script>`;
    const server = http.createServer(async (req, res) => {
      const p = new URL(req.url, "http://x").pathname;
      if (p.startsWith("/page-")) return res.writeHead(200, { "content-type": "text/html" }).end(page(p.slice(6)));
      const file = path.join(js, path.normalize(p));
      if (!file.startsWith(js)) return res.writeHead(403).end();
      let body;
      try {
        body = await fs.readFile(file);
      } catch {
        return res.writeHead(404).end();
      }
      res.writeHead(200, { "content-type": types[path.extname(file)] ?? "application/octet-stream" }).end(body);
    });
    await new Promise((r) => server.listen(0, "127.0.0.1", r));
    const tmp = await fs.mkdtemp(path.join(os.tmpdir(), "bench-project-"));
    const { chromium } = createRequire(path.join(repo, ".tools", "package.json"))("playwright-core");
    const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", headless: true, args: ["--no-sandbox", "--disable-gpu"] });
    try {
      const rows = [];
      for (const flavour of flavours) {
        const p = await browser.newPage();
        p.on("pageerror", (e) => console.error("page error:", e));
        await p.goto(`http://127.0.0.1:${server.address().port}/page-${flavour}`);
        rows.push(...await (await p.waitForFunction(() => window.__rows, null, { timeout: 1800000, polling: 500 })).jsonValue());
        await p.close();
      }
      print(`Chromium ${browser.version()}: the same`, rows);
    } finally {
      await browser.close();
      server.close();
      await fs.rm(tmp, { recursive: true, force: true });
    }
  }
}
