// sessiontree: a conversation tree for LLM chat clients, compiled from Go to WebAssembly.
// This module is a thin, typed boundary: arguments are checked here with precise
// sentences, every tree lives in Go behind a handle, and each method is one call
// into the module (a WebAssembly export, not a js.FuncOf). See sessiontree.d.ts.
import "./wasm_exec.js"; // defines globalThis.Go

/** The error every failure throws: `.code` is one of the stable codes (ErrorCode in sessiontree.d.ts). */
export class SessionTreeError extends Error {
  constructor(code, message) {
    super(message);
    this.name = "SessionTreeError";
    this.code = code;
  }
}

const fail = (message) => { throw new SessionTreeError("invalid_input", message); };

// shown is String(v) for an error's sentence, for any v: String throws for an
// object with no toString (Object.create(null)) or one whose toString throws,
// and the caller is owed an invalid_input, not that TypeError.
function shown(v) {
  try {
    return String(v);
  } catch {
    return typeof v === "object" && v !== null ? "an object with no string form" : typeof v;
  }
}

// ---- the module -------------------------------------------------------------

let wasm = null; // { exports, memory, methods: Map(name → number), full }
let loading = null;
const isNode = typeof process !== "undefined" && !!process.versions?.node;

/**
 * Loads and starts the WebAssembly module, once. With no argument it finds the
 * lean sessiontree.wasm next to this file; `{ full: true }` finds the full
 * flavour, sessiontree-interchange.wasm, there instead; otherwise it takes a
 * URL, the bytes, a Response or a compiled WebAssembly.Module of either file.
 * The flavour is whichever file loads: its method list says what it holds. A
 * second call is a no-op.
 */
export function init(source) {
  if (!wasm && !loading) {
    loading = start(source).catch((e) => {
      loading = null;
      throw e;
    });
    return loading;
  }
  // The first module stays. Asked for the full one after the lean one (an
  // app's init after sessiontree/idb's), the interchange module is loaded
  // beside it, so that what the full one does (merge, import, export,
  // projectFor) works; before, the call did nothing and those threw.
  const loaded = wasm ? Promise.resolve() : loading;
  return fullOption(source) === true ? loaded.then(() => initInterchange()) : loaded;
}

// fullOption reports whether source is init's options object (a plain
// object, not a URL, a Module, a Response or bytes): true for { full: true },
// false for { full: false } or {} (the lean module), and a throw for anything
// else in it, so that a misspelt option is not silently the lean module.
function fullOption(source) {
  if (typeof source !== "object" || source === null || Object.getPrototypeOf(source) !== Object.prototype) return undefined;
  const extra = Object.keys(source).filter((k) => k !== "full");
  if (extra.length > 0 || (source.full !== undefined && typeof source.full !== "boolean")) {
    fail(`init: the options must be { full: true } or { full: false }${extra.length ? `, not ${JSON.stringify(extra[0])}` : ""} (or pass a URL, bytes or a WebAssembly.Module)`);
  }
  return source.full === true;
}

async function start(source) {
  const full = fullOption(source);
  if (full !== undefined) source = full ? new URL("./sessiontree-interchange.wasm", import.meta.url) : undefined;
  const [exports, go] = await run(source ?? new URL("./sessiontree.wasm", import.meta.url), "init");
  if (typeof exports.st_call !== "function") {
    throw new SessionTreeError("invalid_input", "init: this WebAssembly module is not sessiontree's (no st_call export)");
  }
  const w = { exports, memory: exports.mem, u8: new Uint8Array(exports.mem.buffer), cap: 0, ptr: 0, methods: new Map(), full: false, moved: 0, lastBig: 0, tidying: null, go, seen: 0, grewAt: -Infinity, ahead: 0 };
  wasm = w;
  const names = invoke(0, 0, 0, NO_ARGS).split("\n");
  names.forEach((name, i) => w.methods.set(name, i));
  for (const key of Object.keys(M)) {
    if (!w.methods.has(key)) {
      wasm = null;
      throw new SessionTreeError("invalid_input", `init: the module lacks the method "${key}"; rebuild it with make build`);
    }
    M[key] = w.methods.get(key);
  }
  // The full flavour (wasm/interchange) has these too: merge, import and export
  // then run in this module, on the live trees, and no helper is needed.
  w.full = Object.keys(F).every((key) => w.methods.has(key));
  if (w.full) for (const key of Object.keys(F)) F[key] = w.methods.get(key);
}

// run instantiates a Go WebAssembly program from source, starts its main (which
// waits for calls and never returns) and returns its exports and its Go (the
// glue of wasm_exec.js). who names the caller in errors.
async function run(source, who) {
  const go = new globalThis.Go();
  // A collection every 3× the live heap instead of 2×. In WebAssembly the
  // collector shares the one thread with the calls and a chat page's heap is
  // small, so under GOGC=100 a cycle comes every few MB of allocation: it made
  // regenerate's median (Node) ~25% slower than its best round, which is the
  // time with the collector off. The cost: a 200k-node, 90 MB session peaked at
  // 928 MB of wasm memory instead of 878 MB (most of either is the transient
  // buffers of save and load). Set here, not with runtime/debug, which would
  // link fmt into the module.
  // GOMEMLIMIT: near the 4 GiB that wasm32 memory allows, the collector works
  // harder instead of letting garbage grow the memory past it (a heap that
  // cannot grow stops the Go program); calls check the memory they need first
  // (wasm/internal/bridge/memory.go).
  go.env = { ...go.env, GOGC: "200", GOMEMLIMIT: "3584MiB" };
  // The Go runtime's own timers (its background sweeper and scavenger) must not
  // keep a Node process alive: unref them where timers have unref.
  const imports = go.importObject;
  const schedule = imports.gojs?.["runtime.scheduleTimeoutEvent"];
  if (schedule) {
    imports.gojs["runtime.scheduleTimeoutEvent"] = (sp) => {
      schedule(sp);
      go._scheduledTimeouts?.get(go._nextCallbackTimeoutID - 1)?.unref?.();
    };
  }
  const instance = await instantiate(source, imports, who);
  go.run(instance); // runs main until it waits for calls; never resolves
  return [instance.exports, go];
}

async function instantiate(source, imports, who) {
  if (source instanceof WebAssembly.Module) return WebAssembly.instantiate(source, imports);
  if (source instanceof ArrayBuffer || ArrayBuffer.isView(source)) {
    return (await WebAssembly.instantiate(source, imports)).instance;
  }
  if (typeof Response !== "undefined" && source instanceof Response) {
    return (await instantiateResponse(source, imports)).instance;
  }
  if (typeof source === "string" || source instanceof URL) {
    const url = source instanceof URL ? source : new URL(source, isNode ? `file://${process.cwd()}/` : globalThis.location?.href);
    if (isNode && url.protocol === "file:") {
      const { readFile } = await import("node:fs/promises");
      let bytes;
      try {
        bytes = await readFile(url);
      } catch (e) {
        if (e?.code !== "ENOENT") throw e;
        // The package's .wasm modules are built, not committed: say how to make them.
        throw new SessionTreeError("not_found", `${who}: there is no ${url.pathname}: the modules beside sessiontree.js are made by \`make build\` in sessiontree's repository (or give ${who}() the module's URL or bytes)`);
      }
      return (await WebAssembly.instantiate(bytes, imports)).instance;
    }
    const compiled = await compileInWorker(url);
    if (compiled) return WebAssembly.instantiate(compiled, imports);
    const res = await fetch(url);
    if (!res.ok) throw new SessionTreeError("not_found", `${who}: fetching ${url} failed with HTTP ${res.status}`);
    return (await instantiateResponse(res, imports)).instance;
  }
  throw new SessionTreeError("invalid_input", `${who}: the source must be a URL, a string, bytes, a Response or a WebAssembly.Module`);
}

/**
 * In a page, a module from a URL is compiled in a dedicated worker and handed
 * back: compiled on the page's thread, Chromium held that thread for 140–300 ms
 * at a time (long tasks) for the 5.5 MB full module, in a worker it holds it
 * for none (js/sessiontree.compile.js, beside this file). Resolves to null
 * where no worker can do it (no DOM, no Worker, the file not served, a failed
 * fetch): the caller then compiles on its own thread and reports any error.
 */
async function compileInWorker(url) {
  if (typeof document === "undefined" || typeof Worker !== "function") return null;
  let worker;
  try {
    worker = new Worker(new URL("./sessiontree.compile.js", import.meta.url));
  } catch {
    return null;
  }
  try {
    return await new Promise((resolve) => {
      worker.onmessage = (e) => resolve(e.data instanceof WebAssembly.Module ? e.data : null);
      worker.onerror = (e) => {
        e.preventDefault?.();
        resolve(null);
      };
      worker.onmessageerror = () => resolve(null);
      worker.postMessage(url.href);
    });
  } finally {
    worker.terminate();
  }
}

async function instantiateResponse(res, imports) {
  if (WebAssembly.instantiateStreaming && res.headers.get("content-type")?.startsWith("application/wasm")) {
    return WebAssembly.instantiateStreaming(res, imports);
  }
  return WebAssembly.instantiate(await res.arrayBuffer(), imports);
}

function need() {
  if (!wasm) {
    throw new SessionTreeError("invalid_input", "sessiontree is not initialized: call `await init()` once before using SessionTree");
  }
  return wasm;
}

/**
 * The bytes of WebAssembly memory the main module holds (and the interchange
 * helper, when it is loaded). WebAssembly memory grows and never shrinks: this
 * is the peak the module has needed, not what its trees hold now.
 */
export function memoryUsage() {
  const w = need();
  return { main: w.memory.buffer.byteLength, interchange: inter ? inter.memory.buffer.byteLength : 0 };
}

// ---- the interchange module ---------------------------------------------------
// Import and export of other tools' files, merge and projectFor are not in the lean module,
// sessiontree.wasm, so that it stays small and starts fast. They are in
// sessiontree-interchange.wasm (wasm/interchange), the full flavour: every tree
// method plus those. Loaded by init (init({ full: true })), it is the main
// module and they run in it, on the live trees. Loaded by initInterchange
// beside the lean module, it is a stateless helper: import turns a file into
// .tree.json bytes that the main module loads, export turns the bytes the main
// module saved into a file, and merge turns two saved trees into one that the
// main module swaps into the live tree (its "replace" call).

let inter = null; // { exports, memory, import, export, merge, projectFile } (method numbers)
let interLoading = null;

/**
 * Loads and starts the interchange module, once: after it resolves,
 * SessionTree.import, t.export, t.merge and SessionTree.mergeJSON work. With no
 * argument it finds sessiontree-interchange.wasm next to this file; otherwise it
 * takes a URL, the bytes, a Response or a compiled WebAssembly.Module. A second
 * call is a no-op.
 */
export function initInterchange(source) {
  if (inter || wasm?.full) return Promise.resolve();
  if (!interLoading) {
    interLoading = startInterchange(source).catch((e) => {
      interLoading = null;
      throw e;
    });
  }
  return interLoading;
}

async function startInterchange(source) {
  // init may be loading the full flavour at the same moment
  // (Promise.all([init({ full: true }), initInterchange()])): it needs no helper.
  if (loading) await loading.catch(() => {});
  if (wasm?.full) return;
  const [exports] = await run(source ?? new URL("./sessiontree-interchange.wasm", import.meta.url), "initInterchange");
  if (typeof exports.st_call !== "function") {
    throw new SessionTreeError("invalid_input", "initInterchange: this WebAssembly module is not sessiontree's (no st_call export)");
  }
  const f = { exports, memory: exports.mem, import: -1, export: -1, merge: -1, projectFile: -1, tidy: -1, moved: 0, lastBig: 0, tidying: null };
  const names = decoder.decode(interCall(f, 0, NO_ARGS)).split("\n");
  for (const key of ["import", "export", "merge", "projectFile"]) f[key] = names.indexOf(key);
  if (f.import < 0 || f.export < 0 || f.merge < 0) {
    throw new SessionTreeError("invalid_input", "initInterchange: this module is not sessiontree-interchange.wasm (no import/export/merge); pass that file, or build it with make build");
  }
  f.importAll = names.indexOf("importAll");
  for (const key of ["importBegin", "importNext", "importEnd"]) f[key] = names.indexOf(key);
  f.deltaParts = names.indexOf("deltaParts");
  // The helper's copies of the lean module's trees, which t.projectFor keeps
  // up to date with the rows helperRows gives (wasm/internal/treecalls rows.go).
  for (const key of ["load", "free", "applyChanges", "projectTree", "tidy"]) f[key] = names.indexOf(key);
  inter = f;
}

// needInterchange returns the interchange module, or throws a sentence saying
// that `what` needs it loaded first.
function needInterchange(what) {
  if (!inter) {
    throw new SessionTreeError("invalid_input", `${what} needs the interchange module: call \`await initInterchange()\` once before (it loads sessiontree-interchange.wasm), or load the full module with \`await init({ full: true })\``);
  }
  return inter;
}

// importText checks an import's text argument: a well-formed string or bytes.
function importText(text) {
  return typeof text === "string" ? (text.isWellFormed() ? text : fail(`"text" contains a lone surrogate`))
    : text instanceof ArrayBuffer ? new Uint8Array(text)
    : ArrayBuffer.isView(text) ? new Uint8Array(text.buffer, text.byteOffset, text.byteLength)
    : fail(`"text" must be a string or bytes`);
}

// fullModule returns the main module when it is the full flavour (merge, import
// and export run in it), else null: then they need the interchange helper.
function fullModule() {
  return wasm?.full ? wasm : null;
}

// mainBytes runs a call in the main module and returns a view of its result,
// valid until the next call into it.
function mainBytes(method, handle, args) {
  const w = wasm;
  const len = send(method, handle, 0, args);
  return len === 0 ? new Uint8Array(0) : view(w).subarray(w.out, w.out + len);
}

// interCall writes args (strings or Uint8Arrays, in any module's memory) into
// the interchange module and runs the call (on the helper's tree handle, if any). It returns a view of the result,
// valid until the next call, or throws the SessionTreeError the module sent.
function interCall(f, method, args, handle = 0) {
  const bytes = args.map((a) => (typeof a === "string" ? encoder.encode(a) : a));
  let size = 0;
  for (const b of bytes) size += 4 + b.length;
  if (size > MAX_INPUT) throw new SessionTreeError("too_large", `the input is ${size} bytes; the limit is ${MAX_INPUT}`);
  const ptr = reserve(f, size);
  let u8 = new Uint8Array(f.memory.buffer); // after st_reserve, which may grow memory
  let off = ptr;
  for (const b of bytes) {
    const n = b.length;
    u8[off] = n; u8[off + 1] = n >>> 8; u8[off + 2] = n >>> 16; u8[off + 3] = n >>> 24;
    u8.set(b, off + 4);
    off += 4 + n;
  }
  const r = f.exports.st_call(method, handle, size, 0);
  const len = r < 0 ? -r - 1 : r;
  if (size + len >= BIG) f.lastBig = performance.now();
  if ((f.moved += size + len) >= TIDY_AFTER && f.tidy > 0) tidyLater(f, helperTidy);
  const out = len === 0 ? 0 : f.exports.st_out() >>> 0;
  u8 = new Uint8Array(f.memory.buffer);
  const res = u8.subarray(out, out + len);
  if (r < 0) {
    const e = JSON.parse(decoder.decode(res));
    throw new SessionTreeError(e.code, e.message);
  }
  return res;
}

