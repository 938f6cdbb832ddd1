// The worker's entry point: one Go instance per isolate, kept for every request.
//
// The stock syumai/workers glue instantiates the Go module anew for each
// request (a fresh runtime, an empty heap: several milliseconds, and every tree
// read from D1 again). This glue starts Go once, on the first request, and then
// hands each request to the running instance, whose handler keeps loaded trees
// in memory and checks them against D1's version on every request. If the Go
// program ever exits, the next request starts a new one.
import "../build/wasm_exec.js";
import mod from "../build/app.wasm";

// syumai/workers reads globalThis.context when its packages initialise:
// env (bindings, vars), ctx (the ExecutionContext) and binding (where Go puts
// handleRequest). One object serves the whole isolate; env is the same object
// for every request of an isolate, and is refreshed anyway.
const context = { env: undefined, ctx: undefined, binding: {} };
globalThis.context = context;
globalThis.tryCatch = (fn) => {
  try {
    return { result: fn() };
  } catch (e) {
    return { error: e };
  }
};

let go = null;
let started = null;

function start() {
  const instanceGo = new Go();
  let ready;
  const readyPromise = new Promise((resolve) => (ready = resolve));
  const instance = new WebAssembly.Instance(mod, {
    ...instanceGo.importObject,
    workers: { ready: () => ready() },
  });
  go = instanceGo;
  instanceGo.run(instance).finally(() => {
    if (go === instanceGo) started = null;
  });
  return readyPromise;
}

export default {
  async fetch(request, env, ctx) {
    context.env = env;
    context.ctx = ctx;
    if (started === null || go.exited) started = start();
    await started;
    return context.binding.handleRequest(request);
  },
};
