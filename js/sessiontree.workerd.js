// The Cloudflare Workers (workerd) entry: Workers cannot compile WebAssembly from
// bytes at run time, so the modules are imported (bundled as WebAssembly.Module
// objects) and init() and initFormats() use them when called without an
// argument. Each is compiled when the Worker starts but only instantiated when
// its init is called, so a Worker that never imports or exports pays only for
// the formats module's upload size.
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