// Method numbers, filled in by init from the module's own table.
const M = {
  new: 0, fromLinear: 0, load: 0, free: 0, clone: 0, save: 0, append: 0, rewind: 0, branch: 0,
  switchBranch: 0, label: 0, clearLabel: 0, checkout: 0, open: 0, edit: 0, regenerate: 0, deleteBranch: 0,
  apply: 0, node: 0, children: 0, siblings: 0, branches: 0, activeBranch: 0, hasBranches: 0,
  pathOf: 0, messages: 0, summarizeBranch: 0, summaryInput: 0, summarizeBranchAsOf: 0,
  stubSummary: 0, renderBranchText: 0, spliceForLinearExport: 0, validate: 0, repair: 0,
  prune: 0, search: 0, stats: 0, replace: 0, project: 0, applyOps: 0, pathLength: 0, window: 0,
  takeChanges: 0, watch: 0, applyChanges: 0, helperRows: 0, subtree: 0, onPath: 0, pathIndex: 0, loadBegin: 0, loadStep: 0, loadCancel: 0, tidy: 0,
  slotBytes: 0, recentBranches: 0, branchCount: 0, switchers: 0, subtreeAround: 0,
};

// The full flavour's further method numbers, filled in by init when the module
// has them all (wasm/internal/fullcalls): merge (two files, stateless), mergeTree
// (in place), importTree and exportTree (on live trees), projectTree (a live
// tree as a model API request, core/provider), importAllTrees (the
// conversations of one file as live trees).
const F = { merge: -1, mergeTree: -1, importTree: -1, exportTree: -1, projectTree: -1, importAllTrees: -1, deltaParts: -1, importBegin: -1, importNext: -1, importEnd: -1 };

const NO_ARGS = [];
const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: false });
const BIG = 1 << 20;
const BIG_INPUT = 4 << 20; // wasm/internal/bridge/buffers.go bigBuffer
const MAX_INPUT = 1 << 30;

// reserve makes the module's input buffer hold at least n bytes and returns its
// address. Addresses are unsigned 32-bit numbers: a WebAssembly i32 reaches
// JavaScript signed, so past 2 GiB of memory it would read as negative without
// the >>> 0. The module answers 0 when its memory cannot hold n more bytes (the
// 4 GiB of wasm32): too_large, with nothing changed.
function reserve(w, n) {
  const p = w.exports.st_reserve(n) >>> 0;
  if (p === 0) {
    w.cap = 0;
    throw new SessionTreeError("too_large", `the module's memory cannot hold ${n} more bytes (WebAssembly memory is limited to 4 GiB); nothing was changed: free trees you no longer need, or work on a smaller file`);
  }
  return p;
}

function view(w) {
  return w.u8.byteLength ? w.u8 : regrown(w);
}

// GROWN is the memory from which regrown tells the module of a growth: past
// ~64 MB each growth of a WebAssembly memory costs a full collection of the
// page's JavaScript heap (V8), so the module collects its own garbage then
// rather than grow again (a reserve of nothing: wasm/internal/bridge Reserve).
const GROWN = 64 << 20;

// A run of small growths, each within AHEAD_WITHIN ms of the one before
// and at most TRICKLE bytes, is what many calls in a row do to a large
// module (appends, regenerates, a batch of writes): past GROWN each growth
// costs the page a full collection of its JavaScript heap, and the runtime
// grows 2 MiB at a time. So the memory is grown ahead in the run, 4 MiB, then
// twice the last time, up to a quarter of the memory or AHEAD_MAX (see
// regrown): 10k appends after a 100k-message open and save took 55.6 → 39.8 ms
// in Node (make bench-peers). A single growth, or one large call's (an open),
// grows nothing ahead. Pages grown ahead are untouched until the module's heap
// reaches them: address space, not memory a process holds.
const AHEAD_WITHIN = 1000, TRICKLE = 4 << 20, AHEAD_FIRST = 4 << 20, AHEAD_MAX = 32 << 20;

// regrown views the module's memory after it grew (its old buffer is detached).
function regrown(w) {
  const size = w.memory.buffer.byteLength;
  if (size >= GROWN) {
    w.exports.st_reserve(0); // may grow it again
    const at = performance.now();
    const inRun = size - w.seen <= TRICKLE && at - w.grewAt < AHEAD_WITHIN;
    w.grewAt = at;
    w.ahead = inRun ? Math.min(Math.max(2 * w.ahead, AHEAD_FIRST), AHEAD_MAX, Math.floor(size / 4)) : 0;
    if (w.ahead > 0) growAhead(w, w.ahead);
  }
  w.seen = w.memory.buffer.byteLength;
  return (w.u8 = new Uint8Array(w.memory.buffer));
}

// growAhead grows the module's memory by n bytes before its runtime asks: the
// runtime's growth (wasm/internal/packdata ChunkGrowth) keeps its own break
// and grows nothing while its asks fit in the memory, so it uses these pages
// first. The glue's view of the memory (wasm_exec.js's mem), which the
// runtime renews only after its own growths, is renewed here. At the 4 GiB of
// wasm32 nothing is grown: the runtime's exact asks still fit what is left.
function growAhead(w, n) {
  try {
    w.memory.grow(n >>> 16);
  } catch {
    w.ahead = 0;
    return;
  }
  w.go.mem = new DataView(w.memory.buffer);
}

// send writes args (strings or Uint8Arrays) as [u32 length][bytes]… into the
// module's input buffer and makes the call. It returns the result's length and
// leaves its address in w.out, or throws the SessionTreeError it carries.
function send(method, handle, at, args) {
  const w = wasm;
  // Room for each argument: its 4-byte length and at most 3 UTF-8 bytes per
  // UTF-16 unit. Big strings are encoded exactly first instead, so the buffer
  // is not 3× their size.
  let size = 0;
  let big = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (typeof a === "string") {
      size += 4 + 3 * a.length;
      big ||= a.length > BIG;
    } else {
      size += 4 + a.length;
    }
  }
  if (big && args.length === 1 && args[0].length + 4 <= MAX_INPUT) {
    // One big string (a file to load): most of it is ASCII, so try to encode it
    // straight into the module's memory with one byte per unit of room.
    const a = args[0];
    if (a.length + 4 > w.cap) {
      w.ptr = reserve(w, a.length + 4);
      w.cap = a.length + 4;
    }
    const u8 = view(w);
    const got = encoder.encodeInto(a, u8.subarray(w.ptr + 4, w.ptr + 4 + a.length));
    if (got.read === a.length) {
      const n = got.written;
      u8[w.ptr] = n; u8[w.ptr + 1] = n >>> 8; u8[w.ptr + 2] = n >>> 16; u8[w.ptr + 3] = n >>> 24;
      return finish(w, method, handle, 4 + n, at);
    }
  }
  if (big) {
    args = args.map((a) => (typeof a === "string" && a.length > BIG ? encoder.encode(a) : a));
    size = 0;
    for (const a of args) size += 4 + (typeof a === "string" ? 3 * a.length : a.length);
  }
  if (size > MAX_INPUT) throw new SessionTreeError("too_large", `the input is ${size} bytes; the limit is ${MAX_INPUT}`);
  if (size > w.cap) {
    w.ptr = reserve(w, size);
    w.cap = size;
  }
  let u8 = view(w);
  let off = w.ptr;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    let n;
    if (typeof a !== "string") {
      u8.set(a, off + 4);
      n = a.length;
    } else if (a.length <= SHORT) {
      n = writeShort(u8, off + 4, a);
    } else {
      n = encoder.encodeInto(a, u8.subarray(off + 4, off + 4 + 3 * a.length)).written;
    }
    u8[off] = n; u8[off + 1] = n >>> 8; u8[off + 2] = n >>> 16; u8[off + 3] = n >>> 24;
    off += 4 + n;
  }
  return finish(w, method, handle, off - w.ptr, at);
}

// A full collection in the page's idle time after a large load or build
// (wasm/internal/bridge/tidy.go says why: until the garbage they left is
// collected, each allocation grows the module's memory, and each growth costs
// V8 a full collection of the page's heap; a 200k-message session's first
// ~120 requests cost 3–6× the later ones). Once TIDY_AFTER bytes have crossed
// into or out of the module since the last tidy, or a sliced load ended, and
// no call has moved a megabyte for TIDY_QUIET_MS, the module's "tidy" call runs
// for TIDY_SLICE_MS at a time in idle callbacks (tasks where there are none)
// until it answers that it is over (~0.3–1 s of slices after a 90 MB load).
// settled() resolves then.
const TIDY_AFTER = 32 << 20;
const TIDY_SLICE_MS = 5;
const TIDY_ARG = String(TIDY_SLICE_MS);
const TIDY_QUIET_MS = 250; // since the last call that moved a megabyte or more

function tidyLater(m, step) {
  m.moved = 0;
  m.lastBig = performance.now();
  if (m.tidying) return;
  m.tidying = (async () => {
    let steps = 0;
    try {
      for (;;) {
        // Not while large calls go on (an import, a build): the runtime
        // paces its own collections meanwhile, and a tidy beside them
        // would take the CPU they need.
        const quiet = performance.now() - m.lastBig;
        if (quiet < TIDY_QUIET_MS) {
          await new Promise((resolve) => setTimeout(resolve, TIDY_QUIET_MS - quiet));
          continue;
        }
        await idleTask();
        if (wasm !== m && inter !== m) break;
        const res = step(m);
        if (res === "later") { // a sliced load is under way: after it
          m.lastBig = performance.now();
          continue;
        }
        steps++;
        if (res !== "pending") break;
      }
    } catch {
      // a step that fails leaves the collection to the runtime's own pacing
    } finally {
      m.tidying = null;
      m.moved = 0;
    }
    return { steps };
  })();
}

// A tidy step in the main module, and in the interchange helper (the lean
// module's requests hand it the tree's rows: its heap has a load's garbage too).
const mainTidy = () => invoke(M.tidy, 0, 0, [TIDY_ARG]);
const helperTidy = (f) => decoder.decode(interCall(f, f.tidy, [TIDY_ARG]));

// idleTask resolves in an idle callback where there are (a page), in the
// next task elsewhere.
function idleTask() {
  if (typeof requestIdleCallback === "function") return new Promise((resolve) => requestIdleCallback(() => resolve(), { timeout: 500 }));
  return nextTask();
}

/**
 * Resolves when the module's tidy collection after a large load or build is
 * over (at once when none is under way), with the number of idle slices it
 * took. Nothing needs to wait for it: calls work meanwhile; benchmarks wait
 * for it to measure the calls that follow a user's pause rather than the
 * collection.
 */
export async function settled() {
  const [a, b] = await Promise.all([wasm?.tidying, inter?.tidying]);
  return { steps: (a?.steps ?? 0) + (b?.steps ?? 0) };
}

// lending names the callback that holds a view of the module's memory while
// it runs (loadWith's fill, saveWith's write), or is null; spoiled says that a
// call made meanwhile wrote over that memory.
let lending = null;
let spoiled = false;

// lend runs f(view) with calls into sessiontree refused while it runs (they
// would write over the memory it was lent), and fails with why when one was
// made or f returned a promise (the view is gone by the time it settles).
function lend(name, f, view, lost) {
  lending = name;
  spoiled = false;
  let r;
  try {
    r = f(view);
  } finally {
    lending = null;
    if (spoiled) fail(`${name} called sessiontree, which wrote over the bytes it was lent; ${lost}`);
  }
  if (typeof r?.then === "function") fail(`${name} returned a promise: it must use the bytes before it returns (the view is not theirs after); ${lost}`);
}

// finish runs the call whose n argument bytes are in the input buffer.
function finish(w, method, handle, n, at) {
  if (lending !== null) {
    spoiled = true;
    fail(`no call into sessiontree may run inside ${lending}`);
  }
  const r = w.exports.st_call(method, handle, n, at);
  if (w.cap > BIG_INPUT) w.cap = 0; // the module may have released or kept (TakeInput) a big buffer (settle)
  const len = r < 0 ? -r - 1 : r;
  if (n + len >= BIG) w.lastBig = performance.now();
  if ((w.moved += n + len) >= TIDY_AFTER) tidyLater(w, mainTidy);
  if (r === 0) return 0;
  w.out = w.exports.st_out() >>> 0;
  if (r < 0) {
    const e = JSON.parse(decode(view(w), w.out, len));
    throw new SessionTreeError(e.code, e.message);
  }
  return len;
}

// invoke is send returning the result as a string.
function invoke(method, handle, at, args) {
  const len = send(method, handle, at, args);
  return len === 0 ? "" : decode(view(wasm), wasm.out, len);
}

// invokeOne is invoke with one string argument (an append's message, a node
// id): it is encoded straight into the input buffer, with no argument list.
function invokeOne(method, handle, at, s) {
  const w = wasm;
  const room = 4 + 3 * s.length;
  if (room > w.cap) {
    if (s.length > BIG) return invoke(method, handle, at, [s]);
    w.ptr = reserve(w, room);
    w.cap = room;
  }
  const u8 = view(w);
  const p = w.ptr;
  const n = s.length <= SHORT ? writeShort(u8, p + 4, s) : encoder.encodeInto(s, u8.subarray(p + 4, p + room)).written;
  u8[p] = n; u8[p + 1] = n >>> 8; u8[p + 2] = n >>> 16; u8[p + 3] = n >>> 24;
  const len = finish(w, method, handle, 4 + n, at);
  return len === 0 ? "" : decode(view(w), w.out, len);
}

// invokeTwo is invoke with two string arguments (an edit's or a regenerate's
// node id and message), encoded straight into the input buffer as invokeOne
// does, with no argument list.
function invokeTwo(method, handle, at, a, b) {
  const w = wasm;
  const room = 8 + 3 * (a.length + b.length);
  if (room > w.cap) {
    if (a.length > BIG || b.length > BIG) return invoke(method, handle, at, [a, b]);
    w.ptr = reserve(w, room);
    w.cap = room;
  }
  const u8 = view(w);
  const p = w.ptr;
  const n = a.length <= SHORT ? writeShort(u8, p + 4, a) : encoder.encodeInto(a, u8.subarray(p + 4, p + 4 + 3 * a.length)).written;
  u8[p] = n; u8[p + 1] = n >>> 8; u8[p + 2] = n >>> 16; u8[p + 3] = n >>> 24;
  const q = p + 4 + n;
  const m = b.length <= SHORT ? writeShort(u8, q + 4, b) : encoder.encodeInto(b, u8.subarray(q + 4, p + room)).written;
  u8[q] = m; u8[q + 1] = m >>> 8; u8[q + 2] = m >>> 16; u8[q + 3] = m >>> 24;
  const len = finish(w, method, handle, 8 + n + m, at);
  return len === 0 ? "" : decode(view(w), w.out, len);
}

// SAVE_IN_PARTS asks save to answer a loaded tree's unchanged nodes in place;
// SAVE_IN_PIECES too, and otherwise the file in pieces of ~1 MB, the next one
// at SAVE_NEXT_PIECE (wasm/internal/treecalls SaveInPieces).
const SAVE_IN_PARTS = 1, SAVE_IN_PIECES = 2, SAVE_NEXT_PIECE = 3;

// Ids, names and numbers are short: a loop writes and reads their UTF-8 faster
// than TextEncoder and TextDecoder, which cost a call into the runtime each.
const SHORT = 64;

function writeShort(u8, off, s) {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x80) return encoder.encodeInto(s, u8.subarray(off, off + 3 * s.length)).written;
    u8[off + i] = c;
  }
  return s.length;
}

const CLOSE_BRACE = new Uint8Array([0x7d]); // the "}" after a file's nodes (saveWith)

