// The Cloudflare Workers (workerd) entry: Workers cannot compile WebAssembly from
// bytes at run time, so both modules are imported (bundled as WebAssembly.Module
// objects) and init() and initInterchange() use them when called without an
// argument. The interchange module (import, export, merge) is in the bundle
// either way (its upload size, and workerd compiles imported modules when the
// Worker starts); it is only instantiated, and its Go program started, when
// initInterchange() is called.
import wasmModule from "./sessiontree.wasm";
import interchangeModule from "./sessiontree-interchange.wasm";
import { init as initFrom, initInterchange as initInterchangeFrom } from "./sessiontree.js";

export * from "./sessiontree.js";

/** See sessiontree.d.ts: with no argument, uses the bundled module. */
export function init(source = wasmModule) {
  return initFrom(source);
}

/** See sessiontree.d.ts: with no argument, uses the bundled interchange module. */
export function initInterchange(source = interchangeModule) {
  return initInterchangeFrom(source);
}
