// make bench-peers: sessiontree against the tree code of three chat tools (pi's
// own SessionManager from npm; LibreChat's and chatgpt-web-share's walks, and
// the floor V8 sets: see js/bench/contenders.js), on one conversation of
// PEERS_N (100k) messages on the active path plus 2,000 abandoned replies,
// each tool reading it in its own file format (made by sessiontree's
// exporters, sessiontree's own fields taken out), in Node and then in
// headless Chromium (issue 26).
// Each contender runs in a fresh process (node --expose-gc) or a fresh browser
// context, the contenders in turn round by round (the order rotated each
// round), PEERS_WARMUP (2) rounds thrown away and PEERS_ROUNDS (9) kept, so
// that a machine whose load changes during the run weighs on all of them
// alike; times are medians (the slowest beside them), the load average is
// printed before and after. Steps, in this order in each process: open (the
// file → the last 50 messages as JS objects; in Node from the file on disk,
// each tool reading it its own way: sessiontree with sessiontree/node's
// loadFile, pi with its SessionManager, the walks with readFileSync; in
// Chromium from its bytes in memory), memory per message, the full
// request list as objects, memory per message (the list kept), every message
// of that list read (its role: sessiontree's list parses a message when it is
// first read, so this is where its parses are), memory per message again, the
// list from a leaf 10k deep 50 times, the last reply regenerated and the full
// list built again 20 times, save (into /dev/null in Node: sessiontree with
// sessiontree/node's saveFile, the bytes written from the module's memory, the
// others a string of their file with writeFileSync), 1,000 regenerates
// at depth 1,000, and 10k appends into a new conversation. Memory is the JS
// heap and the WebAssembly memory grown since before the open, after a
// collection, per message on the path. In Node each process also counts the
// new memory the open, the full list and the save touched (its minor page
// faults): on a virtual machine that is much of each one's time.
// PEERS_N=20000 for a quick look; PEERS_CHROMIUM=0 for Node alone, PEERS_NODE=0 for Chromium alone;
// PEERS_ROUNDS / PEERS_WARMUP for more or fewer rounds; PEERS_WHO=pi (a list) for sessiontree
// against those alone.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import { contender, warm } from "./contenders.js";
import { moduleSizes, sizeTable } from "./sizes.js";

const self = fileURLToPath(import.meta.url);
const repo = path.resolve(path.dirname(self), "../..");
const N = Number(process.env.PEERS_N ?? 100000);
const ABANDONED = Math.min(2000, Math.floor(N / 50));
const ROUNDS = Number(process.env.PEERS_ROUNDS ?? 9);
const WARMUP = Number(process.env.PEERS_WARMUP ?? 2);
const STEPS = ["open", "mem1", "full", "mem2", "read", "mem3", "deep", "retry", "save", "regenerate", "build", "newOpen", "newFull", "newSave"];
// PEERS_WHO=sessiontree,pi runs those contenders alone (sessiontree always first).
const WHO = process.env.PEERS_WHO ? ["sessiontree", ...process.env.PEERS_WHO.split(",").filter((w) => w !== "sessiontree")] : null;
const pick = (all) => (WHO ? all.filter((w) => WHO.includes(w)) : all);
const NODE = pick(["sessiontree", "pi", "librechat", "chatgpt", "floor"]);
const PAGE = pick(["sessiontree", "pi walk", "librechat", "chatgpt", "floor"]);
const FILE = { sessiontree: "sessiontree", pi: "pi", "pi walk": "pi", librechat: "librechat", chatgpt: "chatgpt", floor: "sessiontree" };
const [, , mode, who, dir] = process.argv;