function decode(u8, p, len) {
  if (len <= 16) {
    // An id (16 ASCII characters) or a branch name: one call, no intermediate
    // strings. Bytes past len are read (memory is far larger than any result)
    // and cut off.
    let ascii = 0;
    for (let i = p; i < p + len; i++) ascii |= u8[i];
    if (ascii < 0x80) {
      const s = String.fromCharCode(u8[p], u8[p + 1], u8[p + 2], u8[p + 3], u8[p + 4], u8[p + 5], u8[p + 6], u8[p + 7],
        u8[p + 8], u8[p + 9], u8[p + 10], u8[p + 11], u8[p + 12], u8[p + 13], u8[p + 14], u8[p + 15]);
      return len === 16 ? s : s.slice(0, len);
    }
  } else if (len <= SHORT) {
    let ascii = 0;
    for (let i = p; i < p + len; i++) ascii |= u8[i];
    if (ascii < 0x80) return String.fromCharCode.apply(null, u8.subarray(p, p + len));
  }
  if (len < 1 << 28) return decoder.decode(u8.subarray(p, p + len));
  try {
    return decoder.decode(u8.subarray(p, p + len));
  } catch (e) {
    // A JavaScript string holds at most 2²⁹ − 24 units (V8): a larger result
    // cannot be a string.
    if (e instanceof RangeError) throw new SessionTreeError("too_large", `the result is ${len} bytes, more than a JavaScript string can hold; nothing was changed`);
    throw e;
  }
}

// ---- argument checks ----------------------------------------------------------

// own is s as a string of its own. V8 makes a piece of a string of 13
// characters or more (split, slice) a view of the whole; one kept for long
// keeps the whole with it.
function own(s) {
  return s.length < 13 ? s : JSON.parse(JSON.stringify(s));
}

function str(name, v) {
  if (typeof v !== "string" || v === "") fail(`"${name}" must be a non-empty string`);
  if (!v.isWellFormed()) fail(`"${name}" contains a lone surrogate (an unpaired UTF-16 code unit); it cannot be stored as UTF-8`);
  return v;
}

function optStr(name, v) {
  if (v === undefined || v === null) return "";
  return str(name, v);
}

// treeFile checks a .tree.json argument (text or bytes) and returns it as a
// string or a Uint8Array.
function treeFile(name, v) {
  if (typeof v === "string") return v.isWellFormed() ? v : fail(`"${name}" contains a lone surrogate (an unpaired UTF-16 code unit)`);
  if (v instanceof ArrayBuffer) return new Uint8Array(v);
  if (ArrayBuffer.isView(v)) return new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
  return fail(`"${name}" must be a .tree.json string or bytes`);
}

function time(v) {
  if (v === undefined || v === null) return Date.now();
  if (!Number.isSafeInteger(v)) fail(`"atMs" must be an integer number of milliseconds, got ${shown(v)}`);
  return v;
}

// JSON.stringify writes a lone surrogate as a \udXXX escape; any such escape it
// writes is unpaired (it writes pairs as characters). Count backslashes so that
// an escaped backslash followed by "ud800" is not taken for one.
const LONE = /(?<!\\)(?:\\\\)*\\u[dD][89a-fA-F]/;

function json(name, v) {
  let text;
  try {
    text = JSON.stringify(v);
  } catch (e) {
    fail(`${name} cannot be written as JSON: ${e.message}`);
  }
  if (text === undefined) fail(`${name} cannot be written as JSON`);
  if (text.includes("\\u") && LONE.test(text)) {
    fail(`${name} contains a lone surrogate (an unpaired UTF-16 code unit) in a string`);
  }
  return text;
}

function message(v) {
  if (typeof v !== "object" || v === null || Array.isArray(v)) fail(`"message" must be an object with a string "role"`);
  if (typeof v.role !== "string") fail(`"message" must have a string "role"`);
  return json("the message", v);
}

// plainAppend returns the message of {op:"append", message, at?} with a
// message object and an integer or absent time, and nothing for any other op.
function plainAppend(op) {
  if (typeof op !== "object" || op === null || op.op !== "append") return undefined;
  const m = op.message;
  if (typeof m !== "object" || m === null || Array.isArray(m) || typeof op.toJSON === "function") return undefined;
  const at = op.at;
  const keys = Object.keys(op).length;
  if (at === undefined) return keys === 2 || (keys === 3 && Object.hasOwn(op, "at")) ? m : undefined;
  return keys === 3 && (at === null || Number.isSafeInteger(at)) ? m : undefined;
}

// newTexts reads count (address, length) pairs at p, the bytes of new
// messages in the module's memory, and pushes their texts onto cache; it
// returns where the pairs end. Many messages of a loaded file lie close
// together in its bytes: when the stretch that holds them is not much larger
// than they are and decodes to as many UTF-16 units as it has bytes, it is
// decoded once and each text is a slice of it, instead of one TextDecoder call
// per message. A decoder never makes more units than bytes (a valid sequence of
// 2 to 4 bytes makes 1 or 2 units, an invalid byte at most one U+FFFD), so as
// many units means every byte became one unit: ASCII, or (between the
// messages, never in them: the module keeps only valid UTF-8) an invalid byte
// replaced, and each message's text is at its bytes' offsets. The decoder need
// not be the fatal one, which costs Chromium ~1.5× the time.
function newTexts(u8, p, count, cache) {
  const u32 = (q) => (u8[q] | (u8[q + 1] << 8) | (u8[q + 2] << 16) | (u8[q + 3] << 24)) >>> 0;
  const end = p + 8 * count;
  let lo = Infinity, hi = 0, bytes = 0;
  for (let q = p; q < end; q += 8) {
    const at = u32(q), size = u32(q + 4);
    lo = Math.min(lo, at); hi = Math.max(hi, at + size); bytes += size;
  }
  let all = null;
  if (count >= 64 && hi - lo <= 2 * bytes + (1 << 20)) {
    all = decoder.decode(u8.subarray(lo, hi));
    if (all.length !== hi - lo) all = null; // not every byte one unit: one at a time
  }
  for (let q = p; q < end; q += 8) {
    const at = u32(q), size = u32(q + 4);
    cache.push(all === null ? decoder.decode(u8.subarray(at, at + size)) : all.slice(at - lo, at - lo + size));
  }
  return end;
}

// slotList reads a little-endian uint32 count at p and that many uint32 slots
// after it (wasm/internal/treecalls project.go slotted): a view of them in the
// module's memory (a copy when not aligned), and where they end.
function slotList(u8, p) {
  const n = u8[p] | (u8[p + 1] << 8) | (u8[p + 2] << 16) | (u8[p + 3] << 24);
  p += 4;
  const slots = (p & 3) === 0 ? new Uint32Array(u8.buffer, p, n) : new Uint32Array(u8.slice(p, p + 4 * n).buffer);
  return [slots, p + 4 * n];
}

// roomFor returns places, or a copy grown (at least doubled), with room for
// the pairs of n slots.
function roomFor(places, n) {
  if (2 * n <= places.length) return places;
  const grown = new Uint32Array(Math.max(2 * n, 2 * places.length, 64));
  grown.set(places);
  return grown;
}

// newPlaces reads count (address, length) pairs at p, as newTexts does, copies
// them into places at the new slots' pairs (places: [address, length] per
// slot; grown and returned), and makes the slots in cache, empty: a lazy list
// (lazyList) reads the bytes there when its message is first read. They stay
// there as long as the module's slot table holds the message: a swapped tree
// first turns the places a live list may still read into texts (#retire), and
// a prune or a free first copies their bytes out of the module (keepUnread).
// It returns places and where the pairs end.
function newPlaces(u8, p, count, cache, places) {
  const base = cache.length;
  places = roomFor(places, base + count);
  const at = u8.byteOffset + p;
  places.set((at & 3) === 0 ? new Uint32Array(u8.buffer, at, 2 * count) : new Uint32Array(u8.slice(p, p + 8 * count).buffer), 2 * base);
  cache.length = base + count; // empty slots (one allocation, where pushes would grow it step by step)
  return [places, p + 8 * count];
}

function deepFreeze(root) {
  const stack = [root];
  while (stack.length) {
    const o = stack.pop();
    Object.freeze(o);
    for (const k in o) {
      const v = o[k];
      if (typeof v === "object" && v !== null && !Object.isFrozen(v)) stack.push(v);
    }
  }
  return root;
}

// lazyList is a projection's list, and whether it is lazy: an Array (a Proxy
// of one, while a message of it is unread) whose messages
// are read and parsed when first read, so that a list of 100k messages is
// handed out in the time of copying its slots, and a caller that reads the
// last few pays for those. A message is read from the cache (slot → its
// parsed message, its text, or nothing, and then its bytes are in the module's
// memory where places says) and put back in it parsed, so every list
// hands out the same frozen object for a message. Reads, writes, iteration,
// JSON.stringify, Array methods and Array.isArray see an ordinary array, which
// the caller may change as its own; what a Proxy cannot do is cross
// structuredClone or postMessage: a copy (list.slice(), Array.from) can. The
// list holds owner, its tree, so that a tree dropped without free() is not
// freed while one of its lists may still read the module's memory.
//
// base, when not null, is the made of the last such list (see below), whose
// first kept messages this one starts with: its array and its unread marks
// are copied (two memory copies) rather than built again from the cache, so
// that a list after an append costs about its new messages, not a pass over
// 100k. It returns, third, that made for the next list: { items, raw,
// written }, written set by the first write of the list's caller (a list
// written to is no base), or null for a plain array (its caller writes it
// unseen).
function lazyList(slots, cache, places, w, owner, base, kept, old) {
  const n = slots.length;
  let items, from = 0;
  const raw = new Uint8Array(n); // 1 where items holds no message yet
  if (base !== null && !base.written && kept <= base.raw.length) {
    items = base.items.slice(0, kept);
    items.length = n;
    raw.set(base.raw.subarray(0, kept));
    from = kept;
  } else items = new Array(n);
  // Every index is written (a read of one unread is the trap's), undefined
  // while unread (not null: Node's inspect takes a Proxy whose target's [0]
  // is null for a revoked one). Only slots the cache held before the call may
  // hold a parsed message: those of the list's first kept (the held list's;
  // the module's answer follows them) and those at the positions old gives in
  // that answer.
  items.fill(undefined, from);
  raw.fill(1, from);
  let unread = n; // (a list built on another's first kept stays lazy: they count)
  const look = (i) => {
    const m = cache[slots[i]];
    if (typeof m === "object" && m !== null) {
      items[i] = m;
      raw[i] = 0;
      unread--;
    }
  };
  for (let i = from; i < kept; i++) look(i);
  for (let j = 0; j < old.length; j++) if (kept + old[j] >= from) look(kept + old[j]);
  if (unread === 0) return [items, false, null]; // nothing to read later: a plain array
  const made = { items, raw, written: false };
  const parse = (i) => {
    raw[i] = 0;
    const s = slots[i];
    let m = cache[s];
    if (typeof m !== "object" || m === null) {
      if (typeof m !== "string") {
        // (Never: a tree's lists hold it; a swap first turns these into texts, a prune or a free copies their bytes.)
        if (m === undefined && (owner === null || places[2 * s + 1] === 0)) throw new SessionTreeError("corrupt", "a list's message is gone from the module's memory (a bug in sessiontree)");
        m = decodeAround(i);
      }
      m = cache[s] = deepFreeze(JSON.parse(m));
    }
    items[i] = m;
  };
  // decodeAround puts the texts of the unread messages near i in the cache
  // (decodeTexts) and returns i's: from the module's memory, or from the copy
  // a free made (keepUnread).
  const decodeAround = (i) => {
    const from = Math.max(0, i - (DECODE_RUN >> 1));
    decodeTexts(cache.kept ?? view(w), cache, places, slots, from, Math.min(n, from + DECODE_RUN));
    return cache[slots[i]];
  };
  // index is the index a property key names while its message is unread, or -1.
  const index = (k) => {
    if (typeof k !== "string") return -1;
    const c = k.charCodeAt(0);
    if (c < 48 || c > 57) return -1;
    const i = +k;
    return i < n && raw[i] === 1 && String(i) === k ? i : -1;
  };
  // shorten clears what a write of the length cut off (after it: the array
  // itself says what the length became, however the value was spelt).
  const shorten = (t) => {
    if (t.length < n) raw.fill(0, t.length);
  };
  const list = new Proxy(items, {
    get(t, k, receiver) {
      const i = index(k);
      if (i >= 0) parse(i);
      return Reflect.get(t, k, receiver);
    },
    getOwnPropertyDescriptor(t, k) {
      const i = index(k);
      if (i >= 0) parse(i);
      return Reflect.getOwnPropertyDescriptor(t, k);
    },
    set(t, k, v, receiver) {
      made.written = true;
      const i = index(k);
      if (i >= 0) raw[i] = 0; // (no parse of what is overwritten)
      return Reflect.set(t, k, v, receiver); // a length: through defineProperty below
    },
    defineProperty(t, k, d) {
      made.written = true;
      const i = index(k);
      if (i >= 0) raw[i] = 0;
      const done = Reflect.defineProperty(t, k, d);
      if (k === "length") shorten(t);
      return done;
    },
    deleteProperty(t, k) {
      made.written = true;
      const i = index(k);
      if (i >= 0) raw[i] = 0;
      return Reflect.deleteProperty(t, k);
    },
  });
  // Node's console.log shows a Proxy's target, not what its reads give.
  Object.defineProperty(items, INSPECT, { value: inspectList });
  return [list, true, made];
}

const INSPECT = Symbol.for("nodejs.util.inspect.custom");
function inspectList(depth, options, inspect) {
  return inspect(Array.from(this), options);
}
const DECODE_RUN = 256; // the messages around a first read whose texts are decoded with it

// decodeTexts puts in the cache the texts of the slots from…to-1 of a list
// (slots; null: the slots from…to-1 themselves) that are not in it and whose
// places are known, in one TextDecoder call where it can, as newTexts does (a
// call costs ~1–3 µs, about as much as a message's parse). u8 is the module's
// memory, where places says a message is; or, for the cache of a freed tree,
// the copy keepUnread made, where the cache itself holds the offset.
function decodeTexts(u8, cache, places, slots, from, to) {
  let lo = Infinity, hi = 0, bytes = 0, count = 0;
  for (let j = from; j < to; j++) {
    const s = slots === null ? j : slots[j];
    const at = unreadAt(cache, places, s);
    if (at < 0) continue;
    const size = places[2 * s + 1];
    if (at < lo) lo = at;
    if (at + size > hi) hi = at + size;
    bytes += size;
    count++;
  }
  let all = null;
  if (count > 1 && hi - lo <= 2 * bytes + 4096) {
    all = decoder.decode(u8.subarray(lo, hi));
    if (all.length !== hi - lo) all = null; // not every byte one unit: one at a time
  }
  for (let j = from; j < to; j++) {
    const s = slots === null ? j : slots[j];
    const at = unreadAt(cache, places, s);
    if (at < 0) continue;
    const size = places[2 * s + 1];
    cache[s] = all === null ? decoder.decode(u8.subarray(at, at + size)) : all.slice(at - lo, at - lo + size);
  }
}

// unkeep takes back what keepUnread did to a cache, when the module did not
// drop the tree after all: the places in the module's memory are read again.
function unkeep(cache) {
  for (let s = 0; s < cache.length; s++) if (typeof cache[s] === "number") cache[s] = undefined;
  delete cache.kept;
}

// unreadAt returns where slot s's bytes are when the cache has neither its
// text nor its message: its place in the module's memory, or the offset in
// the copy of a freed tree's bytes (keepUnread); -1 when there is nothing to read.
function unreadAt(cache, places, s) {
  const c = cache[s];
  if (c === undefined) return places[2 * s + 1] === 0 ? -1 : places[2 * s];
  return typeof c === "number" ? c : -1;
}

