// sessiontree/worker: the JS API of sessiontree.js running in a Web Worker, so
// that a page opens, imports and saves a huge session with no long task on its
// own thread. Every method is the same as SessionTree's but returns a Promise;
// trees live in the worker, and the page holds proxies. See worker.d.ts.
//
//   import { connect } from "sessiontree/worker";
//   const st = await connect();                       // starts the worker and init()
//   const t = await st.SessionTree.loadFrom(file);    // a File or Blob: read in the worker
//   const { messages } = await t.pathWindow(-50);     // the last screenful
//   await t.append({ role: "user", content: "hi" });
import { SessionTree as PageTree, SessionTreeError } from "./sessiontree.js";

export { SessionTreeError };

// A proxy has what the page's SessionTree has, by name: its methods and its
// getters (version, activeBranch), each answering with a Promise; any other
// name is undefined, as on the page (a name once became a remote call, so
// JSON.stringify's toJSON probe rejected unhandled and `version` was a function).
const members = Object.entries(Object.getOwnPropertyDescriptors(PageTree.prototype)).filter(([name]) => name !== "constructor");
const statics = Object.getOwnPropertyNames(PageTree).filter((name) => typeof PageTree[name] === "function");

// Messages cross as the page's tree reads them, as their JSON: structured
// clone stored a class with toJSON (Money, dayjs) as its fields and refused a
// URL or an own toJSON. What JSON cannot write crosses as it is, to be refused
// in the worker as the page refuses it.
const asJSON = (v) => {
  if (typeof v !== "object" || v === null) return v;
  let text;
  try {
    text = JSON.stringify(v);
  } catch {
    return v;
  }
  return text === undefined ? v : JSON.parse(text);
};
const eachAsJSON = (v) => (Array.isArray(v) ? v.map(asJSON) : v);
// The arguments that carry messages, by method and place.
const messages = { append: [asJSON], edit: [null, asJSON], regenerate: [null, asJSON], apply: [eachAsJSON], fromLinear: [eachAsJSON] };

// where makes a URL given as a string absolute against the page, as init()
// reads it on the page: in the worker it was read against the worker's
// script. A URL object cannot cross to a worker; its text can.
const where = (source) => (typeof source === "string" ? new URL(source, location.href).href : source instanceof URL ? source.href : source);

