// make bench-nav (its Node half): what a user of a chat view does, through the
// JS API in Node, in chats of 100, 20k and 200k messages of ~500 bytes with a
// fork every 5, 50 and 2,000 messages (a regenerated reply, the chat going on
// from the new one) and a tool-heavy chat with a fork every 50: a ‹ › switch
// (t.open of the other alternative), the switch and the reads of the render
// after it (pathLength, the last 50 messages, their siblings, pathIndex),
// siblings, pathLength, pathIndex and the tree view's subtree. Each runs over
// up to 64 forks from the root to the leaf; the table gives the median and the
// slowest fork, the slowest first meeting with a fork (for open: the first
// switch to an alternative unused since it was made), and the 200k÷100
// ratios of the three, measured in this run.
// Prints a table; asserts nothing.
//   node js/bench/nav.mjs        (after make build; BENCH_NAV_SIZES=100,20000 for a quicker look,
//                                 BENCH_NAV_SHAPES=fork2000,tools50 for some chats only)
import { init, SessionTree } from "../sessiontree.js";

const sizes = (process.env.BENCH_NAV_SIZES ?? "100,20000,200000").split(",").map(Number);
const reps = Number(process.env.BENCH_NAV_REPS ?? 8); // timed runs per fork, both ways
const only = (process.env.BENCH_NAV_SHAPES ?? "").split(",").filter(Boolean); // e.g. fork2000,tools50
const shapes = [
  { name: "fork5", every: 5 },
  { name: "fork50", every: 50 },
  { name: "fork2000", every: 2000 },
  { name: "tools50", every: 50, tools: true },
].filter((s) => !only.length || only.includes(s.name));
const TARGETS = 64;

const filler = "The tree keeps every branch of the conversation; this sentence pads a message. ".repeat(6).slice(0, 440);
function messages(tools) {
  const text = (role, i) => ({ role, content: `${i} ${filler}` });
  if (!tools) return [text("user", 0), text("assistant", 1), text("user", 2), text("assistant", 3)];
  const call = (i) => ({ role: "assistant", content: null, tool_calls: [{ id: `call_${i}`, type: "function", function: { name: "read_file", arguments: JSON.stringify({ path: `core/${filler.slice(0, 300)}.go` }) } }] });
  const result = (i) => ({ role: "tool", tool_call_id: `call_${i}`, content: filler });
  return [text("user", 0), call(1), result(1), call(2), result(2), call(3), result(3), text("assistant", 4)];
}

/** A chat of n messages regenerating its last message every `every` (once, halfway, below 2×every) and going on from the new one. */
function build(n, every, tools) {
  if (n < 2 * every) every = Math.floor(n / 2);
  const msgs = messages(tools);
  const t = new SessionTree();
  const forks = [];
  let last = null, count = 0, at = 1_700_000_000_000;
  while (count < n) {
    const ops = [];
    for (; count < n && (count === 0 || count % every !== 0); count++) ops.push({ op: "append", message: msgs[count % msgs.length], at: at++ });
    if (ops.length) last = t.apply(ops).at(-1);
    if (count >= n) break;
    const altBranch = t.activeBranch;
    const parent = t.node(last).parent;
    const cont = t.regenerate(last, msgs[count % msgs.length], at++);
    forks.push({ parent, alt: last, cont, altBranch });
    last = cont;
    count++;
  }
  const spread = forks.length <= TARGETS ? forks : Array.from({ length: TARGETS }, (_, i) => forks[Math.floor(i * (forks.length - 1) / (TARGETS - 1))]);
  return { t, forks: spread, at };
}

const ops = {
  open: (c, f, odd) => c.t.open(odd ? f.cont : f.alt, c.at++),
  "switch+render": (c, f, odd) => {
    // A ‹ › click in the demo: open the other alternative, then what the chat
    // view reads to paint the last 50 messages and their switchers.
    const id = odd ? f.cont : f.alt;
    c.t.open(id, c.at++);
    c.t.pathLength();
    const w = c.t.pathWindow(-50);
    for (const v of w.ids) c.t.siblings(v);
    c.t.pathIndex(id);
  },
  siblings: (c, f, odd) => c.t.siblings(odd ? f.cont : f.alt),
  pathLength: (c, f, odd) => c.t.pathLength(odd ? undefined : f.altBranch),
  pathIndex: (c, f, odd) => c.t.pathIndex(odd ? f.alt : f.parent),
  subtree: (c) => c.t.subtree(null, { runs: true, limit: 50_000 }),
};

/**
 * One op over the forks, in ms: the slowest first meeting with a fork (one
 * run each way), then the median and the slowest fork over reps runs each.
 */
function time(c, op) {
  const timeFork = (f, runs) => {
    const start = performance.now();
    for (let i = 0; i < runs; i++) op(c, f, i % 2 === 1);
    return (performance.now() - start) / runs;
  };
  let first = 0;
  for (const f of c.forks) first = Math.max(first, timeFork(f, 2));
  const per = c.forks.map((f) => timeFork(f, reps)).sort((a, b) => a - b);
  return { p50: per[per.length >> 1], max: per.at(-1), first };
}

await init();
const results = {}; // shape → size → op → { p50, max }
for (const s of shapes) {
  results[s.name] = {};
  for (const n of sizes) {
    const started = performance.now();
    const c = build(n, s.every, s.tools);
    const built = performance.now() - started;
    results[s.name][n] = {};
    for (const [name, op] of Object.entries(ops)) {
      // subtree reads the whole tree, the same whichever fork: a few are enough.
      const forks = name === "subtree" ? c.forks.slice(0, 4) : c.forks;
      results[s.name][n][name] = time({ ...c, forks, get at() { return c.at; }, set at(v) { c.at = v; } }, op);
    }
    console.error(`nav: ${s.name} ${n} built in ${(built / 1000).toFixed(1)} s, ${c.t.branches().length} branches`);
    c.t.free();
  }
}

const fmt = (ms) => (ms >= 10 ? ms.toFixed(0) : ms >= 1 ? ms.toFixed(1) : ms >= 0.01 ? ms.toFixed(3) : ms.toFixed(4));
const small = sizes[0], big = sizes.at(-1);
console.log(`\nNavigation in Node ${process.version} (wasm), ms: median fork / slowest fork / slowest first meeting with a fork (up to ${TARGETS} forks, ${reps} runs each)`);
console.log(`| chat | op | ${sizes.join(" | ")} | ${big}÷${small} median | ${big}÷${small} slowest | ${big}÷${small} first |`);
console.log(`|---|---|${sizes.map(() => "---:|").join("")}---:|---:|---:|`);
for (const s of shapes) {
  for (const name of Object.keys(ops)) {
    const r = (n) => results[s.name][n][name];
    const cells = sizes.map((n) => `${fmt(r(n).p50)} / ${fmt(r(n).max)} / ${fmt(r(n).first)}`);
    const ratio = (k) => `${(r(big)[k] / r(small)[k]).toFixed(2)}×`;
    console.log(`| ${s.name} | ${name} | ${cells.join(" | ")} | ${ratio("p50")} | ${ratio("max")} | ${ratio("first")} |`);
  }
}