if (mode === "run") {
  const file = path.join(dir, FILE[who]);
  const env = { n: N, file, dir: path.join(dir, "pi-sessions"), sink: "/dev/null", bytes: () => fs.readFileSync(file), write: (s) => fs.writeFileSync("/dev/null", s) };
  if (who === "sessiontree") {
    env.st = await import("../sessiontree.js");
    await env.st.init();
    ({ loadFile: env.loadFile, saveFile: env.saveFile } = await import("../node.js"));
  }
  if (who === "pi") {
    // pi's SessionManager, as its package builds it (its index would load the whole agent).
    env.pi = await import(pathToFileURL(path.join(repo, ".tools/node_modules/@mariozechner/pi-coding-agent/dist/core/session-manager.js")));
  }
  warm(who, env);
  const c = contender(who, env);
  const memory = () => {
    globalThis.gc();
    return process.memoryUsage().heapUsed + (env.st ? env.st.memoryUsage().main : 0);
  };
  // The memory a step touches for the first time, as the system counts it:
  // its minor page faults (4 KiB each), in MB. On a virtual machine each one
  // costs far more than on bare metal (~5 ms a MB on the 2-core VM here), and
  // the open of every contender is mostly that: this row says how much of it.
  const faults = () => process.resourceUsage().minorPageFault;
  const touched = (step) => {
    const f0 = faults();
    const ms = c[step]();
    return [ms, ((faults() - f0) * 4096) / 1e6];
  };
  const base = memory();
  const r = {};
  [r.open, r.newOpen] = touched("open");
  r.mem1 = (memory() - base) / N;
  [r.full, r.newFull] = touched("full");
  r.mem2 = (memory() - base) / N;
  r.read = c.read();
  r.mem3 = (memory() - base) / N;
  r.deep = c.deep();
  r.retry = c.retry();
  [r.save, r.newSave] = touched("save");
  for (const s of ["regenerate", "build"]) r[s] = c[s]();
  console.log(JSON.stringify(r));
} else {
  // The lean module's size against a bare Go program built now (issue 26: ≤ 1.3× gzipped).
  const sizes = await moduleSizes();
  await sizes.remove();
  console.log(`Module size, compressed, against a bare Go WebAssembly program built in this run\n${sizeTable(sizes)}\n`);
  const files = await conversation();
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "sessiontree-peers-"));
  fs.mkdirSync(path.join(tmp, "pi-sessions"));
  const load = () => os.loadavg().map((x) => x.toFixed(2)).join(" ");
  try {
    for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(tmp, name), text);
    let before = load();
    if (process.env.PEERS_NODE !== "0") {
      const node = await rounds(NODE, (w) => JSON.parse(execFileSync(process.execPath, ["--expose-gc", self, "run", w, tmp], { encoding: "utf8", maxBuffer: 1 << 20 })));
      table(node, `Node ${process.version}, fresh processes (load average ${before} before, ${load()} after)`);
    }
    if (process.env.PEERS_CHROMIUM !== "0") {
      before = load();
      const browser = await chromium(tmp);
      try {
        const page = await rounds(PAGE, (w) => browser.run(w));
        table(page, `headless Chromium ${browser.version}, fresh browser contexts (load average ${before} before, ${load()} after)`);
      } finally {
        await browser.close();
      }
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }

  // rounds runs each of who in turn, WARMUP + ROUNDS times (the order rotated
  // each round), and returns each one's median and slowest of every step.
  async function rounds(who, run) {
    const runs = Object.fromEntries(who.map((w) => [w, []]));
    for (let i = 0; i < WARMUP + ROUNDS; i++) {
      for (let j = 0; j < who.length; j++) {
        const w = who[(i + j) % who.length];
        const r = await run(w);
        if (i >= WARMUP) runs[w].push(r);
      }
    }
    return who.map((w) => {
      const row = { who: w, mb: Buffer.byteLength(files[FILE[w]]) / 1e6 };
      for (const s of STEPS) {
        const xs = runs[w].map((r) => r[s]);
        if (xs[0] === null || xs[0] === undefined) continue;
        xs.sort((a, b) => a - b);
        row[s] = { med: xs[Math.floor(xs.length / 2)], max: xs[xs.length - 1] };
      }
      return row;
    });
  }

  function table(rows, where) {
    const st = rows[0], peers = rows.filter((r) => r.who !== "sessiontree" && r.who !== "floor");
    const fl = rows.find((r) => r.who === "floor");
    const ms = (x) => (x.med >= 100 ? x.med.toFixed(0) : x.med.toFixed(1)) + ` (${x.max >= 100 ? x.max.toFixed(0) : x.max.toFixed(1)})`;
    const label = { open: "open: the last 50 messages as objects", full: "the full request list as objects", deep: `the list from a 10k-deep leaf, 50 times`, retry: "the last reply regenerated, then the full list, 20 times", save: "save", regenerate: "1,000 regenerates at depth 1,000", build: "10k messages, one append each", mem1: "memory per message after the open", mem2: "… after the full list", read: "every message of the full list read (its role)", mem3: "… after every message was read", newOpen: "new memory the open touched (page faults, MB)", newFull: "… the full list", newSave: "… the save" };
    console.log(`\n== ${N.toLocaleString("en")} messages on the path + ${ABANDONED.toLocaleString("en")} abandoned replies; ${where}; medians of ${ROUNDS} rounds after ${WARMUP} thrown away (the slowest in brackets); ratio = sessiontree ÷ the fastest peer, and ÷ the floor`);
    console.log(`| workload | ${rows.map((r) => `${r.who} (${r.mb.toFixed(1)} MB)`).join(" | ")} | ÷ fastest peer | ÷ floor |`);
    console.log(`|---|${rows.map(() => "---:").join("|")}|---:|---:|`);
    for (const s of STEPS) {
      if (!st[s]) continue; // new memory: measured in Node only
      const unit = s.startsWith("mem") ? (x) => `${x.med.toFixed(0)} B` : s.startsWith("new") ? (x) => `${x.med.toFixed(1)} MB` : ms;
      const have = peers.filter((r) => r[s]);
      const best = have.length ? Math.min(...have.map((r) => r[s].med)) : NaN;
      const ratio = (x) => (Number.isFinite(x) ? x.toFixed(2) + "×" : "");
      console.log(`| ${label[s]} | ${rows.map((r) => (r[s] ? unit(r[s]) : "")).join(" | ")} | ${ratio(st[s].med / best)} | ${fl?.[s] ? ratio(st[s].med / fl[s].med) : ""} |`);
    }
  }
}