// keepUnread copies out of the module's memory the bytes of every message of
// a tree about to be freed that its cache has neither parsed nor as text, so
// that the lazy lists still alive can read them after the module has let the
// tree go: into one buffer, cache.kept, with each slot's offset there in the
// cache. Messages next to each other in memory (a loaded file's) are copied
// in runs, with the few bytes between them: about one copy of the file's
// bytes, ~10 ms for 100k messages here, where decoding every text would take
// 0.2–0.7 s. The copy is JavaScript's memory, which V8 counts and gives back
// once the lists are collected; the module's memory is reused at once. (Until
// Dec 6 the free waited for the lists instead, and a loop of load, list and
// free grew the module by a tree a round.)
function keepUnread(u8, cache, places) {
  const n = Math.min(cache.length, places.length >> 1);
  const runs = []; // (start, end, offset in the copy) of each run
  let open = false, lo = 0, hi = 0, off = 0;
  for (let s = 0; s < n; s++) {
    if (cache[s] !== undefined) continue;
    const size = places[2 * s + 1];
    if (size === 0) continue;
    const at = places[2 * s];
    if (!open || at < hi || at - hi > size + 64) {
      if (open) {
        runs.push(lo, hi, off);
        off += hi - lo;
      }
      open = true;
      lo = at; // a new run: [at, at + size) so far
    }
    hi = at + size; // (at ≥ the run's end unless it starts here)
    cache[s] = off + (at - lo);
  }
  if (!open) return;
  runs.push(lo, hi, off);
  const kept = new Uint8Array(off + (hi - lo));
  for (let r = 0; r < runs.length; r += 3) kept.set(u8.subarray(runs[r], runs[r + 1]), runs[r + 2]);
  cache.kept = kept;
}

// The kinds of applyOps's arguments (wasm/internal/treecalls/applyops.go): "a", "T", "J".
const KIND_APPEND = 97, KIND_TIMED = 84, KIND_JSON = 74;

// sendOps writes applyOps's arguments straight into the module's input buffer,
// each [u32 length][kind][8-byte time, for T][text], and makes the call; it
// returns the result's length. A first pass assumes one UTF-8 byte per UTF-16
// unit (JSON is mostly ASCII); only when that does not fit is the buffer sized
// for the worst case and the texts written again.
function sendOps(w, method, handle, at, texts, kinds, times) {
  let units = 0;
  for (let i = 0; i < texts.length; i++) units += texts[i].length;
  const head = 13 * texts.length;
  let size = writeOps(w, texts, kinds, times, head + units);
  if (size < 0) size = writeOps(w, texts, kinds, times, Math.min(head + 3 * units, MAX_INPUT));
  if (size < 0) throw new SessionTreeError("too_large", `the ops are more than ${MAX_INPUT} bytes of UTF-8`);
  return finish(w, method, handle, size, at);
}

// writeOps writes the ops into a buffer of at least size bytes and returns the
// bytes written, or -1 when they do not fit.
function writeOps(w, texts, kinds, times, size) {
  if (size > MAX_INPUT) throw new SessionTreeError("too_large", `the input is ${size} bytes; the limit is ${MAX_INPUT}`);
  if (size > w.cap) {
    w.ptr = reserve(w, size);
    w.cap = size;
  }
  const u8 = view(w);
  const dv = new DataView(u8.buffer);
  const end = w.ptr + w.cap;
  let off = w.ptr;
  for (let i = 0; i < texts.length; i++) {
    const kind = kinds[i];
    let p = off + 5;
    u8[off + 4] = kind;
    if (kind === KIND_TIMED) {
      dv.setFloat64(p, times[i], true);
      p += 8;
    }
    const s = texts[i];
    const got = encoder.encodeInto(s, u8.subarray(p, end));
    if (got.read < s.length) return -1;
    p += got.written;
    const n = p - off - 4;
    u8[off] = n; u8[off + 1] = n >>> 8; u8[off + 2] = n >>> 16; u8[off + 3] = n >>> 24;
    off = p;
  }
  return off - w.ptr;
}

function lines(text) {
  return text === "" ? [] : text.split("\n");
}

// ---- trees ------------------------------------------------------------------

// rowsFile is the .tree.json of a store's rows (takeChanges's form, in any
// order): the envelope around the members, which the loader sorts as it reads.
// With rowOf, an array, rowsFile also pushes [index into its parts, the
// record's name] for each row, for fromRowsError.
function rowsFile(rows, rowOf) {
  if (typeof rows !== "object" || rows === null || !Array.isArray(rows.branches) || !Array.isArray(rows.nodes)) {
    fail(`"rows" must be { root, activeBranch, branches: [{ name, row }], nodes: [{ id, row }] }`);
  }
  const parts = [`{"format":"sessiontree","version":1`];
  if (rows.root) parts.push(`,"root":`, JSON.stringify(str("root", rows.root)));
  parts.push(`,"active_branch":`, JSON.stringify(str("activeBranch", rows.activeBranch)), `,"branches":{`);
  let i = 0;
  for (const b of rows.branches) {
    if (typeof b?.name !== "string" || (typeof b?.row !== "string" && b?.row !== null)) fail(`each branch row must be { name: string, row: string }`);
    if (b.row !== null) {
      parts.push(i++ ? "," : "", JSON.stringify(b.name), ":");
      rowOf?.push([parts.length, `branch ${JSON.stringify(b.name)}`]);
      parts.push(b.row);
    }
  }
  parts.push(`},"nodes":{`);
  i = 0;
  for (const n of rows.nodes) {
    if (typeof n?.id !== "string" || (typeof n?.row !== "string" && n?.row !== null)) fail(`each node row must be { id: string, row: string }`);
    if (n.row !== null) {
      parts.push(i++ ? "," : "", JSON.stringify(n.id), ":");
      rowOf?.push([parts.length, `node ${JSON.stringify(n.id)}`]);
      parts.push(n.row);
    }
  }
  parts.push("}}");
  return rowOf ? parts : parts.join("");
}

// fromRowsError is e, the load's error of the file rowsFile made of rows,
// with the record its "at byte N" falls in named, the offset made one into
// that record's row: what a store can say about the record that is damaged.
function fromRowsError(e, rows) {
  const at = /\bat byte (\d+)/.exec(e?.message ?? "");
  if (!(e instanceof SessionTreeError) || at === null) return e;
  const rowOf = [];
  const parts = rowsFile(rows, rowOf);
  const want = Number(at[1]);
  // The last row that starts at or before the byte: the loader read every
  // record before it, and a row cut short shows only past its own end.
  let found = null, byte = 0;
  for (let p = 0, k = 0; p < parts.length && byte <= want; p++) {
    const size = encoder.encode(parts[p]).length;
    if (k < rowOf.length && rowOf[k][0] === p) found = { name: rowOf[k++][1], start: byte, size };
    byte += size;
  }
  if (found === null) return e;
  const offset = want - found.start;
  const where = offset < found.size ? `at byte ${offset} of it` : "at its end";
  return new SessionTreeError(e.code, `${found.name}'s row: ${e.message.replace(at[0], where)}`);
}

// knownOptions refuses an option method does not take: a misspelt one would
// otherwise be ignored without a word.
function knownOptions(method, options, ...known) {
  for (const key of Object.keys(options)) if (!known.includes(key)) fail(`${method} has no option ${JSON.stringify(key)} (it takes ${known.length > 1 ? known.slice(0, -1).join(", ") + " and " + known.at(-1) : known[0]})`);
}

// keepKeys reads load's options ({ keepDuplicateKeys }) for method.
function keepKeys(method, options) {
  if (options === undefined) return false;
  if (options === null || typeof options !== "object" || Array.isArray(options)) fail(`"options" must be an object`);
  knownOptions(method, options, "keepDuplicateKeys");
  const keep = options.keepDuplicateKeys;
  if (keep !== undefined && typeof keep !== "boolean") fail(`"options.keepDuplicateKeys" must be true or false`);
  return keep === true;
}

// sliceOption reads loadFrom's { sliceMs }: how long one slice of the load may
// run before the event loop gets the thread back (default 25 ms; 0: a slice
// at every one of the module's yield points, a few hundred nodes).
function sliceOption(options) {
  if (options === undefined || options === null) return 25;
  if (typeof options !== "object" || Array.isArray(options)) fail(`loadFrom's options must be an object like { sliceMs: 25 }`);
  knownOptions("loadFrom", options, "sliceMs");
  const ms = options.sliceMs ?? 25;
  if (typeof ms !== "number" || !Number.isFinite(ms) || ms < 0 || ms > 60000) fail(`"sliceMs" must be a number of milliseconds from 0 to 60000`);
  return Math.round(ms);
}

// nextTask resolves in a later task of the event loop (after rendering and
// input when they are due, and timers that are due): setImmediate in Node, a
// MessageChannel elsewhere (setTimeout(0) is clamped to 4 ms after a few).
let channel = null;
function nextTask() {
  if (typeof setImmediate === "function") return new Promise((resolve) => setImmediate(resolve));
  if (typeof MessageChannel !== "function") return new Promise((resolve) => setTimeout(resolve, 0));
  if (!channel) {
    const waiting = [];
    channel = new MessageChannel();
    channel.port1.onmessage = () => waiting.shift()?.();
    channel.waiting = waiting;
  }
  return new Promise((resolve) => {
    channel.waiting.push(resolve);
    channel.port2.postMessage(0);
  });
}

// COPY_PIECE is how much of a file loadInSlices copies into the module before
// it looks at the clock (a few ms of memcpy).
const COPY_PIECE = 4 << 20;

// loadInSlices loads the file whose bytes are chunks (total of them) in slices
// (wasm/internal/treecalls/loadslices.go): loadBegin makes a buffer that is
// this load's alone, the chunks are copied there a piece at a time, then
// loadStep reads it for sliceMs at a time until it answers the tree's handle.
// Between slices other calls may run (they use the shared input buffer, never
// this one). Given up (an error here, or the module's) with loadCancel.
// readChunks yields a byte stream's chunks, failing with a code on a read
// error or a chunk that is not bytes.
async function* readChunks(stream) {
  const reader = stream.getReader();
  try {
    for (;;) {
      let chunk;
      try {
        chunk = await reader.read();
      } catch (e) {
        throw new SessionTreeError("invalid_input", `loadFrom: reading the source failed: ${e?.message ?? e}`);
      }
      const { done, value } = chunk;
      if (done) return;
      if (!(value instanceof Uint8Array)) fail(`loadFrom: the stream must yield Uint8Array chunks`);
      yield value;
    }
  } finally {
    reader.releaseLock();
  }
}

async function loadInSlices(chunks, total, sliceMs) {
  const w = need();
  if (total + 4 > MAX_INPUT) throw new SessionTreeError("too_large", `the file is more than ${MAX_INPUT} bytes`);
  // The time spent in this task so far counts against its slice: the buffer's
  // making, the copy's pieces, then each step.
  let t0 = performance.now();
  const [num, at] = invoke(M.loadBegin, 0, 0, [String(total)]).split(" ");
  let over = false;
  try {
    let off = Number(at);
    // chunks may be an async iterable (a Blob's stream, read as it is copied:
    // no chunk outlives its copy, so the file is never whole in JS memory).
    for await (const c of chunks) {
      if (off - Number(at) + c.length > total) throw new SessionTreeError("invalid_input", `loadFrom: the source holds more than the ${total} bytes its size says`);
      for (let i = 0; i < c.length;) {
        if (off !== Number(at) && performance.now() - t0 >= sliceMs) {
          await nextTask();
          t0 = performance.now();
        }
        const n = Math.min(COPY_PIECE, c.length - i);
        view(w).set(n === c.length ? c : c.subarray(i, i + n), off); // view: memory may have grown meanwhile
        off += n;
        i += n;
      }
    }
    if (off - Number(at) !== total) throw new SessionTreeError("invalid_input", `loadFrom: the source ended after ${off - Number(at)} of the ${total} bytes its size says`);
    const ms = String(sliceMs);
    if (sliceMs > 0 && performance.now() - t0 >= sliceMs / 2) await nextTask(); // a step takes a whole slice
    for (;;) {
      let res;
      try {
        res = invoke(M.loadStep, 0, 0, [num, ms]);
      } catch (e) {
        over = true; // the module ended the load
        throw e;
      }
      if (res !== "pending") {
        over = true;
        if ((w.moved += total) >= TIDY_AFTER) tidyLater(w, mainTidy); // the file's bytes came in by copies, not calls
        return res;
      }
      await nextTask();
    }
  } finally {
    if (!over && wasm === w) {
      try { invoke(M.loadCancel, 0, 0, [num]); } catch { /* the module stays usable */ }
    }
  }
}

const freed = new FinalizationRegistry((handle) => {
  if (wasm) {
    try { invoke(M.free, handle, 0, NO_ARGS); } catch { /* the module stays usable */ }
  }
});
// The helper's copies of trees the page dropped without free().
const copies = new FinalizationRegistry((handle) => {
  if (inter) {
    try { interCall(inter, inter.free, NO_ARGS, handle); } catch { /* the helper stays usable */ }
  }
});
// u32 reads the little-endian 32-bit number at res[i].
const u32 = (res, i) => res[i] | (res[i + 1] << 8) | (res[i + 2] << 16) | (res[i + 3] << 24);

// fields reads res from off as fields, each after its u32 length: each call
// gives the next (importAll's and importNext's answers: wasm/internal/fullcalls).
function fields(res, off) {
  return () => {
    const n = u32(res, off);
    const b = res.subarray(off + 4, off + 4 + n);
    off += 4 + n;
    return b;
  };
}

// readPiece is n bytes of an import's source from at: bytes, or a Blob read
// at once (FileReaderSync, in a worker). n is 0 past the end.
function readPiece(source, at, n) {
  if (n <= 0) return new Uint8Array(0);
  if (source instanceof Uint8Array) return source.subarray(at, at + n);
  try {
    return new Uint8Array(new FileReaderSync().readAsArrayBuffer(source.slice(at, at + n)));
  } catch (e) {
    // A File changed or gone since it was picked (a DOMException, whose code is a number).
    throw new SessionTreeError("invalid_input", `importEach: reading the file failed: ${e?.message ?? e}`);
  }
}

// An importEach given up (its iterator's return(), or dropped half-way): the
// module's import ended, its buffer let go.
function giveUp(full, f, num) {
  try {
    if (!full) interCall(f, f.importEnd, [num]);
    else if (wasm === full) mainBytes(F.importEnd, 0, [num]);
  } catch { /* the module stays usable */ }
}
const ends = new FinalizationRegistry(({ full, f, state }) => {
  if (state.num) giveUp(full, f, state.num);
});
const dispose = Symbol.dispose ?? Symbol.for("Symbol.dispose");
// mergeOptions checks merge's options and spells them as the module reads them
// (wasm/internal/fullcalls mergeOptions): the names of the flags set, by commas.
function mergeOptions(options) {
  if (options === undefined || options === null) return "";
  if (typeof options !== "object" || Array.isArray(options)) fail(`"options" must be an object like { freshNames: true, keepPlace: true }`);
  knownOptions("merge", options, "freshNames", "keepPlace");
  const on = [];
  for (const [key, value] of Object.entries(options)) {
    if (value !== undefined && typeof value !== "boolean") fail(`"options.${key}" must be a boolean`);
    if (value) on.push(key);
  }
  return on.join(",");
}

const VOID_OPS = new Set(["switch", "label", "clearLabel", "summarize", "deleteBranch"]);
let adopt = 0;

