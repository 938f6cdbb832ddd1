// A store of one record per node and per branch (issue 16): takeChanges gives
// the rows to write, fromRows makes the tree again; loadFrom reads bytes,
// Blobs, streams and Responses without a string. Node and Chromium, both flavours.
import { test, assert, mainSource } from "./harness.js";
import { init, initInterchange, SessionTree } from "../sessiontree.js";

await init(mainSource);

const say = (i) => ({ role: i % 2 ? "assistant" : "user", content: `turn ${i} — ✨` });

// store applies a takeChanges answer to a Map store, as IndexedDB would.
function store(db, c) {
  if (c.all) { db.branches.clear(); db.nodes.clear(); }
  db.root = c.root; db.activeBranch = c.activeBranch;
  for (const { name, row } of c.branches) row === null ? db.branches.delete(name) : db.branches.set(name, row);
  for (const { id, row } of c.nodes) row === null ? db.nodes.delete(id) : db.nodes.set(id, row);
  return c.branches.length + c.nodes.length;
}
const reopen = (db) => SessionTree.fromRows({
  root: db.root, activeBranch: db.activeBranch,
  branches: [...db.branches].map(([name, row]) => ({ name, row })),
  nodes: [...db.nodes].map(([id, row]) => ({ id, row })),
});

test("the first takeChanges gives every row, and fromRows of them saves the same file", () => {
  const t = SessionTree.fromLinear(Array.from({ length: 20 }, (_, i) => say(i)), 1);
  t.rewind(t.activePath()[4], 2);
  const db = { branches: new Map(), nodes: new Map() };
  const c = t.takeChanges();
  assert.ok(c.all, "the first answer is not every row");
  assert.equal(c.nodes.length, 20);
  assert.equal(c.branches.length, 2);
  store(db, c);
  const u = reopen(db);
  assert.equal(u.save(), t.save());
  t.free(); u.free();
});

test("after that, a change writes only the rows it touched, and the store reopens to the same tree", () => {
  const t = SessionTree.fromLinear(Array.from({ length: 2000 }, (_, i) => say(i)), 1);
  const db = { branches: new Map(), nodes: new Map() };
  store(db, t.takeChanges());
  const id = t.append(say(2000), 5);
  const c = t.takeChanges();
  assert.ok(!c.all);
  assert.ok(store(db, c) <= 4, `an append wrote ${c.branches.length + c.nodes.length} rows`);
  assert.ok(c.nodes.some((n) => n.id === id), "the new node is not among the rows");
  t.label(id, "sent");
  t.rewind(t.activePath()[10], 6);
  t.append(say(1), 7);
  t.deleteBranch("branch-1");
  t.prune();
  store(db, t.takeChanges());
  const u = reopen(db);
  assert.equal(u.save(), t.save());
  assert.deepEqual(t.takeChanges().nodes, [], "changes repeated");
  t.free(); u.free();
});

test("takeChanges({ stored: true }) on a tree made from the store's rows starts the feed without answering them", () => {
  const t = SessionTree.fromLinear(Array.from({ length: 30 }, (_, i) => say(i)), 1);
  const db = { branches: new Map(), nodes: new Map() };
  store(db, t.takeChanges());
  const u = reopen(db);
  const first = u.takeChanges({ stored: true });
  assert.equal(first.all, false);
  assert.deepEqual([first.nodes, first.branches], [[], []]);
  assert.equal(first.activeBranch, "main");
  const id = u.append(say(30), 2);
  const c = u.takeChanges({ stored: true }); // a later call: as without the option
  assert.ok(c.nodes.some((n) => n.id === id));
  store(db, c);
  const v = reopen(db);
  assert.equal(v.save(), u.save());
  t.free(); u.free(); v.free();
});

test("after a merge the change feed still gives what the store needs (every row, or the rows the merge changed)", async () => {
  await initInterchange();
  const a = SessionTree.fromLinear(Array.from({ length: 30 }, (_, i) => say(i)), 1);
  const db = { branches: new Map(), nodes: new Map() };
  store(db, a.takeChanges());
  const b = a.clone();
  a.append(say(100), 5);
  b.rewind(b.activePath()[10], 6);
  b.append(say(200), 7);
  store(db, a.takeChanges());
  a.merge(b);
  store(db, a.takeChanges());
  const u = reopen(db);
  assert.equal(u.save(), a.save(), "the store does not hold the merged tree");
  a.free(); b.free(); u.free();
});

test("fromRows refuses rows that are not a tree's", () => {
  assert.throws(() => SessionTree.fromRows({ activeBranch: "main", branches: [], nodes: [{ id: "a", row: "{" }] }), "corrupt");
  assert.throws(() => SessionTree.fromRows({ activeBranch: "main", branches: "x", nodes: [] }), "invalid_input");
  assert.throws(() => SessionTree.fromRows({ activeBranch: "main", branches: [{ name: "main" }], nodes: [] }), "invalid_input");
});

test("loadFrom reads bytes, a Blob, a ReadableStream and a Response to the same tree", async () => {
  const t = SessionTree.fromLinear(Array.from({ length: 300 }, (_, i) => say(i)), 1);
  const file = t.save();
  const bytes = new TextEncoder().encode(file);
  const chunked = () => new ReadableStream({
    start(c) { for (let i = 0; i < bytes.length; i += 7777) c.enqueue(bytes.slice(i, i + 7777)); c.close(); },
  });
  for (const source of [bytes, bytes.buffer, new Blob([bytes]), chunked(), new Response(chunked())]) {
    const u = await SessionTree.loadFrom(source);
    assert.equal(u.save(), file, `loadFrom(${source.constructor.name})`);
    u.free();
  }
  await assert.rejects(SessionTree.loadFrom(new Blob(["{not json"])), "corrupt");
  await assert.rejects(SessionTree.loadFrom(new Response("x", { status: 404 })), "not_found");
  await assert.rejects(SessionTree.loadFrom("a string"), "invalid_input");
  const broken = new ReadableStream({ pull(c) { c.error(new Error("the disk went away")); } });
  await assert.rejects(SessionTree.loadFrom(broken), "invalid_input", /reading the source failed: the disk went away/);
  const strings = new ReadableStream({ start(c) { c.enqueue("text, not bytes"); c.close(); } });
  await assert.rejects(SessionTree.loadFrom(strings), "invalid_input", /Uint8Array/);
  t.free();
});
