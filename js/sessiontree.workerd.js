// The Cloudflare Workers (workerd) entry: Workers cannot compile WebAssembly from
// bytes at run time, so the module is imported (bundled as a WebAssembly.Module)
// and init() uses it when called without an argument.
import wasmModule from "./sessiontree.wasm";
import { init as initFrom } from "./sessiontree.js";

export * from "./sessiontree.js";

/** See sessiontree.d.ts: with no argument, uses the bundled module. */
export function init(source = wasmModule) {
  return initFrom(source);
}
