// The Cloudflare Workers (workerd) entry: Workers cannot compile WebAssembly from
// bytes at run time, so both modules are imported (bundled as WebAssembly.Module
// objects) and init() and initInterchange() use them when called without an
// argument; init({ full: true }) uses the bundled full module. The full module
// (sessiontree-interchange.wasm: import, export, merge) is in the bundle either
// way (its upload size, and workerd compiles imported modules when the Worker
// starts); it is only instantiated, and its Go program started, when
// initInterchange() or init({ full: true }) is called. With the full module as
// the main one, initInterchange() loads nothing.
import wasmModule from "./sessiontree.wasm";
import interchangeModule from "./sessiontree-interchange.wasm";
import { init as initFrom, initInterchange as initInterchangeFrom } from "./sessiontree.js";

export * from "./sessiontree.js";

/** See sessiontree.d.ts: with no argument or { full: false }, uses the bundled lean module; with { full: true }, the bundled full one. */
export function init(source = wasmModule) {
  // Options it knows are the bundled modules; any other object goes on to
  // sessiontree.js's init, which says what is wrong with it.
  if (typeof source === "object" && source !== null && Object.getPrototypeOf(source) === Object.prototype) {
    const keys = Object.keys(source);
    if (keys.length === 0 || (keys.length === 1 && typeof source.full === "boolean")) source = source.full ? interchangeModule : wasmModule;
  }
  return initFrom(source);
}

/** See sessiontree.d.ts: with no argument, uses the bundled interchange module. */
export function initInterchange(source = interchangeModule) {
  return initInterchangeFrom(source);
}
