// Keeps every tab on a conversation in sync, through the library's merge:
//  - live: after a tab stores its tree it posts it on a BroadcastChannel; a tab
//    with the same conversation open merges it in (t.merge) and redraws;
//  - stored: each write to IndexedDB merges the stored tree into the one being
//    written, in one transaction, so two tabs writing at once lose nothing and a
//    tab opened (or reopened) later loads the union;
//  - a tab coming back to the foreground merges what is stored, in case it
//    missed a message while it was frozen.
// Merging is commutative and idempotent, so the echo of a merged tree changes
// nothing and the exchange stops.
//
// Merge lives in the interchange module, which loads on the first merge this
// tab needs (loadMerge): a tab alone on its conversations never loads it. What
// tells is `known`: per conversation, a stored .tree.json that this tab's tree
// holds all of (it read it, wrote it or merged it in). A stored copy equal to
// it holds nothing new, so there is nothing to merge.
import { SessionTree } from "./sessiontree.js";
import { MemoryStore } from "./store.js";

const CHANNEL = "sessiontree-demo-sync";
const DB_NAME = "sessiontree-demo"; // store.js's database: "trees" rows are { id, json }

function request(r) {
  return new Promise((resolve, reject) => {
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error);
  });
}

// NEED_MERGE is what mergePut returns when the stored copy has to be merged and
// the merge module is not loaded yet: the transaction was aborted unwritten.
const NEED_MERGE = Symbol("need the merge module");

/**
 * Wraps the page's store so that every write merges with what is stored and is
 * announced to the other tabs, and starts listening to them.
 *   current(): { id, tree } of the conversation open in this tab, or null
 *   merged(report): called after a merge changed this tab's tree (save and redraw)
 *   loadMerge(): loads the interchange module (initInterchange), once
 */
export function syncTabs(store, { current, merged, loadMerge }) {
  const channel = typeof BroadcastChannel === "function" ? new BroadcastChannel(CHANNEL) : null;
  const hasIDB = typeof indexedDB !== "undefined" && !(store instanceof MemoryStore);
  const known = new Map(); // conversation id → a stored .tree.json this tab's tree holds
  let db = null;
  let mergeReady = false;
  const ready = async () => {
    if (!mergeReady) {
      await loadMerge();
      mergeReady = true;
    }
  };

  // mergeIn merges json, another copy of conversation id, into this tab's tree
  // when that conversation is open, loading the merge module if need be.
  const mergeIn = async (id, json) => {
    let cur = current();
    if (!cur || cur.id !== id || json === null || json === known.get(id)) return;
    if (!mergeReady) {
      try {
        await ready();
      } catch (e) {
        console.warn(`sessiontree: the merge module did not load (${e.message}); another tab's changes to ${id} are not shown`);
        return;
      }
      cur = current();
      if (!cur || cur.id !== id) return;
    }
    let report;
    try {
      report = cur.tree.merge(json);
    } catch (e) {
      console.warn(`sessiontree: could not merge another tab's copy of ${id}: ${e.message}`);
      return;
    }
    known.set(id, json);
    if (report.changed) merged(report);
  };

  // One readwrite transaction: read the stored tree, merge it into ours, write.
  // A transaction cannot wait for the merge module to load: when a merge is
  // needed before it has, it is aborted and NEED_MERGE returned.
  const mergePut = async (meta, json) => {
    db ??= await request(indexedDB.open(DB_NAME));
    const tx = db.transaction(["meta", "trees"], "readwrite");
    let out = json;
    let need = false;
    const trees = tx.objectStore("trees");
    const done = new Promise((resolve, reject) => {
      tx.oncomplete = () => resolve(out);
      tx.onerror = () => reject(tx.error);
      tx.onabort = () => (need ? resolve(NEED_MERGE) : reject(tx.error ?? new Error("the storage transaction was aborted")));
    });
    const got = trees.get(meta.id);
    got.onsuccess = () => {
      const stored = got.result?.json;
      if (stored && stored !== json && stored !== known.get(meta.id)) {
        if (!mergeReady) {
          need = true;
          tx.abort();
          return;
        }
        try {
          out = SessionTree.mergeJSON(json, stored).json;
        } catch (e) {
          console.warn(`sessiontree: the stored copy of ${meta.id} could not be merged (${e.message}); writing this tab's`);
        }
      }
      tx.objectStore("meta").put(meta);
      trees.put({ id: meta.id, json: out });
    };
    return done;
  };

  const wrapped = {
    list: () => store.list(),
    async tree(id) {
      const json = await store.tree(id);
      if (json !== null) known.set(id, json); // the page loads it as the tree of id
      return json;
    },
    remove: (id) => {
      known.delete(id);
      return store.remove(id);
    },
    async put(meta, json) {
      if (json === undefined) return store.put(meta, json);
      let out = json;
      if (hasIDB) {
        out = await mergePut(meta, json);
        if (out === NEED_MERGE) {
          await ready();
          out = await mergePut(meta, json);
        }
      } else {
        await store.put(meta, json);
      }
      channel?.postMessage({ id: meta.id, json: out });
      // The tree that saved json holds it; when the store had edits this tab
      // lacked, it holds out once they are merged in (mergeIn records that).
      if (out === json) known.set(meta.id, out);
      else mergeIn(meta.id, out);
    },
  };
  Object.setPrototypeOf(wrapped, store); // `instanceof` checks on the store keep working

  channel?.addEventListener("message", (e) => mergeIn(e.data?.id, e.data?.json ?? null));
  document.addEventListener("visibilitychange", async () => {
    const cur = current();
    if (document.visibilityState !== "visible" || !cur) return;
    mergeIn(cur.id, await store.tree(cur.id));
  });
  return wrapped;
}
