// Keeps every tab on a conversation in sync without moving whole trees around:
//  - a write is the change feed's rows (a send: a handful of records) plus the
//    conversation's `rev`, bumped in the same transaction, checked against the
//    rev this tab's tree holds: equal, the rows go in; different, another tab
//    wrote in between and the two copies really diverged: only then the stored
//    rows are read, loaded (fromRows) and merged into this tab's tree (t.merge),
//    and the rows where the union differs from the stored ones written;
//  - after a write a tab posts { id, rev, prev, changes } on a BroadcastChannel:
//    the rows it wrote (a delta: a send's handful; left out past MAX_DELTA rows)
//    and the rev they turn prev into. A tab holding that conversation at prev,
//    with nothing of its own waiting to be written, applies them to its live
//    tree (t.applyChanges) and is at rev: no read, no reload, no merge;
//  - a tab that cannot apply a delta (it missed one, has changes of its own in
//    flight, a reply is on its way, or applyChanges finds the copies diverged)
//    catches up the old way: it reloads the conversation once the burst of
//    changes is over (or when it comes back to the foreground if hidden),
//    through the page's open(id) (the worker) when given, else fromRows;
//  - a tab with changes of its own not yet written never reloads: its next write
//    finds the other rev and merges.
// Merge lives in the interchange module, loaded the first time this tab has to
// merge (loadMerge): tabs that take turns never load it.
import { SessionTree } from "./sessiontree.js";
import { MemoryStore, putRows, request } from "./store.js";

const CHANNEL = "sessiontree-demo-sync";
const CATCH_UP_MS = 60; // a behind tab reloads once the other tab's burst is over
const MAX_DELTA = 2000; // rows posted with a write; a bigger write is announced by its rev alone

// DIVERGED is what tryPut answers when the stored rev is not the one expected:
// the transaction was aborted, nothing written.
const DIVERGED = Symbol("another tab wrote first");

/**
 * Wraps the page's store so that every write is checked against the other tabs'
 * and announced to them, and starts listening to them. The page gives:
 *   current(): { id, tree, clean } of the conversation open here (clean: no change
 *     of this tab waits to be written), or null
 *   reloaded(id, tree, rev): the conversation was read again from storage (another
 *     tab changed it): use tree instead of the current one
 *   merged(report, before): a merge changed this tab's tree (rename what it
 *     kept twice, go back to before = { branch, leaf }, redraw)
 *   loadMerge(): loads the interchange module (initInterchange), once
 *   mergeOptions: what t.merge takes (e.g. { freshNames: true, keepPlace: true })
 *   applied(id, before): another tab's delta was applied to this tab's tree,
 *     which was on before = { branch, leaf } (stay on the user's work, redraw)
 *   open(id): optional, resolves to { tree, rev } of the stored conversation
 *     (read off the page's thread) or null; a catch-up uses it before fromRows
 * put(meta, changes, tree) writes changes (tree.takeChanges()) of tree.
 */
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
    else if (old.size) console.warn(`sessiontree: the merged tree lacks ${old.size} stored node(s); they are kept`);
    return out;
  };
  return { all: false, root: all.root, activeBranch: all.activeBranch, branches: pick(stored.branches, all.branches, "name"), nodes: pick(stored.nodes, all.nodes, "id") };
}