/** Starts a worker, loads the module in it (init's source, or { full: true }) and resolves to its API. */
export async function connect(source, options = {}) {
  const worker = options.worker ?? new Worker(new URL("./sessiontree.worker.js", import.meta.url), { type: "module" });
  const pending = new Map();
  let seq = 0;
  worker.onmessage = ({ data }) => {
    if (data.event) return tell(data.handle, data.event);
    const p = pending.get(data.id);
    if (!p) return;
    pending.delete(data.id);
    if (data.ok) p.resolve(place(data.value, data.trees));
    else p.reject(new SessionTreeError(data.code, data.message));
  };
  worker.onerror = (e) => {
    for (const p of pending.values()) p.reject(new SessionTreeError("invalid_input", `the sessiontree worker failed: ${e.message ?? e}`));
    pending.clear();
  };
  let closed = false;
  const request = (msg, transfer = []) => new Promise((resolve, reject) => {
    if (closed) throw new SessionTreeError("invalid_input", "the sessiontree worker was closed");
    const id = ++seq;
    pending.set(id, { resolve, reject });
    try {
      worker.postMessage({ id, ...msg }, transfer);
    } catch (e) {
      pending.delete(id);
      // A function, a symbol or a Proxy in the arguments: refused as the page's
      // tree refuses bad input, with a code (a DOMException's code is a number).
      if (e?.name === "DataCloneError") throw new SessionTreeError("invalid_input", `${msg.name ?? msg.kind}: an argument cannot be sent to the worker (${e.message})`);
      throw e; // the caller's own getter or toJSON threw
    }
  });

  // The worker says where in a result it put trees (paths of keys to their
  // numbers): those become proxies. Nothing is taken for a tree by its shape,
  // as a message's own { tree: { $tree: 1 } } once was (and freed tree 1).
  const place = (value, trees = []) => {
    for (const path of trees) {
      if (path.length === 0) return proxy(value);
      const within = path.slice(0, -1).reduce((v, k) => v[k], value);
      within[path.at(-1)] = proxy(within[path.at(-1)]);
    }
    return value;
  };
  // The arguments that are this worker's trees cross as their numbers, and
  // their places as trees: a message's $tree field stays the message's.
  const call = (msg, args, transfer) => request({
    ...msg,
    args: args.map((a, i) => (a instanceof AsyncSessionTree ? a.handle : messages[msg.name]?.[i]?.(a) ?? a)),
    trees: args.flatMap((a, i) => (a instanceof AsyncSessionTree ? [i] : [])),
  }, transfer);
  const freed = new FinalizationRegistry((handle) => { request({ kind: "free", handle }).catch(() => {}); });

  // Change events: a listener cannot cross, so the listeners stay here and
  // the worker posts the events of the trees that have any (subscribe once
  // failed to clone its function). By handle, a proxy's listeners, weakly: a
  // proxy collected is freed, and hears nothing more.
  const listening = new Map();
  const tell = (handle, event) => {
    for (const listener of [...(listening.get(handle)?.deref() ?? [])]) {
      try {
        listener(event);
      } catch (err) {
        reportError(err); // as the page's tree reports a listener's error: never thrown at the caller
      }
    }
  };

  class AsyncSessionTree {
    #listeners = new Set();
    constructor(handle) {
      this.handle = handle;
      freed.register(this, handle, this);
    }
    free() {
      freed.unregister(this);
      listening.delete(this.handle);
      return request({ kind: "free", handle: this.handle });
    }
    /** Resolves, once the worker watches the tree, to the function that unsubscribes listener. */
    async subscribe(listener) {
      if (typeof listener !== "function") throw new SessionTreeError("invalid_input", `"listener" must be a function (event) => void`);
      const ls = this.#listeners;
      const unsubscribe = () => {
        if (!ls.delete(listener) || ls.size > 0) return;
        listening.delete(this.handle);
        request({ kind: "unsubscribe", handle: this.handle }).catch(() => {}); // a freed tree watches nothing
      };
      ls.add(listener);
      if (ls.size > 1) return unsubscribe;
      listening.set(this.handle, new WeakRef(ls));
      try {
        await request({ kind: "subscribe", handle: this.handle });
      } catch (e) {
        ls.delete(listener);
        if (ls.size === 0) listening.delete(this.handle);
        throw e;
      }
      return unsubscribe;
    }
  }
  for (const [name, { value, get }] of members) {
    if (Object.hasOwn(AsyncSessionTree.prototype, name)) continue; // free and subscribe, above
    const member = typeof value === "function"
      ? { value(...args) { return call({ kind: "call", name, handle: this.handle }, args); }, writable: true }
      : { get: get && function () { return request({ kind: "get", name, handle: this.handle }); } };
    Object.defineProperty(AsyncSessionTree.prototype, name, { ...member, configurable: true });
  }
  const proxy = (handle) => new AsyncSessionTree(handle);
  // A constructor cannot wait for the worker: `new st.SessionTree()` says so
  // rather than make an empty object, as it did.
  function SessionTree() {
    throw new SessionTreeError("invalid_input", "new SessionTree() cannot wait for the worker: use await st.newTree()");
  }
  for (const name of statics) SessionTree[name] = (...args) => call({ kind: "static", name }, args);
  // A stream cannot be cloned, only moved: it is transferred. A Response is
  // checked here, as the page's loadFrom checks it, and its body moves. Both
  // failed before.
  SessionTree.loadFrom = (source, ...rest) => {
    if (typeof Response === "function" && source instanceof Response) {
      if (!source.ok) return Promise.reject(new SessionTreeError("not_found", `loadFrom: the response is HTTP ${source.status}`));
      source = source.body ?? new Uint8Array(0); // no body: an empty file
    }
    const moved = typeof ReadableStream === "function" && source instanceof ReadableStream ? [source] : [];
    return call({ kind: "static", name: "loadFrom" }, [source, ...rest], moved);
  };

  // importEach's iterator cannot cross: its steps do, a request each, so the
  // worker holds one conversation at a time (and a Blob or File is read
  // there). Asked for no more (break), or dropped half-way (collected), the
  // rest is given up: the worker lets the file go.
  const dropped = new FinalizationRegistry((state) => {
    if (state.n !== null && !state.over && !closed) request({ kind: "importEnd", args: [state.n] }).catch(() => {});
  });
  SessionTree.importEach = function importEach(source, format = "auto", options) {
    const state = { n: null, over: false };
    async function* conversations() {
      state.n = await request({ kind: "importEach", args: options === undefined ? [source, format] : [source, format, options] });
      source = null; // the worker has it
      try {
        for (;;) {
          let c;
          try {
            c = await request({ kind: "importNext", args: [state.n] });
          } catch (e) {
            state.over = true; // the worker ended it
            throw e;
          }
          if (c === null) {
            state.over = true;
            return;
          }
          yield c;
        }
      } finally {
        if (!state.over && !closed) request({ kind: "importEnd", args: [state.n] }).catch(() => {});
        state.over = true;
      }
    }
    const it = conversations();
    dropped.register(it, state);
    return it;
  };

  try {
    await request({ kind: "init", args: [where(source)] });
  } catch (e) {
    // A worker that could not load the module is of no use: one connect
    // started is stopped (a failed connect once left it running).
    if (!options.worker) {
      closed = true;
      worker.terminate();
    }
    throw e;
  }
  return {
    SessionTree,
    /** An empty tree (what `new SessionTree()` makes). */
    newTree: () => request({ kind: "new" }),
    initInterchange: (src) => request({ kind: "initInterchange", args: [where(src)] }),
    memoryUsage: () => request({ kind: "memoryUsage" }),
    /** Stops the worker; every tree in it is gone. */
    close() {
      closed = true; // a call after this fails at once instead of waiting forever
      worker.terminate();
      for (const p of pending.values()) p.reject(new SessionTreeError("invalid_input", "the sessiontree worker was closed"));
      pending.clear();
    },
  };
}

