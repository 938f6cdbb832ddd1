// The IndexedDB records of sessiontree/idb, shared by the page (idb.js) and the
// store's worker (idb.worker.js); not an entry of the package. Stores:
//   "meta": { id, title, createdAt, updatedAt, root, activeBranch, rev, … } one a
//           conversation, listed at start, small;
//   "rows": the record's JSON text under the key [conversation, "b"|"n", name or id];
//           a node's record is null once the node is removed (it may also be in a pack);
//           an import's node rows packed PACK_ROWS to a record under the key
//           [conversation, "p", first id, last id] ("n\t" + id + "\t" + row lines):
//           one record per node costs ~0.2–0.5 ms in IndexedDB, so a 200k-message
//           import took 35–107 s, and packed it takes 3–4 s. A node's own record,
//           written later (a send, an edit, a delta), wins over its packed copy;
//   "trees": version 1's whole .tree.json per conversation, read once and turned
//           into rows (the demo's database of before issue 16).
// `rev` counts the writes to a conversation: a tab that writes knows the rev its
// tree holds, and a different stored rev means another tab wrote in between.

export const DB_VERSION = 2;

/**
 * Node rows per packed record (~100 KB of a chat's rows, one IndexedDB
 * write): few records for an import, and few bytes for the tail's reads.
 */
export const PACK_ROWS = 200;

export function request(r) {
  return new Promise((resolve, reject) => {
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error);
  });
}

/**
 * The error a failed transaction's error event stands for: the failed
 * request's (it bubbles to the transaction before tx.error is set), else the
 * transaction's, never null.
 */
export function txError(tx, event) {
  return event?.target?.error ?? tx.error ?? new Error("the storage transaction failed");
}

export function done(tx) {
  return new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onerror = (e) => reject(txError(tx, e));
    tx.onabort = () => reject(tx.error ?? new Error("the storage transaction was aborted"));
  });
}

/** Every row key of conversation id. */
export const range = (id) => IDBKeyRange.bound([id], [id, []]);
/** The keys of conversation id's packs. */
const packRange = (id) => IDBKeyRange.bound([id, "p"], [id, "p", []]);

/** Opens (creating or upgrading) the database called name. */
export async function openDatabase(name) {
  if (typeof indexedDB === "undefined") throw new Error("this browser has no IndexedDB");
  const r = indexedDB.open(name, DB_VERSION);
  r.onupgradeneeded = () => {
    const db = r.result;
    if (!db.objectStoreNames.contains("meta")) db.createObjectStore("meta", { keyPath: "id" });
    if (!db.objectStoreNames.contains("trees")) db.createObjectStore("trees", { keyPath: "id" });
    if (!db.objectStoreNames.contains("rows")) db.createObjectStore("rows");
  };
  const db = await request(r);
  // Another tab upgrading the database: let it (this tab's next write fails and says so).
  db.onversionchange = () => db.close();
  return db;
}

/**
 * Writes a change feed's rows (and the conversation's meta) into an open
 * readwrite transaction. With packed, its node rows go PACK_ROWS to a record
 * (an import's first feed: rows no record holds yet). A removed node's record
 * is set to null rather than deleted, so a packed copy of it stays removed.
 */
export function putRows(tx, meta, changes, { packed = false, own = null } = {}) {
  const rows = tx.objectStore("rows");
  if (changes.all) rows.delete(range(meta.id));
  for (const b of changes.branches) {
    if (b.row === null) rows.delete([meta.id, "b", b.name]);
    else rows.put(b.row, [meta.id, "b", b.name]);
  }
  if (packed) putPacks(rows, meta.id, changes.nodes, own);
  else {
    for (const n of changes.nodes) rows.put(n.row, [meta.id, "n", n.id]);
  }
  tx.objectStore("meta").put({ ...meta, root: changes.root, activeBranch: changes.activeBranch });
}

