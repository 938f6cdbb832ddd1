// The demo's Web Worker: the sessiontree/worker entry's worker side (every
// SessionTree method by message: sessiontree.worker.js) plus the storage work
// of opening and importing a conversation, so that a huge one never crosses
// the page's thread as 200,000 records or strings at once:
//   file(id)            the stored rows of conversation id, read here, as one
//                       .tree.json in bytes (transferred, not copied) and its rev;
//   putRows(meta, part, { packed })
//                       one part of a change feed (the page's
//                       takeChanges({ limit }) while it stores an import) and
//                       the conversation's meta, written in one transaction
//                       (an import's first feed packed: store.js).
// The page loads the bytes (SessionTree.load) and starts its change feed with
// takeChanges({ stored: true }): the store holds every row already.
import "./sessiontree.worker.js";
import { SessionTree } from "./sessiontree.js";
import { Store, putRows, done } from "./store.js";

const entry = self.onmessage; // the entry's calls: { id, kind, … }
let store = null;
const enc = new TextEncoder();

async function run(op, args) {
  store ??= await Store.open();
  if (op === "file") {
    const t0 = performance.now();
    const rows = await store.rows(args[0]);
    if (!rows) return { value: null };
    const t1 = performance.now();
    const bytes = enc.encode(SessionTree.fileFromRows(rows));
    const took = { read: t1 - t0, join: performance.now() - t1 };
    return { value: { bytes, rev: rows.rev, took }, transfer: [bytes.buffer] };
  }
  if (op === "putRows") {
    const [meta, part, options] = args;
    const tx = store.db.transaction(["meta", "rows"], "readwrite");
    putRows(tx, meta, part, options);
    await done(tx);
    return { value: null };
  }
  throw new Error(`unknown request ${op}`);
}

self.onmessage = async (e) => {
  const d = e.data;
  if (!d || d.demo === undefined) return entry(e);
  try {
    const { value, transfer = [] } = await run(d.op, d.args ?? []);
    self.postMessage({ demo: d.demo, ok: true, value }, transfer);
  } catch (err) {
    self.postMessage({ demo: d.demo, ok: false, code: err?.code ?? "", message: String(err?.message ?? err) });
  }
};
