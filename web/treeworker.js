// The demo's Web Worker: the sessiontree/worker entry's worker side (every
// SessionTree method by message: sessiontree.worker.js) plus the storage work
// of opening and importing a conversation, so that a huge one never crosses
// the page's thread as 200,000 records or strings:
//   file(id)            the stored rows of conversation id, read here, as one
//                       .tree.json in bytes (transferred, not copied) and its rev;
//   importFile(file, meta)  a .tree.json File read here (loadFrom) and checked
//                       (validate, repair: then handed back as bytes; else the
//                       page loads the file itself), then its rows are written
//                       as a new conversation (rev 1);
//   stored(id)          resolves once that write is done (or failed: rejects).
// The page loads the bytes (SessionTree.load) and starts its change feed with
// takeChanges({ stored: true }): the store holds every row already.
import "./sessiontree.worker.js";
import { SessionTree } from "./sessiontree.js";
import { Store, putRows, done } from "./store.js";

const entry = self.onmessage; // the entry's calls: { id, kind, … }
let store = null;
const writing = new Map(); // conversation id → the import's write under way
const enc = new TextEncoder();

async function run(op, args) {
  store ??= await Store.open();
  if (op === "file") {
    const rows = await store.rows(args[0]);
    if (!rows) return { value: null };
    const bytes = enc.encode(SessionTree.fileFromRows(rows));
    return { value: { bytes, rev: rows.rev }, transfer: [bytes.buffer] };
  }
  if (op === "importFile") {
    const [file, meta] = args;
    const tree = await SessionTree.loadFrom(file);
    let bytes = null, problems, fixes = [];
    try {
      problems = tree.validate();
      // Only a repaired tree differs from the file: the page loads the file
      // itself otherwise (no second copy of it in this module's memory).
      if (problems.length) {
        fixes = tree.repair();
        bytes = enc.encode(tree.save());
      }
    } catch (e) {
      tree.free();
      throw e;
    }
    // The rows are written after the bytes are on their way: the page shows the
    // conversation meanwhile, and its writes wait for stored(id).
    writing.set(meta.id, new Promise((resolve) => setTimeout(resolve, 0)).then(async () => {
      try {
        const tx = store.db.transaction(["meta", "rows"], "readwrite");
        putRows(tx, { ...meta, rev: 1 }, tree.takeChanges());
        await done(tx);
      } finally {
        tree.free();
      }
    }));
    return { value: { bytes, rev: 1, problems: problems.length, fixes: fixes.map((p) => p.message) }, transfer: bytes ? [bytes.buffer] : [] };
  }
  if (op === "stored") {
    const w = writing.get(args[0]);
    writing.delete(args[0]);
    await w;
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
