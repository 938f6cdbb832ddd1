// The Web Worker side of sessiontree/worker (js/worker.js): runs the module and
// its trees off the page's thread. Each message is one call; trees stay here
// behind numbers. Start it with `new Worker(new URL("./sessiontree.worker.js",
// import.meta.url), { type: "module" })` — js/worker.js does that for you.
import { init, initInterchange, memoryUsage, SessionTree, SessionTreeError } from "./sessiontree.js";

const trees = new Map(); // number → SessionTree
const watching = new Map(); // number → the function that stops posting its change events
const importing = new Map(); // number → an importEach's iterator, between its steps
let next = 0;

// The static methods of SessionTree, every one (a list of some once left
// fileFromRows out).
const STATIC = new Set(Object.getOwnPropertyNames(SessionTree).filter((name) => typeof SessionTree[name] === "function"));

function keep(t) {
  next++;
  trees.set(next, t);
  return next;
}

// out turns a result into what crosses: a SessionTree (also inside
// { tree, report } or a list of them) becomes its number, and trees lists
// where those numbers are (a path of keys), so that the page never takes a
// message's own field for a tree.
function out(v) {
  if (v instanceof SessionTree) return { value: keep(v), trees: [[]] };
  const trees = [];
  if (Array.isArray(v)) {
    v = v.map((x, i) => {
      if (!(x && typeof x === "object" && x.tree instanceof SessionTree)) return x;
      trees.push([i, "tree"]);
      return { ...x, tree: keep(x.tree) };
    });
  } else if (v && typeof v === "object" && v.tree instanceof SessionTree) {
    trees.push(["tree"]);
    v = { ...v, tree: keep(v.tree) };
  }
  return { value: v, trees };
}

// args turns the arguments the page marked as trees (merge takes one) from
// their numbers back into the trees.
const args = (list, marked = []) => list.map((a, i) => (marked.includes(i) ? tree(a) : a));

function tree(n) {
  const t = trees.get(n);
  if (!t) throw new SessionTreeError("invalid_input", `this SessionTree was freed (tree ${n}); make or load a new one`);
  return t;
}

// run answers one request with { value, trees } (see out).
async function run({ kind, name, handle, args: list, trees: marked }) {
  switch (kind) {
    case "init":
      await init(list[0]);
      return {};
    case "initInterchange":
      await initInterchange(list[0]);
      return {};
    case "memoryUsage":
      return { value: memoryUsage() };
    case "static":
      if (!STATIC.has(name) || typeof SessionTree[name] !== "function") throw new SessionTreeError("invalid_input", `SessionTree.${name} is not a method`);
      return out(await SessionTree[name](...args(list, marked)));
    case "free":
      trees.get(handle)?.free();
      trees.delete(handle);
      watching.delete(handle);
      return {};
    case "subscribe":
      // The page keeps the listeners; the events cross, before the reply of
      // the call that changed the tree.
      if (!watching.has(handle)) watching.set(handle, tree(handle).subscribe((event) => self.postMessage({ handle, event })));
      return {};
    case "unsubscribe":
      watching.get(handle)?.();
      watching.delete(handle);
      return {};
    case "get": {
      const t = tree(handle);
      if (typeof Object.getOwnPropertyDescriptor(SessionTree.prototype, name)?.get !== "function") throw new SessionTreeError("invalid_input", `${name} is not a SessionTree property`);
      return { value: t[name] };
    }
    case "call": {
      const t = tree(handle);
      if (name.startsWith("#") || name === "constructor" || typeof t[name] !== "function") {
        throw new SessionTreeError("invalid_input", `${name} is not a SessionTree method`);
      }
      if (name === "summarizeBranchWith") {
        throw new SessionTreeError("invalid_input", "summarizeBranchWith takes a function, which cannot cross to a worker: get the text with renderBranchText(branch), call the model on the page, then summarizeBranch(branch, summary, modelId)");
      }
      return out(await t[name](...args(list, marked)));
    }
    case "new":
      return out(new SessionTree());
    // SessionTree.importEach a step a request (js/worker.js): a Blob or File
    // is read here, a piece at a time (FileReaderSync), so that neither the
    // page nor this worker holds the file's bytes; read whole where a piece
    // cannot be read at once.
    case "importEach": {
      const [source, format, options] = list;
      let bytes = source;
      if (typeof Blob === "function" && source instanceof Blob && typeof FileReaderSync !== "function") {
        try {
          bytes = new Uint8Array(await source.arrayBuffer());
        } catch (e) {
          // A File changed or gone since it was picked (a DOMException, whose code is a number).
          throw new SessionTreeError("invalid_input", `importEach: reading the file failed: ${e?.message ?? e}`);
        }
      }
      const it = SessionTree.importEach(bytes, format, options);
      next++;
      importing.set(next, it);
      return { value: next };
    }
    case "importNext": {
      const it = importing.get(list[0]);
      if (!it) throw new SessionTreeError("invalid_input", "this importEach is over");
      let step;
      try {
        step = it.next();
      } catch (e) {
        importing.delete(list[0]);
        throw e;
      }
      if (step.done) {
        importing.delete(list[0]);
        return { value: null };
      }
      // { files: true }: the file's bytes move to the page, not copied.
      return step.value.file ? { value: step.value, trees: [], transfer: [step.value.file.buffer] } : out(step.value);
    }
    case "importEnd":
      importing.get(list[0])?.return();
      importing.delete(list[0]);
      return {};
  }
  throw new SessionTreeError("invalid_input", `unknown request ${kind}`);
}

self.onmessage = async ({ data }) => {
  try {
    const answer = await run(data);
    self.postMessage({ id: data.id, ok: true, value: answer.value, trees: answer.trees }, answer.transfer ?? []);
  } catch (e) {
    self.postMessage({ id: data.id, ok: false, code: typeof e?.code === "string" ? e.code : "invalid_input", message: String(e?.message ?? e) });
  }
};
