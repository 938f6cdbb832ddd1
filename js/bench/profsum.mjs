// Sums a V8 .cpuprofile (from BENCH_HUGE_PROFILE or DevTools): the functions
// with the most self time and the most total time (self plus callees, each
// sample counted once per function), to compare two runs of the same action.
//   node js/bench/profsum.mjs FILE.cpuprofile [top=25] [focus]
// focus: only the samples with a function of that name (a substring) on
// their stack, e.g. "projectFor".
import fs from "node:fs";

const [file, topArg, focus] = process.argv.slice(2);
if (!file) {
  console.error("usage: node js/bench/profsum.mjs FILE.cpuprofile [top] [focus]");
  process.exit(2);
}
const top = Number(topArg ?? 25);
const p = JSON.parse(fs.readFileSync(file, "utf8"));
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const name = (n) => {
  const f = n.callFrame;
  const where = f.url ? `${f.url.split("/").pop()}:${f.lineNumber + 1}` : "";
  return `${f.functionName || "(anonymous)"} ${where}`.trim();
};
// The time of each sample: the gap to the next one.
const dt = new Map();
for (let i = 0; i < p.samples.length; i++) {
  const d = p.timeDeltas[i + 1] ?? 0;
  dt.set(p.samples[i], (dt.get(p.samples[i]) ?? 0) + d);
}
const self = new Map();
const total = new Map();
let all = 0;
for (const [id, us] of dt) {
  const n = byId.get(id);
  const k = name(n);
  if (k.startsWith("(idle)") || k.startsWith("(program)")) continue;
  if (focus) {
    let on = false;
    for (let cur = id; cur !== undefined && !on; cur = parent.get(cur)) on = name(byId.get(cur)).includes(focus);
    if (!on) continue;
  }
  all += us;
  self.set(k, (self.get(k) ?? 0) + us);
  const seen = new Set();
  for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
    const kk = name(byId.get(cur));
    if (seen.has(kk)) continue;
    seen.add(kk);
    total.set(kk, (total.get(kk) ?? 0) + us);
  }
}
const show = (m, what) => {
  console.log(`== ${what} (ms; busy ${(all / 1000).toFixed(1)} ms in all)`);
  for (const [k, us] of [...m].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${(us / 1000).toFixed(1).padStart(9)}  ${k}`);
};
show(self, "self");
show(total, "total");
