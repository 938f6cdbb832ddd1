// The lean module's, the full module's and a bare Go WebAssembly program's
// sizes compressed, the bare program built now with the module's linker flags
// (-trimpath -ldflags='-s -w', as make build's WASM_BUILD): the yardstick of
// issue 3 and issue 26 (lean ≤ 1.3× bare, gzipped), measured in the run that
// prints it. Node only.
import { execFileSync } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import { fileURLToPath } from "node:url";

const js = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const repo = path.dirname(js);

/**
 * Builds the bare program into a temporary folder and returns { lean, full,
 * bare }, each { bytes, gzip (level 9), brotli (quality 11) }, the bare
 * program's path as bare_path, and remove(), which removes it.
 */
export async function moduleSizes() {
  const tmp = await fs.mkdtemp(path.join(os.tmpdir(), "st-sizes-"));
  const bare = path.join(tmp, "bare.wasm");
  execFileSync("go", ["build", "-trimpath", "-ldflags=-s -w", "-o", bare, "./js/bench/bare"],
    { cwd: repo, env: { ...process.env, GOOS: "js", GOARCH: "wasm" } });
  const of = async (f) => {
    const b = await fs.readFile(f);
    return {
      bytes: b.length,
      gzip: zlib.gzipSync(b, { level: 9 }).length,
      brotli: zlib.brotliCompressSync(b, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: b.length } }).length,
    };
  };
  const sizes = { lean: await of(path.join(js, "sessiontree.wasm")), full: await of(path.join(js, "sessiontree-interchange.wasm")), bare: await of(bare) };
  return { ...sizes, bare_path: bare, remove: () => fs.rm(tmp, { recursive: true, force: true }) };
}

/** The table of moduleSizes's answer: gzip and brotli, each module ÷ bare. */
export function sizeTable(s) {
  const kib = (b) => `${(b / 1024).toFixed(0)} KiB (${b} B)`;
  const rows = [
    "| | lean: sessiontree.wasm | full: sessiontree-interchange.wasm | bare Go (syscall/js only) | lean / bare | full / bare | target (lean) |",
    "|---|---:|---:|---:|---:|---:|---:|",
  ];
  for (const [name, k, target] of [["gzip -9", "gzip", "≤ 1.3×"], ["brotli -q 11", "brotli", ""]]) {
    rows.push(`| ${name} size | ${kib(s.lean[k])} | ${kib(s.full[k])} | ${kib(s.bare[k])} | ${(s.lean[k] / s.bare[k]).toFixed(2)}× | ${(s.full[k] / s.bare[k]).toFixed(2)}× | ${target} |`);
  }
  return rows.join("\n");
}
