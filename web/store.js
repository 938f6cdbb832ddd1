// The page's storage: every conversation's .tree.json (t.save()) and a little
// metadata, in IndexedDB. Two object stores written in one transaction: "meta"
// (listed at start, small) and "trees" (read when a conversation is opened).

const DB_NAME = "sessiontree-demo";
const DB_VERSION = 1;

function request(r) {
  return new Promise((resolve, reject) => {
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error);
  });
}

function done(tx) {
  return new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error ?? new Error("the storage transaction was aborted"));
  });
}

/** Conversations kept in IndexedDB. open() fails when the browser has no IndexedDB. */
export class Store {
  #db;

  constructor(db) {
    this.#db = db;
  }

  static async open() {
    if (typeof indexedDB === "undefined") throw new Error("this browser has no IndexedDB");
    const r = indexedDB.open(DB_NAME, DB_VERSION);
    r.onupgradeneeded = () => {
      const db = r.result;
      if (!db.objectStoreNames.contains("meta")) db.createObjectStore("meta", { keyPath: "id" });
      if (!db.objectStoreNames.contains("trees")) db.createObjectStore("trees", { keyPath: "id" });
    };
    return new Store(await request(r));
  }

  /** Every conversation's metadata, the newest conversation first. */
  async list() {
    const tx = this.#db.transaction("meta", "readonly");
    const all = await request(tx.objectStore("meta").getAll());
    return all.sort((a, b) => b.createdAt - a.createdAt);
  }

  /** A conversation's saved .tree.json text, or null. */
  async tree(id) {
    const tx = this.#db.transaction("trees", "readonly");
    const row = await request(tx.objectStore("trees").get(id));
    return row ? row.json : null;
  }

  /** Writes a conversation's metadata and (when json is given) its tree, together. */
  async put(meta, json) {
    const tx = this.#db.transaction(["meta", "trees"], "readwrite");
    tx.objectStore("meta").put(meta);
    if (json !== undefined) tx.objectStore("trees").put({ id: meta.id, json });
    await done(tx);
  }

  /** Removes a conversation. */
  async remove(id) {
    const tx = this.#db.transaction(["meta", "trees"], "readwrite");
    tx.objectStore("meta").delete(id);
    tx.objectStore("trees").delete(id);
    await done(tx);
  }
}

/** The same interface in memory, for a browser without IndexedDB: nothing survives a reload. */
export class MemoryStore {
  #meta = new Map();
  #trees = new Map();

  async list() {
    return [...this.#meta.values()].sort((a, b) => b.createdAt - a.createdAt);
  }

  async tree(id) {
    return this.#trees.get(id) ?? null;
  }

  async put(meta, json) {
    this.#meta.set(meta.id, { ...meta });
    if (json !== undefined) this.#trees.set(meta.id, json);
  }

  async remove(id) {
    this.#meta.delete(id);
    this.#trees.delete(id);
  }
}