/**
 * The steps of an importEach read ahead of their use: the worker reads on
 * while the page stores what it has, up to options.bytes (default 32 MiB) of
 * the conversations' files (`{ files: true }`; a step with no file counts as
 * the whole limit: one read ahead). Asked one at a time, the page waited for
 * the worker and the worker for the page (a 345 MB export: 73 s, against 31 s
 * one ahead and 23 s with 32 MB ahead). `most` is the most steps it held read
 * ahead at once; return() gives the rest up (a held tree is freed).
 */
export function readAhead(steps, options) {
  if (typeof steps?.next !== "function") throw new SessionTreeError("invalid_input", `readAhead: "steps" must be an iterator (an importEach's)`);
  if (options !== undefined && (options === null || typeof options !== "object")) throw new SessionTreeError("invalid_input", `readAhead: the options must be an object like { bytes: 33554432 }`);
  const limit = options?.bytes ?? 32 << 20;
  if (typeof limit !== "number" || !(limit >= 0)) throw new SessionTreeError("invalid_input", `readAhead: "bytes" must be a number ≥ 0`);
  const size = (v) => (v?.file ? v.file.length : limit);
  const drop = (v) => {
    try {
      v?.tree?.free?.()?.catch?.(() => {});
    } catch {
      // a tree already freed: nothing to give back
    }
  };
  const ready = []; // { step } or { error }, in the order read
  let held = 0; // bytes of the steps in ready
  let asking = false;
  let finished = false; // the end, or an error, was read (or return() called)
  let stopped = false;
  let wake = null;
  const ask = () => {
    if (asking || finished || (held >= limit && ready.length > 0)) return; // one read ahead at least
    asking = true;
    const failed = (error) => {
      asking = false;
      finished = true;
      if (!stopped) ready.push({ error });
      wake?.();
    };
    Promise.resolve().then(() => steps.next()).then(
      (step) => {
        if (typeof step !== "object" || step === null) return failed(new SessionTreeError("invalid_input", "readAhead: a step of the iterator is not an object"));
        asking = false;
        if (stopped) return drop(step.value);
        if (step.done) finished = true;
        else held += size(step.value);
        ready.push({ step });
        ask();
        wake?.();
      },
      failed,
    );
  };
  // Calls of next() take their turns, as an async generator's do: two at once
  // shared one wake-up, and the first waited forever.
  let turn = Promise.resolve();
  const it = {
    most: 0,
    next() {
      const step = turn.then(() => take());
      turn = step.catch(() => {});
      return step;
    },
    async return(value) {
      stopped = finished = true;
      for (const r of ready.splice(0)) drop(r.step?.value);
      held = 0;
      wake?.();
      await steps.return?.();
      return { done: true, value };
    },
    [Symbol.asyncIterator]() { return it; },
  };
  async function take() {
    while (ready.length === 0) {
      if (stopped || (finished && !asking)) return { done: true, value: undefined };
      ask();
      await new Promise((resolve) => { wake = resolve; });
      wake = null;
    }
    it.most = Math.max(it.most, ready.length - (finished ? 1 : 0)); // the end, when read, is not a conversation
    const r = ready.shift();
    if (r.error) throw r.error;
    if (!r.step.done) held -= size(r.step.value);
    ask();
    return r.step;
  }
  ask();
  return it;
}
