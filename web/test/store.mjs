// The demo's IndexedDB store in headless Chromium (web/store.js): an import's
// rows written packed read back exactly as written one record a row; a node's
// own record wins over its packed copy; a removed node stays removed although
// a pack still holds it; the tail and the search read packed rows too.
//   node web/test/store.mjs   (after make web-dist)
import assert from "node:assert/strict";
import { serveDist, launchChromium, openPage } from "./start.mjs";

const { server, base } = await serveDist();
const chrome = await launchChromium("store");
const errors = [];
try {
  const page = await openPage(chrome.browser, base, errors);
  const r = await page.evaluate(async () => {
    const { Store, putRows, done, PACK_ROWS } = await import("./store.js");
    const { init, SessionTree } = await import("./sessiontree.js");
    await init();
    const store = await Store.open();
    // A chat with a fork, fed the way an import is: parts of its first feed.
    const msgs = Array.from({ length: 2 * PACK_ROWS + 37 }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: `turn ${i} needle${i}` }));
    const t = SessionTree.fromLinear(msgs, 1);
    t.edit(t.activePath()[10], { role: "user", content: "another version" }, 2);
    t.switchBranch("main");
    const write = async (meta, c, packed) => { const tx = store.db.transaction(["meta", "rows"], "readwrite"); putRows(tx, meta, c, { packed }); await done(tx); };
    const meta = { id: "packed", title: "p", createdAt: 1 };
    const plain = { id: "plain", title: "q", createdAt: 0 };
    for (;;) {
      const c = t.takeChanges({ limit: 300 });
      await write(meta, c, true);
      if (!c.more) break;
    }
    await write(plain, SessionTree.load(t.save()).takeChanges(), false);
    const file = (rows) => SessionTree.fileFromRows(rows);
    const out = { packs: 0 };
    const keys = await new Promise((res) => { const q = store.db.transaction("rows").objectStore("rows").getAllKeys(IDBKeyRange.bound(["packed", "p"], ["packed", "p", []])); q.onsuccess = () => res(q.result); });
    out.packs = keys.length;
    out.sameAsPlain = file(await store.rows("packed")) === file(await store.rows("plain"));
    out.sameAsTree = file(await store.rows("packed")) === t.save();
    // Later changes: a send (own records over packed ones), then a pruned branch.
    t.append({ role: "user", content: "sent after the import" }, 3);
    t.deleteBranch("branch-1", 4);
    const removed = t.prune();
    const c = t.takeChanges();
    out.removedCount = removed.length;
    await write(meta, c, false);
    out.afterChanges = file(await store.rows("packed")) === t.save();
    const tail = await store.tail("packed", 20);
    const path = t.activePath();
    out.tail = JSON.stringify(tail.nodes.map((n) => n.id)) === JSON.stringify(path.slice(-20));
    out.tailLast = tail.nodes.at(-1).node.message.content;
    out.n = PACK_ROWS + 7;
    const hits = await store.searchRows(`needle${out.n}`, "plain");
    out.search = hits.map((h) => h.conv + ":" + h.message.content);
    const gone = await store.searchRows("another version", "plain");
    out.searchRemoved = gone.length;
    await store.remove("packed");
    await store.remove("plain");
    out.afterRemove = await store.rows("packed");
    return out;
  });
  assert.ok(r.packs >= 2, `an import's rows were not packed: ${r.packs} packs`);
  assert.ok(r.sameAsPlain, "packed rows read back differently from one record a row");
  assert.ok(r.sameAsTree, "packed rows do not make the tree they were cut from");
  assert.ok(r.removedCount > 0, "the test pruned nothing");
  assert.ok(r.afterChanges, "after a send and a prune, the rows are not the tree (a packed copy won, or a removed node came back)");
  assert.ok(r.tail, "the tail read from packs is not the active path's end");
  assert.equal(r.tailLast, "sent after the import");
  assert.deepEqual(r.search, [`packed:turn ${r.n} needle${r.n}`]);
  assert.equal(r.searchRemoved, 0, "the search found a removed node in its pack");
  assert.equal(r.afterRemove, null);
  assert.deepEqual(errors, []);
  console.log(`store: ${r.packs} packs; packed = plain rows; own records over packs; removed stays removed; tail and search read packs`);
} finally {
  await chrome.close();
  server.kill();
}
