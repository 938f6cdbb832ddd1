// The Cloudflare Workers (workerd) entry: Workers cannot compile WebAssembly from
// bytes at run time, so both modules are imported (bundled as WebAssembly.Module
// objects) and init() and initFormats() use them when called without an
// argument. The formats module is in the bundle either way (its upload size,
// and workerd compiles imported modules when the Worker starts); it is only
// instantiated, and its Go program started, when initFormats() is called.
import wasmModule from "./sessiontree.wasm";
import formatsModule from "./sessiontree-formats.wasm";
import { init as initFrom, initFormats as initFormatsFrom } from "./sessiontree.js";

export * from "./sessiontree.js";

/** See sessiontree.d.ts: with no argument, uses the bundled module. */
export function init(source = wasmModule) {
  return initFrom(source);
}

/** See sessiontree.d.ts: with no argument, uses the bundled formats module. */
export function initFormats(source = formatsModule) {
  return initFormatsFrom(source);
}
