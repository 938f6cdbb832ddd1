// The page's storage, in IndexedDB: one record per node and per branch of every
// conversation, written from the tree's change feed (t.takeChanges()), so that
// a send writes a handful of records whatever the conversation's size. Stores:
//   "meta": { id, title, …, root, activeBranch, rev }   listed at start, small
//   "rows": the record's JSON text under the key [conversation, "b"|"n", name or id];
//           a node's record is null once the node is removed (it may also be in a pack);
//           an import's node rows packed PACK_ROWS to a record under the key
//           [conversation, "p", first id, last id] ("n\t" + id + "\t" + row lines):
//           one record per node costs ~0.2–0.5 ms in IndexedDB, so a 200k-message
//           import took 35–107 s, and packed it takes 3–4 s. A node's own record,
//           written later (a send, an edit, a delta), wins over its packed copy.
// A conversation is opened with SessionTree.fromRows over its rows. `rev` counts
// the writes to a conversation: a tab that writes knows the rev its tree holds,
// and a different stored rev means another tab wrote in between (tabsync.js).
// Version 1 kept a whole .tree.json per conversation in "trees": it is read once
// and turned into rows (legacy()).

const DB_NAME = "sessiontree-demo";
const DB_VERSION = 2;

export function request(r) {
  return new Promise((resolve, reject) => {
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error);
  });
}

export function done(tx) {
  return new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error ?? new Error("the storage transaction was aborted"));
  });
}

/** Every row key of conversation id. */
const range = (id) => IDBKeyRange.bound([id], [id, []]);
/** The keys of conversation id's packs. */
const packRange = (id) => IDBKeyRange.bound([id, "p"], [id, "p", []]);

/**
 * Node rows per packed record (~100 KB of a chat's rows, one IndexedDB
 * write): few records for an import, and few bytes for the tail's reads.
 */
export const PACK_ROWS = 200;

/**
 * Writes a change feed's rows (and the conversation's meta) into an open
 * readwrite transaction. With packed, its node rows go PACK_ROWS to a record
 * (an import's first feed: rows no record holds yet). A removed node's record
 * is set to null rather than deleted, so a packed copy of it stays removed.
 */
export function putRows(tx, meta, changes, { packed = false } = {}) {
  const rows = tx.objectStore("rows");
  if (changes.all) rows.delete(range(meta.id));
  for (const b of changes.branches) {
    if (b.row === null) rows.delete([meta.id, "b", b.name]);
    else rows.put(b.row, [meta.id, "b", b.name]);
  }
  if (packed) putPacks(rows, meta.id, changes.nodes);
  else {
    for (const n of changes.nodes) {
      if (n.row === null) rows.put(null, [meta.id, "n", n.id]);
      else rows.put(n.row, [meta.id, "n", n.id]);
    }
  }
  tx.objectStore("meta").put({ ...meta, root: changes.root, activeBranch: changes.activeBranch });
}