// own: ids whose rows also get a record of their own (the path's last nodes,
// which an open reads first: one get each instead of a pack each).
function putPacks(rows, id, nodes, own) {
  const live = nodes.filter((n) => n.row !== null);
  for (const n of nodes) if (n.row === null) rows.put(null, [id, "n", n.id]);
  if (own) for (const n of live) if (own.has(n.id)) rows.put(n.row, [id, "n", n.id]);
  live.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  for (let i = 0; i < live.length; i += PACK_ROWS) {
    const part = live.slice(i, i + PACK_ROWS);
    let text = "";
    for (const n of part) text += `n\t${n.id}\t${n.row}\n`;
    rows.put(text, [id, "p", part[0].id, part[part.length - 1].id]);
  }
}

/** Calls fn(id, row) for each row of a pack's text. */
function eachPacked(text, fn) {
  // "n" TAB id TAB row NEWLINE: ids have no control characters, compact JSON no raw newline.
  for (let at = 0; at < text.length;) {
    const tab = text.indexOf("\t", at + 2);
    if (tab < 0) return;
    let end = text.indexOf("\n", tab + 1);
    if (end < 0) end = text.length;
    fn(text.slice(at + 2, tab), text.slice(tab + 1, end));
    at = end + 1;
  }
}

/**
 * Finds node rows in conversation id's packs, for readers that get a node by
 * its id: a pack is read once, and only those whose id range holds the id.
 */
