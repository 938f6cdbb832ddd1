// The Web Worker of sessiontree/idb (js/idb.js starts it): the storage work of
// opening and importing a conversation, off the page's thread, so that a huge
// one never crosses it as 200,000 records or strings at once. No WebAssembly
// here: only IndexedDB and string joins. Each message { idb, op, args }:
//   file(db, id)                  the stored rows of conversation id, read here,
//                                 as one .tree.json in bytes (transferred, not
//                                 copied) and their rev; null when none;
//   putPart(db, meta, part, opts) one part of a change feed (an import's
//                                 takeChanges({ limit })) and the meta, written
//                                 in one transaction (an import's first feed packed).
import { SessionTree } from "./sessiontree.js";
import { openDatabase, readRows, writePart } from "./idb-records.js";

const dbs = new Map(); // database name → Promise<IDBDatabase>
const enc = new TextEncoder();

function database(name) {
  let db = dbs.get(name);
  if (!db) {
    db = openDatabase(name);
    dbs.set(name, db);
    db.catch(() => dbs.delete(name));
  }
  return db;
}

async function run(op, args) {
  if (op === "file") {
    const t0 = performance.now();
    const rows = await readRows(await database(args[0]), args[1]);
    if (!rows || rows.bad) return { value: null }; // damaged: the page's own read says so
    const t1 = performance.now();
    const bytes = enc.encode(SessionTree.fileFromRows(rows));
    const took = { read: t1 - t0, join: performance.now() - t1 };
    return { value: { bytes, rev: rows.rev, took }, transfer: [bytes.buffer] };
  }
  if (op === "putPart") {
    const [name, meta, part, options] = args;
    await writePart(await database(name), meta, part, options);
    return { value: null };
  }
  throw new Error(`unknown request ${op}`);
}

self.onmessage = async ({ data }) => {
  if (!data || data.idb === undefined) return;
  try {
    const { value, transfer = [] } = await run(data.op, data.args ?? []);
    self.postMessage({ idb: data.idb, ok: true, value }, transfer);
  } catch (err) {
    self.postMessage({ idb: data.idb, ok: false, message: String(err?.message ?? err) });
  }
};
