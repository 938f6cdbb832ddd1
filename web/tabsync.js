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

/** mergeJSON returns the save() of `ours` merged with `theirs` (both .tree.json text). */
function mergeJSON(ours, theirs) {
  const t = SessionTree.load(ours);
  try {
    t.merge(theirs);
    return t.save();
  } finally {
    t.free();
  }
}

/**
 * Wraps the page's store so that every write merges with what is stored and is
 * announced to the other tabs, and starts listening to them.
 *   current(): { id, tree } of the conversation open in this tab, or null
 *   merged(report): called after a merge changed this tab's tree (save and redraw)
 */
export function syncTabs(store, { current, merged }) {
  const channel = typeof BroadcastChannel === "function" ? new BroadcastChannel(CHANNEL) : null;
  const hasIDB = typeof indexedDB !== "undefined" && !(store instanceof MemoryStore);
  let db = null;

  const mergeIn = (id, json) => {
    const cur = current();
    if (!cur || cur.id !== id || json === null) return;
    let report;
    try {
      report = cur.tree.merge(json);
    } catch (e) {
      console.warn(`sessiontree: could not merge another tab's copy of ${id}: ${e.message}`);
      return;
    }
    if (report.changed) merged(report);
  };

  // One readwrite transaction: read the stored tree, merge it into ours, write.
  const mergePut = async (meta, json) => {
    db ??= await request(indexedDB.open(DB_NAME));
    const tx = db.transaction(["meta", "trees"], "readwrite");
    let out = json;
    const trees = tx.objectStore("trees");
    const done = new Promise((resolve, reject) => {
      tx.oncomplete = () => resolve(out);
      tx.onerror = () => reject(tx.error);
      tx.onabort = () => reject(tx.error ?? new Error("the storage transaction was aborted"));
    });
    const got = trees.get(meta.id);
    got.onsuccess = () => {
      const stored = got.result?.json;
      if (stored && stored !== json) {
        try {
          out = mergeJSON(json, stored);
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
    tree: (id) => store.tree(id),
    remove: (id) => store.remove(id),
    async put(meta, json) {
      if (json === undefined) return store.put(meta, json);
      const out = hasIDB ? await mergePut(meta, json) : (await store.put(meta, json), json);
      channel?.postMessage({ id: meta.id, json: out });
      if (out !== json) mergeIn(meta.id, out); // the store had edits this tab lacked
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
