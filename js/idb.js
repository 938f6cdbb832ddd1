// sessiontree/idb: conversations kept in the browser's IndexedDB, one record per
// node and per branch, written from each tree's change feed (takeChanges), so a
// send writes a handful of records whatever the conversation's size. See idb.d.ts.
//
//   import { openStore } from "sessiontree/idb";
//   const store = await openStore({ name: "my-chats" });
//   const newest = store.conversations[0];
//   const conv = (newest && await store.open(newest.id)) // read in a worker, loaded in slices
//     ?? await store.create(undefined, { title: "New chat" }); // none stored (or deleted meanwhile)
//   conv.tree.append({ role: "user", content: "hi" });         // written in the next task
//
// Tabs on the same conversation stay in sync without moving whole trees: a
// write is the feed's rows plus the conversation's `rev`, bumped in the same
// transaction and checked against the rev this tab's tree holds. Equal, the rows
// go in and are posted on a BroadcastChannel as a delta ({ id, rev, prev,
// changes }); a tab at prev with nothing of its own waiting applies them in
// place (t.applyChanges). Different, another tab wrote in between and the two
// copies diverged: only then the stored rows are read, merged into this tab's
// tree (t.merge with { freshNames, keepPlace }: readable branch-N names, each
// tab stays on its user's work) and the rows where the union differs written. A
// tab that cannot apply a delta reloads the conversation once the burst is over.
import { init, initInterchange, settled, SessionTree, SessionTreeError } from "./sessiontree.js";
import {
  PACK_ROWS, newestFirst, txError, openDatabase, readList, readMeta, readRows, readRowsIn, readTail, fileTail, readLegacy, searchRows, writePart, putRows, range,
} from "./idb-records.js";

export { PACK_ROWS, newestFirst };

const CATCH_UP_MS = 60; // a behind tab reloads once the other tab's burst is over
const MAX_DELTA = 2000; // rows posted with a write; a bigger write is announced by its rev alone
const FEED_PART = 2000; // rows per part of an import's first feed (~1 MB of a chat's records)
const WORKER_IDLE_MS = 5000; // the store's worker is stopped when idle this long
const POLL_MS = 3000; // a visible tab compares the stored rev this often (a missed post)
const TAIL_OWN = 100; // the path's last nodes an import also writes one record each (a tail of ≤ 99 reads only those)
const OWN_FROM = 5 * PACK_ROWS; // ... when its path is longer: a shorter one's tail is in a pack or two, read as fast
const INTERRUPTED_MS = 60000; // an import's meta still marked this long after its last part: its tab closed
const DIVERGED = Symbol("another tab wrote first");
const JOURNAL_ROWS = 20000; // rows a page going away journals at most (a few MB; more would stall the unload)
const IMPORT_IN_WORKER = 4 << 20; // an export of this size or more is read in a worker of its own (on a page)
const BIG_FILE = 4 << 20; // a conversation's file from which the page loads it in slices
const IMPORT_WRITES = 16; // conversations of an import with { open: false } waiting for their writes at most

const fail = (message) => {
  throw new SessionTreeError("invalid_input", message);
};
const visible = () => typeof document === "undefined" || document.visibilityState === "visible";
// newId is a conversation's id (and a tab's): its time and 50 random bits, so
// that a conversation create() names is taken for new without a read of the
// store, which waited behind every write in flight (IndexedDB runs them in
// order): ~4 ms a conversation in an import of 1,000.
const newId = () => {
  const r = crypto.getRandomValues(new Uint32Array(2));
  return `c${Date.now().toString(36)}${r[0].toString(36)}${(r[1] & 0x3ffff).toString(36)}`;
};

/**
 * Opens the store called options.name (an IndexedDB database of that name; a
 * store in memory with { memory: true }). Rejects with not_found when the
 * browser has no IndexedDB or refuses it here: open { memory: true } then.
 */
export async function openStore(options = {}) {
  checkOptions(options, "openStore", `{ name: "chats" }`);
  const known = new Set(["name", "memory", "worker", "sync", "mergeOptions", "loadMerge"]);
  for (const k of Object.keys(options)) if (!known.has(k)) fail(`openStore has no option ${JSON.stringify(k)}`);
  const name = options.name ?? "sessiontree";
  if (typeof name !== "string" || name === "") fail(`"name" must be a non-empty string`);
  if (options.loadMerge !== undefined && typeof options.loadMerge !== "function") fail(`"loadMerge" must be a function that loads the interchange module`);
  const records = options.memory ? new MemoryRecords() : new IDBRecords(name, await database(name));
  const store = new ConversationStore(records, {
    name,
    worker: !options.memory && options.worker !== false && typeof Worker === "function",
    importWorker: options.worker !== false && typeof Worker === "function", // an export's reader: in memory too
    sync: !options.memory && options.sync !== false,
    mergeOptions: { freshNames: true, keepPlace: true, ...options.mergeOptions },
    loadMerge: options.loadMerge ?? (() => initInterchange()),
  });
  await store.list();
  return store;
}

// database opens the IndexedDB database, or rejects with not_found: a browser
// without IndexedDB, or one that refuses it here (a private window, a
// sandboxed frame, storage blocked) rejected with a plain Error or a
// DOMException, no code to tell it from a bug by.
async function database(name) {
  try {
    return await openDatabase(name);
  } catch (e) {
    const why = typeof indexedDB === "undefined" ? "this browser has no IndexedDB" : `IndexedDB cannot be opened here (${e?.name ?? "Error"}: ${e?.message ?? e})`;
    throw new SessionTreeError("not_found", `openStore: ${why}; open { memory: true } to keep the conversations in memory for this page`);
  }
}

// ---- records: IndexedDB, or memory -----------------------------------------------

class IDBRecords {
  constructor(name, db) { this.name = name; this.db = db; this.persistent = true; }
  list() { return readList(this.db); }
  meta(id) { return readMeta(this.db, id); }
  rows(id) { return readRows(this.db, id); }
  tail(id, count) { return readTail(this.db, id, count); }
  legacy(id) { return readLegacy(this.db, id); }
  search(metas, query, except, limit) { return searchRows(this.db, metas, query, except, limit); }
  writePart(meta, changes, options) { return writePart(this.db, meta, changes, options); }

  /** Merges fields into conversation id's meta record (no rows, no rev); resolves to the record stored, or null. */
  updateMeta(id, fields) {
    const tx = this.db.transaction("meta", "readwrite");
    const metas = tx.objectStore("meta");
    const got = metas.get(id);
    let out = null;
    got.onsuccess = () => {
      if (!got.result) return;
      out = { ...got.result, ...fields, id };
      metas.put(out);
    };
    return txDone(tx).then(() => out);
  }

  /**
   * One readwrite transaction: reads conversation id's rows (null when none)
   * and meta record, hands them to merge, which returns { meta, changes }
   * synchronously (or null: nothing is written), and writes those, bumping the
   * rev, with the meta folded over the stored one as write does: no other
   * tab's write can come between the read and the write. Resolves to
   * { rev, out, meta } (out: what merge returned; meta: the record stored);
   * rejects with merge's error, nothing written.
   */
  mergeWrite(id, merge, base) {
    return new Promise((resolve, reject) => {
      const tx = this.db.transaction(["meta", "rows", "trees"], "readwrite");
      let done = null;
      let failed = null;
      tx.oncomplete = () => resolve(done);
      tx.onerror = (e) => reject(failed ?? txError(tx, e));
      tx.onabort = () => reject(failed ?? tx.error ?? new Error("the storage transaction was aborted"));
      const stop = (e) => {
        failed = e;
        try { tx.abort(); } catch { /* over already */ }
      };
      readRowsIn(tx, id).then(([stored, rows]) => {
        try {
          const out = merge(rows, stored ?? null);
          if (out === null) {
            done = { rev: 0, out, meta: null };
            return;
          }
          const rev = (stored?.rev ?? 0) + 1;
          const meta = { ...foldMeta(stored, base, out.meta), rev };
          putRows(tx, meta, out.changes);
          if (out.changes.all) tx.objectStore("trees").delete(id);
          done = { rev, out, meta: { ...meta, root: out.changes.root, activeBranch: out.changes.activeBranch } };
        } catch (e) {
          stop(e);
        }
      }, stop);
    });
  }