// conversation makes the bench's conversation, in every file format: N
// messages on the active path and ABANDONED earlier replies regenerated
// (spread evenly), in the order a user makes them, each a millisecond after
// the one before; sessiontree saves it, and each tool's file is written from
// that file here as the tool writes its own (ids, parents, messages, times;
// sessiontree's exporters would add what they keep to read an export back
// exactly, and take a while over 2,000 branches).
async function conversation() {
  const { init, SessionTree } = await import("../sessiontree.js");
  await init();
  const say = (i) => ({ role: i % 2 ? "assistant" : "user", content: `message ${i}: ` + "a sentence of an ordinary chat reply, ".repeat(6) });
  const t = new SessionTree();
  const every = Math.floor(N / ABANDONED);
  let at = 1;
  for (let i = 0; i < N; i++) {
    const id = t.append(say(i), at++);
    if (i % every === every - 1) t.regenerate(id, say(i), at++);
  }
  const st = t.save();
  const abandoned = t.branches().length - 1;
  t.free();
  if (abandoned !== ABANDONED) throw new Error(`the conversation has ${abandoned} abandoned replies, want ${ABANDONED}`);
  const file = JSON.parse(st);
  const nodes = Object.values(file.nodes).sort((a, b) => a.created_at_ms - b.created_at_ms);
  const leaf = file.branches[file.active_branch].leaf;
  if (nodes[nodes.length - 1].id !== leaf) throw new Error("the active leaf is not the newest message");
  const iso = (ms) => new Date(ms).toISOString();
  const text = (m) => m.content;
  const pi = [JSON.stringify({ type: "session", version: 3, id: file.root + "-session", timestamp: iso(1), cwd: "" })];
  for (const n of nodes) {
    const message = { role: n.message.role, content: [{ type: "text", text: text(n.message) }], ...(n.message.role === "assistant" ? { stopReason: "stop" } : {}), timestamp: n.created_at_ms };
    pi.push(JSON.stringify({ type: "message", id: n.id, parentId: n.parent ?? null, timestamp: iso(n.created_at_ms), message }));
  }
  const NONE = "00000000-0000-0000-0000-000000000000";
  const librechat = {
    conversationId: file.root, endpoint: "openAI", title: "message 0",
    messages: nodes.map((n) => ({ messageId: n.id, parentMessageId: n.parent ?? NONE, conversationId: file.root, sender: n.message.role, isCreatedByUser: n.message.role === "user", createdAt: iso(n.created_at_ms), text: text(n.message) })),
  };
  const mapping = { "client-created-root": { id: "client-created-root", message: null, parent: null, children: [file.root] } };
  for (const n of nodes) {
    mapping[n.id] = {
      id: n.id,
      message: { id: n.id, author: { role: n.message.role, name: null, metadata: {} }, create_time: n.created_at_ms / 1000, update_time: null, content: { content_type: "text", parts: [text(n.message)] }, status: "finished_successfully", end_turn: n.message.role === "assistant" ? true : null, weight: 1.0, metadata: {}, recipient: "all", channel: null },
      parent: n.parent ?? "client-created-root",
      children: n.children ?? [],
    };
  }
  const chatgpt = [{ title: "message 0", create_time: 0.001, update_time: nodes[nodes.length - 1].created_at_ms / 1000, conversation_id: file.root, id: file.root, mapping, current_node: leaf }];
  return { sessiontree: st, pi: pi.join("\n") + "\n", librechat: JSON.stringify(librechat), chatgpt: JSON.stringify(chatgpt) };
}