/** A conversation tree held in the WebAssembly module. See sessiontree.d.ts. */
export class SessionTree {
  #h;
  // Messages are immutable in the tree, so each is parsed once and handed out
  // frozen. The module numbers the messages this object holds (wasm/internal/treecalls
  // slots.go): slot i → the frozen object, its JSON text (not parsed yet), or
  // undefined: its bytes are in the module's memory (#places says where, once
  // known; JS let an appended message's text go).
  #cache = [];
  // Where the bytes of an empty cache entry are in the module's memory, when
  // known: [address, length] per slot, 0 length unknown (newPlaces).
  #places = new Uint32Array(0);
  // WeakRefs of the lazy lists handed out (#project), and how many were alive
  // when last counted: a swap first keeps what they may read (#retire), a
  // prune or a free copies it out of the module (keepUnread).
  #lists = [];
  #listsKept = 0;
  #copy = 0; // the handle of the helper's copy (t.projectFor in the lean flavour), or 0
  #requestMessages = null; // t.projectFor's last messages in order (Anthropic: content blocks; frozen, shared with the caller)
  #requestModule = null; // the module instance that numbered them
  #requestHeld = ""; // their serials as runs ("a-b,c,0"), what the module is told

  constructor(...args) {
    need();
    // A saved tree or messages passed here would be dropped for an empty tree.
    if (adopt === 0 && args.some((a) => a !== undefined)) {
      fail("new SessionTree() takes no arguments: SessionTree.load(json) opens a saved tree, SessionTree.fromLinear(messages) makes one of messages");
    }
    const h = adopt || Number(invoke(M.new, 0, 0, NO_ARGS));
    adopt = 0;
    this.#h = h;
    freed.register(this, h, this);
  }