  /**
   * One readwrite transaction: checks the stored rev is expect (unless
   * undefined), writes the rows and the meta (folded over the stored record:
   * foldMeta), bumps the rev. Resolves to { rev, meta } (the record stored),
   * or DIVERGED (nothing written).
   */
  write(meta, changes, expect, base) {
    return new Promise((resolve, reject) => {
      const tx = this.db.transaction(["meta", "rows", "trees"], "readwrite");
      let done = null;
      let diverged = false;
      tx.oncomplete = () => resolve(done);
      tx.onerror = (e) => reject(txError(tx, e));
      tx.onabort = () => (diverged ? resolve(DIVERGED) : reject(tx.error ?? new Error("the storage transaction was aborted")));
      const got = tx.objectStore("meta").get(meta.id);
      got.onsuccess = () => {
        const stored = got.result?.rev ?? 0;
        if (expect !== undefined && stored !== expect) {
          diverged = true;
          tx.abort();
          return;
        }
        const m = { ...foldMeta(got.result, base, meta), rev: stored + 1 };
        putRows(tx, m, changes);
        if (changes.all) tx.objectStore("trees").delete(meta.id);
        done = { rev: m.rev, meta: { ...m, root: changes.root, activeBranch: changes.activeBranch } };
      };
    });
  }

  remove(id) {
    const tx = this.db.transaction(["meta", "rows", "trees"], "readwrite");
    tx.objectStore("meta").delete(id);
    tx.objectStore("rows").delete(range(id));
    tx.objectStore("trees").delete(id);
    return txDone(tx);
  }

  close() { this.db.close(); }
}

function txDone(tx) {
  return new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onerror = (e) => reject(txError(tx, e));
    tx.onabort = () => reject(tx.error ?? new Error("the storage transaction was aborted"));
  });
}

/** The same records in memory (no IndexedDB, tests): nothing survives a reload, no tab sync. */
class MemoryRecords {
  persistent = false;
  #meta = new Map();
  #rows = new Map(); // id → { branches: Map, nodes: Map }