// chromium starts headless Chromium for the page runs: each run a fresh
// browser context whose page fetches the file (not timed), warms up as the
// Node run does, then runs the steps; memory is the JS heap (CDP, after a
// collection) and the module's memory, as in Node.
async function chromium(dir) {
  const { chromium } = createRequire(path.join(repo, ".tools", "package.json"))("playwright-core");
  const browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run"],
  });
  const html = `<!doctype html><meta charset="utf-8"><title>bench-peers</title><script type="module">
import { contender, warm } from "/js/bench/contenders.js";
let c, env;
window.prepare = async (who, file, n) => {
  const bytes = new Uint8Array(await (await fetch("/file/" + file)).arrayBuffer());
  // The page's save ends with its string laid out whole, as a store would
  // take it: a character read from the middle lays out one joined with +
  // (~20 ms at 42 MB, what join() costs); a flat string reads it at once.
  env = { n, bytes: () => bytes, write: (s) => { window.sunk = s.length + s.charCodeAt(s.length >> 1); } };
  if (who === "sessiontree") { env.st = await import("/js/sessiontree.js"); await env.st.init(); }
  warm(who, env);
  c = contender(who, env);
};
window.step = (s) => c[s]();
window.wasm = () => (env.st ? env.st.memoryUsage().main : 0);
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
        await page.evaluate(([w, f, n]) => window.prepare(w, f, n), [who, FILE[who], N]);
        const cdp = await ctx.newCDPSession(page);
        const memory = async () => {
          await cdp.send("HeapProfiler.collectGarbage");
          return (await cdp.send("Runtime.getHeapUsage")).usedSize + (await page.evaluate(() => window.wasm()));
        };
        const step = (s) => page.evaluate((x) => window.step(x), s);
        const base = await memory();
        const r = {};
        r.open = await step("open");
        r.mem1 = ((await memory()) - base) / N;
        r.full = await step("full");
        r.mem2 = ((await memory()) - base) / N;
        r.read = await step("read");
        r.mem3 = ((await memory()) - base) / N;
        for (const s of ["deep", "retry", "save", "regenerate", "build"]) r[s] = await step(s);
        return r;
      } finally {
        await ctx.close();
      }
    },
    close: async () => { server.close(); await browser.close(); },
  };
}
