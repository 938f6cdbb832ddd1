// make bench-peers: sessiontree against the way three chat tools keep a
// conversation tree, on the same 100k-message conversation in each tool's own
// file (made by sessiontree's exporters), in Node and then in headless
// Chromium (issue 16's targets); the contenders are js/bench/contenders.js.
// Each contender runs in a fresh process (node --expose-gc) or a fresh browser
// context, 5 times, the contenders in turn (one run of each, then the next
// round), so that a machine whose load changes during the run weighs on all of
// them alike; times are medians, and the load average is printed before and
// after. Measured: open (the file's bytes in memory → the last 50 messages as
// JS objects), the full request list as JS objects, and the memory held per
// message after both (JS heap + WebAssembly memory, after a collection).
// PEERS_N=20000 for a quick look; PEERS_CHROMIUM=0 for Node alone.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { WHO, warm, contend } from "./contenders.js";

const self = fileURLToPath(import.meta.url);
const repo = path.resolve(path.dirname(self), "../..");
const N = Number(process.env.PEERS_N ?? 100000);
const [, , mode, who, file] = process.argv;

if (mode === "run") {
  const bytes = fs.readFileSync(file);
  let st = null, base = 0;
  if (who === "sessiontree") {
    st = await import("../sessiontree.js");
    await st.init();
  }
  warm(who, st);
  globalThis.gc();
  if (st) base = st.memoryUsage().main;
  const heapStart = process.memoryUsage().heapUsed;
  const r = contend(who, bytes, st);
  globalThis.gc();
  const held = process.memoryUsage().heapUsed - heapStart + (st ? st.memoryUsage().main - base : 0);
  if (r.last50.length !== 50 || r.full.length < N) throw new Error(`${who}: ${r.last50.length} last, ${r.full.length} in the list`);
  console.log(JSON.stringify({ open: r.open, all: r.all, perMessage: held / N, keep: !!r.keep }));
} else {
  const { init, SessionTree } = await import("../sessiontree.js");
  await init({ full: true });
  const say = (i) => ({ role: i % 2 ? "assistant" : "user", content: `message ${i}: ` + "a sentence of an ordinary chat reply, ".repeat(6) });
  const t = SessionTree.fromLinear(Array.from({ length: N }, (_, i) => say(i)), 1);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sessiontree-peers-"));
  const files = { sessiontree: t.save(), pi: t.export("pi"), librechat: t.export("librechat"), chatgpt: t.export("chatgpt") };
  t.free();
  const load = () => os.loadavg().map((x) => x.toFixed(2)).join(" ");
  try {
    for (const [who, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, who), text);
    let before = load();
    const node = await rounds((who) => JSON.parse(execFileSync(process.execPath, ["--expose-gc", self, "run", who, path.join(dir, who)], { encoding: "utf8" })));
    table(node, `Node ${process.version}, medians of 5 fresh processes, in turn (load average ${before} before, ${load()} after)`);
    if (process.env.PEERS_CHROMIUM !== "0") {
      before = load();
      const browser = await chromium(dir);
      try {
        const page = await rounds((who) => browser.run(who));
        table(page, `headless Chromium ${browser.version}, medians of 5 fresh browser contexts, in turn (load average ${before} before, ${load()} after)`);
      } finally {
        await browser.close();
      }
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }

  // rounds runs each contender 5 times, in turn, and returns their medians.
  async function rounds(run) {
    const runs = Object.fromEntries(WHO.map((w) => [w, []]));
    for (let i = 0; i < 5; i++) for (const w of WHO) runs[w].push(await run(w));
    return WHO.map((w) => {
      const med = (k) => runs[w].map((r) => r[k]).sort((a, b) => a - b)[2];
      return { who: w, mb: Buffer.byteLength(files[w]) / 1e6, open: med("open"), all: med("all"), per: med("perMessage") };
    });
  }

  function table(rows, where) {
    const peers = rows.filter((r) => r.who !== "sessiontree");
    const best = (k) => Math.min(...peers.map((r) => r[k]));
    const pi = rows.find((r) => r.who === "pi");
    console.log(`\n== ${N.toLocaleString("en")} messages, ${where}`);
    console.log("| | file | open: last 50 messages as objects | full request list as objects | memory held per message |");
    console.log("|---|---:|---:|---:|---:|");
    for (const r of rows) console.log(`| ${r.who} | ${r.mb.toFixed(1)} MB | ${r.open.toFixed(0)} ms | ${r.all.toFixed(0)} ms | ${r.per.toFixed(0)} B |`);
    const st = rows[0];
    console.log(`sessiontree ÷ the fastest peer: open ${(st.open / best("open")).toFixed(2)}× (target ≤ 0.5×), full list ${((st.open + st.all) / Math.min(...peers.map((r) => r.open + r.all))).toFixed(2)}× from the file (target ≤ 1.0×); memory ÷ pi ${(st.per / pi.per).toFixed(2)}× (target ≤ 1.5×)`);
  }
}

// chromium starts headless Chromium for the page runs: each run a fresh
// browser context whose page fetches the file (not timed), warms up as the Node
// run does, then opens it (contenders.js); memory is the JS heap (CDP, after a
// collection) and the module's memory, as in Node.
async function chromium(dir) {
  const { chromium } = createRequire(path.join(repo, ".tools", "package.json"))("playwright-core");
  const browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run"],
  });
  const html = `<!doctype html><meta charset="utf-8"><title>bench-peers</title><script type="module">
import { warm, contend } from "/js/bench/contenders.js";
let bytes, st = null, base = 0, kept;
window.prepare = async (who) => {
  bytes = new Uint8Array(await (await fetch("/file/" + who)).arrayBuffer());
  if (who === "sessiontree") { st = await import("/js/sessiontree.js"); await st.init(); }
  warm(who, st);
  if (st) base = st.memoryUsage().main;
};
window.go = (who) => {
  const r = contend(who, bytes, st);
  kept = r;
  return { open: r.open, all: r.all, last50: r.last50.length, full: r.full.length, wasm: st ? st.memoryUsage().main - base : 0 };
};
window.ready = true;
</script>`;
  // A loopback server for the page: the file is fetched over HTTP (a route
  // through the DevTools pipe cannot carry 100 MB).
  const types = { ".js": "text/javascript", ".wasm": "application/wasm", ".html": "text/html" };
  const server = http.createServer((req, res) => {
    const u = new URL(req.url, "http://x");
    let f = null, type = "text/html";
    if (u.pathname === "/") { res.writeHead(200, { "content-type": type }); return res.end(html); }
    if (u.pathname.startsWith("/file/")) [f, type] = [path.join(dir, path.basename(u.pathname)), "application/octet-stream"];
    else if (u.pathname.startsWith("/js/") && !u.pathname.includes("..")) [f, type] = [path.join(repo, u.pathname), types[path.extname(u.pathname)] ?? "application/octet-stream"];
    if (!f || !fs.existsSync(f)) { res.writeHead(404); return res.end(); }
    res.writeHead(200, { "content-type": type, "content-length": fs.statSync(f).size });
    fs.createReadStream(f).pipe(res);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${server.address().port}`;
  return {
    version: browser.version(),
    async run(who) {
      const ctx = await browser.newContext();
      try {
        const page = await ctx.newPage();
        page.setDefaultTimeout(600000);
        await page.goto(`${origin}/`);
        await page.waitForFunction(() => window.ready === true);
        await page.evaluate((w) => window.prepare(w), who);
        const cdp = await ctx.newCDPSession(page);
        const heap = async () => {
          await cdp.send("HeapProfiler.collectGarbage");
          return (await cdp.send("Runtime.getHeapUsage")).usedSize;
        };
        const h0 = await heap();
        const r = await page.evaluate((w) => window.go(w), who);
        const held = (await heap()) - h0 + r.wasm;
        if (r.last50 !== 50 || r.full < N) throw new Error(`${who} in Chromium: ${r.last50} last, ${r.full} in the list`);
        return { open: r.open, all: r.all, perMessage: held / N };
      } finally {
        await ctx.close();
      }
    },
    close: async () => { server.close(); await browser.close(); },
  };
}
