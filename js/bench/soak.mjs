// make bench-soak (part of make bench): the module's WebAssembly memory over a
// long run, in Node. Two soaks (issue 15):
//   1. 1,000 rounds of append + save() on a 20k-message tree;
//   2. 50 rounds of load + linearProjection() + free() of a 100k-message file.
// Each prints the module's memory at the start, after each tenth of the run and
// at the end, the end against 3× the file plus 32 MB, and the growth over the
// last half of the run. Prints; asserts nothing (SOAK_SCALE=0.1 for a quick look).
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { init, memoryUsage, SessionTree } from "../sessiontree.js";

const scale = Number(process.env.SOAK_SCALE ?? 1);
const MB = 1 << 20;
const mb = (n) => `${(n / MB).toFixed(1)} MB`;
const mem = () => memoryUsage().main;

// A message like a chat's: ~230 bytes of JSON, so 20k of them make a file of ~4.6 MB.
const message = (i) => ({
  role: i % 2 ? "assistant" : "user",
  content: `message ${i}: ` + "the quick brown fox jumps over the lazy dog, ".repeat(4),
});

function soak(title, rounds, fileBytes, step) {
  const marks = [];
  const t0 = performance.now();
  marks.push(["start", mem()]);
  const tenth = Math.max(1, Math.floor(rounds / 10));
  for (let i = 1; i <= rounds; i++) {
    step(i);
    if (i % tenth === 0 && i < rounds) marks.push([`${i}/${rounds}`, mem()]);
  }
  marks.push(["end", mem()]);
  const ms = performance.now() - t0;
  const end = marks.at(-1)[1];
  const target = 3 * fileBytes + 32 * MB;
  const half = marks[Math.floor(marks.length / 2)][1];
  console.log(`\n${title} (file ${mb(fileBytes)}, ${rounds} rounds, ${(ms / 1000).toFixed(1)} s)`);
  console.log(`| after | wasm memory |`);
  console.log(`|---|---:|`);
  for (const [at, bytes] of marks) console.log(`| ${at} | ${mb(bytes)} |`);
  console.log(`end ${mb(end)} vs 3× file + 32 MB = ${mb(target)}: ${end <= target ? "within" : "OVER"}; ` +
    `growth over the last half ${(((end - half) / half) * 100).toFixed(1)}% (target < 5%)`);
}

// Each soak runs in a fresh Node process, so that its module's memory is what
// the soak needed and not what making its file needed (memory never shrinks).
const [, , which, filePath] = process.argv;
const flavour = process.env.SESSIONTREE_FLAVOUR === "full" ? { full: true } : undefined;
await init(flavour);

if (which === "1") {
  const n = 20000;
  const t = SessionTree.load(readFileSync(filePath, "utf8"));
  const fileBytes = statSync(filePath).size;
  let saved = 0;
  soak("1. append + save() on a 20k-message tree", Math.round(1000 * scale), fileBytes, (i) => {
    t.append(message(n + i), 2 + i);
    saved += t.save().length;
  });
  if (saved === 0) throw new Error("nothing saved");
} else if (which === "2") {
  const file = readFileSync(filePath, "utf8");
  const fileBytes = statSync(filePath).size;
  soak("2. load + linearProjection() + free() of a 100k-message file", Math.max(2, Math.round(50 * scale)), fileBytes, () => {
    const t = SessionTree.load(file);
    if (t.linearProjection().length !== 100000) throw new Error("short projection");
    t.free();
  });
} else {
  console.log(`== soak: module memory (Node ${process.version}${flavour ? ", full module" : ""}), each soak in a fresh process`);
  const dir = mkdtempSync(path.join(os.tmpdir(), "sessiontree-soak-"));
  try {
    for (const [which, n] of [["1", 20000], ["2", 100000]]) {
      const t = SessionTree.fromLinear(Array.from({ length: n }, (_, i) => message(i)), 1);
      const file = path.join(dir, `${n}.tree.json`);
      writeFileSync(file, t.save());
      t.free();
      execFileSync(process.execPath, [fileURLToPath(import.meta.url), which, file], { stdio: "inherit" });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
