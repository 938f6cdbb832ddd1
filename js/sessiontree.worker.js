// The Web Worker side of sessiontree/worker (js/worker.js): runs the module and
// its trees off the page's thread. Each message is one call; trees stay here
// behind numbers. Start it with `new Worker(new URL("./sessiontree.worker.js",
// import.meta.url), { type: "module" })` — js/worker.js does that for you.
import { init, initInterchange, memoryUsage, SessionTree, SessionTreeError } from "./sessiontree.js";

const trees = new Map(); // number → SessionTree
let next = 0;

// Methods that make a tree (static, or like clone on a tree): their result
// crosses as its number.
const STATIC = new Set(["fromLinear", "load", "loadFrom", "fromRows", "import", "importAll", "mergeJSON", "deltaParts"]);

function keep(t) {
  next++;
  trees.set(next, t);
  return { $tree: next };
}

// out turns a result into what crosses: a SessionTree (also inside
// { tree, report } or a list of them) becomes its number.
function out(v) {
  if (v instanceof SessionTree) return keep(v);
  if (Array.isArray(v)) return v.map((x) => (x && typeof x === "object" && x.tree instanceof SessionTree ? { ...x, tree: keep(x.tree) } : x));
  if (v && typeof v === "object" && v.tree instanceof SessionTree) return { ...v, tree: keep(v.tree) };
  return v;
}

// arg turns a crossing { $tree: n } back into its tree (merge takes one).
const arg = (a) => (a && typeof a === "object" && typeof a.$tree === "number" ? tree(a.$tree) : a);

function tree(n) {
  const t = trees.get(n);
  if (!t) throw new SessionTreeError("invalid_input", `this SessionTree was freed (tree ${n}); make or load a new one`);
  return t;
}

async function run({ kind, name, handle, args }) {
  switch (kind) {
    case "init":
      await init(args[0]);
      return null;
    case "initInterchange":
      await initInterchange(args[0]);
      return null;
    case "memoryUsage":
      return memoryUsage();
    case "static":
      if (!STATIC.has(name) || typeof SessionTree[name] !== "function") throw new SessionTreeError("invalid_input", `SessionTree.${name} is not a method`);
      return out(await SessionTree[name](...args.map(arg)));
    case "free":
      trees.get(handle)?.free();
      trees.delete(handle);
      return null;
    case "get": {
      return tree(handle)[name];
    }
    case "call": {
      const t = tree(handle);
      if (name.startsWith("#") || name === "constructor" || typeof t[name] !== "function") {
        throw new SessionTreeError("invalid_input", `${name} is not a SessionTree method`);
      }
      if (name === "summarizeBranchWith") {
        throw new SessionTreeError("invalid_input", "summarizeBranchWith takes a function, which cannot cross to a worker: use summaryInput and summarizeBranchAsOf");
      }
      return out(await t[name](...args.map(arg)));
    }
    case "new":
      return keep(new SessionTree());
  }
  throw new SessionTreeError("invalid_input", `unknown request ${kind}`);
}

self.onmessage = async ({ data }) => {
  try {
    self.postMessage({ id: data.id, ok: true, value: await run(data) });
  } catch (e) {
    self.postMessage({ id: data.id, ok: false, code: e?.code ?? "invalid_input", message: String(e?.message ?? e) });
  }
};
