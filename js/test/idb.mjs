// sessiontree/idb in headless Chromium, through its public API only: an import's
// rows written in parts and packed read back exactly as rows written one record
// a row; a node's own record wins over its packed copy and a removed node stays
// removed; the tail and the search read packs; a version-1 record is upgraded; an
// interrupted import is removed and one under way elsewhere kept; two tabs stay
// in sync by deltas (no merge module), merge with readable names only when they
// diverged, and see each other's list.
//   node js/test/idb.mjs   (after make build; IDB_STEP=text runs the steps whose name has it)
import assert from "node:assert/strict";
import { serveJS, launch, storeTab } from "./chromium.mjs";

const { server, base } = await serveJS();
const chrome = await launch("idb");
const errors = [];
let failed = false;
const tab = () => storeTab(chrome.browser, base, errors);
const only = process.env.IDB_STEP; // runs only the steps whose name contains it
const step = async (name, fn) => {
  if (only && !name.includes(only)) return;
  const t0 = performance.now();
  await fn();
  console.log(`ok   ${name} (${Math.round(performance.now() - t0)} ms)`);
};

try {
  const page = await tab();

  await step("an import written in parts, packed, reads back as the tree; later records win over packs; tail and search read packs", async () => {
    const r = await page.evaluate(async () => {
      const { SessionTree } = window.st;
      const { openStore, PACK_ROWS } = window.idb;
      const store = await openStore({ name: "packs" });
      const msgs = Array.from({ length: 5 * PACK_ROWS + 37 }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: `turn ${i} needle${i}` }));
      const t = SessionTree.fromLinear(msgs, 1);
      t.edit(t.activePath()[10], { role: "user", content: "another version" }, 2);
      t.switchBranch("main");
      const file = t.save();
      const out = {};
      const packed = await store.create(SessionTree.load(file), { id: "packed", title: "p", createdAt: 1 }, { inParts: true, autosave: false });
      out.listedWhileImporting = store.conversations.some((c) => c.id === "packed");
      await packed.saved();
      const plain = await store.create(SessionTree.load(file), { id: "plain", title: "q", createdAt: 0 });
      await plain.saved();
      const db = await new Promise((res) => { const o = indexedDB.open("packs"); o.onsuccess = () => res(o.result); });
      const keys = await new Promise((res) => { const q = db.transaction("rows").objectStore("rows").getAllKeys(IDBKeyRange.bound(["packed", "p"], ["packed", "p", []])); q.onsuccess = () => res(q.result); });
      const own = await new Promise((res) => { const q = db.transaction("rows").objectStore("rows").getAllKeys(IDBKeyRange.bound(["packed", "n"], ["packed", "n", []])); q.onsuccess = () => res(q.result); });
      const metaRec = await new Promise((res) => { const q = db.transaction("meta").objectStore("meta").get("packed"); q.onsuccess = () => res(q.result); });
      out.packs = keys.length;
      out.own = own.length;
      // A short chat's import: its tail read from its pack, no record of its own
      // (a record a message was most of a whole export's import).
      const short = await store.create(SessionTree.fromLinear(msgs.slice(0, 150), 1), { id: "short", title: "s", createdAt: 2 }, { inParts: true, autosave: false });
      await short.saved();
      const shortTail = await store.tail("short", 20);
      out.shortTail = JSON.stringify(shortTail.nodes.map((n) => n.id)) === JSON.stringify(short.tree.activePath().slice(-20));
      await short.close();
      const count = (lo, hi) => new Promise((res) => { const q = db.transaction("rows").objectStore("rows").count(IDBKeyRange.bound(lo, hi)); q.onsuccess = () => res(q.result); });
      out.shortRecords = [await count(["short", "p"], ["short", "p", []]), await count(["short", "n"], ["short", "n", []])];
      await store.delete("short");
      db.close();
      out.importingLeft = "importing" in metaRec;
      out.rev = metaRec.rev;
      const fileOf = async (id) => SessionTree.fileFromRows(await store.rows(id));
      out.sameAsPlain = (await fileOf("packed")) === (await fileOf("plain"));
      out.sameAsTree = (await fileOf("packed")) === file;
      // Later changes (autosave off: saved by hand): a send, then a pruned branch.
      packed.tree.append({ role: "user", content: "sent after the import" }, 3);
      packed.tree.deleteBranch("branch-1", 4);
      out.removedCount = packed.tree.prune().length;
      const w = await packed.save();
      out.rowsWritten = w.rows;
      out.afterChanges = (await fileOf("packed")) === packed.tree.save();
      const path = packed.tree.activePath();
      const tail = await store.tail("packed", 20);
      out.tail = JSON.stringify(tail.nodes.map((n) => n.id)) === JSON.stringify(path.slice(-20));
      out.tailLast = tail.nodes.at(-1).node.message.content;
      out.n = PACK_ROWS + 7;
      out.search = (await store.search(`needle${out.n}`, { except: "plain" })).map((h) => `${h.conversation}:${h.message.content}`);
      out.searchRemoved = (await store.search("another version", { except: "plain" })).length;
      await packed.close();
      await plain.close();
      // Reopened (read and joined in the worker, loaded in slices): the same tree.
      const again = await store.open("packed", { onTail: (t) => { out.onTail = t.nodes.length; } });
      out.reopened = again.tree.save() === (await fileOf("packed"));
      out.timings = Object.keys(again.timings).sort().join(",");
      await again.close();
      await store.delete("packed");
      out.afterDelete = [await store.rows("packed"), await store.open("packed"), store.conversations.map((c) => c.id).join(",")];
      await store.close();
      return out;
    });
    assert.ok(r.listedWhileImporting, "the importing tab does not list its import");
    // Packed, but for the path's last 100 nodes, which also have records of their own (an open reads them first).
    // (a path of more than 5 packs' rows; a shorter one's tail is read from its packs).
    assert.ok(r.packs >= 5 && r.own === 100, `an import's rows were not packed, its tail not own records: ${r.packs} packs, ${r.own} own records`);
    assert.deepEqual(r.shortRecords, [1, 0], "a 150-message import is not one pack and no record of its own");
    assert.ok(r.shortTail, "the tail of a short import, read from its pack, is not its path's end");
    assert.equal(r.importingLeft, false, "the import's meta still says importing");
    assert.equal(r.rev, 1);
    assert.ok(r.sameAsPlain, "packed rows read back differently from one record a row");
    assert.ok(r.sameAsTree, "packed rows do not make the tree they were cut from");
    assert.ok(r.removedCount > 0, "the test pruned nothing");
    assert.ok(r.rowsWritten > 0 && r.rowsWritten < 50, `a send and a prune wrote ${r.rowsWritten} rows`);
    assert.ok(r.afterChanges, "after a send and a prune, the rows are not the tree (a packed copy won, or a removed node came back)");
    assert.ok(r.tail, "the tail read from packs is not the active path's end");
    assert.equal(r.tailLast, "sent after the import");
    assert.deepEqual(r.search, [`packed:turn ${r.n} needle${r.n}`]);
    assert.equal(r.searchRemoved, 0, "the search found a removed node in its pack");
    assert.equal(r.onTail, 60);
    assert.ok(r.reopened, "reopened, the tree is not its rows");
    assert.match(r.timings, /join.*load.*open.*read.*tail/);
    assert.deepEqual(r.afterDelete, [null, null, "plain"]);
  });

  // versionOne makes database name as the demo's version 1 left it (meta and
  // "trees" only), with one conversation "v1" titled "old" holding msgs; it
  // resolves to that conversation's file.
  const versionOne = (p, name, msgs) => p.evaluate(async ({ name, msgs }) => {
    const file = window.st.SessionTree.fromLinear(msgs, 1).save();
    await new Promise((res, rej) => {
      const o = indexedDB.open(name, 1);
      o.onupgradeneeded = () => { o.result.createObjectStore("meta", { keyPath: "id" }); o.result.createObjectStore("trees", { keyPath: "id" }); };
      o.onsuccess = () => {
        const tx = o.result.transaction(["meta", "trees"], "readwrite");
        tx.objectStore("meta").put({ id: "v1", title: "old", createdAt: 5, updatedAt: 5 });
        tx.objectStore("trees").put({ id: "v1", json: file });
        tx.oncomplete = () => { o.result.close(); res(); };
        tx.onerror = () => rej(tx.error);
      };
    });
    return file;
  }, { name, msgs });

  await step("a version-1 record (a whole .tree.json) opens and is turned into rows; importFile takes .tree.json and another tool's file", async () => {
    const file = await versionOne(page, "legacy", [{ role: "user", content: "old" }, { role: "assistant", content: "days" }]);
    const r = await page.evaluate(async (file) => {
      const { SessionTree } = window.st;
      const { openStore } = window.idb;
      const t = SessionTree.load(file);
      const store = await openStore({ name: "legacy" });
      const out = { listed: store.conversations.map((c) => c.title) };
      const conv = await store.open("v1");
      out.same = conv.tree.save() === t.save();
      await conv.close();
      out.rows = SessionTree.fileFromRows(await store.rows("v1")) === t.save();
      // importFile: a .tree.json (checked in a worker, written in parts) and an OpenAI messages file.
      const a = await store.importFile(new File([t.save()], "kept.tree.json"), { meta: { source: "file" } });
      await a.conversations[0].conversation.saved();
      out.treeImport = [a.conversations.length, a.conversations[0].conversation.meta.title, a.conversations[0].conversation.meta.source, a.problems.length];
      const b = await store.importFile(new TextEncoder().encode(JSON.stringify([{ role: "user", content: "from openai" }])), { format: "openai", title: "oa" });
      await b.conversations[0].conversation.saved();
      out.otherImport = [b.conversations.length, b.conversations[0].report?.format, b.conversations[0].conversation.tree.pathWindow(0).messages[0].content];
      for (const c of [...a.conversations, ...b.conversations]) await c.conversation.close();
      out.listedAfter = store.conversations.map((c) => c.title).sort().join(",");
      await store.close();
      return out;
    }, file);
    assert.deepEqual(r.listed, ["old"]);
    assert.ok(r.same, "the version-1 conversation did not open as it was");
    assert.ok(r.rows, "the version-1 conversation was not turned into rows");
    assert.deepEqual(r.treeImport, [1, "kept", "file", 0]);
    assert.deepEqual(r.otherImport, [1, "openai", "from openai"]);
    assert.equal(r.listedAfter, "kept,oa,old");
  });

  // Read a conversation at a time since Dec 7 (importEach): the same
  // conversations, titles and order as when importAll held them all.
  await step("importFile of a conversations.json of three chats: three conversations, titled, in the file's order, listed first to last", async () => {
    const r = await page.evaluate(async () => {
      await window.st.initInterchange();
      const store = await window.idb.openStore({ name: "multi", loadMerge: () => window.st.initInterchange() });
      const conv = (i) => ({
        id: `c${i}`, title: `Chat ${i}`, current_node: `m${i}`,
        mapping: { [`m${i}`]: { id: `m${i}`, parent: null, children: [], message: { id: `m${i}`, author: { role: "user" }, content: { content_type: "text", parts: [`hi ${i}`] } } } },
      });
      const got = await store.importFile(new Blob([JSON.stringify([0, 1, 2].map(conv))]), { format: "auto" });
      await Promise.all(got.conversations.map((c) => c.conversation.saved()));
      const out = {
        made: got.conversations.map((c) => [c.conversation.meta.title, c.conversation.tree.pathWindow(0).messages[0].content, c.report.format]),
        // Found by an outside pass (Dec 7, night): the importing tab listed each chat's root as null until a reload.
        rootsListed: got.conversations.map((c) => store.conversations.find((m) => m.id === c.conversation.id)?.root === c.conversation.tree.pathWindow(0, 1).ids[0]),
        listed: (await store.list()).map((m) => m.title),
      };
      // Each stored in a pack of rows, not a record a message (those were most of a whole export's import).
      const db = await new Promise((res) => { const o = indexedDB.open("multi"); o.onsuccess = () => res(o.result); });
      const count = (lo, hi) => new Promise((res) => { const q = db.transaction("rows").objectStore("rows").count(IDBKeyRange.bound(lo, hi)); q.onsuccess = () => res(q.result); });
      out.records = [];
      for (const c of got.conversations) out.records.push([await count([c.conversation.id, "p"], [c.conversation.id, "p", []]), await count([c.conversation.id, "n"], [c.conversation.id, "n", []])]);
      db.close();
      for (const c of got.conversations) await c.conversation.close();
      const one = await store.importFile(new Blob([JSON.stringify([conv(7)])]), { title: "single" });
      out.single = one.conversations.map((c) => c.conversation.meta.title);
      for (const c of one.conversations) await c.conversation.close();
      // meta.id is the first conversation's alone (given to each, the second
      // was refused as stored already, and the rest never read).
      const fixed = await store.importFile(new Blob([JSON.stringify([3, 4, 5].map(conv))]), { meta: { id: "fixed", source: "x" } });
      out.fixed = fixed.conversations.map((c) => [c.conversation.meta.id === "fixed", c.conversation.meta.source, c.conversation.meta.title]);
      for (const c of fixed.conversations) await c.conversation.close();
      // Failing part-way (the id is stored already): rejects, the one it stored before stays listed.
      try {
        await store.importFile(new Blob([JSON.stringify([8, 9].map(conv))]), { meta: { id: "fixed" } });
        out.again = "resolved";
      } catch (e) {
        out.again = e.code;
      }
      out.listedAfter = (await store.list()).map((m) => m.title).filter((t) => /Chat [3-9]/.test(t)).sort();
      await store.close();
      return out;
    });
    assert.deepEqual(r.made, [["Chat 0", "hi 0", "chatgpt"], ["Chat 1", "hi 1", "chatgpt"], ["Chat 2", "hi 2", "chatgpt"]]);
    assert.deepEqual(r.listed, ["Chat 0", "Chat 1", "Chat 2"]);
    assert.deepEqual(r.rootsListed, [true, true, true], "store.conversations has each imported chat's root once it is stored");
    assert.deepEqual(r.records, [[1, 0], [1, 0], [1, 0]], "an export's chats are not stored a pack each");
    assert.deepEqual(r.single, ["single"], "one conversation takes the file's title, not its own");
    assert.deepEqual(r.fixed, [[true, "x", "Chat 3"], [false, "x", "Chat 4"], [false, "x", "Chat 5"]]);
    assert.equal(r.again, "invalid_input");
    assert.deepEqual(r.listedAfter, ["Chat 3", "Chat 4", "Chat 5"]);
  });

  // Dec 7 (evening): on a page, an export of 4 MiB or more was read whole into
  // the page and each conversation imported there, one task each (a 47 MB
  // chat: ~3 s frozen). It is read in a worker of its own now, each chat
  // crossing as its .tree.json; { open: false } closes each once stored.
  await step("importFile of a large export on a page: read in a worker (the page never loads the interchange), the same conversations as read on the page; open: false closes each", async () => {
    const fresh = await tab(); // a page whose interchange module no step loaded
    const r = await fresh.evaluate(async () => {
      const { SessionTree, memoryUsage } = window.st;
      // A ChatGPT conversations.json of 14 chats of 300 messages (~5.8 MB),
      // each with an edited message (two branches) and a title.
      const text = "a line of a long enough reply, with words in it. ".repeat(26);
      const chat = (c) => {
        const mapping = { root: { id: "root", parent: null, children: ["m0"], message: null } };
        let parent = "root";
        for (let i = 0; i < 300; i++) {
          const id = `m${i}`;
          mapping[id] = { id, parent, children: [], message: { id, author: { role: i % 2 ? "assistant" : "user" }, create_time: 1700000000 + c * 1000 + i, content: { content_type: "text", parts: [`chat ${c} turn ${i}: ${text}`] } } };
          mapping[parent].children.push(id);
          parent = id;
        }
        mapping.e = { id: "e", parent: "m9", children: [], message: { id: "e", author: { role: "user" }, create_time: 1700000000 + c * 1000 + 400, content: { content_type: "text", parts: [`chat ${c}: asked again`] } } };
        mapping.m9.children.push("e");
        return { id: `conv${c}`, title: `Chat ${c}`, create_time: 1700000000 + c, current_node: "m299", mapping };
      };
      const bytes = new TextEncoder().encode(JSON.stringify(Array.from({ length: 14 }, (_, c) => chat(c))));
      const out = { size: bytes.length };
      const store = await window.idb.openStore({ name: "export-in-worker" });
      const stored = async (got) => {
        const files = [];
        for (const c of got.conversations) {
          const conv = await store.open(c.meta.id);
          files.push([c.meta.title, conv.tree.pathLength(), conv.tree.branches().length, conv.tree.save()]);
          await conv.close();
        }
        return files;
      };
      const closed = await store.importFile(new File([bytes], "conversations.json"), { open: false });
      out.interchangeOnPage = memoryUsage().interchange;
      out.closed = closed.conversations.map((c) => c.conversation);
      out.reports = closed.conversations.map((c) => c.report.format);
      const fromWorker = await stored(closed);
      // The same file as a Uint8Array, kept open (the default).
      const open = await store.importFile(bytes);
      out.open = open.conversations.map((c) => c.conversation.meta === c.meta && c.conversation.tree.pathLength());
      out.interchangeStill = memoryUsage().interchange;
      for (const c of open.conversations) await c.conversation.close();
      // Read on the page ({ worker: false }): the interchange module loaded here.
      const onPage = await stored(await store.importFile(new Blob([bytes]), { worker: false, open: false }));
      out.interchangeThen = memoryUsage().interchange > 0;
      // And importEach itself, on the page.
      const direct = [];
      for (const c of SessionTree.importEach(bytes)) {
        direct.push([c.title, c.tree.pathLength(), c.tree.branches().length, c.tree.save()]);
        c.tree.free();
      }
      out.sameAsPage = JSON.stringify(fromWorker) === JSON.stringify(onPage);
      out.sameAsImportEach = JSON.stringify(fromWorker) === JSON.stringify(direct);
      out.shape = fromWorker.map(([title, length, branches]) => [title, length, branches]);
      await store.close();
      return out;
    });
    await fresh.close();
    assert.ok(r.size >= 4 << 20, `the export is ${r.size} bytes: under the worker's threshold`);
    assert.equal(r.interchangeOnPage, 0, "the page loaded the interchange module: the export was read on the page");
    assert.equal(r.interchangeStill, 0, "a Uint8Array was read on the page");
    assert.ok(r.interchangeThen, "{ worker: false } read it on the page");
    assert.deepEqual(r.closed, Array(14).fill(null), "open: false returned open conversations");
    assert.deepEqual(r.reports, Array(14).fill("chatgpt"));
    assert.deepEqual(r.open, Array(14).fill(300));
    assert.deepEqual(r.shape, Array.from({ length: 14 }, (_, c) => [`Chat ${c}`, 300, 2]));
    assert.ok(r.sameAsPage, "the conversations read in the worker differ from those read on the page");
    assert.ok(r.sameAsImportEach, "the conversations stored differ from importEach's");
  });

  // Dec 7 (evening): a search read each conversation's records in one request
  // (a 47 MB chat: one task of 81 ms on the page); it reads them a few at a
  // time now. Every hit is still found, across those reads, and a node's own
  // record still wins over its packed copy.
  await step("search reads a conversation's records a few at a time and finds every hit, a node's own record over its pack", async () => {
    const r = await page.evaluate(async () => {
      const { SessionTree, PACK_ROWS } = { ...window.st, ...window.idb };
      const store = await window.idb.openStore({ name: "search-chunks" });
      // 12 packs (more than one read's 8), then edits: their own records.
      const packed = SessionTree.fromLinear(Array.from({ length: 12 * PACK_ROWS }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: `${i % 100 === 7 ? "needle " : ""}turn ${i}` })), 1);
      // A side branch of two needles, packed too, removed after the import.
      packed.branch(packed.activePath()[2000], "side");
      const gone = [packed.append({ role: "user", content: "needle gone 1" }), packed.append({ role: "assistant", content: "needle gone 2" })];
      packed.switchBranch("main");
      const a = await store.create(packed, { id: "packed", title: "a" }, { inParts: true, autosave: false });
      await a.saved();
      // 1,300 node records (more than one read's 512), a needle in every 50th.
      const plain = SessionTree.fromLinear(Array.from({ length: 1300 }, (_, i) => ({ role: "user", content: `${i % 50 === 3 ? "needle " : ""}row ${i}` })), 1);
      const b = await store.create(plain, { id: "plain", title: "b" });
      await b.saved();
      // Removed nodes get own records (null), which win over their packed copies.
      a.tree.deleteBranch("side");
      const pruned = a.tree.prune();
      await a.save();
      const hits = await store.search("needle", { limit: 1000 });
      const out = {
        packed: hits.filter((h) => h.conversation === "packed").length,
        plain: hits.filter((h) => h.conversation === "plain").length,
        pruned: pruned.length === 2 && gone.every((id) => pruned.includes(id)),
        goneFound: hits.some((h) => gone.includes(h.id)),
        limited: (await store.search("needle", { limit: 5 })).length,
      };
      await a.close();
      await b.close();
      await store.close();
      return out;
    });
    assert.equal(r.packed, 24, "hits in the packs");
    assert.equal(r.plain, 26, "hits in the node records");
    assert.ok(r.pruned);
    assert.equal(r.goneFound, false, "a pack's copy of a removed node was found");
    assert.equal(r.limited, 5);
  });

  // The outside pass over those reads: a write between two of them gave a
  // state the conversation never had (a node removed in it still found, the
  // node it added found too). A conversation whose rev moved is read again.
  await step("a search reads each conversation as one state: a write between two of its reads makes it read again", async () => {
    const r = await page.evaluate(async () => {
      const { SessionTree } = window.st;
      const store = await window.idb.openStore({ name: "search-race" });
      const t = SessionTree.fromLinear(Array.from({ length: 1300 }, (_, i) => ({ role: "user", content: `${i === 3 || i === 1200 ? "needle " : ""}row ${i}` })), 1);
      const removed = t.activePath()[3];
      const c = await store.create(t, { id: "plain", title: "plain" });
      await c.saved();
      await c.close();
      const added = "zzzz-added"; // sorts after every record read first
      const before = (await store.search("needle", { limit: 100 })).map((h) => h.id).sort();
      // One write as the store makes them (rows and the meta's rev in one
      // transaction), made as the search's second read is asked for: it
      // commits before that read runs.
      const realGetAll = IDBObjectStore.prototype.getAll;
      let calls = 0;
      IDBObjectStore.prototype.getAll = function (...args) {
        const req = realGetAll.apply(this, args);
        if (++calls === 2) {
          const tx = this.transaction.db.transaction(["rows", "meta"], "readwrite");
          tx.objectStore("rows").put(null, ["plain", "n", removed]);
          tx.objectStore("rows").put(JSON.stringify({ id: added, children: [], message: { role: "user", content: "needle added" }, created_at_ms: 9 }), ["plain", "n", added]);
          const metas = tx.objectStore("meta");
          const m = metas.get("plain");
          m.onsuccess = () => metas.put({ ...m.result, rev: m.result.rev + 1 });
        }
        return req;
      };
      let during;
      try {
        during = (await store.search("needle", { limit: 100 })).map((h) => h.id).sort();
      } finally {
        IDBObjectStore.prototype.getAll = realGetAll;
      }
      const after = (await store.search("needle", { limit: 100 })).map((h) => h.id).sort();
      await store.close();
      return { before, during, after, removed, added, reads: calls };
    });
    assert.equal(r.before.length, 2);
    assert.ok(r.after.includes(r.added) && !r.after.includes(r.removed), JSON.stringify(r.after));
    assert.ok(r.reads > 2, "the conversation was read in one request: the write came after the search");
    assert.deepEqual(r.during, r.after, `a state the conversation never had: ${JSON.stringify(r)}`);
  });

  // The outside pass over that change found: with { open: false } an import
  // storage refused resolved and listed chats no open could find (a failed
  // part of a feed never made saved() reject); an import whose worker stopped
  // answering waited forever, store.close() too; a store in memory read every
  // export on the page.
  await step("importFile { open: false } that storage refuses rejects and lists nothing; store.close() ends an import read in a worker; a store in memory reads an export in a worker", async () => {
    const fresh = await tab();
    const r = await fresh.evaluate(async () => {
      const { SessionTree, memoryUsage } = window.st;
      const chat = (c, n) => {
        const mapping = {};
        let parent = null;
        for (let i = 0; i < n; i++) {
          const id = `m${i}`;
          mapping[id] = { id, parent, children: [], message: { id, author: { role: i % 2 ? "assistant" : "user" }, content: { content_type: "text", parts: [`chat ${c} turn ${i} ` + "words of a reply ".repeat(80)] } } };
          if (parent) mapping[parent].children.push(id);
          parent = id;
        }
        return { id: `conv${c}`, title: `Chat ${c}`, current_node: parent, mapping };
      };
      const file = (chats, n) => new File([JSON.stringify(Array.from({ length: chats }, (_, c) => chat(c, n)))], "conversations.json");
      const out = {};
      // A store in memory: the export is read in a worker too (first: no import on the page yet).
      const inMemory = await window.idb.openStore({ memory: true });
      const got = await inMemory.importFile(file(60, 60), { open: false });
      out.inMemory = got.conversations.length;
      out.interchangeOnPage = memoryUsage().interchange;
      await inMemory.close();
      // Storage full: every write refused (on the page: the store's worker off).
      const full = await window.idb.openStore({ name: "full-disk", worker: false });
      const real = IDBDatabase.prototype.transaction;
      IDBDatabase.prototype.transaction = function (names, mode, ...rest) {
        if (mode === "readwrite") throw new DOMException("the disk is full (a test)", "QuotaExceededError");
        return real.call(this, names, mode, ...rest);
      };
      try {
        out.refused = await full.importFile(file(3, 20), { open: false }).then(() => "resolved", (e) => e.name);
        out.listed = full.conversations.length;
        out.journals = Object.keys(localStorage).filter((k) => k.includes("full-disk")).length;
        const conv = await full.create(SessionTree.fromLinear([{ role: "user", content: "x" }], 1), { title: "p" }, { inParts: true, autosave: false });
        out.savedAfterFailedFeed = await conv.saved().then(() => "resolved", (e) => e.name);
        IDBDatabase.prototype.transaction = real;
        await conv.save(); // the part goes in now
        out.savedAfterAWrite = await conv.saved().then(() => "resolved", (e) => e.name);
        out.stored = (await full.rows(conv.id))?.nodes.length;
        await conv.close();
      } finally {
        IDBDatabase.prototype.transaction = real;
      }
      await full.close();
      // store.close() while an export is read in a worker (60 chats of 60, ~6 MB).
      const closing = await window.idb.openStore({ name: "closed-midway" });
      let first;
      const listed = new Promise((resolve) => { first = resolve; });
      closing.subscribe((list) => list.length && first());
      const importing = closing.importFile(file(60, 60), { open: false }).then(() => "resolved", (e) => e.code ?? e.name);
      await listed;
      await closing.close();
      out.closedMidway = await importing;
      return out;
    });
    const readers = fresh.workers().filter((w) => w.url().endsWith("sessiontree.worker.js")).length;
    await fresh.close();
    assert.equal(r.refused, "QuotaExceededError", "an import storage refused resolved");
    assert.equal(r.listed, 0, "chats storage refused are listed");
    assert.equal(r.journals, 0, "journals of chats that were removed are kept");
    assert.equal(r.savedAfterFailedFeed, "QuotaExceededError", "saved() resolved after its feed's part was refused");
    assert.equal(r.savedAfterAWrite, "resolved");
    assert.equal(r.stored, 1);
    assert.equal(r.closedMidway, "invalid_input", "store.close() did not end the import under way");
    assert.equal(r.inMemory, 60);
    assert.equal(r.interchangeOnPage, 0, "a store in memory read the export on the page");
    assert.equal(readers, 0, "an import's worker is left running");
  });

  await step("a short chat's import is stored without waiting for the module's tidy of a large load (an export's chats each waited for it)", async () => {
    const r = await page.evaluate(async () => {
      const { SessionTree, settled } = window.st;
      const store = await window.idb.openStore({ name: "untidy" });
      // A large load (40 MB into the module) begins a tidy, which waits until
      // the module has been quiet for a quarter of a second, then runs in idle slices.
      const big = SessionTree.fromLinear(Array.from({ length: 30000 }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: `${i} ` + "x".repeat(1300) })), 1);
      const loaded = SessionTree.load(big.save());
      big.free();
      let settledAt = 0;
      const tidy = settled().then(() => { settledAt = performance.now(); });
      const short = await store.create(SessionTree.fromLinear([{ role: "user", content: "hi" }, { role: "assistant", content: "hello" }], 1), { id: "short", title: "s" }, { inParts: true, autosave: false });
      await short.saved();
      const savedAt = performance.now();
      await tidy;
      loaded.free();
      await short.close();
      await store.close();
      return { before: savedAt < settledAt };
    });
    assert.ok(r.before, "the short chat's rows waited for the module's tidy of another tree's load");
  });

  await step("removeInterrupted: an import whose tab closed midway goes, one under way elsewhere stays; neither is listed", async () => {
    const r = await page.evaluate(async () => {
      const { openStore } = window.idb;
      const first = await openStore({ name: "interrupted" });
      await first.close();
      await new Promise((res) => {
        const o = indexedDB.open("interrupted");
        o.onsuccess = () => {
          const tx = o.result.transaction(["meta", "rows"], "readwrite");
          const now = Date.now();
          tx.objectStore("meta").put({ id: "half", title: "half", createdAt: now, updatedAt: now, rev: 1, importing: now - 120000, root: "a", activeBranch: "main" });
          tx.objectStore("meta").put({ id: "live", title: "live", createdAt: now, updatedAt: now, rev: 1, importing: now, root: "a", activeBranch: "main" });
          tx.objectStore("rows").put("{}", ["half", "n", "a"]);
          tx.oncomplete = () => { o.result.close(); res(); };
        };
      });
      const store = await openStore({ name: "interrupted" });
      const gone = (await store.removeInterrupted()).map((m) => m.id);
      const out = { gone, listed: store.conversations.length, half: await store.meta("half"), halfRows: await store.rows("half"), live: (await store.meta("live"))?.title };
      await store.close();
      return out;
    });
    assert.deepEqual(r.gone, ["half"]);
    assert.equal(r.listed, 0);
    assert.equal(r.half, null);
    assert.equal(r.halfRows, null);
    assert.equal(r.live, "live");
  });

  await step("two tabs: a delta applied in place (no merge module), a merge with readable names only when both wrote, lists in sync", async () => {
    const other = await tab();
    const open = (p, id) => p.evaluate(async (id) => {
      window.store ??= await window.idb.openStore({ name: "tabs" });
      window.events = [];
      window.conv = id ? await window.store.open(id) : await window.store.create(undefined, { title: "shared" });
      window.conv.subscribe((e) => window.events.push(e.kind));
      return window.conv.id;
    }, id);
    const id = await open(page);
    await page.evaluate(() => window.conv.saved());
    await open(other, id);
    await page.evaluate(() => { window.conv.tree.append({ role: "user", content: "from tab one" }); });
    await other.waitForFunction(() => window.events.includes("applied"), null, { timeout: 10000 });
    const seen = await other.evaluate(() => ({
      text: window.conv.tree.pathWindow(-1).messages[0]?.content,
      stats: window.store.stats,
      merge: window.st.memoryUsage().interchange > 0,
    }));
    assert.equal(seen.text, "from tab one");
    assert.equal(seen.stats.applied, 1);
    assert.equal(seen.merge, false, "applying a delta loaded the merge module");

    // Both write at once: tab two holds its tree (a reply streaming) while tab one writes, then writes its own.
    await other.evaluate(() => { window.release = window.conv.hold(); });
    await page.evaluate(() => { window.conv.tree.append({ role: "assistant", content: "reply in tab one" }); return window.conv.saved(); });
    await other.evaluate(async () => {
      window.conv.tree.append({ role: "assistant", content: "reply in tab two" });
      window.release();
      await window.conv.save();
    });
    const same = (p) => p.evaluate(() => {
      const f = JSON.parse(window.conv.tree.save());
      delete f.active_branch;
      for (const b of Object.values(f.branches)) delete b.used;
      return JSON.stringify(f);
    });
    await page.waitForFunction((want) => {
      const f = JSON.parse(window.conv.tree.save());
      delete f.active_branch;
      for (const b of Object.values(f.branches)) delete b.used;
      return JSON.stringify(f) === want;
    }, await same(other), { timeout: 10000 }).catch(async () => assert.equal(await same(page), await same(other), "the two tabs did not converge"));
    const after = await Promise.all([page, other].map((p) => p.evaluate(() => ({
      stats: window.store.stats,
      names: window.conv.tree.branches().map((b) => b.name),
      mine: window.conv.tree.pathWindow(-1).messages[0].content,
    }))));
    assert.equal(after[1].stats.merges, 1, `tab two did not merge: ${JSON.stringify(after)}`);
    assert.equal(after[0].stats.merges, 0, "tab one merged although it never diverged");
    for (const a of after) for (const n of a.names) assert.match(n, /^(main|branch-\d+)$/);
    assert.equal(after[0].mine, "reply in tab one", "tab one left its user's work");
    assert.equal(after[1].mine, "reply in tab two", "tab two left its user's work");

    // The list: a conversation made in tab one is listed in tab two.
    await other.evaluate(() => { window.lists = 0; window.store.subscribe(() => window.lists++); });
    await page.evaluate(async () => { const c = await window.store.create(undefined, { title: "second" }); await c.saved(); await c.close(); });
    await other.waitForFunction(() => window.store.conversations.some((c) => c.title === "second"), null, { timeout: 10000 });
    assert.ok(await other.evaluate(() => window.lists > 0));
    // Closing: everything pending written, then a fresh store reads it all.
    await other.evaluate(async () => { window.conv.tree.append({ role: "user", content: "last words" }); await window.store.close(); });
    const reread = await page.evaluate(async (id) => {
      await window.store.close();
      const s = await window.idb.openStore({ name: "tabs" });
      const c = await s.open(id);
      const text = c.tree.save();
      await s.close();
      return [text.includes("last words"), text.includes("reply in tab two"), text.includes("reply in tab one")];
    }, id);
    assert.deepEqual(reread, [true, true, true]);
    await other.close();
  });

  await step("a reload with a write stuck in flight and one queued behind it: the journal brings both back at the next open", async () => {
    const p = await tab();
    const id = await p.evaluate(async () => {
      const store = await window.idb.openStore({ name: "journal" });
      const conv = await store.create(undefined, { title: "j" });
      conv.tree.append({ role: "user", content: "stored before" });
      conv.tree.branch(conv.tree.activePath()[0], "side");
      conv.tree.switchBranch("main");
      await conv.saved();
      // Another connection keeps a write transaction over the store's records
      // busy: the store's next writes wait behind it, as behind a slow disk.
      const db = await new Promise((res) => { const o = indexedDB.open("journal"); o.onsuccess = () => res(o.result); });
      const meta = db.transaction(["rows", "meta"], "readwrite").objectStore("meta");
      const spin = () => { meta.get("none").onsuccess = spin; };
      spin();
      conv.tree.append({ role: "assistant", content: "reply in flight" });
      conv.save().catch(() => {}); // stuck behind the busy transaction
      await new Promise((res) => setTimeout(res, 20));
      conv.tree.append({ role: "user", content: "queued behind it" });
      conv.tree.label(conv.tree.pathWindow(-1).ids[0], "last");
      conv.tree.deleteBranch("side"); // a journaled deletion (its row a tombstone)
      return conv.id;
    });
    await p.reload(); // pagehide: the store journals what is not stored
    const r = await p.evaluate(async (id) => {
      window.st = await import("/sessiontree.js");
      window.idb = await import("/idb.js");
      await window.st.init();
      // One key a tab: sessiontree-journal:[store, conversation, tab].
      const journals = () => Object.keys(localStorage).filter((k) => k.startsWith("sessiontree-journal:[") && k.includes(JSON.stringify(id)));
      const journaled = journals().length === 1;
      const store = await window.idb.openStore({ name: "journal" });
      const conv = await store.open(id);
      const texts = conv.tree.pathWindow(-10).messages.map((m) => m.content);
      const label = conv.tree.node(conv.tree.pathWindow(-1).ids[0]).label;
      await conv.saved();
      const left = journals().length ? journals() : null;
      const replayed = store.stats.replayed;
      await store.close();
      // What the replay wrote is in IndexedDB itself: a store opened anew reads it with no journal.
      const again = await window.idb.openStore({ name: "journal" });
      const c2 = await again.open(id);
      const stored = c2.tree.pathWindow(-10).messages.map((m) => m.content);
      const branches = c2.tree.branches().map((b) => b.name);
      await again.close();
      return { journaled, texts, label, left, replayed, stored, branches };
    }, id);
    assert.ok(r.journaled, "the page went away without a journal");
    assert.deepEqual(r.texts, ["stored before", "reply in flight", "queued behind it"]);
    assert.equal(r.label, "last");
    assert.equal(r.replayed, 1);
    assert.equal(r.left, null, "the journal stayed after its rows were written");
    assert.deepEqual(r.stored, r.texts);
    assert.deepEqual(r.branches, ["main"], "the journaled deletion was not replayed");
    await p.close();
  });

  // The README and js-api.md say sessiontree/idb calls init() itself: open
  // and importFile did, but a first create() on a page that never called it
  // threw "sessiontree is not initialized" (an outside pass, Dec 7).
  await step("a store on a page that never called init(): create, append, open", async () => {
    const fresh = await chrome.browser.newPage();
    fresh.on("pageerror", (e) => errors.push(`page error: ${e.message}`));
    await fresh.goto(`${base}/test/blank.html`);
    const r = await fresh.evaluate(async () => {
      const { openStore } = await import("/idb.js");
      const out = [];
      for (const memory of [false, true]) {
        const store = await openStore({ name: "no-init", memory });
        try {
          const c = await store.create(undefined, { title: "first" });
          c.tree.append({ role: "user", content: "hi" });
          await c.saved();
          await c.close();
          out.push((await store.open(c.id)).tree.pathLength());
        } catch (e) {
          out.push(`${e.code}: ${e.message}`);
        }
        await store.close();
      }
      return out;
    });
    await fresh.close();
    assert.deepEqual(r, [1, 1]);
  });

  await step("a store in memory: the same API, nothing in IndexedDB", async () => {
    const r = await page.evaluate(async () => {
      const store = await window.idb.openStore({ name: "mem", memory: true });
      const c = await store.create(undefined, { title: "m" });
      c.tree.append({ role: "user", content: "in memory" });
      await new Promise((res) => setTimeout(res, 10));
      await c.saved();
      const rows = await store.rows(c.id);
      const hits = await store.search("memory");
      // A save with nothing new writes nothing: the rev stays (it moved before).
      const rev = c.rev;
      const empty = await c.save();
      const revAfter = c.rev;
      await c.close();
      const again = await store.open(c.id);
      const out = { persistent: store.persistent, nodes: rows.nodes.length, hits: hits.length, again: again.tree.pathLength(), dbs: (await indexedDB.databases()).map((d) => d.name).includes("mem"), revKept: rev === revAfter && empty.rows === 0 && (await store.rows(c.id)).rev === rev };
      await store.close();
      return out;
    });
    assert.deepEqual(r, { persistent: false, nodes: 1, hits: 1, again: 1, dbs: false, revKept: true });
  });

  // Before Dec 7 (night) each new conversation sorted the whole list: an
  // import of 8,000 chats spent 13 s of the page's time on it. The list is now
  // kept by inserting; its order must be the one the sort gave.
  await step("store.conversations stays newest first (by createdAt, then id) through creates, ties, renames, createdAt changes and deletes, in the order a reload reads", async () => {
    const r = await page.evaluate(async () => {
      const store = await window.idb.openStore({ name: "listorder" });
      let seed = 7;
      const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
      const model = new Map(); // id → createdAt
      const order = () => [...model].map(([id, createdAt]) => ({ id, createdAt })).sort(window.idb.newestFirst).map((m) => m.id).join(" ");
      const ids = () => store.conversations.map((c) => c.id).join(" ");
      const any = () => [...model.keys()][Math.floor(random() * model.size)];
      const bad = [];
      for (let i = 0; i < 120; i++) {
        const meta = { id: `c${i}`, title: `chat ${i}`, createdAt: Math.floor(random() * 20) };
        if (i % 17 === 3) delete meta.createdAt; // stored as now: the newest
        const c = await store.create(undefined, meta, { autosave: false });
        model.set(c.id, c.meta.createdAt);
        if (i % 9 === 4) {
          const gone = any();
          await store.delete(gone);
          model.delete(gone);
        }
        if (i % 7 === 5) await store.update(any(), { title: `renamed ${i}` });
        if (i % 11 === 6) {
          // Found by an outside pass (Dec 7, night): an entry whose createdAt changed stayed where it was.
          const id = any();
          const createdAt = Math.floor(random() * 25);
          await store.update(id, { createdAt });
          model.set(id, createdAt);
        }
        if (ids() !== order()) bad.push(i);
        await c.close();
      }
      const titles = store.conversations.map((c) => c.title);
      const fresh = await window.idb.openStore({ name: "listorder" });
      const reread = fresh.conversations.map((c) => c.id).join(" ");
      await fresh.close();
      const live = ids();
      await store.close();
      return { bad, count: model.size, renamed: titles.some((t) => t.startsWith("renamed")), same: live === reread };
    });
    assert.deepEqual(r.bad, []);
    assert.equal(r.same, true, "the order a reload reads");
    assert.equal(r.renamed, true);
    assert.ok(r.count > 90, `${r.count} listed`);
  });

  // Before Dec 7 (night) the list compared a meta with rev, root and active
  // branch set to 0 where they stood in it: a root that changed was never
  // heard (an empty chat's first message left the list's root null), and the
  // order of the fields made changes of nothing.
  await step("store.conversations follows a conversation's root (an empty chat's first message), not a write that moved only its rev or active branch", async () => {
    const r = await page.evaluate(async () => {
      const store = await window.idb.openStore({ name: "listroot", memory: true });
      let heard = 0;
      store.subscribe(() => heard++);
      const c = await store.create(undefined, { title: "empty" }, { autosave: false });
      await c.save();
      const afterCreate = { heard, root: store.conversations[0].root ?? null };
      const id = c.tree.append({ role: "user", content: "the first message" });
      await c.save();
      const afterFirst = { heard, root: store.conversations[0].root };
      c.tree.append({ role: "assistant", content: "a reply" });
      await c.save();
      c.tree.branch(id, "other");
      await c.save();
      const afterMore = heard;
      await store.update(c.id, { title: "renamed" });
      const afterRename = heard;
      await c.close();
      await store.close();
      return { afterCreate, afterFirst, root: id, afterMore, afterRename };
    });
    assert.equal(r.afterCreate.root, null);
    assert.equal(r.afterFirst.root, r.root, "the list's root after the first message");
    assert.equal(r.afterFirst.heard, r.afterCreate.heard + 1);
    assert.equal(r.afterMore, r.afterFirst.heard, "a reply and a switch of branch moved only the rev and the active branch");
    assert.equal(r.afterRename, r.afterMore + 1);
  });

  // Before: a plain Error ("this browser has no IndexedDB") or the browser's
  // DOMException, with no code to tell them from a bug and fall back by.
  await step("without IndexedDB, or with it refused, openStore rejects with not_found and says to open { memory: true }", async () => {
    const r = await page.evaluate(async () => {
      const got = [];
      const real = Object.getOwnPropertyDescriptor(globalThis, "indexedDB");
      const attempt = async () => {
        try {
          await window.idb.openStore({ name: "none" });
          got.push("opened");
        } catch (e) {
          got.push(`${e.name} ${e.code}: ${e.message}`);
        }
      };
      try {
        Object.defineProperty(globalThis, "indexedDB", { value: undefined, configurable: true });
        await attempt();
        // A private window's refusal: the open request fails.
        const refusing = { open() { const r = {}; setTimeout(() => { r.error = new DOMException("The user denied permission", "InvalidStateError"); r.onerror?.({ target: r }); }, 0); return r; } };
        Object.defineProperty(globalThis, "indexedDB", { value: refusing, configurable: true });
        await attempt();
      } finally {
        Object.defineProperty(globalThis, "indexedDB", real);
      }
      return got;
    });
    assert.equal(r.length, 2, String(r));
    assert.match(r[0], /^SessionTreeError not_found: openStore: this browser has no IndexedDB; open \{ memory: true \}/);
    assert.match(r[1], /^SessionTreeError not_found: openStore: IndexedDB cannot be opened here \(InvalidStateError: The user denied permission\); open \{ memory: true \}/);
  });

  await step("closed right after another tab's change was applied: nothing reads the freed tree (its save timer is cancelled)", async () => {
    const r = await page.evaluate(async () => {
      const uncaught = [];
      const onError = (e) => uncaught.push(e.message ?? String(e.reason ?? e));
      window.addEventListener("error", onError);
      window.addEventListener("unhandledrejection", onError);
      const store = await window.idb.openStore({ name: "closed-after-apply" });
      try {
        const c = await store.create(undefined, { title: "a" });
        c.tree.append({ role: "user", content: "one" });
        await new Promise((res) => setTimeout(res, 10));
        await c.saved();
        // Another tab's change, applied in place (as tab sync does): the
        // tree changed, and what it changed is stored already.
        const other = c.tree.clone();
        other.takeChanges();
        other.append({ role: "assistant", content: "two" });
        const applied = c._apply(c.rev + 1, c.rev, other.takeChanges());
        other.free();
        await c.close();
        await new Promise((res) => setTimeout(res, 50));
        return { applied, uncaught };
      } finally {
        window.removeEventListener("error", onError);
        window.removeEventListener("unhandledrejection", onError);
        await store.close();
      }
    });
    assert.deepEqual(r, { applied: true, uncaught: [] });
  });

  await step("a tree swapped in whole (a delta of every row) writes every row only at the rev it read: another tab's write meanwhile is merged, not overwritten", async () => {
    const r = await page.evaluate(async () => {
      const { SessionTree } = window.st;
      const a = await window.idb.openStore({ name: "swapped-whole" });
      const b = await window.idb.openStore({ name: "swapped-whole" }); // another tab's
      try {
        const ca = await a.create(undefined, { title: "w" });
        ca.tree.append({ role: "user", content: "first" });
        await ca.saved();
        const cb = await b.open(ca.id);
        // This tab takes in a copy of its tree whole (every row): its next
        // write holds every row.
        const copy = SessionTree.load(ca.tree.save());
        copy.append({ role: "assistant", content: "from the copy" });
        const rows = SessionTree.load(copy.save()).takeChanges();
        copy.free();
        ca.hold(); // nothing written until the other tab has
        ca.tree.applyChanges(rows, { follow: true });
        cb.tree.append({ role: "user", content: "the other tab's" });
        await cb.saved();
        await ca.save();
        await ca.saved();
        await cb.close();
        const fresh = await b.open(ca.id);
        const text = fresh.tree.save();
        await fresh.close();
        await ca.close();
        return ["first", "from the copy", "the other tab's"].map((m) => text.includes(m));
      } finally {
        await a.close();
        await b.close();
      }
    });
    assert.deepEqual(r, [true, true, true]);
  });

  await step("closed while reading another tab's changes: the read stops, nothing reads the freed tree", async () => {
    const r = await page.evaluate(async () => {
      const warned = [];
      const warn = console.warn;
      console.warn = (...a) => { warned.push(a.join(" ")); warn(...a); };
      const store = await window.idb.openStore({ name: "closed-in-catch-up" });
      try {
        const c = await store.create(undefined, { title: "a" });
        c.tree.append({ role: "user", content: "one" });
        await c.saved();
        // As if another tab had written: the catch-up reads the stored meta
        // (an IndexedDB read, tasks long), and the close frees the tree
        // in microtasks meanwhile.
        c._rev -= 1;
        c._schedule(0);
        await new Promise((res) => setTimeout(res, 0)); // the catch-up's timer ran first
        await c.close();
        await new Promise((res) => setTimeout(res, 100));
        return { closed: c.closed, warned };
      } finally {
        console.warn = warn;
        await store.close();
      }
    });
    assert.deepEqual(r, { closed: true, warned: [] });
  });

  await step("records damaged in storage: the open is corrupt and names them, the error's file holds the rest, nothing is written, other conversations open", async () => {
    const r = await page.evaluate(async () => {
      const { SessionTree } = window.st;
      const raw = (db, mode, fn) => new Promise((res, rej) => {
        const tx = db.transaction("rows", mode);
        const out = fn(tx.objectStore("rows"));
        tx.oncomplete = () => res(out);
        tx.onerror = () => rej(tx.error);
      });
      const dump = async (db) => {
        const [k, v] = await raw(db, "readonly", (s) => [s.getAllKeys(), s.getAll()]);
        return JSON.stringify(k.result.map((key, i) => [key, v.result[i]]));
      };
      let store = await window.idb.openStore({ name: "damaged" });
      const c = await store.create(undefined, { title: "d" });
      for (let i = 0; i < 4; i++) c.tree.append({ role: "user", content: `kept ${i}` });
      const other = await store.create(undefined, { title: "o" });
      other.tree.append({ role: "user", content: "other" });
      await c.save(); await other.save();
      const id = c.id, otherId = other.id;
      const ids = c.tree.activePath();
      await c.close(); await other.close(); await store.close();
      // Two records of c become values no version of the store writes.
      const db = await new Promise((res, rej) => { const q = indexedDB.open("damaged"); q.onsuccess = () => res(q.result); q.onerror = () => rej(q.error); });
      await raw(db, "readwrite", (s) => { s.put(42, [id, "n", ids[3]]); s.put({ not: "a row" }, [id, "b", "main"]); });
      const before = await dump(db);
      db.close();
      store = await window.idb.openStore({ name: "damaged" });
      const out = {};
      try {
        await store.open(id);
        out.opened = true;
      } catch (e) {
        out.code = e.code;
        out.message = e.message;
        const kept = SessionTree.load(e.file);
        out.kept = kept.subtree(null).nodes.length;
        kept.free();
      }
      const o = await store.open(otherId);
      out.other = o.tree.linearProjection().map((m) => m.content);
      await o.close();
      await store.close();
      const db2 = await new Promise((res, rej) => { const q = indexedDB.open("damaged"); q.onsuccess = () => res(q.result); q.onerror = () => rej(q.error); });
      out.unchanged = (await dump(db2)) === before;
      db2.close();
      return out;
    });
    assert.equal(r.code, "corrupt");
    assert.match(r.message, /2 of its stored records are not a row \(branch "main", node "[0-9a-z]+"\)/);
    assert.ok(r.kept >= 1, `the error's file holds ${r.kept} nodes`);
    assert.deepEqual(r.other, ["other"]);
    assert.equal(r.unchanged, true, "the failed open wrote to storage");
  });

  await step("a write that must merge first: a close or a page going away meanwhile loses nothing; a save with nothing new writes nothing", async () => {
    // Tab two writes first, so each write of tab one's finds the stored rev moved
    // on and merges the stored copy in before it writes (its hold keeps tab
    // two's delta off, as a reply streaming in would).
    const other = await tab();
    const open = (p, id) => p.evaluate(async (id) => {
      window.fstore ??= await window.idb.openStore({ name: "inflight" });
      window.fconv = id ? await window.fstore.open(id) : await window.fstore.create(undefined, { title: "f" });
      await window.fconv.saved();
      return window.fconv.id;
    }, id);
    const other2 = async (text) => other.evaluate(async (text) => { window.fconv.tree.append({ role: "user", content: text }); await window.fconv.save(); }, text);
    const id = await open(page);
    await open(other, id);

    // Closed while the write is in flight: the tree stays until the merge has written it.
    await page.evaluate(() => { window.release = window.fconv.hold(); });
    await other2("tab two first");
    const closed = await page.evaluate(async () => {
      window.fconv.tree.append({ role: "user", content: "closed midway" });
      const writing = window.fconv.save().then(() => "stored", (e) => `failed: ${e.message}`);
      await new Promise((res) => setTimeout(res, 0)); // its changes taken, the write under way
      await window.fconv.close();
      return writing;
    });
    assert.equal(closed, "stored");

    // The page goes away while the merge's write is in flight: the journal holds
    // the user's message the merge took along (appended as it merged).
    await open(page, id);
    await page.evaluate(() => { window.release = window.fconv.hold(); });
    await other2("tab two again");
    const journaled = await page.evaluate(async (id) => {
      const conv = window.fconv;
      let text = null;
      conv.subscribe((e) => {
        if (e.kind !== "merged") return;
        conv.tree.append({ role: "user", content: "typed as it merged" }); // taken by the merge's write
        queueMicrotask(() => {
          window.fstore.journal(); // as on pagehide, with that write in flight
          text = Object.keys(localStorage).filter((k) => k.startsWith("sessiontree-journal:[") && k.includes(JSON.stringify(id))).map((k) => localStorage.getItem(k)).join("\n");
        });
      });
      conv.tree.append({ role: "assistant", content: "before the merge" });
      await conv.save();
      return text ?? "";
    }, id);
    assert.match(journaled, /typed as it merged/, "the journal left out what the merge's write held");
    assert.match(journaled, /before the merge/);

    // Nothing new: no write, no rev, nothing posted to the other tab.
    const idle = await page.evaluate(async () => {
      window.release();
      const conv = window.fconv;
      await conv.saved();
      const before = { rev: conv.rev, posted: window.fstore.stats.posted };
      const r = await conv.save();
      await conv.save();
      return { before, after: { rev: conv.rev, posted: window.fstore.stats.posted }, rows: r.rows };
    });
    assert.deepEqual(idle.after, idle.before);
    assert.equal(idle.rows, 0);

    const reread = await other.evaluate(async (id) => {
      await window.fstore.close();
      const s = await window.idb.openStore({ name: "inflight" });
      const text = (await s.open(id)).tree.save();
      await s.close();
      return ["closed midway", "typed as it merged", "before the merge", "tab two first", "tab two again"].filter((t) => !text.includes(t));
    }, id);
    assert.deepEqual(reread, [], "messages not stored");
    await page.evaluate(() => window.fstore.close());
    await other.close();
  });

  await step("a change then saved(): stored when it resolves (the autosave waiting for the next task is written at once)", async () => {
    const r = await page.evaluate(async () => {
      const store = await window.idb.openStore({ name: "flush" });
      const conv = await store.create(undefined, { title: "f" });
      await conv.saved();
      const rev = conv.rev;
      conv.tree.append({ role: "user", content: "stored by saved()" });
      await conv.saved();
      const afterConv = conv.rev;
      conv.tree.append({ role: "assistant", content: "stored by the store's saved()" });
      await store.saved();
      const afterStore = conv.rev;
      await store.close();
      return [afterConv - rev, afterStore - afterConv];
    });
    assert.deepEqual(r, [1, 1], "saved() resolved before the change was written");
  });

  await step("a tab's write that must merge goes in at once while another tab keeps writing (the merge and its write are one transaction)", async () => {
    const other = await tab();
    const open = (p, id) => p.evaluate(async (id) => {
      window.bstore ??= await window.idb.openStore({ name: "busy" });
      window.bconv = id ? await window.bstore.open(id) : await window.bstore.create(undefined, { title: "b" });
      window.bconv.tree.append({ role: "user", content: "start" });
      await window.bconv.saved();
      return window.bconv.id;
    }, id);
    const id = await open(page);
    await open(other, id);
    await page.evaluate(async () => {
      await window.st.initInterchange(); // the merge module loaded before, as a tab that merged once has it
      window.bhold = window.bconv.hold();
    });
    // Tab two writes without a pause for 3 s.
    const busy = other.evaluate(async () => {
      const end = performance.now() + 3000;
      let n = 0;
      while (performance.now() < end) {
        window.bconv.tree.append({ role: "user", content: `busy ${n++}` });
        await window.bconv.save();
      }
      return n;
    });
    await new Promise((res) => setTimeout(res, 300));
    const r = await page.evaluate(async () => {
      const conv = window.bconv;
      const merges = window.bstore.stats.merges;
      conv.tree.append({ role: "assistant", content: "mine, among theirs" });
      const t0 = performance.now();
      await conv.save();
      return { ms: performance.now() - t0, rounds: window.bstore.stats.merges - merges };
    });
    const writes = await busy;
    assert.ok(writes > 20, `tab two wrote ${writes} times`);
    assert.equal(r.rounds, 1, `the merge went round ${r.rounds} times while tab two wrote`);
    assert.ok(r.ms < 2500, `the write took ${Math.round(r.ms)} ms: it waited for tab two to stop`);
    await page.evaluate(() => { window.bhold(); return window.bstore.close(); });
    await other.evaluate(() => window.bstore.close());
    await other.close();
  });

  // Storage that refuses writes: every readwrite transaction made while
  // window.refuse(n) counts down is aborted (as a full disk aborts it), the
  // n-th one from now only when n is given as { only: n }.
  const refusing = () => page.evaluate(() => {
    if (window.refuse) return;
    const transaction = IDBDatabase.prototype.transaction;
    let left = 0;
    let only = 0;
    window.refuse = (n) => {
      if (typeof n === "object") { only = n.only; left = 0; } else { left = n; only = 0; }
    };
    IDBDatabase.prototype.transaction = function (stores, mode, ...rest) {
      const tx = transaction.call(this, stores, mode, ...rest);
      if (mode !== "readwrite") return tx;
      let abort = false;
      if (only > 0) abort = --only === 0;
      else if (left > 0) abort = left-- > 0;
      if (abort) queueMicrotask(() => { try { tx.abort(); } catch { /* over */ } });
      return tx;
    };
  });
  const linesOf = (t) => t.branches().map((b) => t.pathOf(b.name).map((id) => t.node(id).message.content).join(" > ")).sort();

  await step("a close whose last save fails (the merge module not loaded, storage refusing the write): its listeners hear it, its changes are journaled, and the next open keeps every line", async () => {
    await refusing();
    const r = await page.evaluate(async (linesOf) => {
      linesOf = eval(linesOf);
      const out = {};
      // Another tab wrote first and the merge module does not load.
      const a = await window.idb.openStore({ name: "closefail", loadMerge: () => Promise.reject(new Error("offline")) });
      const b = await window.idb.openStore({ name: "closefail" });
      const ca = await a.create(undefined, { title: "x" });
      ca.tree.append({ role: "user", content: "stored first" });
      await ca.saved();
      const cb = await b.open(ca.id);
      const release = ca.hold(); // tab two's delta is held off: tab one's write must merge
      cb.tree.append({ role: "user", content: "tab two" });
      await cb.saved();
      const events = [];
      ca.subscribe((e) => e.kind === "error" && events.push({ message: e.error.message, journaled: e.journaled }));
      ca.tree.append({ role: "assistant", content: "typed before the close" });
      release();
      await ca.close();
      out.events = events;
      await cb.close();
      const again = await b.open(ca.id); // tab two's open replays tab one's journal
      await again.saved();
      out.lines = linesOf(again.tree);
      out.problems = again.tree.validate().length;
      await again.close();
      const stored = await b.open(ca.id);
      out.stored = linesOf(stored.tree);
      await stored.close();
      out.journalsLeft = Object.keys(localStorage).filter((k) => k.startsWith("sessiontree-journal:") && k.includes(JSON.stringify(ca.id)));
      // Storage refuses the close's write (an aborted transaction).
      const cc = await a.create(undefined, { title: "y" });
      cc.tree.append({ role: "user", content: "stored" });
      await cc.saved();
      cc.tree.append({ role: "assistant", content: "refused at the close" });
      const refused = [];
      cc.subscribe((e) => e.kind === "error" && refused.push(e.journaled));
      window.refuse(1);
      await cc.close();
      out.refused = refused;
      const reopened = await a.open(cc.id);
      await reopened.saved();
      out.reopened = linesOf(reopened.tree);
      await reopened.close();
      await a.close();
      await b.close();
      return out;
    }, linesOf.toString());
    assert.deepEqual(r.events, [{ message: "offline", journaled: true }]);
    assert.deepEqual(r.lines, ["stored first > tab two", "stored first > typed before the close"], "a line was lost or left on no branch");
    assert.equal(r.problems, 0);
    assert.deepEqual(r.stored, r.lines, "the replay was not stored");
    assert.deepEqual(r.journalsLeft, [], "the journal stayed after it was stored");
    assert.deepEqual(r.refused, [true]);
    assert.deepEqual(r.reopened, ["stored > refused at the close"]);
  });

  await step("a conversation deleted in one tab: a tab that has it open hears \"deleted\" and stores it no more, and one that writes before it heard does not bring it back", async () => {
    const r = await page.evaluate(async () => {
      const out = {};
      const a = await window.idb.openStore({ name: "deleted" });
      const b = await window.idb.openStore({ name: "deleted" });
      const ca = await a.create(undefined, { title: "to delete" });
      ca.tree.append({ role: "user", content: "hi" });
      await ca.saved();
      const cb = await b.open(ca.id);
      const heard = new Promise((res) => cb.subscribe((e) => e.kind === "deleted" && res("deleted")));
      await ca.close();
      await a.delete(ca.id);
      out.heard = await Promise.race([heard, new Promise((res) => setTimeout(() => res("not heard"), 3000))]);
      cb.tree.append({ role: "assistant", content: "typed in tab two" });
      await cb.saved();
      out.stored = await a.meta(ca.id);
      for (let i = 0; i < 100 && b.conversations.some((c) => c.id === ca.id); i++) await new Promise((res) => setTimeout(res, 20)); // tab two's list is read again
      out.listed = [a, b].map((s) => s.conversations.some((c) => c.id === ca.id));
      await cb.close();
      // Deleted with no post (its tab went before it could tell): the write finds it gone.
      const cc = await a.create(undefined, { title: "gone" });
      cc.tree.append({ role: "user", content: "hi" });
      await cc.saved();
      const told = [];
      cc.subscribe((e) => told.push(e.kind));
      const db = await new Promise((res) => { const o = indexedDB.open("deleted"); o.onsuccess = () => res(o.result); });
      const tx = db.transaction(["meta", "rows"], "readwrite");
      tx.objectStore("meta").delete(cc.id);
      tx.objectStore("rows").delete(IDBKeyRange.bound([cc.id], [cc.id, []]));
      await new Promise((res) => { tx.oncomplete = res; });
      db.close();
      cc.tree.append({ role: "assistant", content: "written after it went" });
      await cc.saved();
      out.told = told;
      out.storedAfterWrite = await a.meta(cc.id);
      await cc.close();
      await a.close();
      await b.close();
      return out;
    });
    assert.equal(r.heard, "deleted");
    assert.equal(r.stored, null, "a tab's write brought the deleted conversation back");
    assert.deepEqual(r.listed, [false, false]);
    assert.ok(r.told.includes("deleted"), `events: ${r.told}`);
    assert.equal(r.storedAfterWrite, null, "a write brought the conversation back");
  });

  await step("a rename (store.update, or conv.meta and a save) holds against another tab's writes, and the tab that has it open takes it into conv.meta", async () => {
    const r = await page.evaluate(async () => {
      const out = {};
      const a = await window.idb.openStore({ name: "rename" });
      const b = await window.idb.openStore({ name: "rename" });
      const ca = await a.create(undefined, { title: "Old title", system: "be brief" });
      ca.tree.append({ role: "user", content: "hi" });
      await ca.saved();
      const cb = await b.open(ca.id);
      const metaEvent = new Promise((res) => cb.subscribe((e) => e.kind === "meta" && res(e.meta.title)));
      await a.update(ca.id, { title: "Renamed" });
      out.inA = ca.meta.title;
      out.heard = await Promise.race([metaEvent, new Promise((res) => setTimeout(() => res("not heard"), 3000))]);
      out.inB = cb.meta.title;
      cb.tree.append({ role: "assistant", content: "a reply in tab two" });
      await cb.saved();
      out.afterTabTwoWrote = (await a.meta(ca.id)).title;
      // Set on conv.meta in tab one and saved; tab two, which never heard it, writes.
      const release = cb.hold();
      ca.meta.title = "Set on conv.meta";
      delete ca.meta.system;
      await ca.save();
      cb.tree.append({ role: "user", content: "tab two again" });
      release();
      await cb.saved();
      const m = await a.meta(ca.id);
      out.afterMerge = { title: m.title, system: m.system ?? null };
      out.inBAfter = { title: cb.meta.title, system: cb.meta.system ?? null };
      // A field tab two changed and not yet wrote survives tab one's rename.
      cb.meta.draft = "tab two's draft";
      await a.update(ca.id, { title: "Third" });
      await new Promise((res) => setTimeout(res, 200));
      out.draftKept = cb.meta.draft;
      await cb.save();
      const m3 = await a.meta(ca.id);
      out.third = { title: m3.title, draft: m3.draft };
      await a.close();
      await b.close();
      return out;
    });
    assert.equal(r.inA, "Renamed");
    assert.equal(r.heard, "Renamed");
    assert.equal(r.inB, "Renamed");
    assert.equal(r.afterTabTwoWrote, "Renamed", "tab two's write put the old title back");
    assert.deepEqual(r.afterMerge, { title: "Set on conv.meta", system: null }, "tab two's merge put back what tab one changed");
    assert.deepEqual(r.inBAfter, { title: "Set on conv.meta", system: null });
    assert.equal(r.draftKept, "tab two's draft");
    assert.deepEqual(r.third, { title: "Third", draft: "tab two's draft" });
  });

  await step("a rename while a version-1 record opens (the open writes its rows) waits for nothing that waits for it", async () => {
    await versionOne(page, "legacy-rename", [{ role: "user", content: "old" }]);
    const r = await page.evaluate(async () => {
      const store = await window.idb.openStore({ name: "legacy-rename" });
      const opening = store.open("v1");
      const renaming = store.update("v1", { title: "new" });
      const done = await Promise.race([Promise.all([opening, renaming]).then(() => "done"), new Promise((res) => setTimeout(() => res("stuck"), 5000))]);
      const conv = await Promise.race([opening, null]);
      const out = { done, title: conv?.meta.title, stored: (await store.meta("v1"))?.title };
      await store.close();
      return out;
    });
    assert.deepEqual(r, { done: "done", title: "new", stored: "new" });
  });

  await step("an import's part refused by storage: the next write stores it with every row after it, and the conversation opens whole", async () => {
    await refusing();
    const r = await page.evaluate(async () => {
      const { SessionTree } = window.st;
      const store = await window.idb.openStore({ name: "importfail", worker: false }); // the parts written on this page
      const tree = SessionTree.fromLinear(Array.from({ length: 5000 }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: `turn ${i}` })), 1);
      window.refuse({ only: 2 }); // the second part
      const errors = [];
      const conv = await store.create(tree, { id: "imp", title: "imported" }, { inParts: true });
      conv.subscribe((e) => e.kind === "error" && errors.push(e.error.message));
      await conv.saved().catch(() => {});
      await new Promise((res) => setTimeout(res, 50));
      const importing = !!(await store.meta("imp"))?.importing;
      conv.tree.append({ role: "user", content: "a send after the import" });
      await conv.saved();
      const after = await store.meta("imp");
      await conv.close();
      const again = await store.open("imp");
      const out = { errors: errors.length, importing, importingAfter: !!after.importing, nodes: again.tree.stats().nodes, last: again.tree.pathWindow(-1).messages[0].content, problems: again.tree.validate().length };
      await again.close();
      // The first part refused: nothing stored, the next write is the first.
      window.refuse({ only: 1 });
      const first = await store.create(SessionTree.fromLinear([{ role: "user", content: "one" }, { role: "assistant", content: "two" }], 1), { id: "imp2" }, { inParts: true });
      await first.saved().catch(() => {});
      await new Promise((res) => setTimeout(res, 50));
      first.tree.append({ role: "user", content: "three" });
      await first.saved();
      await first.close();
      const second = await store.open("imp2");
      out.first = second.tree.pathWindow(-5).messages.map((m) => m.content);
      await second.close();
      await store.close();
      return out;
    });
    assert.deepEqual(r, { errors: 1, importing: true, importingAfter: false, nodes: 5001, last: "a send after the import", problems: 0, first: ["one", "two", "three"] });
  });

  await step("two tabs of one conversation going away at once with writes in flight: each keeps its journal, and the next open stores both", async () => {
    const pages = [await tab(), await tab(), await tab()];
    const [p0, p1, p2] = pages;
    const id = await p1.evaluate(async () => {
      window.store = await window.idb.openStore({ name: "twojournals" });
      window.conv = await window.store.create(undefined, { title: "shared" });
      window.conv.tree.append({ role: "user", content: "stored first" });
      await window.conv.saved();
      return window.conv.id;
    });
    await p2.evaluate(async (id) => {
      window.store = await window.idb.openStore({ name: "twojournals" });
      window.conv = await window.store.open(id);
    }, id);
    // A slow disk: another connection keeps a write transaction busy; both tabs' writes wait behind it.
    await p0.evaluate(async () => {
      const db = await new Promise((res) => { const o = indexedDB.open("twojournals"); o.onsuccess = () => res(o.result); });
      const meta = db.transaction(["rows", "meta"], "readwrite").objectStore("meta");
      window.spinning = true;
      const spin = () => { if (window.spinning) meta.get("none").onsuccess = spin; };
      spin();
    });
    for (const [p, text] of [[p1, "from tab one"], [p2, "from tab two"]]) {
      await p.evaluate((text) => { window.conv.tree.append({ role: "user", content: text }); return new Promise((res) => setTimeout(res, 30)); }, text);
    }
    await p1.reload(); // pagehide: each journals what it has not stored
    await p2.reload();
    const journals = await p1.evaluate((id) => Object.keys(localStorage).filter((k) => k.startsWith("sessiontree-journal:[") && k.includes(JSON.stringify(id))).length, id);
    await p0.evaluate(() => { window.spinning = false; });
    const r = await p1.evaluate(async (id) => {
      window.st = await import("/sessiontree.js");
      window.idb = await import("/idb.js");
      await window.st.init();
      const store = await window.idb.openStore({ name: "twojournals" });
      const conv = await store.open(id);
      await conv.saved();
      const t = conv.tree;
      const lines = t.branches().map((b) => t.pathOf(b.name).map((n) => t.node(n).message.content).join(" > ")).sort();
      await store.close();
      const left = Object.keys(localStorage).filter((k) => k.startsWith("sessiontree-journal:") && k.includes(JSON.stringify(id)));
      return { lines, left };
    }, id);
    assert.equal(journals, 2, "one tab's journal took the other's place");
    assert.deepEqual(r.lines, ["stored first > from tab one", "stored first > from tab two"]);
    assert.deepEqual(r.left, []);
    for (const p of pages) await p.close();
  });

  await step("arguments are checked with sentences", async () => {
    const r = await page.evaluate(async () => {
      const msgs = [];
      const store = await window.idb.openStore({ name: "args", memory: true });
      for (const f of [() => window.idb.openStore({ nmae: "x" }), () => store.open(""), () => store.create({}), () => store.search("")]) {
        try { await f(); msgs.push("no error"); } catch (e) { msgs.push(`${e.code}: ${e.message}`); }
      }
      return msgs;
    });
    assert.deepEqual(r, [
      'invalid_input: openStore has no option "nmae"',
      'invalid_input: "id" must be a non-empty string',
      'invalid_input: "tree" must be a SessionTree (or undefined for an empty one)',
      'invalid_input: "query" must be a non-empty string',
    ]);
  });

  await step("every method's bad arguments are invalid_input, never IndexedDB's DataError or a TypeError (Dec 6 (night)); a closed store refuses subscribe", async () => {
    const r = await page.evaluate(async () => {
      const store = await window.idb.openStore({ name: "args-idb" });
      const out = [];
      const calls = {
        "meta(null)": () => store.meta(null), "meta({})": () => store.meta({}), "rows()": () => store.rows(), "tail(null)": () => store.tail(null),
        "delete()": () => store.delete(), "delete({})": () => store.delete({}), "update(null)": () => store.update(null, { title: "x" }),
        "search options null": () => store.search("x", null), "removeInterrupted(null)": () => store.removeInterrupted(null),
        "create options null": () => store.create(undefined, {}, null),
      };
      for (const [name, f] of Object.entries(calls)) {
        try { await f(); out.push(`${name}: no error`); } catch (e) { out.push(`${name}: ${e?.name} ${e?.code}`); }
      }
      await store.close();
      try { store.subscribe(() => {}); out.push("subscribe after close: taken"); } catch (e) { out.push(`subscribe after close: ${e?.code}`); }
      return out;
    });
    assert.deepEqual(r.filter((x) => !x.endsWith("SessionTreeError invalid_input") && !x.endsWith(": invalid_input")), []);
  });

  await step("an open or a create that ends after the store began to close is refused, and two creates of one id at once make one conversation (Dec 6 (night))", async () => {
    const r = await page.evaluate(async () => {
      const store = await window.idb.openStore({ name: "closing-race" });
      const c = await store.create(undefined, { title: "r" });
      c.tree.append({ role: "user", content: "m1" });
      await c.close();
      const opening = store.open(c.id); // waits for the conversation's close, then the store is closing
      const closing = store.close();
      const out = {};
      out.open = await opening.then((conv) => (conv ? `a conversation, closed: ${conv.closed}` : "null"), (e) => e.code);
      await closing;
      const again = await window.idb.openStore({ name: "closing-race" });
      const both = await Promise.allSettled([again.create(undefined, { id: "dup", title: "A" }), again.create(undefined, { id: "dup", title: "B" })]);
      out.creates = both.map((x) => (x.status === "fulfilled" ? "made" : x.reason.code));
      const made = both.find((x) => x.status === "fulfilled").value;
      await made.saved();
      out.title = (await again.meta("dup")).title;
      await again.close();
      return out;
    });
    assert.equal(r.open, "invalid_input", "an open during the store's close handed out a conversation of a closed store");
    assert.deepEqual(r.creates, ["made", "invalid_input"]);
    assert.equal(r.title, "A");
  });

  await step("saved() rejects with the error of a write storage refused, and resolves once a later write stored the change (Dec 6 (night): it resolved, and the change was taken for stored)", async () => {
    const r = await page.evaluate(async () => {
      const store = await window.idb.openStore({ name: "refused-write" });
      const conv = await store.create(undefined, { title: "q" });
      await conv.saved();
      const real = IDBDatabase.prototype.transaction;
      IDBDatabase.prototype.transaction = function (names, mode, ...rest) {
        if (mode === "readwrite") throw new DOMException("the disk is full (a test)", "QuotaExceededError");
        return real.call(this, names, mode, ...rest);
      };
      const out = {};
      const errors = [];
      conv.subscribe((e) => e.kind === "error" && errors.push(e.error?.name));
      try {
        conv.tree.append({ role: "user", content: "kept all the same" });
        out.refused = await conv.saved().then(() => "resolved", (e) => e.name);
      } finally {
        IDBDatabase.prototype.transaction = real;
      }
      out.events = errors;
      out.later = await conv.saved().then(() => "resolved", (e) => e.name);
      await conv.save();
      out.after = await conv.saved().then(() => "resolved", (e) => e.name);
      const id = conv.id;
      await conv.close();
      const c = await store.open(id);
      out.stored = c.tree.pathWindow(-1).messages[0].content;
      await store.close();
      return out;
    });
    assert.equal(r.refused, "QuotaExceededError");
    assert.equal(r.later, "QuotaExceededError", "saved() took the failed write for done before any write stored it");
    assert.equal(r.after, "resolved");
    assert.equal(r.stored, "kept all the same");
  });

  await step("a meta IndexedDB cannot store (a URL): refused with invalid_input at the call (import, create, update), nothing stored, the store's worker stops when idle, and the close is clean", async () => {
    const r = await page.evaluate(async () => {
      // The workers the page starts, and whether each was stopped.
      const PageWorker = window.Worker;
      window.started = [];
      window.Worker = class extends PageWorker {
        constructor(url, options) {
          super(url, options);
          window.started.push(this);
          this.url = String(url);
        }
        terminate() {
          this.stopped = true;
          super.terminate();
        }
      };
      const { SessionTree } = window.st;
      const store = await window.idb.openStore({ name: "unsendable" });
      const tree = () => SessionTree.fromLinear([{ role: "user", content: "hi" }], 1);
      const link = new URL("https://example.com/");
      const codes = [];
      const code = async (f) => {
        try {
          await f();
          codes.push("taken");
        } catch (e) {
          codes.push(`${e?.name} ${e?.code}`);
        }
      };
      await code(() => store.importFile(new Blob([tree().save()]), { meta: { link } }));
      await code(() => store.create(tree(), { title: "a", link }));
      const ok = await store.create(tree(), { title: "kept" });
      await code(() => store.update(ok.id, { link }));
      const listed = (await store.list()).map((m) => `${m.title}${m.link ? " +link" : ""}`);
      await ok.close();
      await store.close();
      window.Worker = PageWorker;
      return { codes, listed };
    });
    await new Promise((res) => setTimeout(res, 6500)); // WORKER_IDLE_MS is 5 s
    const running = await page.evaluate(() => window.started.filter((w) => w.url.includes("idb.worker.js") && !w.stopped).length);
    assert.equal(running, 0, "the store's worker still runs after 6.5 s idle");
    assert.deepEqual(r.codes, Array(3).fill("SessionTreeError invalid_input"));
    assert.deepEqual(r.listed, ["kept"]);
  });

  assert.deepEqual(errors, [], "errors on the pages");
  console.log("sessiontree/idb: all passed");
} catch (e) {
  failed = true;
  console.error("FAIL", e?.stack ?? e, errors);
} finally {
  await chrome.close();
  server.close();
}
process.exit(failed ? 1 : 0);