class PackReader {
  #store;
  #id;
  #keys = null;
  #read = new Map(); // a pack's key (joined) → its text
  constructor(store, id) { this.#store = store; this.#id = id; }
  async row(nodeId) {
    this.#keys ??= await request(this.#store.getAllKeys(packRange(this.#id)));
    for (const k of this.#keys) {
      if (nodeId < k[2] || nodeId > k[3]) continue;
      const name = k.join("\u0000");
      let text = this.#read.get(name);
      if (text === undefined) {
        text = await request(this.#store.get(k));
        this.#read.set(name, text);
      }
      if (typeof text !== "string") continue;
      // Its line: "n" TAB id TAB row, at the start or after a newline.
      const head = `n\t${nodeId}\t`;
      let at = text.startsWith(head) ? 0 : text.indexOf(`\n${head}`);
      if (at < 0) continue;
      if (at > 0) at++;
      const end = text.indexOf("\n", at + head.length);
      return text.slice(at + head.length, end < 0 ? text.length : end);
    }
    return undefined;
  }
}

/** Every conversation's meta record, the newest first. */
export async function readList(db) {
  const all = await request(db.transaction("meta", "readonly").objectStore("meta").getAll());
  return all.sort(newestFirst);
}

/**
 * The list's order: newest first by createdAt, then by id, descending, so
 * that conversations of one time are in the same order in every tab and
 * after a reload (a generated id grows with time: the newer first).
 */
export function newestFirst(a, b) {
  return when(b) - when(a) || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
}

const when = (meta) => +(meta.createdAt ?? 0) || 0;

/** The meta record of conversation id, or null. */
export async function readMeta(db, id) {
  return (await request(db.transaction("meta", "readonly").objectStore("meta").get(id))) ?? null;
}

/**
 * A conversation's rows, as SessionTree.fromRows takes them, with the rev
 * they are as of; null when none are stored. Records that hold no row (a
 * value that is not a string: storage damaged, or written by other code) are
 * left out and named in `bad`, so that the rest can still be handed to the
 * user whole (see Store's open).
 */
export async function readRows(db, id) {
  return (await readRowsIn(db.transaction(["meta", "rows"], "readonly"), id))[1];
}

/**
 * readRows in transaction tx (of "meta" and "rows" at least), resolving to
 * [the meta record or undefined, the rows or null]: a readwrite transaction
 * can go on to write what it read, in the microtask it resolves in (it is
 * still active then).
 */
export async function readRowsIn(tx, id) {
  const metaReq = tx.objectStore("meta").get(id);
  const keysReq = tx.objectStore("rows").getAllKeys(range(id));
  const valsReq = tx.objectStore("rows").getAll(range(id));
  const [meta, keys, vals] = await Promise.all([request(metaReq), request(keysReq), request(valsReq)]);
  if (!meta || keys.length === 0) return [meta, null];
  const branches = [];
  let nodes = [];
  const packs = [];
  const bad = []; // records that hold no row (not a string): damaged in storage
  let removed = false;
  for (let i = 0; i < keys.length; i++) {
    const [, kind, key] = keys[i];
    const v = vals[i];
    if (typeof v !== "string" && (v !== null || kind === "p")) bad.push(kind === "b" ? `branch ${JSON.stringify(key)}` : kind === "p" ? "a pack of node rows" : `node ${JSON.stringify(key)}`);
    else if (kind === "b") branches.push({ name: key, row: v });
    else if (kind === "p") packs.push(v);
    else {
      nodes.push({ id: key, row: v });
      if (v === null) removed = true;
    }
  }
  if (packs.length > 0 || removed) {
    // Packed rows first, then each node's own record over its packed copy.
    const all = new Map();
    for (const text of packs) eachPacked(text, (id, row) => all.set(id, row));
    for (const n of nodes) all.set(n.id, n.row);
    nodes = [];
    for (const [id, row] of all) if (row !== null) nodes.push({ id, row });
    // In key order, as IndexedDB lists records: the file a loader reads fastest.
    nodes.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }
  return [meta, { root: meta.root ?? null, activeBranch: meta.activeBranch ?? "main", branches, nodes, rev: meta.rev ?? 0, ...(bad.length ? { bad } : {}) }];
}

/**
 * The last count nodes of the active branch's path, read from their records
 * one by one from the leaf up (a few gets, whatever the conversation's size):
 * { activeBranch, nodes: [{ id, node, siblings }] } root first; null when not
 * stored so.
 */
export async function readTail(db, id, count) {
  const tx = db.transaction(["meta", "rows"], "readonly");
  const rows = tx.objectStore("rows");
  const meta = await request(tx.objectStore("meta").get(id));
  if (!meta) return null;
  const activeBranch = meta.activeBranch ?? "main";
  const b = await request(rows.get([id, "b", activeBranch]));
  if (typeof b !== "string") return null;
  let at = JSON.parse(b).leaf ?? null;
  const up = [];
  const packs = new PackReader(rows, id);
  // One more than shown: the top node's parent tells its siblings.
  while (at && up.length <= count) {
    let row = await request(rows.get([id, "n", at]));
    if (row === undefined) row = await packs.row(at);
    if (typeof row !== "string") return null;
    const node = JSON.parse(row);
    up.push({ id: at, node });
    at = node.parent ?? null;
  }
  const nodes = [];
  for (let i = Math.min(up.length, count) - 1; i >= 0; i--) {
    const parent = up[i + 1]?.node;
    nodes.push({ id: up[i].id, node: up[i].node, siblings: parent ? parent.children : null });
  }
  return { activeBranch, nodes };
}

/**
 * Nodes of the conversations metas (but except) whose record contains query
 * (any case): [{ conversation, id, message }], at most limit. Reads the node
 * records one conversation at a time and parses only those that match.
 */
export async function searchRows(db, metas, query, except, limit) {
  const q = query.toLowerCase();
  const out = [];
  for (const m of metas) {
    if (m.id === except) continue;
    // A conversation written between two of its reads is read again (what
    // was found could be of a state it never had: a node removed in one
    // write, another added); the third time in one request.
    let found = null;
    for (let attempt = 0; found === null; attempt++) found = await searchOne(db, m.id, q, limit - out.length, attempt >= 2);
    out.push(...found);
    if (out.length >= limit) break;
  }
  return out;
}

/**
 * The hits of conversation id (at most limit), or null when it was written
 * between two of the reads (its rev moved). Its records are read a few at a
 * time, in key order (a node's own record before the packs, and it wins over
 * its packed copy): read at once, a 47 MB chat's 90 MB of records were one
 * task of 81 ms on the page, only to be made into strings (IndexedDB's
 * reading of a getAll's values). whole: in one request.
 */
async function searchOne(db, id, q, limit, whole) {
  const found = [];
  const own = new Set();
  const hit = (nodeId, row) => {
    if (found.length >= limit || !row.toLowerCase().includes(q)) return;
    let node;
    try {
      node = JSON.parse(row);
    } catch {
      return; // a damaged record: the conversation says so when it is opened
    }
    if (JSON.stringify(node.message ?? {}).toLowerCase().includes(q)) found.push({ conversation: id, id: nodeId, message: node.message });
  };
  let rev = UNREAD;
  for await (const read of recordsOf(db, id, whole)) {
    if (rev === UNREAD) rev = read.rev;
    else if (read.rev !== rev) return null;
    const { keys, vals } = read;
    for (let i = 0; i < vals.length && found.length < limit; i++) {
      if (keys[i][1] === "n") {
        own.add(keys[i][2]);
        if (typeof vals[i] === "string") hit(keys[i][2], vals[i]); // else a removed node
      } else if (typeof vals[i] === "string" && vals[i].toLowerCase().includes(q)) {
        eachPacked(vals[i], (nodeId, row) => own.has(nodeId) || hit(nodeId, row));
      }
    }
    if (found.length >= limit) break;
  }
  return found;
}

// What a search reads in one request: first SEARCH_FIRST records (with every
// key: most chats of an export are a pack or a few, one request as before),
// then node records (a row each, ~1 KB) SEARCH_ROWS at a time, or packs
// (PACK_ROWS rows each, ~200 KB to 1 MB) SEARCH_PACKS at a time.
const SEARCH_FIRST = 16;
const UNREAD = Symbol("no read yet"); // a rev before the first read (a meta gone has none)
const SEARCH_ROWS = 512;
const SEARCH_PACKS = 8;

/** Conversation id's node records and packs, in key order, a few at a time: { keys, vals, rev } each, rev the meta's as it was read. */
async function* recordsOf(db, id, whole) {
  const upper = [id, "p", []];
  let plan = null; // every key, as the first read found them: how much to read next
  let at = 0; // records read
  let last = null; // the last key read
  for (;;) {
    const tx = db.transaction(["rows", "meta"], "readonly");
    const rows = tx.objectStore("rows");
    const range = IDBKeyRange.bound(last ?? [id, "n"], upper, last !== null);
    const count = whole ? undefined : plan === null ? SEARCH_FIRST : plan[at]?.[1] === "n" ? SEARCH_ROWS : SEARCH_PACKS;
    const [meta, keys, vals] = await Promise.all([
      request(tx.objectStore("meta").get(id)),
      request(plan === null ? rows.getAllKeys(range) : rows.getAllKeys(range, count)),
      request(rows.getAll(range, count)),
    ]);
    plan ??= keys;
    const these = keys.length === vals.length ? keys : keys.slice(0, vals.length);
    yield { keys: these, vals, rev: meta?.rev };
    at += vals.length;
    if (vals.length === 0 || vals.length < (count ?? Infinity) || at >= plan.length) return;
    last = these[these.length - 1];
  }
}

/** A version-1 conversation's whole .tree.json, or null. */
export async function readLegacy(db, id) {
  const row = await request(db.transaction("trees", "readonly").objectStore("trees").get(id));
  return row ? row.json : null;
}

/** Writes a part of a change feed and the meta in one transaction (no rev check). */
export async function writePart(db, meta, changes, options) {
  const tx = db.transaction(["meta", "rows", "trees"], "readwrite");
  putRows(tx, meta, changes, options);
  if (changes.all) tx.objectStore("trees").delete(meta.id);
  await done(tx);
}

/**
 * The last count messages of the active path of a .tree.json file (a File,
 * Blob or Uint8Array), read from its head (the branches) and its last
 * megabytes, in readTail's form ({ activeBranch, nodes }), or null where the
 * file does not give them that way: a canonical file lists its nodes sorted
 * by id and generated ids sort in the order made, so a chat's last messages
 * are near its end. An import shows them before the file is checked and
 * loaded (seconds at 200k messages). Nothing here is trusted: the import's
 * check decides what the conversation holds, and a file this cannot read
 * only goes without the early view.
 */
export async function fileTail(file, count) {
  try {
    const size = file instanceof Uint8Array ? file.length : file.size;
    const bytes = async (from, to) => (file instanceof Uint8Array ? file.subarray(from, to) : new Uint8Array(await file.slice(from, to).arrayBuffer()));
    const text = async (from, to) => new TextDecoder().decode(await bytes(from, to));
    // The head: every member before "nodes" (the branches), parsed as one object.
    let head = null;
    let nodesAt = -1;
    for (let len = 64 << 10; head === null; len *= 4) {
      const h = await text(0, Math.min(size, len));
      for (let i = h.indexOf(NODES_KEY); i >= 0; i = h.indexOf(NODES_KEY, i + 1)) {
        try {
          const o = JSON.parse(h.slice(0, i) + "}");
          if (o?.format === "sessiontree" && o.branches && typeof o.branches === "object") {
            head = o;
            // Byte offset of the nodes' opening brace (the head may hold multi-byte text).
            nodesAt = new TextEncoder().encode(h.slice(0, i + NODES_KEY.length - 1)).length;
            break;
          }
        } catch {
          // a branch named "nodes": the next one
        }
      }
      if (head === null && (len >= size || len >= TAIL_HEAD_MAX)) return null;
    }
    const activeBranch = typeof head.active_branch === "string" ? head.active_branch : "main";
    const branch = Object.hasOwn(head.branches, activeBranch) ? head.branches[activeBranch] : null;
    const leaf = typeof branch?.leaf === "string" ? branch.leaf : null;
    if (leaf === null) return null;
    for (let len = 1 << 20; ; len *= 4) {
      const from = Math.max(nodesAt, size - len);
      const t = await text(from, size);
      // The first node that begins in this stretch: `"id":{"id":"id"` with a
      // plain id (a quote outside a string is never escaped, so no message
      // text looks like this).
      let start = 0;
      if (from > nodesAt) {
        start = -1;
        for (let p = t.indexOf(ENTRY); p >= 0 && start < 0; p = t.indexOf(ENTRY, p + 1)) {
          const q = t.lastIndexOf('"', p - 1);
          const key = t.slice(q + 1, p);
          if (q > 0 && (t[q - 1] === "," || t[q - 1] === "{") && !/["\\]/.test(key) && t.startsWith(key + '"', p + ENTRY.length)) start = q;
        }
        if (start < 0) return null;
      }
      const end = t.lastIndexOf("}"); // the file's own closing brace; the nodes' one before it
      const nodes = JSON.parse(from > nodesAt ? "{" + t.slice(start, end) : t.slice(0, end));
      const up = [];
      let at = leaf;
      // One more than shown: the top node's parent tells its siblings.
      while (at !== null && up.length <= count) {
        const node = Object.hasOwn(nodes, at) ? nodes[at] : null;
        if (node === null) break;
        up.push({ id: at, node });
        at = typeof node.parent === "string" ? node.parent : null;
      }
      if (at === null || up.length > count) {
        const out = [];
        for (let i = Math.min(up.length, count) - 1; i >= 0; i--) {
          const parent = up[i + 1]?.node;
          out.push({ id: up[i].id, node: up[i].node, siblings: Array.isArray(parent?.children) ? parent.children : null });
        }
        return { activeBranch, nodes: out };
      }
      if (from === nodesAt || len >= TAIL_READ_MAX) return null; // not there, or too far up
    }
  } catch {
    return null;
  }
}

const NODES_KEY = ',"nodes":{';
const ENTRY = '":{"id":"';
// How far fileTail reads into a file for its head and for its last messages.
const TAIL_HEAD_MAX = 4 << 20;
const TAIL_READ_MAX = 16 << 20;
