// make bench-formats (with ../shared beside the repository): import and export
// of the largest real file of each format through the JS API and the full
// module in Node (WebAssembly), MB/s of the file, median of 9 after 2 warm-ups.
// The native numbers are `go test -bench Real ./core/formats/` in the same run.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { init, SessionTree } from "../sessiontree.js";

const repo = path.dirname(path.dirname(path.dirname(fileURLToPath(import.meta.url))));
const shared = process.env.SESSIONTREE_SHARED ?? path.join(repo, "..", "shared");
const files = {
  claudecode: "interop/claudecode/spotter-4d5611e5.jsonl",
  codex: "interop/codex/codemie-rollout-2026-05-11T11-26-55.jsonl",
  pi: "interop/pi/pimono-before-compaction.jsonl",
  chatgpt: "testdata/chatgpt/chatgpt-export.json",
  openwebui: "interop/openwebui/owi-importer-claude_output.json",
  librechat: "testdata/librechat/librechat-tree.json",
};
if (!fs.existsSync(shared)) {
  console.log(`== formats, real files in wasm: skipped, no shared folder at ${shared}`);
  process.exit(0);
}
await init({ full: true });
const median = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
function time(fn, reps = 9) {
  for (let i = 0; i < 2; i++) fn();
  const t = [];
  for (let i = 0; i < reps; i++) { const t0 = performance.now(); fn(); t.push(performance.now() - t0); }
  return median(t);
}
console.log(`\n== formats: the largest real file of each format through the JS API, full module, Node ${process.version} (WebAssembly)`);
console.log("| format | file | size | import MB/s | export MB/s |");
console.log("|---|---|---:|---:|---:|");
for (const [format, rel] of Object.entries(files)) {
  const bytes = fs.readFileSync(path.join(shared, rel));
  const mb = bytes.length / 1e6;
  const imp = time(() => SessionTree.import(bytes, format).tree.free());
  const { tree } = SessionTree.import(bytes, format);
  const exp = time(() => tree.export(format));
  tree.free();
  console.log(`| ${format} | ${path.basename(rel)} | ${(bytes.length / 1024).toFixed(0)} KB | ${(mb / (imp / 1000)).toFixed(0)} | ${(mb / (exp / 1000)).toFixed(0)} |`);
}