export function syncTabs(store, { current, reloaded, merged, loadMerge, mergeOptions, applied = () => {}, open = null }) {
  const channel = typeof BroadcastChannel === "function" ? new BroadcastChannel(CHANNEL) : null;
  const hasIDB = !(store instanceof MemoryStore) && !!store.db;
  const known = new Map(); // conversation id → the rev this tab's tree holds
  const stats = { merges: 0, reloads: 0, posted: 0, applied: 0 };
  let timer = 0;
  // Bumped by every merge: a change feed's rows taken before a merge are stale
  // (a parent's children, a branch's leaf as they were before it) and must not
  // be written over the merged rows.
  let epoch = 0;

  // One readwrite transaction: check the stored rev, write the rows, bump it.
  const tryPut = (meta, changes, expect) => new Promise((resolve, reject) => {
    const tx = store.db.transaction(["meta", "rows", "trees"], "readwrite");
    let rev = 0;
    let diverged = false;
    tx.oncomplete = () => resolve(rev);
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => (diverged ? resolve(DIVERGED) : reject(tx.error ?? new Error("the storage transaction was aborted")));
    const got = tx.objectStore("meta").get(meta.id);
    got.onsuccess = () => {
      const stored = got.result?.rev ?? 0;
      if (expect !== undefined && stored !== expect) {
        diverged = true;
        tx.abort();
        return;
      }
      rev = stored + 1;
      putRows(tx, { ...meta, rev }, changes);
      if (changes.all) tx.objectStore("trees").delete(meta.id);
    };
  });

  // Merges the stored copy into tree and writes the rows where the union differs
  // from what is stored. Returns the rev written.
  // (The feed after a merge in the lean module answers nothing — the merged tree
  // is swapped in — so the rows are compared here, against the stored ones.)
  const mergeAndPut = async (meta, tree) => {
    await loadMerge();
    for (;;) {
      const rows = await store.rows(meta.id);
      if (rows) {
        const theirs = SessionTree.fromRows(rows);
        const before = { branch: tree.activeBranch, leaf: tree.pathWindow(-1).ids[0] ?? null };
        let report;
        try {
          report = tree.merge(theirs, mergeOptions);
        } finally {
          theirs.free();
        }
        epoch++; // rows taken from this tree before now are stale
        stats.merges++;
        if (report.changed) merged(report, before);
      }
      tree.takeChanges(); // what is written next holds it
      const copy = tree.clone();
      let all;
      try {
        all = copy.takeChanges(); // the first call: every row
      } finally {
        copy.free();
      }
      const changes = rows ? diff(rows, all) : all;
      const rev = await tryPut(meta, changes, rows ? rows.rev : undefined);
      if (rev !== DIVERGED) return { rev, changes };
    }
  };

  let running = null; // the catch-up under way: one at a time, the newest rev wins
  const catchUp = async (id) => {
    timer = 0;
    if (running) {
      running.then(() => schedule(id));
      return;
    }
    running = reload(id).finally(() => { running = null; });
    return running;
  };
  const reload = async (id) => {
    const cur = current();
    if (!cur || cur.id !== id) return;
    if (!cur.clean) {
      schedule(id, 250); // a change of this tab is being written (it merges if need be): look again after
      return;
    }
    const stored = await store.meta(id);
    if (!stored || (stored.rev ?? 0) === known.get(id)) return;
    const got = open ? await open(id).catch(() => null) : null;
    if (got) {
      const now = current();
      if (!now || now.id !== id || now.tree !== cur.tree || !now.clean || got.rev <= (known.get(id) ?? 0)) {
        got.tree.free();
        if (now?.id === id && got.rev > (known.get(id) ?? 0)) schedule(id, 250);
        return;
      }
      known.set(id, got.rev);
      stats.reloads++;
      reloaded(id, got.tree, got.rev);
      return;
    }
    const rows = await store.rows(id);
    const now = current();
    if (!rows || !now || now.id !== id) return;
    if (now.tree !== cur.tree || !now.clean) {
      schedule(id, 250);
      return;
    }
    if (rows.rev <= (known.get(id) ?? 0)) return; // this tab holds that already
    const tree = SessionTree.fromRows(rows);
    tree.takeChanges({ stored: true }); // the store holds these rows
    known.set(id, rows.rev);
    stats.reloads++;
    reloaded(id, tree, rows.rev);
  };
  const schedule = (id, ms = CATCH_UP_MS) => {
    clearTimeout(timer);
    timer = setTimeout(() => catchUp(id).catch((e) => console.warn(`sessiontree: could not read another tab's changes to ${id}: ${e.message}`)), ms);
  };

  const wrapped = {
    stats,
    /** Whether another tab's changes are known to be coming (a catch-up is scheduled or running). */
    behind: () => !!(timer || running),
    list: () => store.list(),
    meta: (id) => store.meta(id),
    legacy: (id) => store.legacy(id),
    searchRows: store.searchRows ? (...a) => store.searchRows(...a) : undefined,
    tail: store.tail ? (...a) => store.tail(...a) : undefined,
    async rows(id) {
      const rows = await store.rows(id);
      if (rows) known.set(id, rows.rev); // the page loads them as the tree of id
      return rows;
    },
    /** The page opened conversation id as of rev from rows it read elsewhere (the worker): undefined without IndexedDB. */
    opened: hasIDB ? (id, rev) => { known.set(id, rev); } : undefined,
    remove(id) {
      known.delete(id);
      return store.remove(id);
    },
    /** The merge count: pass it to put with the changes taken at the same time. */
    get epoch() {
      return epoch;
    },
    /**
     * Writes meta and the rows of changes (taken from tree when the merge count
     * was takenAt); merges first when another tab wrote since. Rows taken before
     * a merge are not written: the rows where the tree differs from the stored ones are.
     */
    async put(meta, changes, tree, takenAt) {
      if (!changes || !hasIDB) return store.put(meta, changes);
      let rev = takenAt !== undefined && takenAt !== epoch && !changes.all
        ? DIVERGED
        : await tryPut(meta, changes, changes.all ? undefined : known.get(meta.id));
      let written = changes;
      if (rev === DIVERGED) ({ rev, changes: written } = await mergeAndPut(meta, tree));
      known.set(meta.id, rev);
      stats.posted++;
      // The rows written, as a delta from rev - 1 (a tab at that rev applies them).
      const small = !written.all && written.branches.length + written.nodes.length <= MAX_DELTA;
      channel?.postMessage({ id: meta.id, rev, prev: rev - 1, changes: small ? written : undefined });
      return rev;
    },
  };

  channel?.addEventListener("message", (e) => {
    const { id, rev, prev, changes } = e.data ?? {};
    const cur = current();
    if (!cur || cur.id !== id || rev <= (known.get(id) ?? 0)) return;
    // The delta applies to what this tab holds (it is at prev, nothing of its
    // own waits to be written, no catch-up is under way): apply it in place.
    if (changes && cur.clean && !timer && !running && known.get(id) === prev) {
      try {
        const before = { branch: cur.tree.activeBranch, leaf: cur.tree.pathWindow(-1).ids[0] ?? null };
        cur.tree.applyChanges(changes);
        known.set(id, rev);
        stats.applied++;
        applied(id, before); // the page may move to the branch its user's work is on now
        cur.tree.takeChanges(); // the applied rows are stored already, and this tab's place is its own
        return;
      } catch (err) {
        if (err?.code !== "conflict") console.warn(`sessiontree: another tab's changes to ${id} did not apply (${err?.message}); reading them from storage`);
      }
    }
    if (document.visibilityState === "visible") schedule(id);
  });
  // A post can be missed (a tab frozen, a channel closed): a visible tab also
  // compares the stored rev (one small read) every few seconds.
  if (hasIDB) {
    setInterval(() => {
      const cur = current();
      if (cur && document.visibilityState === "visible" && !timer) {
        store.meta(cur.id).then((m) => m && (m.rev ?? 0) > (known.get(cur.id) ?? 0) && schedule(cur.id)).catch(() => {});
      }
    }, 3000);
  }
  document.addEventListener("visibilitychange", () => {
    const cur = current();
    if (document.visibilityState === "visible" && cur) schedule(cur.id);
  });
  return wrapped;
}