function putPacks(rows, id, nodes) {
  const live = nodes.filter((n) => n.row !== null);
  for (const n of nodes) if (n.row === null) rows.put(null, [id, "n", n.id]);
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

/** Conversations kept in IndexedDB. open() fails when the browser has no IndexedDB. */
export class Store {
  #db;

  constructor(db) {
    this.#db = db;
  }

  get db() {
    return this.#db;
  }

  static async open() {
    if (typeof indexedDB === "undefined") throw new Error("this browser has no IndexedDB");
    const r = indexedDB.open(DB_NAME, DB_VERSION);
    r.onupgradeneeded = () => {
      const db = r.result;
      if (!db.objectStoreNames.contains("meta")) db.createObjectStore("meta", { keyPath: "id" });
      if (!db.objectStoreNames.contains("trees")) db.createObjectStore("trees", { keyPath: "id" });
      if (!db.objectStoreNames.contains("rows")) db.createObjectStore("rows");
    };
    const db = await request(r);
    // Another tab upgrading the database: let it (this tab's next write fails and says so).
    db.onversionchange = () => db.close();
    return new Store(db);
  }

  /** Every conversation's metadata, the newest conversation first. */
  async list() {
    const tx = this.#db.transaction("meta", "readonly");
    const all = await request(tx.objectStore("meta").getAll());
    return all.sort((a, b) => b.createdAt - a.createdAt);
  }

  /** The meta record of a conversation, or null. */
  async meta(id) {
    const tx = this.#db.transaction("meta", "readonly");
    return (await request(tx.objectStore("meta").get(id))) ?? null;
  }

  /**
   * A conversation's rows, as SessionTree.fromRows takes them, with the rev
   * they are as of; null when none are stored.
   */
  async rows(id) {
    const tx = this.#db.transaction(["meta", "rows"], "readonly");
    const metaReq = tx.objectStore("meta").get(id);
    const keysReq = tx.objectStore("rows").getAllKeys(range(id));
    const valsReq = tx.objectStore("rows").getAll(range(id));
    const [meta, keys, vals] = await Promise.all([request(metaReq), request(keysReq), request(valsReq)]);
    if (!meta || keys.length === 0) return null;
    const branches = [];
    let nodes = [];
    const packs = [];
    let removed = false;
    for (let i = 0; i < keys.length; i++) {
      const [, kind, key] = keys[i];
      if (kind === "b") branches.push({ name: key, row: vals[i] });
      else if (kind === "p") packs.push(vals[i]);
      else {
        nodes.push({ id: key, row: vals[i] });
        if (vals[i] === null) removed = true;
      }
    }
    if (packs.length > 0 || removed) {
      // Packed rows first, then each node's own record over its packed copy.
      const all = new Map();
      for (const text of packs) if (typeof text === "string") eachPacked(text, (id, row) => all.set(id, row));
      for (const n of nodes) all.set(n.id, n.row);
      nodes = [];
      for (const [id, row] of all) if (row !== null) nodes.push({ id, row });
      // In key order, as IndexedDB lists records: the file a loader reads fastest.
      nodes.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    }
    return { root: meta.root ?? null, activeBranch: meta.activeBranch ?? "main", branches, nodes, rev: meta.rev ?? 0 };
  }

  /**
   * The last count nodes of the active branch's path, read from their records
   * one by one from the leaf up (a few gets, whatever the conversation's size):
   * { activeBranch, nodes: [{ id, node, siblings }] } root first, siblings the
   * children of the node's parent (null for a root, or the top one's when its
   * parent was not read); null when not stored so. What the page paints while
   * the whole conversation loads.
   */
  async tail(id, count) {
    const tx = this.#db.transaction(["meta", "rows"], "readonly");
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
   * Nodes of the other conversations whose record contains query (any case):
   * [{ conv, id, message }], at most limit. Reads the node records one
   * conversation at a time and parses only those that match.
   */
  async searchRows(query, except, limit = 30) {
    const q = query.toLowerCase();
    const out = [];
    const metas = await this.list();
    for (const m of metas) {
      if (m.id === except) continue;
      const tx = this.#db.transaction("rows", "readonly");
      const r = IDBKeyRange.bound([m.id, "n"], [m.id, "p", []]);
      const [keys, vals] = await Promise.all([request(tx.objectStore("rows").getAllKeys(r)), request(tx.objectStore("rows").getAll(r))]);
      const own = new Set();
      for (let i = 0; i < keys.length; i++) if (keys[i][1] === "n") own.add(keys[i][2]);
      const hit = (id, row) => {
        if (out.length >= limit || !row.toLowerCase().includes(q)) return;
        try {
          const node = JSON.parse(row);
          const text = JSON.stringify(node.message ?? {}).toLowerCase();
          if (text.includes(q)) out.push({ conv: m.id, id, message: node.message });
        } catch {
          // a damaged record: the conversation says so when it is opened
        }
      };
      for (let i = 0; i < vals.length && out.length < limit; i++) {
        if (typeof vals[i] !== "string") continue; // a removed node
        if (keys[i][1] === "n") hit(keys[i][2], vals[i]);
        else if (vals[i].toLowerCase().includes(q)) eachPacked(vals[i], (id, row) => own.has(id) || hit(id, row));
      }
      if (out.length >= limit) break;
    }
    return out;
  }

  /** A version-1 conversation's whole .tree.json, or null. */
  async legacy(id) {
    const tx = this.#db.transaction("trees", "readonly");
    const row = await request(tx.objectStore("trees").get(id));
    return row ? row.json : null;
  }

  /** Writes a conversation's metadata and, when given, a change feed's rows, together. */
  async put(meta, changes) {
    const tx = this.#db.transaction(["meta", "rows", "trees"], "readwrite");
    if (changes) {
      putRows(tx, meta, changes);
      if (changes.all) tx.objectStore("trees").delete(meta.id);
    } else {
      const metas = tx.objectStore("meta");
      const got = metas.get(meta.id);
      got.onsuccess = () => metas.put({ ...got.result, ...meta });
    }
    await done(tx);
  }

  /** Removes a conversation. */
  async remove(id) {
    const tx = this.#db.transaction(["meta", "rows", "trees"], "readwrite");
    tx.objectStore("meta").delete(id);
    tx.objectStore("rows").delete(range(id));
    tx.objectStore("trees").delete(id);
    await done(tx);
  }
}

/** The same interface in memory, for a browser without IndexedDB: nothing survives a reload. */
export class MemoryStore {
  #meta = new Map();
  #rows = new Map(); // id → { branches: Map, nodes: Map }

  async list() {
    return [...this.#meta.values()].sort((a, b) => b.createdAt - a.createdAt);
  }

  async meta(id) {
    return this.#meta.get(id) ?? null;
  }

  async rows(id) {
    const meta = this.#meta.get(id);
    const r = this.#rows.get(id);
    if (!meta || !r) return null;
    return {
      root: meta.root ?? null, activeBranch: meta.activeBranch ?? "main", rev: meta.rev ?? 0,
      branches: [...r.branches].map(([name, row]) => ({ name, row })),
      nodes: [...r.nodes].map(([id, row]) => ({ id, row })),
    };
  }

  async legacy() {
    return null;
  }

  async put(meta, changes) {
    if (!changes) {
      this.#meta.set(meta.id, { ...this.#meta.get(meta.id), ...meta });
      return;
    }
    this.#meta.set(meta.id, { ...meta, root: changes.root, activeBranch: changes.activeBranch });
    let r = this.#rows.get(meta.id);
    if (!r || changes.all) this.#rows.set(meta.id, (r = { branches: new Map(), nodes: new Map() }));
    for (const b of changes.branches) b.row === null ? r.branches.delete(b.name) : r.branches.set(b.name, b.row);
    for (const n of changes.nodes) n.row === null ? r.nodes.delete(n.id) : r.nodes.set(n.id, n.row);
  }

  async remove(id) {
    this.#meta.delete(id);
    this.#rows.delete(id);
  }
}