  async list() { return [...this.#meta.values()].map((m) => ({ ...m })).sort(newestFirst); }
  async meta(id) { const m = this.#meta.get(id); return m ? { ...m } : null; }
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
  async tail() { return null; }
  async legacy() { return null; }
  async search(metas, query, except, limit) {
    const q = query.toLowerCase();
    const out = [];
    for (const m of metas) {
      if (m.id === except) continue;
      for (const [id, row] of this.#rows.get(m.id)?.nodes ?? []) {
        if (out.length >= limit) return out;
        if (!row.toLowerCase().includes(q)) continue;
        const node = JSON.parse(row);
        if (JSON.stringify(node.message ?? {}).toLowerCase().includes(q)) out.push({ conversation: m.id, id, message: node.message });
      }
    }
    return out;
  }
  async updateMeta(id, fields) {
    if (!this.#meta.has(id)) return null;
    this.#meta.set(id, { ...this.#meta.get(id), ...fields, id });
    return { ...this.#meta.get(id) };
  }
  async writePart(meta, changes) { this.#put(meta, changes); }
  async mergeWrite(id, merge, base) {
    const out = merge(await this.rows(id), await this.meta(id));
    if (out === null) return { rev: 0, out, meta: null };
    const { rev, meta } = await this.write(out.meta, out.changes, undefined, base);
    return { rev, out, meta };
  }
  async write(meta, changes, expect, base) {
    const stored = this.#meta.get(meta.id);
    const m = { ...foldMeta(stored, base, meta), rev: (stored?.rev ?? 0) + 1 };
    this.#put(m, changes);
    return { rev: m.rev, meta: { ...this.#meta.get(meta.id) } };
  }
  #put(meta, changes) {
    this.#meta.set(meta.id, { ...meta, root: changes.root, activeBranch: changes.activeBranch });
    let r = this.#rows.get(meta.id);
    if (!r || changes.all) this.#rows.set(meta.id, (r = { branches: new Map(), nodes: new Map() }));
    for (const b of changes.branches) b.row === null ? r.branches.delete(b.name) : r.branches.set(b.name, b.row);
    for (const n of changes.nodes) n.row === null ? r.nodes.delete(n.id) : r.nodes.set(n.id, n.row);
  }
  async remove(id) { this.#meta.delete(id); this.#rows.delete(id); }
  close() {}
}

// ---- the store's worker -------------------------------------------------------------

/**
 * The store's Web Worker (idb.worker.js), started on first use and stopped when
 * idle (its heap held a huge conversation's strings). call() resolves to null
 * when no worker could run: the caller does the work on the page then.
 */
class StoreWorker {
  #worker = null;
  #waiting = new Map();
  #seq = 0;
  #idle = 0;
  #broken = false;

  #start() {
    const w = new Worker(new URL("./idb.worker.js", import.meta.url), { type: "module" });
    w.onmessage = ({ data }) => {
      const p = this.#waiting.get(data?.idb);
      if (!p) return;
      this.#waiting.delete(data.idb);
      if (data.ok) p.resolve(data.value);
      else p.reject(new Error(data.message));
    };
    w.onerror = (e) => {
      // A worker that does not start (no module workers): the page does the work.
      e.preventDefault?.();
      this.#broken = true;
      for (const p of this.#waiting.values()) p.resolve(undefined);
      this.#waiting.clear();
      this.stop();
    };
    return w;
  }

  /** Resolves to the op's answer; undefined when no worker runs here. */
  call(op, args, transfer = []) {
    if (this.#broken) return Promise.resolve(undefined);
    this.#worker ??= this.#start();
    clearTimeout(this.#idle);
    const id = ++this.#seq;
    return new Promise((resolve, reject) => {
      this.#waiting.set(id, { resolve, reject });
      try {
        this.#worker.postMessage({ idb: id, op, args }, transfer);
      } catch (e) {
        // Not sent (a URL or a function in a meta cannot be cloned): waited
        // for, it kept the worker from ever stopping when idle.
        this.#waiting.delete(id);
        reject(e?.name === "DataCloneError" ? new SessionTreeError("invalid_input", `${op}: an argument cannot be sent to the store's worker (${e.message})`) : e);
      }
    }).finally(() => {
      if (this.#waiting.size) return;
      clearTimeout(this.#idle);
      this.#idle = setTimeout(() => this.#waiting.size || this.stop(), WORKER_IDLE_MS);
    });
  }

  stop() {
    clearTimeout(this.#idle);
    this.#worker?.terminate();
    this.#worker = null;
    for (const p of this.#waiting.values()) p.reject(new Error("the store was closed"));
    this.#waiting.clear();
  }
}

// ---- the store ----------------------------------------------------------------------

/** The rows of all (every row of a tree) that differ from stored ones, and the stored ones all lacks (null). */
function diff(stored, all) {
  const pick = (was, now, key) => {
    const old = new Map(was.map((r) => [r[key], r.row]));
    const out = [];
    for (const r of now) {
      if (old.get(r[key]) !== r.row) out.push(r);
      old.delete(r[key]);
    }
    // A merge never removes a node: a stored node the union lacks is kept (and said).
    if (key === "name") for (const k of old.keys()) out.push({ [key]: k, row: null });
    else if (old.size) console.warn(`sessiontree/idb: the merged tree lacks ${old.size} stored node(s); they are kept`);
    return out;
  };
  return { all: false, root: all.root, activeBranch: all.activeBranch, branches: pick(stored.branches, all.branches, "name"), nodes: pick(stored.nodes, all.nodes, "id") };
}

/**
 * The localStorage key of the journal tab left for conversation id of store
 * name: one key a tab, so that two tabs going away at once each keep theirs.
 */
const journalKey = (name, id, tab) => `sessiontree-journal:${JSON.stringify([name, id, tab])}`;

/**
 * The keys of every journal of conversation id of store name in localStorage:
 * every tab's, and the one key a page of a version without tab keys left.
 */
function journalKeys(name, id) {
  const old = `sessiontree-journal:${name}:${id}`;
  const out = [];
  for (let i = 0; i < localStorage.length; i++) {
    const k = localStorage.key(i);
    if (k === old) out.push(k);
    else if (k?.startsWith("sessiontree-journal:[")) {
      try {
        const [n, c] = JSON.parse(k.slice("sessiontree-journal:".length));
        if (n === name && c === id) out.push(k);
      } catch {
        // a journal kept aside (":unapplied:…"): not replayed
      }
    }
  }
  return out;
}

// The meta fields the store keeps itself, never a user's.
const OWN_META = new Set(["id", "rev", "root", "activeBranch", "importing"]);
const sameValue = (a, b) => a === b || JSON.stringify(a) === JSON.stringify(b);

/**
 * The meta a write stores: the stored record (another tab's rename, a
 * store.update) with the fields this tab changed since base (the meta it last
 * stored or read) taken from mine, and those it removed removed. Without a
 * stored record or a base, mine. An import's mark goes with the write that
 * stores its last rows.
 */
function foldMeta(stored, base, mine) {
  if (!stored || !base) return { ...mine };
  const out = { ...stored };
  for (const k of Object.keys(mine)) if (!OWN_META.has(k) && !sameValue(mine[k], base[k])) out[k] = mine[k];
  for (const k of Object.keys(base)) if (!OWN_META.has(k) && !(k in mine)) delete out[k];
  delete out.importing;
  if (mine.importing !== undefined) out.importing = mine.importing;
  return out;
}

/**
 * One set of changes out of several taken one after another (takeChanges's
 * form): a later row wins; from the last `all` on, the set is every row.
 */
function joinChanges(list) {
  if (list.length === 1) return list[0];
  let from = 0;
  for (let i = list.length - 1; i > 0 && from === 0; i--) if (list[i].all) from = i;
  const nodes = new Map();
  const branches = new Map();
  for (let i = from; i < list.length; i++) {
    for (const n of list[i].nodes) nodes.set(n.id, n);
    for (const b of list[i].branches) branches.set(b.name, b);
  }
  const all = !!list[from].all;
  const last = list[list.length - 1];
  const keep = (rows) => (all ? rows.filter((r) => r.row != null) : rows);
  return { all, root: last.root, activeBranch: last.activeBranch, branches: keep([...branches.values()]), nodes: keep([...nodes.values()]) };
}

/**
 * Applies a journal's rows over tree, what is stored now, keeping every line
 * of both. Rows of every row (a tree swapped in whole before its page went)
 * go in as rows, never as the tree, which would drop what another tab stored
 * since. A branch the journal moves off the leaf stored for it (another tab
 * wrote on it after the journal's page read it) takes the journal's leaf, and
 * the stored leaf keeps a branch of its own, a fresh "branch-N", as a merge
 * would do; the user is where the journal's page was. A row that no longer
 * applies throws (conflict): the caller keeps the journal.
 */
function applyJournal(tree, changes) {
  const stored = new Map(tree.branches().map((b) => [b.name, b.leaf]));
  tree.applyChanges(changes.all ? { ...changes, all: false } : changes, { follow: true });
  const now = new Map(tree.branches().map((b) => [b.name, b.leaf]));
  const active = tree.activeBranch;
  for (const { name, row } of changes.branches) {
    const was = stored.get(name);
    // (Not a branch after it: the journal's page deleted the name.)
    if (row === null || !was || !now.has(name) || now.get(name) === was || tree.node(was) === null) continue;
    if (tree.pathOf(name).includes(was)) continue; // the journal's page went on from it
    tree.branch(was);
  }
  if (tree.activeBranch !== active) tree.switchBranch(active);
}

/** Where a tree's user is: the active branch and its leaf. */
function place(tree) {
  return { branch: tree.activeBranch, leaf: tree.pathWindow(-1).ids[0] ?? null };
}

/** Whether node `from` descends from `leaf` (looked for among its 500 nearest ancestors). */
function descends(tree, from, leaf) {
  for (let id = from, i = 0; id && i < 500; i++) {
    if (id === leaf) return true;
    id = tree.node(id)?.parent ?? null;
  }
  return false;
}

/**
 * Puts tree back where its user was (before: { branch, leaf }) after another
 * tab's rows came in: on that branch while it still leads on from the leaf,
 * else on the branch now ending at the leaf. Returns whether it switched.
 */
function keepPlace(tree, before) {
  const list = tree.branches();
  let target = list.some((b) => b.name === before.branch) ? before.branch : null;
  const now = list.find((b) => b.name === before.branch)?.leaf ?? null;
  if (before.leaf && now !== before.leaf && !descends(tree, now, before.leaf)) target = list.find((b) => b.leaf === before.leaf)?.name ?? target;
  if (!target || tree.activeBranch === target) return false;
  tree.switchBranch(target);
  return true;
}

// checkId and checkOptions refuse what IndexedDB or a property read would
// throw on as its own error (a DataError, a TypeError), with a sentence.
function checkId(id) {
  if (typeof id !== "string" || id === "") fail(`"id" must be a non-empty string`);
}

function checkOptions(options, method, like) {
  if (typeof options !== "object" || options === null || Array.isArray(options)) fail(`${method}'s options must be an object like ${like}`);
}

function checkMeta(meta) {
  if (meta === undefined) return {};
  if (typeof meta !== "object" || meta === null || Array.isArray(meta)) fail(`"meta" must be an object like { title: "A chat" }`);
  if (meta.id !== undefined && (typeof meta.id !== "string" || meta.id === "")) fail(`"meta.id" must be a non-empty string`);
  return storable(meta, "meta");
}

// storable is fields, or invalid_input when IndexedDB cannot store them (a URL,
// a function: its structured clone throws). Before, such a meta was taken, and
// its writes failed later, the last one at a close with nothing to catch it.
function storable(fields, what) {
  try {
    structuredClone(fields);
  } catch (e) {
    fail(`"${what}" must hold only what IndexedDB stores (plain data): ${e?.message ?? e}`);
  }
  return fields;
}

// What a list entry holds but for its rev and active branch, whatever the
// order of its fields: a write that changes none of it leaves the list as it
// is. (The rev, root and active branch set to 0 where they stood, a create's
// meta, without them, and its first write's, with them, read as a change.
// The root is kept now: a page finds a chat an import merges into by it.)
function shownOf(meta) {
  const { rev, activeBranch, ...shown } = meta;
  return JSON.stringify(Object.keys(shown).sort().map((k) => [k, shown[k]]));
}

// placeOf is where meta goes in list, sorted by newestFirst: before the first
// entry that sorts after it.
function placeOf(list, meta) {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (newestFirst(list[mid], meta) <= 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

class ConversationStore {
  #records;
  #options;
  #readers = new Set(); // the workers reading exports for importFile, stopped by close()
  #worker;
  #channel = null;
  #conversations = [];
  #listed = new Map(); // id → its entry in #conversations (the same object)
  #listeners = new Set();
  #open = new Map(); // id → Promise<Conversation> (opening or open)
  #closing = new Map(); // id → Promise of a conversation's close (its last save, then free)
  #writes = Promise.resolve();
  #poll = 0;
  #onVisible = null;
  #onHide = null;
  #held = new Set(); // the conversations open in this tab, until freed (what a page going away journals)
  #closed = false;
  // #shutting: close() began. What starts after it (an open, a create) is
  // refused, as after the close: close() closes only the conversations open
  // when it began, and one opened later would write to a closed database.
  #shutting = false;
  #closeDone = null;
  /** This tab's own name among the store's (its journals' keys). */
  _tab = newId();
  /** What the tab sync did: merges, reloads, deltas posted and applied. */
  stats = { merges: 0, reloads: 0, posted: 0, applied: 0, replayed: 0 };

  constructor(records, options) {
    this.#records = records;
    this.#options = options;
    this.#worker = options.worker ? new StoreWorker() : null;
    if (options.sync) this.#startSync();
    if (records.persistent && typeof addEventListener === "function" && typeof document !== "undefined") {
      // A page going away (a reload, a closed tab) does not wait for a write in
      // flight, nor for one queued behind it: what is not yet written is
      // journaled synchronously and replayed at the next open (see journal).
      this.#onHide = () => this.journal();
      addEventListener("pagehide", this.#onHide);
      document.addEventListener("visibilitychange", this.#onHide);
    }
  }

  /**
   * Writes what every open conversation has not yet got into IndexedDB (the
   * changes being written and those waiting) to localStorage, synchronously;
   * the next open of the conversation applies them and writes them, and a
   * write that lands them removes the journal. Runs by itself when the page
   * is hidden or goes away.
   */
  journal() {
    if (this.#closed) return;
    for (const conv of this.#held) conv._journal();
  }

  _hold(conv) { this.#held.add(conv); }
  _unhold(conv) { this.#held.delete(conv); }

  get name() { return this.#options.name; }
  get persistent() { return this.#records.persistent; }
  get conversations() { return this.#conversations; }

  subscribe(listener) {
    this.#live();
    if (typeof listener !== "function") fail(`"listener" must be a function (conversations) => void`);
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  #setList(list) {
    this.#conversations = Object.freeze(list);
    for (const l of [...this.#listeners]) {
      try {
        l(list);
      } catch (err) {
        if (typeof globalThis.reportError === "function") globalThis.reportError(err);
        else console.error(err);
      }
    }
  }

  /**
   * Puts meta (a copy) in the list in place of its id's entry, or where it
   * sorts (newestFirst) when it is new or its createdAt changed; a write that
   * changed only the rev or the active branch leaves the list as it is (a
   * list re-renders for what it shows). It costs a copy of the list, not a
   * search or a sort of it: an import of 8,000 chats sorted it once a chat
   * (13 s in all, 3 ms a chat at the end).
   */
  _listed(meta) {
    const m = Object.freeze({ ...meta });
    const list = this.#conversations;
    const old = this.#listed.get(m.id);
    if (old !== undefined && shownOf(old) === shownOf(m)) return;
    const at = old === undefined ? -1 : list.indexOf(old);
    const next = [...list]; // not list.slice(): on a frozen array, 40× slower in V8
    if (at >= 0 && newestFirst(old, m) === 0) next[at] = m;
    else {
      if (at >= 0) next.splice(at, 1); // its createdAt changed: it moves
      next.splice(placeOf(next, m), 0, m);
    }
    this.#listed.set(m.id, m);
    this.#setList(next);
  }

  #live() {
    if (this.#closed || this.#shutting) fail(`the store ${JSON.stringify(this.name)} was closed`);
  }

  async list() {
    this.#live();
    const all = (await this.#records.list()).filter((m) => !m.importing);
    this.#listed = new Map(all.map((m) => [m.id, Object.freeze(m)]));
    this.#setList(all);
    return this.#conversations;
  }

  meta(id) {
    this.#live();
    checkId(id);
    return this.#records.meta(id);
  }

  rows(id) {
    this.#live();
    checkId(id);
    return this.#records.rows(id);
  }

  tail(id, count = 50) {
    this.#live();
    checkId(id);
    if (!Number.isInteger(count) || count < 1) fail(`"count" must be a whole number above 0`);
    return this.#records.tail(id, count);
  }

  async search(query, options = {}) {
    this.#live();
    if (typeof query !== "string" || query === "") fail(`"query" must be a non-empty string`);
    checkOptions(options, "search", "{ limit: 30 }");
    const limit = options.limit ?? 30;
    if (!Number.isInteger(limit) || limit < 1) fail(`"limit" must be a whole number above 0`);
    const metas = (await this.#records.list()).filter((m) => !m.importing);
    return this.#records.search(metas, query, options.except, limit);
  }

  /** Runs job after every write queued before it (writes of one store never interleave). */
  _queue(job) {
    const run = this.#writes.then(job);
    this.#writes = run.catch(() => {});
    return run;
  }

  /** Resolves once every write queued so far is done (an open conversation's change waiting for its autosave is written now). */
  saved() {
    for (const conv of this.#held) conv._flush();
    return this.#writes.then(() => {});
  }

  _records() { return this.#records; }
  _options() { return this.#options; }

  async create(tree, meta, options = {}) {
    this.#live();
    if (tree === undefined || tree === null) {
      await init(); // as open and importFile: the page need not have called it
      tree = new SessionTree();
    }
    if (!(tree instanceof SessionTree)) fail(`"tree" must be a SessionTree (or undefined for an empty one)`);
    checkOptions(options, "create", "{ autosave: false }");
    // The object given is the conversation's meta (conv.meta), filled in.
    const m = meta === undefined ? {} : checkMeta(meta);
    const now = Date.now();
    const named = m.id !== undefined; // else named here: new (newId)
    m.id ??= newId();
    m.title ??= "";
    m.createdAt ??= now;
    m.updatedAt ??= now;
    delete m.rev;
    delete m.importing;
    if (this.#open.has(m.id) || (named && (await this.#records.meta(m.id)))) fail(`a conversation ${JSON.stringify(m.id)} is stored already`);
    // Looked again after the wait: the store may have begun to close, or
    // another create of the same id got in first (both read no record).
    this.#live();
    if (this.#open.has(m.id)) fail(`a conversation ${JSON.stringify(m.id)} is stored already`);
    const conv = new Conversation(this, m, tree, 0, options.autosave !== false);
    this.#open.set(m.id, Promise.resolve(conv));
    if (options.inParts) {
      m.rev = 1;
      conv._rev = 1;
      conv._feed();
    } else {
      conv.save().catch(() => {}); // written in the background; conv.saved() tells
    }
    this._listed(m);
    return conv;
  }

  async importFile(file, options = {}) {
    this.#live();
    checkOptions(options, "importFile", `{ format: "auto" }`);
    const isBlob = typeof Blob === "function" && file instanceof Blob;
    if (!isBlob && !(file instanceof Uint8Array)) fail(`"file" must be a File, Blob or Uint8Array`);
    const format = options.format ?? "auto";
    const headBytes = isBlob ? new Uint8Array(await file.slice(0, 64).arrayBuffer()) : file.subarray(0, 64);
    const head = new TextDecoder().decode(headBytes);
    const isTree = format === "sessiontree" || format === "tree.json" || (format === "auto" && /^\s*\{\s*"format"\s*:\s*"sessiontree"/.test(head));
    const base = options.title ?? (typeof file.name === "string" ? file.name.replace(/\.(tree\.json|jsonl|json|md)$/i, "") : "") ?? "";
    const meta = { ...checkMeta(options.meta), title: base || "Imported" };
    const autosave = options.autosave !== false;
    if (options.open !== undefined && typeof options.open !== "boolean") fail(`"open" must be true or false`);
    if (options.worker !== undefined && typeof options.worker !== "boolean") fail(`"worker" must be true or false`);
    const keepOpen = options.open !== false;
    await init();
    if (isTree) {
      const sliceMs = options.sliceMs ?? 20;
      // Checked in a worker of its own, stopped once it answers: WebAssembly
      // memory never shrinks, and stopping the worker gives the second copy's back.
      const timings = {};
      const t0 = performance.now();
      // The path's last messages first, from the file's head and last
      // megabytes (fileTail), while the worker checks the whole file: the
      // page shows them in a moment where the check and load take seconds.
      let shown = null;
      if (options.onTail) {
        meta.id ??= newId();
        const tail = await fileTail(file, options.tailCount ?? 60);
        if (tail?.nodes.length) {
          shown = Promise.resolve(options.onTail(tail, { id: meta.id, title: meta.title }));
          timings.tail = performance.now() - t0;
        }
      }
      let problems = options.check === false ? [] : await checkInWorker(file, timings);
      await shown;
      const t1 = performance.now();
      const tree = await SessionTree.loadFrom(file, { sliceMs });
      timings.check = t1 - t0;
      timings.load = performance.now() - t1;
      let repairs = [];
      try {
        problems ??= tree.validate();
        if (problems.length) repairs = tree.repair();
      } catch (e) {
        tree.free();
        throw e;
      }
      const conversation = await this.create(tree, meta, { inParts: true, autosave });
      if (!keepOpen) await this.#closeStored(conversation);
      return { conversations: [{ conversation: keepOpen ? conversation : null, meta: conversation.meta, report: null }], problems, repairs, timings };
    }
    // On a page, a file of IMPORT_IN_WORKER bytes or more is read in a
    // sessiontree/worker of its own (stopped at the end), a conversation at a
    // time, each coming across as its .tree.json: read on the page, the file was
    // held whole and each conversation's import was one task (a 47 MB chat:
    // ~3 s, the page frozen). null when no worker could start: read here then.
    const size = isBlob ? file.size : file.length;
    const reader = typeof FileReaderSync !== "function" && this.#options.importWorker && options.worker !== false && size >= IMPORT_IN_WORKER
      ? await importReader()
      : null;
    // store.close() stops it: a request it never answered (the worker gone) would hold the import forever.
    if (reader) this.#readers.add(reader);
    let it;
    if (reader) {
      // A Uint8Array is put in a Blob (a copy) for the worker to read in pieces.
      const steps = reader.st.SessionTree.importEach(isBlob ? file : new Blob([file]), format, { files: true });
      const ahead = reader.readAhead(steps); // up to 32 MB of conversations ahead of the page storing them
      it = {
        async next() {
          const step = await ahead.next();
          if (step.done) return step;
          const c = step.value;
          // A large one in slices: SessionTree.load of a 47 MB chat is a task of ~1 s.
          const tree = c.file.length >= BIG_FILE ? await SessionTree.loadFrom(c.file, { sliceMs: options.sliceMs ?? 20 }) : SessionTree.load(c.file);
          return { done: false, value: { title: c.title, tree, report: c.report } };
        },
        return: () => ahead.return().catch(() => {}).finally(() => {
          reader.st.close();
          this.#readers.delete(reader);
        }),
      };
    } else {
      await this.#options.loadMerge();
      // In a worker, importEach reads a Blob a piece at a time itself
      // (FileReaderSync); on a page it is read here first.
      const bytes = isBlob && typeof FileReaderSync !== "function" ? new Uint8Array(await file.arrayBuffer()) : file;
      // A conversation at a time (importEach): the module holds a piece of the
      // file and the conversation being made, not importAll's result beside
      // every tree.
      const each = SessionTree.importEach(bytes, format);
      it = { next: async () => each.next(), return: async () => { each.return(); } };
    }
    const out = [];
    let held = null; // a tree read that create() has not taken (it failed)
    const ahead = [];
    // meta's id is the first conversation's: given to each, it stored the
    // first and refused the second as stored already.
    const { id, ...others } = meta;
    // With { open: false } each is closed once stored, IMPORT_WRITES at most
    // waiting for their writes, so that the page's module holds a few trees,
    // not every chat of an export.
    let closing = [];
    const settle = async () => {
      const waiting = closing;
      closing = [];
      const failed = (await Promise.allSettled(waiting)).find((r) => r.status === "rejected");
      if (failed) throw failed.reason;
    };
    try {
      // The first two are read ahead: whether the file holds more than one
      // decides their titles.
      ahead.push(await it.next());
      if (!ahead[0].done) ahead.push(await it.next());
      const many = ahead.length === 2 && !ahead[1].done;
      const at0 = Date.now();
      for (let i = 0; ; i++) {
        const step = ahead.shift() ?? (await it.next());
        if (step.done) break;
        const c = step.value;
        held = c.tree;
        const title = many && c.title?.trim() ? c.title.trim() : meta.title;
        const at = at0 - i; // the file's order, its first the newest
        const fields = { ...others, ...(i === 0 && id !== undefined ? { id } : {}), title, createdAt: at, updatedAt: at };
        // In packs of rows (inParts), as a large tree: a record a message
        // was most of a whole export's import (IndexedDB's own work).
        const conversation = await this.create(c.tree, fields, { autosave, inParts: true });
        held = null;
        if (keepOpen) {
          out.push({ conversation, meta: conversation.meta, report: c.report });
          continue;
        }
        out.push({ conversation: null, meta: conversation.meta, report: c.report });
        closing.push(this.#closeStored(conversation));
        if (closing.length >= IMPORT_WRITES) await settle();
      }
      await settle();
    } catch (e) {
      // Those stored stay stored and listed; the caller never gets them to close.
      await Promise.allSettled(closing);
      await Promise.all(out.map(({ conversation }) => conversation?.close().catch(() => {})));
      throw e;
    } finally {
      held?.free();
      for (const step of ahead) step.value?.tree.free();
      await it.return();
    }
    return { conversations: out, problems: [], repairs: [], timings: {} };
  }

  // #closeStored closes a conversation an import made once its rows are
  // stored ({ open: false }). One storage refused is removed, its journal too
  // (no open could read it: its meta was never stored, or says importing), and
  // the error is thrown: before, it resolved, and the import listed chats no
  // open could find.
  async #closeStored(conversation) {
    try {
      await conversation.saved();
    } catch (e) {
      await conversation.close().catch(() => {});
      // Storage may refuse the removal too: it leaves this tab's list and
      // journals all the same (what was stored says importing, or nothing;
      // removeInterrupted takes it out).
      await this.delete(conversation.id).catch(() => this.#forget(conversation.id));
      throw e;
    }
    await conversation.close();
  }

  async open(id, options = {}) {
    this.#live();
    checkId(id);
    checkOptions(options, "open", "{ sliceMs: 20 }");
    await this.#closing.get(id); // a close of the same conversation writes first
    this.#live(); // the store began to close meanwhile: it would not close this one
    const had = this.#open.get(id);
    if (had) {
      const conv = await had;
      conv._refs++;
      return conv;
    }
    const opening = this.#read(id, options);
    this.#open.set(id, opening);
    try {
      const conv = await opening;
      if (!conv) this.#open.delete(id);
      return conv;
    } catch (e) {
      this.#open.delete(id);
      throw e;
    }
  }

  async #read(id, options) {
    const timings = {};
    const t0 = performance.now();
    const meta = await this.#records.meta(id);
    if (!meta || meta.importing) return null;
    const signal = options.signal;
    const stop = () => {
      if (signal?.aborted) throw signal.reason ?? new DOMException("the open was aborted", "AbortError");
    };
    // The last messages first, from their own records (a few reads whatever
    // the size); the whole read waits for it: both read IndexedDB, and the
    // tail's gets queued behind a 100 MB read took seconds.
    if (options.onTail) {
      const tail = await this.#records.tail(id, options.tailCount ?? 60).catch(() => null);
      stop();
      if (tail?.nodes.length) {
        await options.onTail(tail);
        timings.tail = performance.now() - t0;
      }
      stop();
    }
    const whole = await this.#whole(id, options.sliceMs ?? 20, timings);
    stop();
    if (whole) {
      timings.open = performance.now() - t0;
      return new Conversation(this, meta, whole.tree, whole.rev, options.autosave !== false, timings, true)._replay();
    }
    let rows = null;
    let legacy = null;
    try {
      await init();
      rows = await this.#records.rows(id);
      if (rows) {
        const tree = fromStoredRows(id, rows);
        tree.takeChanges({ stored: true }); // the store holds every row
        timings.open = performance.now() - t0;
        return new Conversation(this, meta, tree, rows.rev, options.autosave !== false, timings, true)._replay();
      }
      legacy = await this.#records.legacy(id); // a conversation stored whole (version 1)
      if (legacy === null) throw new SessionTreeError("corrupt", `conversation ${id}: its saved tree is missing from storage`);
      const tree = SessionTree.load(legacy);
      const conv = new Conversation(this, meta, tree, meta.rev ?? 0, options.autosave !== false, timings, true);
      await conv.save(); // every row, and the whole file's record dropped
      return conv;
    } catch (e) {
      if (e?.name === "AbortError") throw e;
      const err = e instanceof SessionTreeError ? e : new SessionTreeError("corrupt", String(e?.message ?? e));
      if (!err.message.includes(id)) err.message = `conversation ${id} could not be opened: ${err.message}`;
      // What was stored, for the user to keep (export it): the conversation is left untouched.
      try {
        err.file = legacy ?? (rows ? SessionTree.fileFromRows(rows) : null);
      } catch {
        err.file = null; // the error says what is wrong; it is not lost to this one
      }
      throw err;
    }
  }

  /**
   * Conversation id's stored rows as a tree and their rev, the rows read and
   * joined in the worker and loaded on the page in slices; null when the
   * worker could not do it (or the load failed: the caller reads again).
   */
  async #whole(id, sliceMs, timings = {}) {
    if (!this.#worker) return null;
    let got;
    try {
      got = await this.#worker.call("file", [this.name, id]);
      if (!got) return null;
      await init();
      const l0 = performance.now();
      const tree = await SessionTree.loadFrom(got.bytes, { sliceMs });
      tree.takeChanges({ stored: true }); // the store holds every row
      timings.read = got.took?.read;
      timings.join = got.took?.join;
      timings.load = performance.now() - l0;
      return { tree, rev: got.rev };
    } catch {
      return null;
    }
  }

  /** Reads conversation id as stored (worker, else rows): { tree, rev } or null. */
  async _reread(id) {
    const got = await this.#whole(id, 20);
    if (got) return got;
    const rows = await this.#records.rows(id);
    if (!rows) return null;
    const tree = fromStoredRows(id, rows);
    tree.takeChanges({ stored: true });
    return { tree, rev: rows.rev };
  }

  /** Writes an import's part (the worker when there is one). */
  async _writePart(meta, part, options) {
    if (this.#worker) {
      const done = await this.#worker.call("putPart", [this.name, meta, part, options]);
      if (done !== undefined) return;
    }
    await this.#records.writePart(meta, part, options);
  }

  update(id, fields) {
    this.#live();
    checkId(id);
    if (typeof fields !== "object" || fields === null) fail(`"fields" must be an object like { title: "A chat" }`);
    const clean = { ...fields };
    for (const k of OWN_META) delete clean[k];
    return this.#update(id, storable(clean, "fields"));
  }

  async #update(id, clean) {
    const stored = await this._queue(() => this.#records.updateMeta(id, clean));
    if (!stored) return;
    this._listed(stored);
    this._post({ id, meta: stored, renamed: true });
    // Open here, its meta takes the fields; in another tab too (posted), so
    // that no tab's next write puts back what it held (see foldMeta). Awaited
    // outside the write queue: an open may write first (a version-1 record).
    const opening = this.#open.get(id);
    (opening ? await opening.catch(() => null) : null)?._metaStored(stored);
  }

  async delete(id) {
    this.#live();
    checkId(id);
    const opening = this.#open.get(id);
    const conv = opening ? await opening.catch(() => null) : null;
    conv?._deleted();
    await this._queue(() => this.#records.remove(id));
    this.#forget(id);
    // A tab that has it open stops writing it (or its next write would store it again).
    this._post({ deleted: id });
  }

  // A deleted conversation leaves the list, and its journals (no open replays them any more).
  #forget(id) {
    const old = this.#listed.get(id);
    if (old !== undefined) {
      this.#listed.delete(id);
      this.#setList(this.#conversations.filter((c) => c !== old));
    }
    if (typeof localStorage === "undefined") return;
    try {
      for (const k of journalKeys(this.name, id)) localStorage.removeItem(k);
    } catch {
      // localStorage refused: they stay, unread
    }
  }

  async removeInterrupted(options = {}) {
    this.#live();
    checkOptions(options, "removeInterrupted", "{ olderThanMs: 60000 }");
    const olderThan = options.olderThanMs ?? INTERRUPTED_MS;
    const all = await this.#records.list();
    const gone = all.filter((m) => m.importing && Date.now() - m.importing > olderThan && !this.#open.has(m.id));
    for (const m of gone) await this._queue(() => this.#records.remove(m.id));
    if (gone.length) this._post({ list: true });
    return gone;
  }

  /** A conversation's close began (its last save is queued): the next open of id reads anew, after it. */
  _closing(id, done) {
    this.#open.delete(id);
    this.#closing.set(id, done);
    done.finally(() => this.#closing.get(id) === done && this.#closing.delete(id));
  }

  close() {
    return (this.#closeDone ??= this.#close());
  }

  async #close() {
    this.#shutting = true;
    for (const reader of this.#readers) reader.st.close(); // an import under way rejects
    this.#readers.clear();
    const open = await Promise.all([...this.#open.values()].map((p) => p.catch(() => null)));
    await Promise.all(open.map((c) => c?._close()));
    await Promise.all(this.#closing.values());
    await this.#writes;
    this.#closed = true;
    clearInterval(this.#poll);
    if (this.#onVisible) document.removeEventListener("visibilitychange", this.#onVisible);
    if (this.#onHide) {
      removeEventListener("pagehide", this.#onHide);
      document.removeEventListener("visibilitychange", this.#onHide);
    }
    this.#channel?.close();
    this.#worker?.stop();
    this.#records.close();
    this.#listeners.clear();
  }

  // ---- tab sync ----

  _post(message) {
    this.#channel?.postMessage(message);
  }

  #startSync() {
    if (typeof BroadcastChannel === "function") {
      this.#channel = new BroadcastChannel(`${this.name}-sync`);
      this.#channel.addEventListener("message", (e) => this.#heard(e.data ?? {}));
    }
    // A post can be missed (a tab frozen, a channel closed): a visible tab also
    // compares the stored rev of what it has open (one small read) every few seconds.
    this.#poll = setInterval(() => {
      if (!visible()) return;
      for (const p of this.#open.values()) {
        p.then((conv) => conv && !conv._scheduled() && this.#records.meta(conv.id).then((m) => m && (m.rev ?? 0) > conv._rev && conv._schedule()))
          .catch(() => {});
      }
    }, POLL_MS);
    if (typeof document !== "undefined") {
      this.#onVisible = () => {
        if (!visible()) return;
        for (const p of this.#open.values()) p.then((conv) => conv?._schedule()).catch(() => {});
      };
      document.addEventListener("visibilitychange", this.#onVisible);
    }
  }

  async #heard({ id, rev, prev, changes, meta, list, deleted, renamed }) {
    if (this.#closed) return;
    if (list || typeof deleted === "string") {
      this.list().catch(() => {});
      if (typeof deleted !== "string") return;
      const opening = this.#open.get(deleted);
      (opening ? await opening.catch(() => null) : null)?._deleted({ elsewhere: true });
      return;
    }
    if (typeof id !== "string") return;
    if (meta && !meta.importing) this._listed(meta);
    const opening = this.#open.get(id);
    const conv = opening ? await opening.catch(() => null) : null;
    if (!conv) return;
    if (renamed) {
      conv._metaStored(meta);
      return;
    }
    if (rev <= conv._rev) return;
    if (changes && conv._apply(rev, prev, changes, meta)) return;
    if (visible()) conv._schedule();
  }
}

// fromStoredRows is SessionTree.fromRows of conversation id's stored rows
// (readRows), corrupt when storage holds records that are not rows: opened
// without them, the conversation would lose their messages at its next write.
function fromStoredRows(id, rows) {
  if (rows.bad) {
    const n = rows.bad.length;
    throw new SessionTreeError("corrupt", `conversation ${id}: ${n} of its stored records ${n === 1 ? "is" : "are"} not a row (${rows.bad.slice(0, 3).join(", ")}${n > 3 ? ", …" : ""}); the error's file holds the rest`);
  }
  return SessionTree.fromRows(rows);
}

// ---- a conversation open in this tab ---------------------------------------------------

class Conversation {
  #store;
  #tree;
  #listeners = new Set();
  #off = null; // the autosave's tree subscription
  #autosave;
  #taken = 0; // the tree's version when its changes were last taken (or stored)
  #writing = 0;
  #failed = null; // the error of the last write, until a write succeeds (saved() rejects with it)
  #holds = 0;
  #saveTimer = 0;
  #catchUp = 0;
  #running = null;
  #feeding = null;
  #closing = null;
  #deleted = false;
  // The changes taken from the tree and not yet known to be stored, oldest
  // first: the write in flight's, a failed write's (the next write takes them
  // again) and what a journal took.
  #untold = [];
  #journaled = false; // this conversation's journal is in localStorage
  #stored = null; // the meta this tab last wrote, as JSON (a save with no rows and the same meta writes nothing)
  #base = null; // the meta as this tab last stored or read it (what it changed since goes over another tab's: foldMeta)
  #replayed = []; // other pages' journals this one applied: { key, text }, removed once stored
  _refs = 1;
  _rev;

  // read: meta is the record as stored (an open), not one to store (a create).
  constructor(store, meta, tree, rev, autosave, timings = {}, read = false) {
    this.#store = store;
    this.meta = meta;
    this.#tree = tree;
    this._rev = rev;
    this.timings = timings;
    this.#autosave = autosave;
    this.#taken = tree.version;
    this.#base = read ? { ...meta } : null; // a new one's is what its first write stores
    this.#watch();
    store._hold(this);
  }

  get id() { return this.meta.id; }
  get tree() { return this.#tree; }
  get rev() { return this._rev; }
  get closed() { return this.#closing !== null; }

  #watch() {
    this.#off?.();
    this.#off = this.#autosave ? this.#tree.subscribe(() => this.#scheduleSave()) : null;
  }

  #scheduleSave() {
    if (this.#saveTimer || this.#closing) return;
    this.#saveTimer = setTimeout(() => {
      this.#saveTimer = 0;
      if (this.#tree.version !== this.#taken) this.save().catch((e) => this.#emit({ kind: "error", error: e }));
    }, 0);
  }

  subscribe(listener) {
    if (typeof listener !== "function") fail(`"listener" must be a function (event) => void`);
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  #emit(event) {
    for (const l of [...this.#listeners]) {
      try {
        l(event);
      } catch (err) {
        if (typeof globalThis.reportError === "function") globalThis.reportError(err);
        else console.error(err);
      }
    }
  }

  hold() {
    this.#holds++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#holds--;
    };
  }

  /** Whether nothing of this tab's waits to be written (a delta or a reload may come in). */
  #clean() {
    return !this.#closing && this.#holds === 0 && this.#writing === 0 && !this.#feeding && !this.#saveTimer && this.#tree.version === this.#taken && this.#untold.length === 0;
  }

  save() {
    if (this.#closing && this.#closing !== "closing") return Promise.reject(new SessionTreeError("invalid_input", `conversation ${this.id} was closed`));
    clearTimeout(this.#saveTimer);
    this.#saveTimer = 0;
    this.#writing++;
    return this.#store._queue(() => this.#write()).then(
      (r) => { this.#failed = null; return r; },
      (e) => { this.#failed = e; throw e; },
    ).finally(() => { this.#writing--; });
  }

  saved() {
    this._flush();
    // Rejects with the error of this conversation's last write when it
    // failed and none has stored its changes since: before Dec 6 (night) it resolved
    // all the same (a full disk, a database closed under it), and a caller
    // took changes that were only journaled, or not even that, for stored.
    return Promise.all([this.#feeding, this.#store.saved()]).then(() => {
      if (this.#failed !== null) throw this.#failed;
    });
  }

  // _flush writes now a change whose autosave waits on its timer (the next
  // task), so that `conv.tree.append(m); await conv.saved()` finds m stored.
  _flush() {
    if (this.#saveTimer && !this.#closing) this.save().catch((e) => this.#emit({ kind: "error", error: e }));
  }

  async #write() {
    if (this.#deleted) return { rev: this._rev, rows: 0 };
    if (this.#feeding) {
      await this.#feeding; // the import's feed takes these changes too
      return { rev: this._rev, rows: 0 };
    }
    const records = this.#store._records();
    const t0 = performance.now();
    this.#untold.push(this.#tree.takeChanges());
    this.#taken = this.#tree.version;
    const takeMs = performance.now() - t0;
    const told = this.#untold.length;
    const changes = joinChanges(this.#untold);
    this.meta.root = changes.root;
    this.meta.activeBranch = changes.activeBranch;
    const meta = { ...this.meta };
    delete meta.rev;
    if (!changes.all && changes.nodes.length === 0 && changes.branches.length === 0 && JSON.stringify(meta) === this.#stored) {
      // Nothing to write (the saves a merge's changes queued, a save() with
      // nothing new): a write would bump the rev and send every other tab a
      // delta to apply, or a reload of the whole tree to one busy writing.
      // In memory too: its rev moved with nothing new.
      this.#storedUntold(told);
      return { rev: this._rev, rows: 0, takeMs };
    }
    // The rev is checked for every row too (a tree swapped in whole, by a
    // merge with the lean module or a delta of every row, answers them all):
    // written unchecked, they would take the place of another tab's writes.
    let got = await records.write(meta, changes, records.persistent ? this._rev : undefined, this.#base);
    let written = changes;
    let stored = told;
    if (got === DIVERGED) {
      const merged = await this.#mergeAndWrite(meta);
      if (merged === null) {
        // Deleted by another tab meanwhile (its post not yet heard): not written back.
        this._deleted({ elsewhere: true });
        return { rev: this._rev, rows: 0, takeMs };
      }
      ({ changes: written, stored } = merged);
      got = merged;
    }
    const rev = got.rev;
    this.#storedUntold(stored);
    this._rev = rev;
    this.#foldIn(got.meta);
    const wrote = { ...this.meta };
    delete wrote.rev;
    this.#stored = JSON.stringify(wrote);
    this.#store._listed(this.meta);
    if (records.persistent) {
      this.#store.stats.posted++;
      // The rows written, as a delta from rev - 1 (a tab at that rev applies them).
      const small = !written.all && written.branches.length + written.nodes.length <= MAX_DELTA;
      this.#store._post({ id: this.id, rev, prev: rev - 1, changes: small ? written : undefined, meta: { ...this.meta } });
    }
    return { rev, rows: written.branches.length + written.nodes.length, takeMs };
  }

  // #foldIn takes the fields of a stored meta record (this tab's write folded
  // over the stored one, another tab's write, a rename) into this.meta, but
  // for those this tab changed since it last stored or read them: the next
  // write stores those (foldMeta). The record is the base from then on.
  #foldIn(stored) {
    if (!stored) return;
    const base = this.#base ?? {};
    const meta = this.meta;
    for (const k of Object.keys(stored)) if (!OWN_META.has(k) && sameValue(meta[k], base[k])) meta[k] = stored[k];
    for (const k of Object.keys(meta)) if (!OWN_META.has(k) && !(k in stored) && sameValue(meta[k], base[k])) delete meta[k];
    if (stored.rev !== undefined) meta.rev = stored.rev;
    this.#base = { ...stored };
  }

  /** Another tab renamed it, or store.update did here: its meta takes the fields (an event of kind "meta" says so). */
  _metaStored(stored) {
    if (this.#closing || !stored) return;
    const rev = this._rev;
    this.#foldIn({ ...stored, rev });
    this.#emit({ kind: "meta", meta: this.meta });
  }

  // #storedUntold drops the first n untold changes, now stored (a journal may
  // have taken more meanwhile), and the journal once nothing is left untold.
  #storedUntold(n) {
    this.#untold.splice(0, n);
    if (this.#journaled && this.#untold.length === 0) this.#unjournal();
  }

  // Merges the stored copy into this tree and writes the rows where the union
  // differs from what is stored, in one transaction (records.mergeWrite: no
  // other tab's write comes between the read and the write, so this never
  // goes round while another tab keeps writing first, reading the whole
  // conversation each time); returns the rev written, those rows, the meta
  // stored and how many of #untold's changes the write stored; null when the
  // conversation is no longer stored (deleted by another tab).
  async #mergeAndWrite(meta) {
    const store = this.#store;
    const { loadMerge, mergeOptions } = store._options();
    await loadMerge();
    const tree = this.#tree;
    const { rev, out, meta: storedMeta } = await store._records().mergeWrite(this.id, (rows, stored) => {
      if (!stored && this._rev > 0) return null; // it was stored, and is not: deleted
      if (rows) {
        const theirs = SessionTree.fromRows(rows);
        const before = place(tree);
        let report;
        try {
          report = tree.merge(theirs, mergeOptions);
        } finally {
          theirs.free();
        }
        store.stats.merges++;
        if (report.changed) this.#emit({ kind: "merged", report, before });
      }
      tree.takeChanges(); // what the write below holds (a merge swapped in answers every row)
      this.#taken = tree.version;
      const copy = tree.clone();
      let all;
      try {
        all = copy.takeChanges(); // the first call: every row
      } finally {
        copy.free();
      }
      const changes = rows ? diff(rows, all) : all;
      // What is written is the union's rows that differ from what is stored:
      // every change untold before it is in them or stored already. Until the
      // write is stored they are the untold changes, so that a page going away
      // meanwhile journals them, and not every row of the tree (the next page
      // would put back the tree as this tab had it over what another tab
      // wrote since: Dec 5, a message lost that way).
      this.#untold = [changes];
      return {
        meta: { ...meta, root: all.root, activeBranch: all.activeBranch },
        changes,
        stored: 1,
      };
    }, this.#base);
    return out === null ? null : { rev, changes: out.changes, stored: out.stored, meta: storedMeta };
  }

  // An import's rows, a part at a time (takeChanges({ limit })), each part one
  // transaction: the first feed packed; the meta says importing until the last.
  _feed() {
    let done;
    this.#feeding = new Promise((resolve) => { done = resolve; });
    const feeding = this.#feeding;
    const run = this.#store._queue(async () => {
      let stored = false;
      try {
        await new Promise((resolve) => setTimeout(resolve, 0)); // not in the task that made the tree
        const long = this.#tree.pathLength() > OWN_FROM;
        // A long chat's after the collection of what the tree's load left
        // (the module's tidy, in idle slices): begun beside the feed, its
        // mark ran inside one of the feed's calls (140 ms at 200k messages).
        // A short one's at once: each of an export's 2,001 chats waited for
        // the module to be quiet for a quarter of a second while the next
        // ones were read and loaded (the import's page idle 22 s of 30).
        if (long) await settled();
        let packed = true;
        // The path's last nodes keep records of their own beside their packs:
        // an open reads them first (store.tail), a get each, where a pack of
        // 200 rows each would be read (at 200k messages 61 packs, ~0.4 s).
        // A short chat's are not: a record each cost IndexedDB more than the
        // rest of the import (a 2,001-chat export: 184k records, not 3k).
        const own = new Set(long ? this.#tree.pathWindow(-TAIL_OWN).ids : []);
        for (;;) {
          const c = this.#tree.takeChanges({ limit: FEED_PART });
          this.#taken = this.#tree.version;
          if (!c.all && !c.more && c.nodes.length === 0 && c.branches.length === 0) break;
          this.meta.root = c.root;
          this.meta.activeBranch = c.activeBranch;
          const meta = { ...this.meta, rev: 1, ...(c.more ? { importing: Date.now() } : {}) };
          try {
            await this.#store._writePart(meta, c, { packed, own });
          } catch (e) {
            // The part is not stored (storage full): the next write takes it
            // again with every row after it, in one transaction that also
            // ends the import (its meta loses the mark). With no part stored,
            // that write is the conversation's first.
            this.#untold.push(c);
            if (!stored) this._rev = this.meta.rev = 0;
            this.#failed = e; // saved() rejects with it until a write stores the part (it resolved: an import with { open: false } took it for stored)
            throw e;
          }
          stored = true;
          this.#base = meta;
          this.timings.parts = (this.timings.parts ?? 0) + 1;
          if (!c.more) packed = false;
        }
      } finally {
        this.#feeding = null;
        done();
      }
      // Another tab lists it from its meta. It read every record of the list
      // again for each chat (list: true), so a tab open beside an import of
      // thousands of chats did work that grew with the square of their count.
      if (stored) this.#store._listed(this.#base); // its root, known once stored (Dec 7, night: listed null until a reload)
      this.#store._post(stored ? { id: this.id, rev: this.#base.rev, meta: { ...this.#base } } : { list: true });
    });
    run.catch((e) => this.#emit({ kind: "error", error: e }));
    return feeding;
  }

  // ---- tab sync ----

  _scheduled() { return !!(this.#catchUp || this.#running); }

  _schedule(ms = CATCH_UP_MS) {
    if (this.#closing) return;
    clearTimeout(this.#catchUp);
    this.#catchUp = setTimeout(() => {
      this.#catchUp = 0;
      if (this.#running) {
        this.#running.then(() => this._schedule());
        return;
      }
      this.#running = this.#reload()
        .catch((e) => console.warn(`sessiontree/idb: could not read another tab's changes to ${this.id}: ${e.message}`))
        .finally(() => { this.#running = null; });
    }, ms);
  }

  /** Applies another tab's delta in place when it applies to what this tab holds; says whether it did. */
  _apply(rev, prev, changes, meta) {
    if (!this.#clean() || this._scheduled() || this._rev !== prev) return false;
    const tree = this.#tree;
    try {
      const before = place(tree);
      tree.applyChanges(changes);
      this._rev = rev;
      if (meta) this.#foldIn({ ...meta, rev });
      this.meta.rev = rev;
      this.#store.stats.applied++;
      keepPlace(tree, before);
      tree.takeChanges(); // the applied rows are stored already, and this tab's place is its own
      this.#taken = tree.version;
      this.#emit({ kind: "applied", before });
      return true;
    } catch (err) {
      if (err?.code !== "conflict") console.warn(`sessiontree/idb: another tab's changes to ${this.id} did not apply (${err?.message}); reading them from storage`);
      return false;
    }
  }

  async #reload() {
    if (this.#closing) return;
    if (!this.#clean()) {
      this._schedule(250); // a change of this tab is being written (it merges if need be): look again after
      return;
    }
    const stored = await this.#store._records().meta(this.id);
    // A close meanwhile may have freed the tree (it waits for writes, not for this read).
    if (this.#closing || !stored || (stored.rev ?? 0) === this._rev) return;
    const tree = this.#tree;
    const version = tree.version;
    const got = await this.#store._reread(this.id).catch(() => null);
    if (!got) return;
    if (this.#closing || this.#tree !== tree || tree.version !== version || !this.#clean() || got.rev <= this._rev) {
      got.tree.free();
      if (!this.#closing && got.rev > this._rev) this._schedule(250);
      return;
    }
    const before = place(tree);
    if (keepPlace(got.tree, before)) got.tree.takeChanges(); // this tab's place, not a change to store
    this._rev = got.rev;
    this.#foldIn({ ...stored, rev: got.rev });
    this.meta.rev = got.rev;
    this.#store.stats.reloads++;
    this.#tree = got.tree;
    this.#taken = got.tree.version;
    this.#watch();
    this.#emit({ kind: "reloaded", before, previous: tree });
    tree.free();
  }

  /**
   * The conversation was deleted: nothing more of it is written or journaled.
   * Deleted elsewhere (another tab, or found gone at a write), its listeners
   * hear an event of kind "deleted"; its tree stays usable until closed.
   */
  _deleted({ elsewhere = false } = {}) {
    if (this.#deleted) return;
    this.#deleted = true;
    this.#untold = [];
    this.#replayed = [];
    if (this.#journaled) this.#unjournal();
    if (elsewhere && !this.#closing) this.#emit({ kind: "deleted" });
  }

  // ---- the journal: what a page going away had not yet stored ----

  #journalKey() { return journalKey(this.#store.name, this.id, this.#store._tab); }

  /** Puts what is not yet stored in localStorage, synchronously (the store's journal()). */
  _journal() {
    if (this.#deleted || this.#feeding || typeof localStorage === "undefined") return;
    if (this.#tree.version !== this.#taken) {
      this.#untold.push(this.#tree.takeChanges());
      this.#taken = this.#tree.version;
      // Still written to IndexedDB as usual when the page stays (hidden, not gone).
      if (!this.#closing) this.save().catch((e) => this.#emit({ kind: "error", error: e }));
    }
    if (this.#untold.length === 0) return;
    const changes = joinChanges(this.#untold);
    if (changes.nodes.length + changes.branches.length > JOURNAL_ROWS) return;
    try {
      localStorage.setItem(this.#journalKey(), JSON.stringify({ at: Date.now(), rev: this._rev, changes }));
      this.#journaled = true;
    } catch {
      // localStorage full or refused: the write in flight is all there is.
    }
  }

  // #unjournal removes this tab's journal, and the other pages' journals this
  // one replayed (now stored), each only while it still holds what was
  // replayed: a live tab that journaled again since keeps its newer one.
  #unjournal() {
    this.#journaled = false;
    try {
      localStorage.removeItem(this.#journalKey());
      for (const { key, text } of this.#replayed) if (localStorage.getItem(key) === text) localStorage.removeItem(key);
    } catch {
      // nothing to remove
    }
    this.#replayed = [];
  }

  /**
   * Applies the journals pages going away left for this conversation, oldest
   * first (one a tab: two tabs that went at once each left theirs; their
   * changes after what is stored, or some of what is stored already: rows
   * applied twice are the same rows) and writes them. A journal that no
   * longer applies (another tab changed the same records since) is kept
   * under a key of its own and said on the console, never dropped.
   */
  _replay() {
    if (typeof localStorage === "undefined") return this;
    const found = [];
    try {
      for (const key of journalKeys(this.#store.name, this.id)) {
        const text = localStorage.getItem(key);
        if (text === null) continue;
        let parsed = null;
        try {
          parsed = JSON.parse(text);
        } catch {
          // said below, as a journal that does not apply
        }
        found.push({ key, text, parsed, at: parsed?.at ?? 0 });
      }
    } catch {
      return this;
    }
    found.sort((a, b) => a.at - b.at);
    for (const { key, text, parsed } of found) {
      try {
        if (parsed === null) throw new Error("it is not JSON");
        applyJournal(this.#tree, parsed.changes);
        this.#replayed.push({ key, text });
        this.#store.stats.replayed++;
      } catch (err) {
        try {
          localStorage.setItem(`${key}:unapplied:${Date.now()}`, text);
          localStorage.removeItem(key);
        } catch {
          // left where it is
        }
        console.warn(`sessiontree/idb: the changes to ${this.id} a page left unsaved did not apply (${err?.message}); they are kept in localStorage under ${key}:unapplied`);
      }
    }
    if (this.#replayed.length) {
      this.#journaled = true;
      this.save().catch((e) => this.#emit({ kind: "error", error: e }));
    }
    return this;
  }

  close() {
    if (this.#closing) return this.#closing === "closing" ? Promise.resolve() : this.#closing;
    if (--this._refs > 0) return Promise.resolve();
    return this._close();
  }

  _close() {
    if (this.#closing) return this.#closing === "closing" ? Promise.resolve() : this.#closing;
    this.#closing = "closing";
    // A save scheduled by a change stored already (another tab's, applied
    // in place) has nothing to write, and must not come after the free.
    clearTimeout(this.#saveTimer);
    this.#saveTimer = 0;
    // A write in flight (or one that failed) holds changes not yet stored:
    // the tree stays until a write after it has stored them, or it would be
    // freed under a write that must merge first, and they would be lost.
    const pending = this.#tree.version !== this.#taken || this.#writing > 0 || this.#untold.length > 0;
    const last = this.#deleted || !pending ? this.#feeding : this.save();
    this.#closing = Promise.resolve(last).catch((err) => this.#unsavedAtClose(err)).then(() => this.#feeding).then(() => {
      clearTimeout(this.#catchUp);
      this.#off?.();
      this.#listeners.clear();
      this.#store._unhold(this);
      this.#tree.free();
    });
    this.#store._closing(this.id, this.#closing);
    return this.#closing;
  }

  // #unsavedAtClose keeps what the close's last save could not store (storage
  // full, the merge module not loaded, the database closed under it): it is
  // journaled, so that the next open of the conversation, in any tab, writes
  // it, and the listeners hear the error before they go (close resolves: the
  // tree is freed all the same).
  #unsavedAtClose(err) {
    this._journal();
    const kept = this.#journaled;
    this.#emit({ kind: "error", error: err, journaled: kept });
    console.warn(`sessiontree/idb: the last save of ${this.id} before its close failed (${err?.message}); ${kept ? "its changes are journaled in localStorage and written at its next open" : "its changes could not be journaled either (too many rows, or localStorage refused them)"}`);
  }
}

// ---- an import's check, in a worker of its own --------------------------------------

/**
 * A sessiontree/worker with the interchange module, for an import read off the
 * page ({ st, readAhead }); null when none could start (no worker, or a module
 * not found where sessiontree.js is): the page reads the file itself then.
 */
async function importReader() {
  if (typeof Worker !== "function") return null;
  let st;
  try {
    const { connect, readAhead } = await import("./worker.js");
    st = await connect();
    await st.initInterchange();
    return { st, readAhead };
  } catch {
    st?.close();
    return null;
  }
}

/**
 * The structural problems of a .tree.json file (validate), read and checked in
 * a sessiontree/worker started for it and stopped once it answers; null when
 * no worker could start. Rejects as the load does for a file that does not read.
 */
async function checkInWorker(file, timings) {
  if (typeof Worker !== "function") return null;
  let st;
  try {
    const { connect } = await import("./worker.js");
    st = await connect();
  } catch {
    return null;
  }
  try {
    const t = await st.SessionTree.loadFrom(file);
    const problems = await t.validate();
    timings.checkMemory = (await st.memoryUsage()).main; // the checker's peak: it is stopped next
    return problems;
  } finally {
    st.close();
  }
}
