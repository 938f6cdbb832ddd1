// make bench-peers: sessiontree against the way three chat tools keep a
// conversation tree, on the same 100k-message conversation in each tool's own
// file (made by sessiontree's exporters), in Node (issue 16's targets):
//   - pi: a session JSONL, one JSON.parse per line, entries in a Map by id,
//     the leaf is the last entry, the context walks parentId up from it
//     (as pi's SessionManager does);
//   - LibreChat: the flat export, JSON.parse of the file, messages in a Map by
//     messageId, the thread walks parentMessageId up from the last message
//     (as LibreChat's tree helpers do over a Map index);
//   - ChatGPT: conversations.json, JSON.parse of the file, the thread walks
//     `mapping` from `current_node` (as a ChatGPT-export viewer does).
// These are written here after those tools' published behaviour, not copied
// from them (the project commits no other project's code).
// Each contender runs in a fresh process (node --expose-gc), 5 times, the
// contenders in turn (one run of each, then the next round), so that a machine
// whose load changes during the run weighs on all of them alike; times are
// medians, and the load average is printed before and after. Measured: open (the file's bytes in memory → the last 50 messages
// as JS objects), the full request list as JS objects, and the memory held
// per message after both (JS heap + WebAssembly memory, after a collection).
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const self = fileURLToPath(import.meta.url);
const N = Number(process.env.PEERS_N ?? 100000);
const [, , mode, who, file] = process.argv;

if (mode === "run") {
  const bytes = fs.readFileSync(file);
  let last50, full, keep, wasmBytes = 0;
  if (who !== "sessiontree") {
    // The same warm-up for the peers: JSON.parse and the walk on a small file.
    for (let i = 0; i < 5; i++) JSON.parse(JSON.stringify(Array.from({ length: 3000 }, (_, j) => ({ role: "user", content: `warm ${j} `.repeat(30) }))));
    globalThis.gc();
  }
  const heapStart = process.memoryUsage().heapUsed;
  const t0 = performance.now();
  if (who === "sessiontree") {
    const { init, memoryUsage, SessionTree } = await import("../sessiontree.js");
    await init();
    // Warm up as a page that has been open a moment is: WebAssembly runs its
    // first calls in baseline code and tiers hot functions up as they run.
    for (let i = 0; i < 5; i++) {
      const w = SessionTree.load(SessionTree.fromLinear(Array.from({ length: 3000 }, (_, j) => ({ role: "user", content: `warm ${j} `.repeat(30) })), 1).save());
      w.pathWindow(-50); w.linearProjection(); w.free();
    }
    globalThis.gc();
    const base = memoryUsage().main;
    const t1 = performance.now();
    const t = await SessionTree.loadFrom(bytes);
    last50 = t.pathWindow(-50).messages;
    const open = performance.now() - t1;
    const t2 = performance.now();
    full = t.linearProjection();
    const all = performance.now() - t2;
    keep = t;
    wasmBytes = memoryUsage().main - base;
    report(open, all);
  } else {
    const text = new TextDecoder().decode(bytes);
    let index, leaf, up, msg;
    if (who === "pi") {
      index = new Map();
      let last = null;
      for (const line of text.split("\n")) {
        if (!line) continue;
        const e = JSON.parse(line);
        if (e.id) { index.set(e.id, e); last = e; }
      }
      leaf = last; up = (e) => (e.parentId ? index.get(e.parentId) : null); msg = (e) => e.message;
    } else if (who === "librechat") {
      const data = JSON.parse(text);
      index = new Map();
      for (const m of data.messages) index.set(m.messageId, m);
      leaf = data.messages[data.messages.length - 1];
      up = (m) => index.get(m.parentMessageId) ?? null; msg = (m) => ({ role: m.isCreatedByUser ? "user" : "assistant", content: m.text });
    } else {
      const conv = JSON.parse(text)[0];
      index = conv.mapping;
      leaf = index[conv.current_node];
      up = (n) => (n.parent ? index[n.parent] : null); msg = (n) => n.message && { role: n.message.author.role, content: n.message.content.parts.join("") };
    }
    const path = [];
    for (let e = leaf; e; e = up(e)) path.push(e);
    path.reverse();
    last50 = path.slice(-50).map(msg);
    const open = performance.now() - t0;
    const t2 = performance.now();
    full = path.map(msg).filter(Boolean);
    const all = performance.now() - t2;
    keep = index;
    report(open, all);
  }
  function report(open, all) {
    globalThis.gc();
    const held = process.memoryUsage().heapUsed - heapStart + wasmBytes;
    if (last50.length !== 50 || full.length < N) throw new Error(`${who}: ${last50.length} last, ${full.length} in the list`);
    console.log(JSON.stringify({ open, all, perMessage: held / N, keep: !!keep }));
  }
} else {
  const { init, initInterchange, SessionTree } = await import("../sessiontree.js");
  await init({ full: true });
  const say = (i) => ({ role: i % 2 ? "assistant" : "user", content: `message ${i}: ` + "a sentence of an ordinary chat reply, ".repeat(6) });
  const t = SessionTree.fromLinear(Array.from({ length: N }, (_, i) => say(i)), 1);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sessiontree-peers-"));
  const files = { sessiontree: t.save(), pi: t.export("pi"), librechat: t.export("librechat"), chatgpt: t.export("chatgpt") };
  t.free();
  const rows = [];
  const load = () => os.loadavg().map((x) => x.toFixed(2)).join(" ");
  const loadBefore = load();
  try {
    const runs = {};
    for (const [who, text] of Object.entries(files)) {
      fs.writeFileSync(path.join(dir, who), text);
      runs[who] = [];
    }
    for (let i = 0; i < 5; i++) {
      for (const who of Object.keys(files)) {
        runs[who].push(JSON.parse(execFileSync(process.execPath, ["--expose-gc", self, "run", who, path.join(dir, who)], { encoding: "utf8" })));
      }
    }
    for (const [who, text] of Object.entries(files)) {
      const med = (k) => runs[who].map((r) => r[k]).sort((a, b) => a - b)[2];
      rows.push({ who, mb: Buffer.byteLength(text) / 1e6, open: med("open"), all: med("all"), per: med("perMessage") });
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const peers = rows.filter((r) => r.who !== "sessiontree");
  const best = (k) => Math.min(...peers.map((r) => r[k]));
  const pi = rows.find((r) => r.who === "pi");
  console.log(`\n== ${N.toLocaleString("en")} messages, Node ${process.version}, medians of 5 fresh processes, in turn (load average ${loadBefore} before, ${load()} after)`);
  console.log("| | file | open: last 50 messages as objects | full request list as objects | memory held per message |");
  console.log("|---|---:|---:|---:|---:|");
  for (const r of rows) console.log(`| ${r.who} | ${r.mb.toFixed(1)} MB | ${r.open.toFixed(0)} ms | ${r.all.toFixed(0)} ms | ${r.per.toFixed(0)} B |`);
  const st = rows[0];
  console.log(`sessiontree ÷ the fastest peer: open ${(st.open / best("open")).toFixed(2)}× (target ≤ 0.5×), full list ${((st.open + st.all) / Math.min(...peers.map((r) => r.open + r.all))).toFixed(2)}× from the file (target ≤ 1.0×); memory ÷ pi ${(st.per / pi.per).toFixed(2)}× (target ≤ 1.5×)`);
}