  static #adopt(handleText) {
    adopt = Number(handleText);
    return new SessionTree();
  }

  /** The single-path tree of msgs, each stamped atMs. */
  static fromLinear(messages, atMs) {
    need();
    if (!Array.isArray(messages)) fail(`"messages" must be an array of message objects`);
    const at = time(atMs);
    // Each message's own JSON, joined as JSON.stringify(messages) would write
    // the array: the new tree's message cache starts with them (slots 0…n-1).
    const texts = new Array(messages.length);
    try {
      for (let i = 0; i < messages.length; i++) texts[i] = JSON.stringify(messages[i]) ?? "null";
    } catch (e) {
      fail(`the messages cannot be written as JSON: ${e.message}`);
    }
    const all = "[" + texts.join(",") + "]";
    if (all.includes("\\u") && LONE.test(all)) fail(`the messages contains a lone surrogate (an unpaired UTF-16 code unit) in a string`);
    const t = SessionTree.#adopt(invoke(M.fromLinear, 0, at, [all]));
    // Parsed now, as a copy made on the way in: the caller's objects stay theirs.
    for (let i = 0; i < texts.length; i++) texts[i] = deepFreeze(JSON.parse(texts[i]));
    t.#cache = texts;
    return t;
  }

  /** Loads a .tree.json file, as text or UTF-8 bytes. */
  static load(file, options) {
    need();
    let arg = file;
    if (file instanceof ArrayBuffer) arg = new Uint8Array(file);
    else if (ArrayBuffer.isView(file)) arg = new Uint8Array(file.buffer, file.byteOffset, file.byteLength);
    else if (typeof file !== "string") fail(`"json" must be a string or bytes holding a .tree.json file`);
    else if (!file.isWellFormed()) fail(`"json" contains a lone surrogate (an unpaired UTF-16 code unit)`);
    return SessionTree.#adopt(invoke(M.load, 0, 0, keepKeys("load", options) ? [arg, "keep"] : [arg]));
  }

  /**
   * Loads a .tree.json of `size` bytes that `fill(bytes)` writes straight into
   * the module's memory: `bytes` is a Uint8Array of exactly `size` bytes
   * there, valid only while `fill` runs, which must write all of them,
   * synchronously, and call nothing of sessiontree's. In Node,
   * `sessiontree/node`'s `loadFile` reads a file into it with `fs.readSync`:
   * the file is never whole in JavaScript memory, and the load touches about
   * half the new memory a `load(readFileSync(…))` does. Options as `load`'s;
   * an error thrown by `fill` is thrown, with nothing loaded.
   */
  static loadWith(size, fill, options) {
    need();
    if (!Number.isSafeInteger(size) || size < 0) fail(`"size" must be a whole number of bytes`);
    if (typeof fill !== "function") fail(`"fill" must be a function (bytes) => void that writes the file's bytes into bytes`);
    const keep = keepKeys("loadWith", options);
    const room = 4 + size + (keep ? 8 : 0);
    if (room > MAX_INPUT) throw new SessionTreeError("too_large", `the file is ${size} bytes; the limit is ${MAX_INPUT - (room - size)}`);
    const w = wasm;
    if (room > w.cap) {
      w.ptr = reserve(w, room);
      w.cap = room;
    }
    const p = w.ptr;
    lend("loadWith's fill", fill, view(w).subarray(p + 4, p + 4 + size), "nothing was loaded (for a stream or a Blob, use loadFrom)");
    const u8 = view(w);
    u8[p] = size; u8[p + 1] = size >>> 8; u8[p + 2] = size >>> 16; u8[p + 3] = size >>> 24;
    if (keep) {
      const q = p + 4 + size;
      u8[q] = 4; u8[q + 1] = 0; u8[q + 2] = 0; u8[q + 3] = 0;
      encoder.encodeInto("keep", u8.subarray(q + 4, q + 8));
    }
    const len = finish(w, M.load, 0, room, 0);
    return SessionTree.#adopt(decode(view(w), w.out, len));
  }

  /**
   * Loads a .tree.json from bytes, a Blob (a File), a ReadableStream of bytes
   * or a fetch Response, without making it a string, and in slices: the bytes
   * are read in chunks, copied into a buffer of the module's memory that
   * belongs to this load (a piece at a time), and read there by the module
   * for about `sliceMs` (default 25) at a time, the event loop running in
   * between (rendering, input, calls on other trees), so that even a 100 MB
   * file makes no long task. The tree keeps the bytes (no second copy).
   * Resolves to the tree; rejects as load throws.
   */
  static async loadFrom(source, options) {
    need();
    const sliceMs = sliceOption(options);
    let stream = source;
    if (source instanceof ArrayBuffer || ArrayBuffer.isView(source)) {
      const u8 = source instanceof ArrayBuffer ? new Uint8Array(source) : new Uint8Array(source.buffer, source.byteOffset, source.byteLength);
      return SessionTree.#adopt(await loadInSlices([u8], u8.length, sliceMs));
    }
    if (typeof Response !== "undefined" && source instanceof Response) {
      if (!source.ok) throw new SessionTreeError("not_found", `loadFrom: the response is HTTP ${source.status}`);
      if (source.body === null) return SessionTree.#adopt(await loadInSlices([], 0, sliceMs)); // no body: an empty file
      stream = source.body;
    } else if (typeof Blob !== "undefined" && source instanceof Blob) {
      // Its size is known: each chunk is copied into the load's buffer as it
      // is read, so the page never holds the whole file as well (a 100 MB
      // import: ~100 MB less at its peak).
      if (source.size + 4 > MAX_INPUT) throw new SessionTreeError("too_large", `the file is more than ${MAX_INPUT} bytes`);
      return SessionTree.#adopt(await loadInSlices(readChunks(source.stream()), source.size, sliceMs));
    }
    if (!stream || typeof stream.getReader !== "function") {
      fail(`loadFrom takes bytes, a Blob, a ReadableStream or a Response`);
    }
    const chunks = [];
    let total = 0;
    for await (const value of readChunks(stream)) {
      total += value.length;
      if (total + 4 > MAX_INPUT) throw new SessionTreeError("too_large", `the file is more than ${MAX_INPUT} bytes`);
      chunks.push(value);
    }
    need();
    return SessionTree.#adopt(await loadInSlices(chunks, total, sliceMs));
  }

  /**
   * Imports another tool's chat export as a tree, with a report of what the format
   * could not carry. Needs the full module (`init({ full: true })`) or
   * `await initInterchange()` first.
   */
  static import(text, format = "auto") {
    need();
    const full = fullModule();
    const f = full ? null : needInterchange("SessionTree.import");
    const arg = typeof text === "string" ? (text.isWellFormed() ? text : fail(`"text" contains a lone surrogate`))
      : text instanceof ArrayBuffer ? new Uint8Array(text)
      : ArrayBuffer.isView(text) ? new Uint8Array(text.buffer, text.byteOffset, text.byteLength)
      : fail(`"text" must be a string or bytes`);
    // [u32 report length][report JSON] and then the tree: its handle in the
    // full module (wasm/internal/fullcalls intree.go), its .tree.json from the
    // helper (interchange.go), which this module loads.
    const res = full ? mainBytes(F.importTree, 0, [str("format", format), arg]) : interCall(f, f.import, [str("format", format), arg]);
    const n = res[0] | (res[1] << 8) | (res[2] << 16) | (res[3] << 24);
    const report = JSON.parse(decoder.decode(res.subarray(4, 4 + n)));
    if (full) return { tree: SessionTree.#adopt(decoder.decode(res.subarray(4 + n))), report };
    return { tree: SessionTree.load(res.subarray(4 + n)), report };
  }

  /**
   * Imports a file that holds several conversations (a ChatGPT
   * conversations.json, an Open WebUI export) as one tree per conversation:
   * `[{ title, tree, report }]`. A file of any other format is one
   * conversation. Needs the full module or `await initInterchange()` first.
   */
  static importAll(text, format = "auto") {
    need();
    const full = fullModule();
    const f = full ? null : needInterchange("SessionTree.importAll");
    if (!full && f.importAll < 0) {
      throw new SessionTreeError("invalid_input", "SessionTree.importAll: this interchange module has no importAll; rebuild it with make build");
    }
    const arg = importText(text);
    // A count, then per conversation: title, report JSON and the tree (its
    // handle in the full module, its .tree.json from the helper), each after a
    // u32 length (wasm/internal/fullcalls importall.go).
    const res = (full ? mainBytes(F.importAllTrees, 0, [str("format", format), arg]) : interCall(f, f.importAll, [str("format", format), arg])).slice();
    const field = fields(res, 4);
    const out = [];
    for (let i = u32(res, 0); i > 0; i--) {
      const title = decoder.decode(field());
      const report = JSON.parse(decoder.decode(field()));
      const t = field();
      out.push({ title, tree: full ? SessionTree.#adopt(decoder.decode(t)) : SessionTree.load(t), report });
    }
    return out;
  }

  /**
   * importAll a conversation at a time: an iterator of `{ title, tree, report }`
   * that reads the next conversation of the file only when asked for it, so
   * that the module holds the file and one conversation, not the trees of
   * them all (a 345 MB ChatGPT export's 2,001, read by importAll, took GBs).
   * Each tree is the caller's to keep or free; with `{ files: true }` each
   * comes as `{ title, file, report }`, its .tree.json bytes. Stopping early (`break`, or
   * `return()`) gives the rest up; an error is thrown where it is met (a file
   * no format reads: at the first). Needs the full module or
   * `await initInterchange()` first.
   */
  static importEach(text, format = "auto", options) {
    need();
    const full = fullModule();
    const f = full ? null : needInterchange("SessionTree.importEach");
    if (!full && f.importBegin < 0) {
      throw new SessionTreeError("invalid_input", "SessionTree.importEach: this interchange module has no importEach; rebuild it with make build");
    }
    str("format", format);
    if (options !== undefined && (options === null || typeof options !== "object" || Array.isArray(options))) fail(`"options" must be an object ({ files: true })`);
    if (options !== undefined) knownOptions("importEach", options, "files");
    if (options?.files !== undefined && typeof options.files !== "boolean") fail(`"options.files" must be true or false`);
    // files: each conversation as its .tree.json bytes, loaded by no module
    // here (what a store writes, or a worker hands a page).
    const files = options?.files === true;
    // The file, read a piece at a time as the module asks (importBegin's
    // buffer holds one piece): a Blob where it can be read at once (a
    // worker's FileReaderSync), else bytes.
    let source = typeof FileReaderSync === "function" && typeof Blob === "function" && text instanceof Blob ? text : importText(text);
    if (typeof source === "string") source = encoder.encode(source);
    const size = source instanceof Uint8Array ? source.length : source.size;
    if (size > MAX_INPUT) throw new SessionTreeError("too_large", `the input is ${size} bytes; the limit is ${MAX_INPUT}`);
    // importBegin's buffer, a piece of the file written there each time
    // importNext answers "more"; then importNext's answers, each a
    // conversation framed as importAll frames one, and nothing at the end
    // (wasm/internal/fullcalls importeach.go).
    const call = full
      ? (name, args) => mainBytes(F[name], 0, args)
      : (name, args) => interCall(f, f[name], args);
    const memory = () => (full ? view(wasm) : new Uint8Array(f.memory.buffer));
    const state = { num: "" };
    function* conversations() {
      const [num, at, room] = decoder.decode(call("importBegin", [format, String(size), full && !files ? "trees" : "files"])).split(" ");
      state.num = num;
      try {
        let read = 0;
        let written = "0";
        for (;;) {
          const res = call("importNext", [num, written]);
          written = "0";
          if (res.length === 0) {
            state.num = "";
            return;
          }
          if (res.length === 8 && u32(res, 0) === 4 && decoder.decode(res.subarray(4)) === "more") {
            const piece = readPiece(source, read, Math.min(Number(room), size - read));
            memory().set(piece, Number(at));
            read += piece.length;
            written = String(piece.length);
            if (read === size) source = null; // read whole: not kept for the rest
            continue;
          }
          const field = fields(res, 0);
          const title = decoder.decode(field());
          const report = JSON.parse(decoder.decode(field()));
          const t = field();
          if (files) yield { title, file: t.slice(), report };
          else yield { title, tree: full ? SessionTree.#adopt(decoder.decode(t)) : SessionTree.load(t), report };
        }
      } finally {
        if (state.num) giveUp(full, f, state.num); // given up, or failed (an import importNext ended is already over: a no-op)
      }
    }
    const it = conversations();
    ends.register(it, { full, f, state }, it);
    return it;
  }

  /** The tree in another format (see sessiontree.d.ts), as text. Needs the full module or `await initInterchange()` first. */
  export(format, options) {
    if (options !== undefined && (options === null || typeof options !== "object")) fail(`"options" must be an object ({ report: true })`);
    if (options !== undefined) knownOptions("export", options, "report");
    const withReport = options?.report === true;
    if (options?.report !== undefined && typeof options.report !== "boolean") fail(`"options.report" must be true or false`);
    let res;
    if (fullModule()) {
      if (!withReport) return this.#call(F.exportTree, 0, [str("format", format)]);
      res = mainBytes(F.exportTree, this.#live(), [str("format", format), "report"]);
    } else {
      const f = needInterchange("t.export");
      str("format", format);
      if (!withReport) return decoder.decode(interCall(f, f.export, [format, this.#saved()]));
      res = interCall(f, f.export, [format, this.#saved(), "report"]);
    }
    // [u32 report length][report JSON][the file] (wasm/internal/fullcalls exportReported)
    const n = res[0] | (res[1] << 8) | (res[2] << 16) | (res[3] << 24);
    return { text: decoder.decode(res.subarray(4 + n)), report: JSON.parse(decoder.decode(res.subarray(4, 4 + n))) };
  }

  /**
   * The path of a branch as the fields of a request body for a model API
   * (core/provider): `{ request, report }`. Needs the full module or
   * `await initInterchange()` first.
   */
  projectFor(api, options = {}) {
    if (api !== "openai-chat" && api !== "openai-responses" && api !== "anthropic") {
      fail(`"api" must be "openai-chat", "openai-responses" or "anthropic"`);
    }
    if (options === null || typeof options !== "object") fail(`"options" must be an object`);
    knownOptions("projectFor", options, "branch", "budget", "thinking", "upTo");
    const branch = optStr("branch", options.branch);
    let budget = "";
    if (options.budget !== undefined && options.budget !== null) {
      if (!Number.isSafeInteger(options.budget) || options.budget < 0) fail(`"budget" must be a whole number of tokens, 0 or more`);
      budget = String(options.budget);
    }
    if (options.thinking !== undefined && options.thinking !== null && typeof options.thinking !== "boolean") fail(`"thinking" must be true or false`);
    const upTo = options.upTo !== undefined && options.upTo !== null ? str("upTo", options.upTo) : "";
    // The messages of the last request, in order, with their serials: the
    // module writes a run of them this tab holds as [p,c] (the c messages
    // from p on), an Anthropic content block as p (a chat resends the same
    // prefix; nothing of it is written or parsed again).
    const module = fullModule() ? wasm : inter;
    const held = this.#requestModule === module ? this.#requestMessages : null; // serials are one instance's
    const args = [api, branch, budget, options.thinking === false ? "false" : "", upTo, held === null ? "" : this.#requestHeld];
    let out;
    if (fullModule()) {
      out = this.#call(F.projectTree, 0, args);
    } else {
      const f = needInterchange("t.projectFor");
      if (f.projectTree < 0) fail("t.projectFor: this sessiontree-interchange.wasm has no projections; rebuild it with make build");
      out = decoder.decode(interCall(f, f.projectTree, args, this.#helperCopy(f)));
    }
    const res = JSON.parse(out);
    const runs = res.serials;
    if (runs === undefined) return res;
    delete res.serials;
    const broken = () => new SessionTreeError("corrupt", "t.projectFor: the module named a message this tree does not hold (a bug in sessiontree)");
    // Every message (Anthropic: content block) of the request, in order; what
    // came new is frozen (a numbered one comes back as the same object while
    // the tree writes it the same; what is held was frozen when it came).
    let list;
    if (api === "anthropic") {
      list = [];
      for (const m of res.request.messages) {
        const c = m.content;
        for (let k = 0; k < c.length; k++) {
          if (typeof c[k] === "number") {
            const x = held?.[c[k]];
            if (x === undefined) throw broken();
            c[k] = x;
          } else {
            deepFreeze(c[k]);
          }
          list.push(c[k]);
        }
      }
    } else {
      const entries = api === "openai-responses" ? res.request.input : res.request.messages;
      // A chat's request is the held list's tail and a few new messages: the
      // tail is taken in one slice, not message by message.
      list = null;
      for (const e of entries) {
        if (Array.isArray(e)) {
          const [p, c] = e;
          if (held === null || !(Number.isInteger(p) && Number.isInteger(c) && p >= 0 && c > 0 && p + c <= held.length)) throw broken();
          if (list === null) list = held.slice(p, p + c);
          else for (let k = p; k < p + c; k++) list.push(held[k]);
        } else {
          (list ??= []).push(deepFreeze(e));
        }
      }
      list ??= [];
      if (api === "openai-responses") res.request.input = list;
      else res.request.messages = list;
    }
    // The runs name as many serials as the list holds messages.
    let count = 0;
    for (let at = 0; at < runs.length;) {
      let end = runs.indexOf(",", at);
      if (end < 0) end = runs.length;
      const dash = runs.indexOf("-", at);
      count += dash < 0 || dash > end ? 1 : Number(runs.slice(dash + 1, end)) - Number(runs.slice(at, dash)) + 1;
      at = end + 1;
    }
    if (count !== list.length) throw broken();
    this.#requestMessages = list;
    this.#requestHeld = runs;
    this.#requestModule = module;
    return res;
  }

  /**
   * Merges two .tree.json files (text or bytes) without loading either as a
   * tree: `{ json, report }`, the merged file's text (`ours` itself when the
   * merge left it as it was) and what changed in ours. Needs only
   * `await initInterchange()` (or the full module).
   */
  static mergeJSON(ours, theirs) {
    const full = fullModule();
    const f = full ? null : needInterchange("SessionTree.mergeJSON");
    const args = [treeFile("ours", ours), treeFile("theirs", theirs)];
    const res = full ? mainBytes(F.merge, 0, args) : interCall(f, f.merge, args);
    const n = res[0] | (res[1] << 8) | (res[2] << 16) | (res[3] << 24);
    const report = JSON.parse(decoder.decode(res.subarray(4, 4 + n)));
    const same = res.length === 4 + n;
    return { json: same ? (typeof ours === "string" ? ours : decoder.decode(treeFile("ours", ours))) : decoder.decode(res.subarray(4 + n)), report };
  }

  /**
   * A .tree.json file (text or bytes) as delta documents (the worker's
   * /delta, applyChanges) of about `bytes` of node rows each, in the order to
   * apply them: every row as the file has it, parents before their children,
   * the branches and the active branch with the last. Applied in order to a
   * copy, they bring it every row of the file; one sent again changes
   * nothing. How sync() pushes a tree too large for one request. Needs only
   * `await initInterchange()` (or the full module).
   */
  static deltaParts(file, bytes) {
    if (!Number.isSafeInteger(bytes) || bytes < 1) fail(`"bytes" must be a positive integer`);
    const full = fullModule();
    const f = full ? null : needInterchange("SessionTree.deltaParts");
    const args = [treeFile("file", file), String(bytes)];
    const res = full ? mainBytes(F.deltaParts, 0, args) : interCall(f, f.deltaParts, args);
    const parts = [];
    for (let i = 0; i < res.length;) {
      const n = (res[i] | (res[i + 1] << 8) | (res[i + 2] << 16) | (res[i + 3] << 24)) >>> 0;
      parts.push(decoder.decode(res.subarray(i + 4, i + 4 + n)));
      i += 4 + n;
    }
    return parts;
  }

  // #helperCopy returns the handle of the helper's copy of this tree, brought
  // up to date: loaded from save() the first time (and after a change that
  // is no list of added nodes), else given the rows of what was added since
  // (the branches and the new nodes), so that a request in a long chat hands
  // the helper a few rows and the helper converts only those (core/provider
  // keeps what it converted with its copy).
  #helperCopy(f) {
    const rows = invoke(M.helperRows, this.#live(), 0, NO_ARGS);
    if (rows !== "all" && this.#copy !== 0) {
      try {
        interCall(f, f.applyChanges, [rows], this.#copy);
        return this.#copy;
      } catch {
        // The copy refused them: load it again below.
      }
    }
    this.#dropCopy();
    const h = Number(decoder.decode(interCall(f, f.load, [this.#saved()])));
    this.#copy = h;
    copies.register(this, h, this);
    return h;
  }

  #dropCopy() {
    if (this.#copy === 0) return;
    copies.unregister(this);
    try { if (inter) interCall(inter, inter.free, NO_ARGS, this.#copy); } catch { /* the helper stays usable */ }
    this.#copy = 0;
  }

  // #saved returns save() as bytes: a view of the main module's memory, valid
  // until the next call into it.
  #saved() {
    const w = wasm;
    const len = send(M.save, this.#live(), 0, NO_ARGS);
    return len === 0 ? new Uint8Array(0) : view(w).subarray(w.out, w.out + len);
  }

  #call(method, at, args) {
    const out = invoke(method, this.#live(), at, args);
    if (this.#listeners !== null) this.#changed();
    return out;
  }

  // Change events (subscribe): the listeners (null before the first), the
  // version the last event told, and whether listeners are being told now.
  #listeners = null;
  #told = 0;
  #telling = false;

  /**
   * The tree's version: larger after every change (of this object's own calls,
   * applyChanges and merge too), never smaller; equal while nothing changed.
   */
  get version() {
    return Number(invoke(M.watch, this.#live(), 0, ["version"]));
  }

  /**
   * Calls listener(event) after every call that changed the tree, with what
   * changed: { version, all, meta, nodes, branches } (nodes and branches
   * added, changed or removed; meta: the root or active branch may have
   * changed; all: anything may have, the tree was replaced whole). Returns the
   * function that unsubscribes it.
   */
  subscribe(listener) {
    if (typeof listener !== "function") fail(`"listener" must be a function (event) => void`);
    const h = this.#live();
    this.#listeners ??= new Set();
    if (this.#listeners.size === 0) this.#told = JSON.parse(invoke(M.watch, h, 0, ["take"])).version; // starts the watch, or drops what it saw unheard
    this.#listeners.add(listener);
    return () => void this.#listeners?.delete(listener);
  }

  // #changed tells the listeners what changed since they were last told, if
  // anything did. A listener that changes the tree is told that too (after
  // the others heard the first change); one that throws does not stop them.
  #changed() {
    const ls = this.#listeners;
    if (ls === null || ls.size === 0 || this.#telling || this.#h === 0) return;
    this.#telling = true;
    try {
      for (let round = 0; round < 64; round++) {
        if (Number(invoke(M.watch, this.#h, 0, ["version"])) === this.#told) return;
        const event = JSON.parse(invoke(M.watch, this.#h, 0, ["take"]));
        this.#told = event.version;
        for (const listener of [...ls]) {
          try {
            listener(event);
          } catch (err) {
            // Reported as the platform reports a listener's error (reportError:
            // browsers, workers), else logged; never thrown at the caller.
            if (typeof globalThis.reportError === "function") globalThis.reportError(err);
            else console.error(err);
          }
          if (this.#h === 0) return;
        }
      }
    } finally {
      this.#telling = false;
    }
  }

  // #live returns the handle, or throws when the module or this tree is gone.
  #live() {
    need();
    if (this.#h === 0) {
      throw new SessionTreeError("invalid_input", "this SessionTree was freed; make or load a new one");
    }
    return this.#h;
  }

  append(message_, atMs) {
    const text = message(message_);
    const at = time(atMs);
    const id = invokeOne(M.append, this.#live(), at, text);
    // The module made the next slot for it. Its text is not kept: a chat of
    // 200k appended messages would hold them all twice, and every collection
    // of the page's heap would walk them; a read takes it back (#slotted).
    this.#cache.push(undefined);
    if (this.#listeners !== null) this.#changed();
    return id;
  }

  rewind(node, atMs) {
    const at = time(atMs);
    const id = str("node", node);
    const kept = invokeOne(M.rewind, this.#live(), at, id) || null;
    if (this.#listeners !== null) this.#changed();
    return kept;
  }

  branch(from, name, atMs) {
    return this.#call(M.branch, time(atMs), [str("from", from), optStr("name", name)]);
  }

  switchBranch(branch) {
    this.#call(M.switchBranch, 0, [str("branch", branch)]);
  }

  label(node, label, atMs) {
    this.#call(M.label, time(atMs), [str("node", node), str("label", label)]);
  }

  clearLabel(node, atMs) {
    this.#call(M.clearLabel, time(atMs), [str("node", node)]);
  }

  checkout(node, atMs) {
    return this.#call(M.checkout, time(atMs), [str("node", node)]);
  }

  open(node, atMs) {
    return this.#call(M.open, time(atMs), [str("node", node)]);
  }

  edit(node, message_, atMs) {
    return this.#sibling(M.edit, node, message_, atMs);
  }

  regenerate(node, message_, atMs) {
    return this.#sibling(M.regenerate, node, message_, atMs);
  }

  #sibling(method, node, message_, atMs) {
    const text = message(message_);
    const id = invokeTwo(method, this.#live(), time(atMs), str("node", node), text);
    this.#cache.push(undefined); // the module made the next slot for it; its text is not kept (see append)
    if (this.#listeners !== null) this.#changed();
    return id;
  }

  deleteBranch(branch, atMs) {
    this.#call(M.deleteBranch, time(atMs), [str("branch", branch)]);
  }

  /**
   * Merges another copy of this conversation (a SessionTree or its .tree.json)
   * into this one. With the full module (init({ full: true })) it merges in
   * place, in that module. With the lean one it needs `await initInterchange()`
   * first: the helper merges the two saved trees, and the main module swaps the
   * result in under this object's handle.
   */
  merge(other, options) {
    const opts = mergeOptions(options);
    if (fullModule()) return this.#mergeInPlace(other, opts);
    const f = needInterchange("t.merge");
    const h = this.#live();
    let theirs;
    if (other instanceof SessionTree) {
      if (other.#h === 0) fail(`the other SessionTree was freed; merge a live tree or its saved JSON`);
      theirs = other.#saved().slice(); // copied: the next save may reuse that memory
    } else if (typeof other === "string" || other instanceof ArrayBuffer || ArrayBuffer.isView(other)) {
      theirs = treeFile("other", other);
    } else {
      fail(`"other" must be a SessionTree or a .tree.json string or bytes`);
    }
    // [u32 report length][report JSON][the merged .tree.json, or nothing when
    // it is ours as it was] (wasm/interchange merge.go)
    const res = interCall(f, f.merge, [this.#saved(), theirs, opts]);
    const n = res[0] | (res[1] << 8) | (res[2] << 16) | (res[3] << 24);
    const report = JSON.parse(decoder.decode(res.subarray(4, 4 + n)));
    // The message cache stays right: the module keeps the slot of every message
    // the merged tree still has under the same id and bytes, and empties the
    // others (wasm/internal/treecalls replace.go).
    if (res.length > 4 + n) this.#replace([res.subarray(4 + n)]);
    if (this.#listeners !== null) this.#changed();
    return report;
  }

  // #mergeInPlace is merge in the full module: core's Merge on the live tree,
  // with the other tree's handle or its file (wasm/internal/fullcalls
  // intree.go). The message cache stays right as it is: a merge never changes
  // a stored message, and a node the merge gives other content gets another slot.
  #mergeInPlace(other, opts) {
    const h = this.#live();
    let args;
    if (other instanceof SessionTree) {
      if (other.#h === 0) fail(`the other SessionTree was freed; merge a live tree or its saved JSON`);
      args = ["handle", String(other.#h)];
    } else if (typeof other === "string" || other instanceof ArrayBuffer || ArrayBuffer.isView(other)) {
      args = ["json", treeFile("other", other)];
    } else {
      fail(`"other" must be a SessionTree or a .tree.json string or bytes`);
    }
    args.push(opts);
    const report = JSON.parse(invoke(F.mergeTree, h, 0, args));
    if (this.#listeners !== null) this.#changed();
    return report;
  }

  apply(ops, atMs) {
    if (!Array.isArray(ops)) fail(`"ops" must be an array of operation objects`);
    const at = time(atMs);
    // One argument per op (wasm/internal/treecalls/applyops.go): a plain append crosses as
    // its message's JSON, kept for the cache (with its time as 8 bytes when it
    // has one); any other op as its JSON.
    const n = ops.length;
    const texts = new Array(n);
    const kinds = new Uint8Array(n);
    const times = new Float64Array(n);
    let appends = 0;
    for (let i = 0; i < n; i++) {
      const op = ops[i];
      const m = plainAppend(op);
      if (m !== undefined) {
        texts[i] = json("the ops", m);
        if (op.at === undefined || op.at === null) {
          kinds[i] = KIND_APPEND;
        } else {
          kinds[i] = KIND_TIMED;
          times[i] = op.at;
        }
        appends++;
      } else {
        texts[i] = json("the ops", op);
        kinds[i] = KIND_JSON;
      }
    }
    const h = this.#live();
    const w = wasm;
    const len = sendOps(w, M.applyOps, h, at, texts, kinds, times);
    const text = decode(view(w), w.out, len);
    const cache = this.#cache; // the module made the appends' slots, in order (texts not kept: see append)
    if (appends === n) for (let i = 0; i < n; i++) cache.push(undefined);
    else for (let i = 0; i < n; i++) if (kinds[i] !== KIND_JSON) cache.push(undefined);
    // "L" and one result per line, or "J" and a JSON array (applyops.go appendResults).
    const results = text.charCodeAt(0) === 76 ? (n === 0 ? [] : text.slice(1).split("\n")) : JSON.parse(text.slice(1));
    if (this.#listeners !== null) this.#changed();
    for (let i = 0; i < results.length; i++) {
      const op = ops[i]?.op;
      if (VOID_OPS.has(op)) results[i] = undefined;
      else if (op === "rewind" && results[i] === "") results[i] = null;
    }
    return results;
  }

  linearProjection() {
    return this.#project("");
  }

  linearProjectionOf(branch) {
    return this.#project(str("branch", branch));
  }

  // The slots of the list the last projection handed out, which the module's
  // answer to the next one builds on (wasm/internal/treecalls project.go
  // listMemo): the part of it the path still starts with (all of it, when
  // only appends came since) is not read again: { buf: a Uint32Array, n: how
  // many of it are the list's }.
  // null while none is held.
  #list = null;

  // #project reads the slots of a path (see wasm/internal/treecalls/project.go)
  // and hands out a lazy list of their messages (lazyList): each one is parsed
  // when first read, and kept parsed for every list after it. It tells the
  // module how long a list it holds: when the path still starts with some of
  // that list, the module sends only the slots that follow that part.
  #project(branch) {
    need();
    if (this.#h === 0) throw new SessionTreeError("invalid_input", "this SessionTree was freed; make or load a new one");
    let held = this.#list;
    const base = held?.made ?? null; // the last list's array (lazyList)
    this.#list = null; // held again only if this call succeeds
    const w = wasm;
    const len = send(M.project, this.#h, 0, [branch, held === null ? "" : String(held.n)]);
    const end = w.out + len;
    const u8 = view(w);
    const [slots, old, p] = this.#slots(u8, w.out, end - 4);
    const kept = (u8[p] | (u8[p + 1] << 8) | (u8[p + 2] << 16) | (u8[p + 3] << 24)) >>> 0;
    // The list's slots: the held ones and the new ones after them. A list
    // handed out reads a view of them, which later calls never write (they
    // add after it, or start a new buffer).
    let memo = { buf: slots, n: slots.length };
    if (kept !== 0) {
      if (held === null || kept > held.n) throw new SessionTreeError("corrupt", "the module's projection did not match the list it built on (a bug in sessiontree)");
      if (kept < held.n) {
        // The path left the held list after its first kept messages (a
        // regenerate, an edit, a switch): lists handed out still read the
        // rest of it, so the new one starts a buffer of its own.
        const buf = new Uint32Array(Math.max(kept + slots.length, held.buf.length));
        buf.set(held.buf.subarray(0, kept));
        held = { buf, n: kept };
      }
      memo = held;
      const n = held.n + slots.length;
      if (n > held.buf.length) {
        const grown = new Uint32Array(Math.max(n, 2 * held.buf.length));
        grown.set(held.buf.subarray(0, held.n));
        held.buf = grown;
      }
      held.buf.set(slots, held.n);
      held.n = n;
    }
    const list = memo.buf.subarray(0, memo.n);
    const cache = this.#cache;
    let missing = null;
    const places = this.#places;
    for (let j = 0; j < old.length; j++) {
      const s = slots[old[j]];
      if (cache[s] === undefined && (2 * s + 1 >= places.length || places[2 * s + 1] === 0)) (missing ??= []).push(s);
    }
    if (missing !== null) this.#placesBack(missing);
    this.#list = memo;
    const [lazy, unread, made] = lazyList(list, cache, this.#places, w, this, kept !== 0 ? base : null, kept, old);
    memo.made = made;
    if (!unread) return lazy; // every message parsed already: a plain array
    const lists = this.#lists;
    if (lists.length >= 16 && lists.length >= 2 * this.#listsKept) {
      this.#lists = lists.filter((r) => r.deref() !== undefined);
      this.#listsKept = this.#lists.length;
    }
    this.#lists.push(new WeakRef(lazy));
    return lazy;
  }

  // #slots reads a list of message slots at p (wasm/internal/treecalls
  // project.go project), then the positions of those the cache held before
  // (copied: a call for places back writes over the module's buffer), puts
  // where the new ones' bytes are, up to end, in the cache's places
  // (newPlaces), and returns the slots, those positions and where it ended.
  #slots(u8, p, end) {
    let at, old;
    [at, p] = slotList(u8, p);
    const slots = at.slice(); // a copy: the module's buffer is reused
    [old, p] = slotList(u8, p);
    old = old.slice();
    const count = (end - p) / 8;
    if (!Number.isInteger(count) || count < 0) throw new SessionTreeError("corrupt", "the module's projection did not match the message cache (a bug in sessiontree)");
    if (count > 0) [this.#places, p] = newPlaces(u8, p, count, this.#cache, this.#places);
    return [slots, old, p];
  }

  // #placesBack puts where the bytes of slots whose texts JS let go (append)
  // are in the module's memory back in the cache (wasm/internal/treecalls
  // slotBytes), as newPlaces does.
  #placesBack(slots) {
    const w = wasm;
    send(M.slotBytes, this.#live(), 0, [slots.join(",")]);
    const u8 = view(w);
    const places = (this.#places = roomFor(this.#places, this.#cache.length));
    for (let i = 0, q = w.out; i < slots.length; i++, q += 8) {
      places[2 * slots[i]] = (u8[q] | (u8[q + 1] << 8) | (u8[q + 2] << 16) | (u8[q + 3] << 24)) >>> 0;
      places[2 * slots[i] + 1] = (u8[q + 4] | (u8[q + 5] << 8) | (u8[q + 6] << 16) | (u8[q + 7] << 24)) >>> 0;
    }
  }

  // #replace swaps the tree behind the handle (wasm/internal/treecalls
  // replace.go): the slots stay, but hold the new tree's bytes, elsewhere in
  // the module's memory, and the old ones may be freed. What a live list may
  // still read becomes text first, and every place is asked for again.
  #replace(args) {
    const h = this.#live();
    this.#retire();
    this.#places = new Uint32Array(0);
    this.#list = null;
    invoke(M.replace, h, 0, args);
  }

  // #alive returns the lazy lists of this tree not collected yet that may
  // still read a message from the module's memory.
  #alive() {
    const out = [];
    for (const r of this.#lists) {
      const list = r.deref();
      if (list !== undefined) out.push(list);
    }
    return out;
  }

  // #keepForLists copies out of the module the bytes a lazy list of this tree
  // may still read (keepUnread), before a free or a prune drops the cache and
  // lets the module drop those bytes, and says whether there was such a list.
  // The lists stay counted until the caller has dropped the cache: a prune
  // the module refuses leaves them reading the module's memory (unkeep).
  #keepForLists() {
    const alive = this.#alive();
    if (!wasm || alive.length === 0) return false;
    keepUnread(view(wasm), this.#cache, this.#places);
    return true;
  }

  // #retire turns every message a lazy list of this tree may still read from
  // the module's memory into its text, before a swapped tree lets
  // the module drop those bytes. Nothing to do when no list is alive.
  #retire() {
    const alive = this.#alive();
    this.#lists = [];
    this.#listsKept = 0;
    if (!wasm || alive.length === 0) return;
    const cache = this.#cache, places = this.#places;
    const u8 = view(wasm);
    const n = Math.min(cache.length, places.length >> 1);
    for (let s = 0; s < n; s += DECODE_RUN) decodeTexts(u8, cache, places, null, s, Math.min(n, s + DECODE_RUN));
  }

  // #slotted reads a list of message slots at p (wasm/internal/treecalls
  // project.go slotted) and returns the messages, cached or parsed once (a new
  // one from its bytes where the module keeps them), and where the list ends.
  #slotted(u8, p) {
    let slots;
    [slots, p] = slotList(u8, p);
    const n = slots.length;
    const cache = this.#cache;
    // The new slots are cache.length, cache.length + 1, …: where each one's
    // bytes are follows, in slot order. Their texts go into the cache first.
    let fresh = 0;
    for (let i = 0; i < n; i++) fresh = Math.max(fresh, slots[i] + 1 - cache.length);
    if (fresh > 0) p = newTexts(u8, p, fresh, cache);
    const out = new Array(n);
    const places = this.#places;
    let missing = null; // indexes into out of slots whose text JS let go (append) and whose place it does not know
    for (let i = 0; i < n; i++) {
      const s = slots[i];
      let m = cache[s];
      if (m === undefined) {
        if (2 * s + 1 >= places.length || places[2 * s + 1] === 0) {
          (missing ??= []).push(i);
          continue;
        }
        // A lazy list's message not read yet: its bytes are where its place says.
        const at = places[2 * s];
        m = decoder.decode(u8.subarray(at, at + places[2 * s + 1]));
      }
      if (typeof m !== "object") {
        m = deepFreeze(JSON.parse(m));
        cache[s] = m;
      }
      out[i] = m;
    }
    if (missing !== null) missing = missing.map((i) => [i, slots[i]]);
    return [out, p, missing];
  }

  // #takeBack reads the bytes of the slots whose texts JS let go (missing:
  // [index into out, slot] pairs, from #slotted) from the module
  // (wasm/internal/treecalls slotBytes) and parses each into out and the
  // cache. It calls the module: the caller has read its result first.
  #takeBack(missing, out) {
    const w = wasm;
    const list = missing.map((x) => x[1]);
    const at = missing.map((x) => x[0]);
    send(M.slotBytes, this.#live(), 0, [list.join(",")]);
    const u8 = view(w);
    const cache = this.#cache;
    for (let i = 0, q = w.out; i < list.length; i++, q += 8) {
      const addr = (u8[q] | (u8[q + 1] << 8) | (u8[q + 2] << 16) | (u8[q + 3] << 24)) >>> 0;
      const size = (u8[q + 4] | (u8[q + 5] << 8) | (u8[q + 6] << 16) | (u8[q + 7] << 24)) >>> 0;
      let m = cache[list[i]];
      if (m === undefined) m = cache[list[i]] = deepFreeze(JSON.parse(decoder.decode(u8.subarray(addr, addr + size))));
      out[at[i]] = m;
    }
  }


  /**
   * The rows a store that keeps one record per node and per branch must write:
   * the first call gives every row (all: true) and starts recording, each
   * later call what changed since (a row null: removed). See sessiontree.d.ts.
   */
  takeChanges(options) {
    // One field per line (wasm/internal/treecalls rows.go): all|changes (and
    // " more" while a feed in parts goes on), root, active branch, the number
    // of branch rows, then name/row and id/row pairs.
    if (options !== undefined && options !== null) {
      if (typeof options !== "object") fail(`"options" must be an object ({ stored, limit, feed })`);
      knownOptions("takeChanges", options, "stored", "limit", "feed");
    }
    const limit = options?.limit;
    if (limit !== undefined && limit !== null && limit !== Infinity && !(Number.isInteger(limit) && limit > 0)) fail(`"limit" must be a whole number above 0`);
    const feed = options?.feed ?? "store";
    if (feed !== "store" && feed !== "sync") fail(`"feed" must be "store" or "sync", got ${JSON.stringify(shown(feed))}`);
    if (feed === "sync" && (options.stored || (limit !== undefined && limit !== null))) fail(`the "sync" feed takes neither "stored" nor "limit"`);
    const args = feed === "sync" ? ["sync"]
      : limit > 0 && limit !== Infinity ? [options?.stored ? "stored" : "", String(limit)] : options?.stored ? ["stored"] : NO_ARGS;
    const f = this.#call(M.takeChanges, 0, args).split("\n");
    const nb = Number(f[3]);
    const branches = new Array(nb), nodes = new Array((f.length - 5 - 2 * nb) / 2);
    for (let i = 0; i < nb; i++) branches[i] = { name: f[4 + 2 * i], row: f[5 + 2 * i] || null };
    for (let i = 0, p = 4 + 2 * nb; i < nodes.length; i++, p += 2) nodes[i] = { id: f[p], row: f[p + 1] || null };
    const more = f[0].endsWith(" more");
    // The root and the branch are kept (a store's list holds them for every
    // conversation) as strings of their own: a piece of the answer's text held
    // the whole of it (a 34 MB export's 1,000 conversations kept 55 MB so).
    return { all: f[0].startsWith("all"), more, root: f[1] ? own(f[1]) : null, activeBranch: own(f[2]), branches, nodes };
  }

  /**
   * The tree whose rows these are (a store's records, as takeChanges gave
   * them, in any order): the .tree.json they are cut from, loaded. Its save()
   * is that file byte for byte (the loader takes members in any order; a save
   * sorts them).
   */
  static fromRows(rows) {
    need();
    const file = rowsFile(rows);
    try {
      return SessionTree.load(file);
    } catch (e) {
      throw fromRowsError(e, rows);
    }
  }

  /**
   * The .tree.json text of a store's rows (takeChanges's form, in any order),
   * without loading it: what a worker hands a page to load, or fromRows reads.
   */
  static fileFromRows(rows) {
    return rowsFile(rows);
  }

  /**
   * Brings in what another copy of this conversation changed: `changes` as
   * that copy's takeChanges() gave them. Rows of records this copy has are
   * replaced (a node keeps the children only this copy knows of, and the
   * later label); the active branch stays this copy's unless `follow` is set
   * or it is gone. Checked before anything changes: `corrupt` for a row that
   * is not one, `conflict` when the copies diverged beyond a delta (a node
   * that differs under one id, a parent or leaf in neither copy): merge then.
   * Applied rows are changes of this tree for its own takeChanges(). A delta
   * with `all: true` replaces the tree with those rows. `changes` may also be
   * a delta document as JSON text or bytes, what the edge worker pushes to
   * live clients (core's ApplyDelta).
   */
  applyChanges(changes, options = {}) {
    if (options !== undefined && options !== null) {
      if (typeof options !== "object") fail(`"options" must be an object ({ follow })`);
      knownOptions("applyChanges", options, "follow");
    }
    if (typeof changes === "string" || ArrayBuffer.isView(changes) || changes instanceof ArrayBuffer) {
      this.#call(M.applyChanges, 0, [options?.follow ? "follow" : "keep", changes instanceof ArrayBuffer ? new Uint8Array(changes) : changes]);
      return;
    }
    if (typeof changes !== "object" || changes === null || !Array.isArray(changes.branches) || !Array.isArray(changes.nodes)) {
      fail(`"changes" must be what takeChanges() answers: { all, root, activeBranch, branches, nodes }`);
    }
    const follow = !!options?.follow;
    const h = this.#live();
    if (changes.all) {
      // Refused (corrupt, nothing changed) unless the rows make a sound tree:
      // see wasm/internal/treecalls/replace.go.
      this.#replace([rowsFile(changes), "rows", follow ? "" : this.activeBranch]);
      if (this.#listeners !== null) this.#changed();
      return;
    }
    const oneLine = (what, v) => {
      if (typeof v !== "string" || v.includes("\n")) fail(`${what} must be a string of one line, got ${typeof v === "string" ? JSON.stringify(v.slice(0, 40)) : typeof v}`);
      return v;
    };
    const f = [follow ? "follow" : "keep", changes.root == null ? "" : oneLine("root", changes.root), oneLine("activeBranch", changes.activeBranch), String(changes.branches.length)];
    for (const b of changes.branches) f.push(oneLine("a branch's name", b?.name), b?.row == null ? "" : oneLine(`branch ${b.name}'s row`, b.row));
    for (const n of changes.nodes) f.push(oneLine("a node's id", n?.id), n?.row == null ? "" : oneLine(`node ${n.id}'s row`, n.row));
    this.#call(M.applyChanges, 0, [f.join("\n")]);
  }

  pathLength(branch) {
    return Number(this.#call(M.pathLength, 0, branch === undefined ? NO_ARGS : [str("branch", branch)]));
  }

  pathWindow(start, end, branch) {
    if (!Number.isSafeInteger(start)) fail(`"start" must be an integer (negative counts from the leaf), got ${shown(start)}`);
    const noEnd = end === undefined || end === null;
    if (!noEnd && !Number.isSafeInteger(end)) fail(`"end" must be an integer or undefined, got ${shown(end)}`);
    const name = branch === undefined || branch === null ? "" : str("branch", branch);
    // Array.slice's indexes as a window counted from the leaf (skip, count):
    // the path's length is needed only when an index counts from the root.
    let skip, count;
    if (start < 0 && noEnd) [skip, count] = [0, -start];
    else if (start < 0 && end < 0) [skip, count] = [-end, Math.max(0, end - start)];
    else {
      const n = this.pathLength(name === "" ? undefined : name);
      const at = (i) => (i < 0 ? Math.max(0, n + i) : Math.min(i, n));
      const s = at(start), e = noEnd ? n : at(end);
      [skip, count] = [n - e, Math.max(0, e - s)];
    }
    const w = wasm;
    const len = send(M.window, this.#live(), 0, [name, String(Math.min(skip, 2 ** 27 - 1)), String(Math.min(count, 2 ** 27 - 1))]);
    const u8 = view(w);
    const [messages, p, missing] = this.#slotted(u8, w.out);
    const ids = p === w.out + len ? [] : decode(u8, p, w.out + len - p).split("\n");
    if (ids.length !== messages.length) throw new SessionTreeError("corrupt", "the module's window did not match the message cache (a bug in sessiontree)");
    if (missing !== null) this.#takeBack(missing, messages);
    return { ids, messages };
  }

  /**
   * The nodes under id (every root when id is null or undefined), depth
   * first, without their messages: { nodes: [{ id, parent, depth, childCount,
   * role, preview, label, branches, run, last }], more }. depth bounds how far
   * below the top it reads, limit how many nodes it returns (more: true when
   * it stopped there); runs: true folds each chain without a fork, label or
   * branch end into one entry (id its first node, last its last, run their
   * number). See sessiontree.d.ts.
   */
  subtree(id, options = {}) {
    const top = id === undefined || id === null ? "" : str("id", id);
    if (typeof options !== "object" || options === null) fail(`"options" must be an object ({ depth, limit, runs })`);
    knownOptions("subtree", options, "depth", "limit", "runs");
    const { depth, limit, runs } = options;
    const count = (name, v, least) => {
      if (v === undefined || v === null || v === Infinity) return "";
      if (!Number.isSafeInteger(v) || v < least) fail(`"${name}" must be an integer ≥ ${least} or undefined, got ${shown(v)}`);
      return String(Math.min(v, 2 ** 27 - 1));
    };
    const d = count("depth", depth, 0), l = count("limit", limit, 1) || "0";
    return JSON.parse(this.#call(M.subtree, 0, [top, d, l, runs ? "1" : "0"]));
  }

  /**
   * At most limit entries of the tree in runs around node id: the subtree
   * under the highest ancestor of id whose subtree fits the limit (id's own
   * chain at least; the whole tree when it fits), as subtree() with runs
   * reads it, and above, the nodes above the read's top on its path (0: it
   * starts at a root). See sessiontree.d.ts.
   */
  subtreeAround(id, options = {}) {
    const near = str("id", id);
    if (typeof options !== "object" || options === null) fail(`"options" must be an object ({ limit })`);
    knownOptions("subtreeAround", options, "limit");
    const { limit } = options;
    if (limit !== undefined && limit !== null && limit !== Infinity && (!Number.isSafeInteger(limit) || limit < 1)) fail(`"limit" must be an integer ≥ 1 or undefined, got ${shown(limit)}`);
    const l = limit === undefined || limit === null || limit === Infinity ? "0" : String(Math.min(limit, 2 ** 27 - 1));
    return JSON.parse(this.#call(M.subtreeAround, 0, [near, l]));
  }

  /**
   * For each of ids, whether that node is on the active path: one walk up
   * the path inside the module, none of its ids copied out (a tree view's
   * highlight in a 200k-message chat). An unknown id is not on it.
   */
  onPath(ids) {
    if (!Array.isArray(ids)) fail(`"ids" must be an array of node ids`);
    for (const id of ids) if (typeof id !== "string" || id.includes("\n")) fail(`"ids" must hold node ids (strings of one line), got ${typeof id === "string" ? JSON.stringify(id.slice(0, 40)) : typeof id}`);
    const got = this.#call(M.onPath, 0, [ids.join("\n")]);
    const res = new Array(ids.length);
    for (let i = 0; i < ids.length; i++) res[i] = got.charCodeAt(i) === 49;
    return res;
  }

  /**
   * For each of ids, what a chat view shows of that node besides its message:
   * { label, siblings, index } (label null when none; siblings: how many
   * alternatives, the node included; index: its place among them), or null
   * for an id that is not a node. One call for a screen of messages, where
   * node() and siblings() are two each and copy the message and the list.
   */
  switchers(ids) {
    if (!Array.isArray(ids)) fail(`"ids" must be an array of node ids`);
    for (const id of ids) if (typeof id !== "string" || id.includes("\n")) fail(`"ids" must hold node ids (strings of one line), got ${typeof id === "string" ? JSON.stringify(id.slice(0, 40)) : typeof id}`);
    if (ids.length === 0) return [];
    return JSON.parse(this.#call(M.switchers, 0, [ids.join("\n")])).map((s) => (s === null ? null : { label: s[0], siblings: s[1], index: s[2] }));
  }

  /** id's index on the active path (0: its root), or -1 when it is not on it; no id of the path is copied out. */
  pathIndex(id) {
    return Number(this.#call(M.pathIndex, 0, [str("id", id)]));
  }

  activePath() {
    return lines(this.#call(M.pathOf, 0, NO_ARGS));
  }

  pathOf(branch) {
    return lines(this.#call(M.pathOf, 0, [str("branch", branch)]));
  }

  node(id) {
    const text = this.#call(M.node, 0, [str("node", id)]);
    return text === "" ? null : JSON.parse(text);
  }

  children(id) {
    return JSON.parse(this.#call(M.children, 0, [str("node", id)]));
  }

  siblings(id) {
    return JSON.parse(this.#call(M.siblings, 0, [str("node", id)]));
  }

  branches() {
    return JSON.parse(this.#call(M.branches, 0, NO_ARGS));
  }

  /**
   * At most `limit` branches: the active one first, then the others by their
   * last use, most recent first. It reads `limit` branches, not every branch:
   * a sidebar's list costs the same with 2 branches and with 40,000.
   */
  recentBranches(limit) {
    if (!(Number.isSafeInteger(limit) && limit >= 0)) fail(`"limit" must be a count (an integer >= 0)`);
    return JSON.parse(this.#call(M.recentBranches, 0, [String(limit)]));
  }

  /** The number of branches. */
  branchCount() {
    return Number(this.#call(M.branchCount, 0, NO_ARGS));
  }

  get activeBranch() {
    return this.#call(M.activeBranch, 0, NO_ARGS);
  }

  hasBranches() {
    return this.#call(M.hasBranches, 0, NO_ARGS) === "1";
  }

  summarizeBranch(branch, summary, modelId, atMs) {
    this.#call(M.summarizeBranch, time(atMs), [str("branch", branch), str("summary", summary), optStr("modelId", modelId)]);
  }

  async summarizeBranchWith(branch, summarizer, atMs, options) {
    str("branch", branch);
    if (typeof summarizer !== "function") fail(`"summarizer" must be a function (text) => Promise<string>`);
    if (atMs !== undefined && atMs !== null) time(atMs);
    if (options !== undefined && options !== null) {
      if (typeof options !== "object" || Array.isArray(options)) fail(`"options" must be an object like { timeoutMs: 30000, modelId: "small-model" }`);
      knownOptions("summarizeBranchWith", options, "timeoutMs", "modelId");
      optStr("modelId", options.modelId);
    }
    const timeoutMs = options?.timeoutMs ?? 30000;
    if (!(typeof timeoutMs === "number" && timeoutMs >= 0)) fail(`"timeoutMs" must be a number of milliseconds ≥ 0`);
    const input = JSON.parse(this.#call(M.summaryInput, 0, [branch]));
    let summary = input.stub.summary;
    let modelId = "";
    if (input.text !== "") {
      const controller = new AbortController();
      let timer;
      try {
        const answer = await Promise.race([
          Promise.resolve().then(() => summarizer(input.text, { branch, signal: controller.signal })),
          new Promise((_, reject) => {
            timer = setTimeout(() => reject(new Error("the summarizer timed out")), timeoutMs);
          }),
        ]);
        const text = typeof answer === "string" ? answer : answer?.summary;
        const model = typeof answer === "string" ? options?.modelId : answer?.modelId;
        if (typeof text === "string" && text !== "" && text.isWellFormed() &&
            (model === undefined || model === null || (typeof model === "string" && model.isWellFormed()))) {
          summary = text;
          modelId = model ?? "";
        }
      } catch {
        // A failed or slow summarizer is what the stub is for.
      } finally {
        clearTimeout(timer);
        controller.abort();
      }
    }
    const at = time(atMs);
    this.#call(M.summarizeBranchAsOf, at, [branch, input.stub.nodeId, summary, modelId]);
    return { summary, nodeId: input.stub.nodeId, branch, modelId: modelId || null, createdAtMs: at };
  }

  stubSummary(branch) {
    return JSON.parse(this.#call(M.stubSummary, 0, [str("branch", branch)]));
  }

  renderBranchText(branch) {
    return this.#call(M.renderBranchText, 0, [str("branch", branch)]);
  }

  spliceForLinearExport() {
    return JSON.parse(this.#call(M.spliceForLinearExport, 0, NO_ARGS));
  }

  validate() {
    return JSON.parse(this.#call(M.validate, 0, NO_ARGS));
  }

  repair() {
    return JSON.parse(this.#call(M.repair, 0, NO_ARGS)); // messages, and so slots, stay
  }

  prune() {
    this.#live();
    // What a live list may still read is copied out first, as free() does:
    // the cache is dropped below.
    const kept = this.#keepForLists();
    let removed;
    try {
      removed = JSON.parse(invoke(M.prune, this.#live(), 0, NO_ARGS));
    } catch (e) {
      if (kept) unkeep(this.#cache); // the module changed nothing: the lists read it again
      throw e;
    }
    // The module forgot every slot: so does the cache, before a listener
    // reads a message (its slots are numbered from 0 again).
    this.#lists = [];
    this.#listsKept = 0;
    this.#cache = [];
    this.#places = new Uint32Array(0);
    this.#list = null; // its slots are numbered from 0 again too
    if (this.#listeners !== null) this.#changed();
    return removed;
  }

  search(query, limit) {
    if (limit !== undefined && !(Number.isSafeInteger(limit) && limit >= 0)) fail(`"limit" must be an integer ≥ 0`);
    return JSON.parse(this.#call(M.search, 0, [str("query", query), String(limit ?? 0)]));
  }

  stats() {
    return JSON.parse(this.#call(M.stats, 0, NO_ARGS));
  }

  clone() {
    const c = SessionTree.#adopt(this.#call(M.clone, 0, NO_ARGS));
    c.#cache = this.#cache.slice(); // the module copied the slots
    c.#places = this.#places.slice();
    return c;
  }

  save() {
    // A loaded tree whose nodes did not change since may answer in parts
    // (wasm/internal/treecalls SaveInParts): the file before its nodes, and
    // where the loaded file's nodes are in the module's memory. A file past
    // 8 MiB comes in pieces of that size (bigPiece there), joined here: the
    // module's result buffer of the file's size stayed in a page's memory for
    // good (47 MB at 100k messages), and asking room for it collected first.
    // The parts are joined with +, as a JavaScript engine joins strings
    // anyway: the whole string is laid out once, when first read (a join()
    // wrote it out here, ~20 ms of 42 MB, and its reader then copied it again).
    let text = "";
    try {
      this.#parts(SAVE_IN_PARTS, (u8, from, to) => { text += decode(u8, from, to - from); });
      return text;
    } catch (e) {
      if (e instanceof RangeError) throw new SessionTreeError("too_large", `the file is more than a JavaScript string can hold; nothing was changed`);
      throw e;
    }
  }

  /**
   * Writes what `save()` returns, as UTF-8 bytes, by handing `write` views of
   * the module's memory in order; returns how many bytes there were. Each view
   * is valid only while that call of `write` runs, which must use it
   * synchronously (write it out, or copy it) and call nothing of
   * sessiontree's. No string of the file is made: in Node, `sessiontree/node`'s
   * `saveFile` writes a file so with `fs.writeSync`; in a worker, an OPFS
   * sync access handle's `write` takes the views as they come.
   */
  saveWith(write) {
    if (typeof write !== "function") fail(`"write" must be a function (bytes) => void that writes or copies bytes`);
    const lost = "what was written before is not the file";
    return this.#parts(SAVE_IN_PIECES, (u8, from, to) => lend("saveWith's write", write, u8.subarray(from, to), lost));
  }

  // #parts saves the tree at `at` (SAVE_IN_PARTS or SAVE_IN_PIECES) and hands
  // part(u8, from, to) its bytes in order: the whole file; or the head, the
  // loaded file's nodes where the load keeps them, and the closing brace; or
  // pieces ([1, 0, 0, 0][more: u32][bytes], each ending between two nodes),
  // the next asked for after each. u8 is valid only during that call of part.
  // Returns the file's length in bytes.
  #parts(at, part) {
    const h = this.#live();
    let len = send(M.save, h, at, NO_ARGS);
    const w = wasm;
    let u8 = view(w);
    let p = w.out;
    if (len === 0) return 0;
    if (u8[p] === 1) {
      for (let total = 0; ;) {
        const more = u8[p + 4] !== 0;
        part(u8, p + 8, p + len);
        total += len - 8;
        if (!more) return total;
        len = send(M.save, h, SAVE_NEXT_PIECE, NO_ARGS);
        u8 = view(w);
        p = w.out;
      }
    }
    if (u8[p] !== 0) {
      part(u8, p, p + len);
      return len;
    }
    const nodesAt = (u8[p + 4] | u8[p + 5] << 8 | u8[p + 6] << 16 | u8[p + 7] << 24) >>> 0;
    const n = (u8[p + 8] | u8[p + 9] << 8 | u8[p + 10] << 16 | u8[p + 11] << 24) >>> 0;
    part(u8, p + 12, p + len);
    part(u8, nodesAt, nodesAt + n);
    part(CLOSE_BRACE.slice(), 0, 1);
    return len - 12 + n + 1;
  }

  free() {
    const h = this.#h;
    if (h === 0) return;
    this.#dropCopy();
    freed.unregister(this);
    // A lazy list still alive may read the tree's bytes: they are copied out
    // of the module first, which then frees the tree at once, so that its
    // memory is counted as garbage for the next large call (keepUnread).
    this.#keepForLists();
    this.#lists = [];
    this.#listsKept = 0;
    this.#h = 0;
    this.#cache = [];
    this.#places = new Uint32Array(0);
    this.#list = null;
    this.#listeners = null;
    if (wasm) invoke(M.free, h, 0, NO_ARGS);
  }

  [dispose]() {
    this.free();
  }
}

// For the tests only (js/test/tree-list.test.js): the helpers whose cases no
// tree call can set up at will (where the module puts a message's bytes).
Object.defineProperty(SessionTree, Symbol.for("sessiontree.internals"), { value: Object.freeze({ keepUnread, decodeTexts }) });
