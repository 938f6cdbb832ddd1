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

/** See sessiontree.d.ts: with no argument, uses the bundled lean module; with { full: true }, the bundled full one. */
export function init(source = wasmModule) {
  const full = typeof source === "object" && source !== null && Object.getPrototypeOf(source) === Object.prototype && source.full === true;
  return initFrom(full ? interchangeModule : source);
}

/** See sessiontree.d.ts: with no argument, uses the bundled interchange module. */
export function initInterchange(source = interchangeModule) {
  return initInterchangeFrom(source);
}
