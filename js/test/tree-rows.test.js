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
  // The file of the rows, without loading: what a worker hands a page.
  assert.equal(SessionTree.load(SessionTree.fileFromRows(c)).save(), t.save());
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
  // A damaged row is named, and the offset is into it, not into the file the
  // rows make (a store's records say nothing of that file).
  const t = SessionTree.fromLinear([say(0), say(1), say(2)], 1);
  const rows = t.takeChanges();
  const [, mid] = t.activePath();
  const damaged = (row) => ({ ...rows, nodes: rows.nodes.map((n) => (n.id === mid ? { ...n, row } : n)) });
  assert.throws(() => SessionTree.fromRows(damaged("{garbage")), "corrupt", new RegExp(`^node "${mid}"'s row: .*at byte 1 of it$`));
  assert.throws(() => SessionTree.fromRows(damaged(rows.nodes.find((n) => n.id === mid).row.slice(0, 40))), "corrupt", new RegExp(`^node "${mid}"'s row: .*at its end$`));
  assert.throws(() => SessionTree.fromRows({ ...rows, branches: [{ name: "main", row: '{"name":"main",' }] }), "corrupt", /^branch "main"'s row: .*at its end$/);
  t.free();
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

// A first projection of a loaded file reads each new message where the module
// keeps it: decoded once as a stretch when the file is ASCII, one at a time when
// it is not; both give the messages the file holds.
test("a loaded file projects to its messages, ASCII or not, the window's and the full list's alike", async () => {
  for (const text of [(i) => `plain ${i} "q" \\ /`, (i) => `turn ${i} — ✨ é 😀`]) {
    const msgs = Array.from({ length: 300 }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: text(i), n: i }));
    const file = new TextEncoder().encode(SessionTree.fromLinear(msgs, 1).save());
    const t = await SessionTree.loadFrom(file);
    assert.deepEqual(t.pathWindow(-70).messages, msgs.slice(-70));
    assert.deepEqual(t.linearProjection(), msgs);
    assert.ok(Object.isFrozen(t.linearProjection()[5]), "a message is not frozen");
    t.free();
  }
});

test("applyChanges: a second copy that applies each delta of the first stays that tree, byte for byte", () => {
  const a = SessionTree.fromLinear(Array.from({ length: 30 }, (_, i) => say(i)), 1);
  const b = SessionTree.fromRows(a.takeChanges());
  let at = 10;
  const steps = [
    () => a.append(say(100), at++),
    () => a.rewind(a.activePath()[7], at++),
    () => a.append(say(101), at++),
    () => a.label(a.activePath()[3], "here", at++),
    () => a.summarizeBranch("branch-1", "the longer path", "m", at++),
    () => a.switchBranch("branch-1"),
    () => a.rewind(a.activePath()[2], at++),
    () => a.switchBranch("main"),
    () => a.deleteBranch("branch-1", at++),
    () => a.prune(),
    () => a.clearLabel(a.activePath()[3], at++),
  ];
  for (const step of steps) {
    step();
    const c = a.takeChanges();
    assert.ok(!c.all);
    b.applyChanges(c, { follow: true });
    assert.equal(b.save(), a.save(), `after ${step}`);
  }
  assert.deepEqual(b.pathWindow(-3).messages, a.pathWindow(-3).messages);
  a.free(); b.free();
});

test("applyChanges keeps this copy's branch and its own messages, and records what it applied", () => {
  const a = SessionTree.fromLinear([say(0), say(1)], 1);
  const b = SessionTree.load(a.save());
  a.takeChanges();
  b.takeChanges();
  b.branch(b.activePath()[0], "mine", 2);
  b.switchBranch("mine");
  const local = b.append(say(9), 3);
  const remote = a.append(say(2), 4);
  b.takeChanges();
  b.applyChanges(a.takeChanges());
  assert.equal(b.activeBranch, "mine");
  assert.deepEqual(b.children(b.activePath()[0]).sort(), [a.activePath()[1], local].sort());
  assert.equal(b.pathOf("main").at(-1), remote);
  const c = b.takeChanges();
  assert.ok(c.nodes.some((n) => n.id === remote), "the applied node is not among b's own changes");
  a.free(); b.free();
});

test("applyChanges of a delta this copy already holds (delivered twice) moves no version and tells no listener", () => {
  const a = SessionTree.fromLinear([say(0), say(1)], 1);
  const b = SessionTree.load(a.save());
  a.takeChanges();
  a.branch(a.activePath()[0], "side", 2);
  a.append(say(2), 3);
  const c = a.takeChanges();
  b.applyChanges(c, { follow: true });
  const events = [];
  b.subscribe((e) => events.push(e));
  b.takeChanges();
  const v = b.version;
  b.applyChanges(c, { follow: true });
  b.applyChanges(c);
  assert.equal(b.version, v);
  assert.deepEqual(events, []);
  const again = b.takeChanges();
  assert.equal(again.nodes.length + again.branches.length, 0, "the store's feed names rows again");
  a.free(); b.free();
});

test("applyChanges of an every-row delta of this very tree moves no version, tells no listener and restarts no feed", () => {
  const a = SessionTree.fromLinear([say(0), say(1)], 1);
  const [first, second] = a.activePath();
  a.branch(first, "side", 2);
  a.label(second, "kept", 3);
  const all = SessionTree.load(a.save()).takeChanges();
  assert.ok(all.all);
  a.takeChanges();
  const events = [];
  a.subscribe((e) => events.push(e));
  const v = a.version;
  a.applyChanges(all);
  a.applyChanges(all, { follow: true });
  assert.equal(a.version, v);
  assert.deepEqual(events, []);
  const next = a.takeChanges();
  assert.ok(!next.all && next.nodes.length + next.branches.length === 0, "the store's feed starts over");
  a.free();
});

test("applyChanges refuses a delta that does not fit, with a code, and changes nothing", () => {
  const a = SessionTree.fromLinear([say(0), say(1)], 1);
  const before = a.save();
  const bad = [
    [{ all: false, root: a.activePath()[0], activeBranch: "main", branches: [], nodes: [{ id: "x", row: "{" }] }, "corrupt"],
    [{ all: false, root: a.activePath()[0], activeBranch: "main", branches: [], nodes: [{ id: "x", row: JSON.stringify({ id: "x", parent: "nowhere", children: [], message: say(3), created_at_ms: 5 }) }] }, "conflict"],
    [{ all: false, root: a.activePath()[0], activeBranch: "main", branches: [{ name: "main", row: "{\n}" }], nodes: [] }, "invalid_input"],
    [{ nodes: [] }, "invalid_input"],
    // A row keyed by another id than its node's (the module used to panic on
    // it), parent links that loop among new rows: refused, the module usable.
    [{ all: false, root: a.activePath()[0], activeBranch: "main", branches: [], nodes: [{ id: "n", row: JSON.stringify({ id: "00", parent: "n", children: [], message: say(3), created_at_ms: 5 }) }] }, "corrupt"],
    [{ all: false, root: a.activePath()[0], activeBranch: "main", branches: [], nodes: ["x", "y"].map((id, i) => ({ id, row: JSON.stringify({ id, parent: i ? "x" : "y", children: [], message: say(3), created_at_ms: 5 }) })) }, "corrupt"],
    // Rows that remove "main", which every tree keeps.
    [{ all: false, root: a.activePath()[0], activeBranch: "main", branches: [{ name: "main", row: null }], nodes: [] }, "corrupt"],
    // A row keyed by another name than its branch's (the tree it left had
    // "main" stored under the name "00").
    [{ all: false, root: a.activePath()[0], activeBranch: "main", branches: [{ name: "main", row: JSON.stringify({ name: "00", created_at_ms: 0 }) }], nodes: [] }, "corrupt"],
  ];
  for (const [c, code] of bad) {
    assert.throws(() => a.applyChanges(c), code);
    assert.equal(a.save(), before);
  }
  a.free();
});

test("applyChanges of an every-row delta replaces the tree, keeping this copy's branch when it still exists and the later of two labels", () => {
  const a = SessionTree.fromLinear([say(0), say(1), say(2)], 1);
  a.rewind(a.activePath()[0], 2);
  const b = new SessionTree();
  b.applyChanges(a.takeChanges());
  assert.equal(b.save(), a.save());
  const c = SessionTree.load(a.save());
  c.switchBranch("branch-1");
  c.applyChanges(a.takeChanges.call(SessionTree.load(a.save())));
  assert.equal(c.activeBranch, "branch-1");
  // A label this copy set or cleared later than the rows' copy knew of stays,
  // as an incremental delta and a merge keep the later of two labels.
  const id = c.activePath()[0];
  c.label(id, "mine", 50);
  const older = SessionTree.load(a.save()).takeChanges();
  c.applyChanges(older);
  assert.equal(c.node(id).label, "mine");
  c.clearLabel(id, 60);
  c.applyChanges(older);
  assert.equal(c.node(id).label, null);
  assert.ok(c.save().includes('"label_at_ms":60'), "the cleared label's time went");
  a.free(); b.free(); c.free();
});

test("applyChanges refuses an every-row delta that is not a whole tree, and changes nothing", () => {
  // The copy that receives them: its messages must survive every refusal.
  const a = SessionTree.fromLinear([say(0), say(1), say(2)], 1);
  a.rewind(a.activePath()[1], 2);
  a.append(say(3), 3);
  const before = a.save();
  const whole = SessionTree.fromLinear(Array.from({ length: 12 }, (_, i) => say(i)), 1);
  const part = whole.takeChanges({ limit: 4 }); // a feed's first part: all, more
  assert.ok(part.all && part.more);
  const rows = SessionTree.load(whole.save()).takeChanges();
  const bad = [
    // A "sync" feed's first answer: all, no rows ("push the whole tree"). It
    // used to replace the tree with nothing: every message and "main" gone.
    new SessionTree().takeChanges({ feed: "sync" }),
    whole.takeChanges.call(SessionTree.load(whole.save()), { feed: "sync" }),
    part,
    // Every row but one node: a branch's leaf or a child's parent missing.
    { ...rows, nodes: rows.nodes.slice(1) },
    { ...rows, nodes: rows.nodes.slice(0, -1) },
    // Every row but "main".
    { ...rows, branches: rows.branches.filter((b) => b.name !== "main") },
  ];
  for (const [i, c] of bad.entries()) {
    for (const follow of [false, true]) {
      assert.throws(() => a.applyChanges(c, { follow }), "corrupt", /applyChanges: the rows do not make a whole tree/);
      assert.equal(a.save(), before, `delta ${i}, follow ${follow}: a refused delta changed the tree`);
    }
    assert.deepEqual(a.validate(), []);
  }
  // An active branch the rows do not hold: refused when followed; this
  // copy's own ("main", in the rows) stays otherwise.
  assert.throws(() => a.applyChanges({ ...rows, activeBranch: "elsewhere" }, { follow: true }), "corrupt", /"elsewhere"/);
  assert.equal(a.save(), before);
  // The same rows whole go in: the copy becomes that tree.
  a.applyChanges(rows);
  assert.equal(a.save(), whole.save());
  a.free(); whole.free();
});

// A seeded random step, the same on every tree it is given with the same seed.
function stepper(seed) {
  let s = seed >>> 0;
  const rnd = (n) => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) % n);
  let at = 100;
  return { rnd, step(t) {
    const path = t.activePath();
    const pick = () => path[rnd(path.length)];
    const names = t.branches().map((b) => b.name);
    try {
      switch (rnd(7)) {
        case 0: case 1: t.append(say(at), at++); break;
        case 2: t.rewind(pick(), at++); break;
        case 3: t.edit(pick(), say(at), at++); break;
        case 4: t.label(pick(), `l${at}`, at++); break;
        case 5: t.switchBranch(names[rnd(names.length)]); break;
        case 6: t.deleteBranch(names[rnd(names.length)], at++); break;
      }
    } catch (e) {
      if (!e.code) throw e; // a refused step (e.g. deleting the active branch) changes nothing
    }
  } };
}

// parts takes a feed with takeChanges({ limit }) until it says no more, and joins its parts.
function parts(t, rnd) {
  const joined = { all: false, more: false, branches: [], nodes: [] };
  for (let first = true; ; first = false) {
    const limit = 1 + rnd(5);
    const c = t.takeChanges({ limit });
    const n = c.branches.length + c.nodes.length;
    assert.ok(n <= limit && (!c.more || n === limit), `a part of ${n} rows for a limit of ${limit}`);
    if (first) joined.all = c.all;
    else assert.ok(!c.all, "a later part says all");
    joined.branches.push(...c.branches);
    joined.nodes.push(...c.nodes);
    Object.assign(joined, { root: c.root, activeBranch: c.activeBranch });
    if (!c.more) return joined;
  }
}

test("takeChanges({ limit }): the parts of a feed, joined, are the feed taken at once (random steps)", () => {
  // b and c follow a's random steps by its deltas (the same ids, the same
  // records changed): b's feed is read at once, c's in parts.
  for (let seed = 1; seed <= 4; seed++) {
    const a = SessionTree.fromLinear(Array.from({ length: 12 }, (_, i) => say(i)), 1);
    const b = SessionTree.load(a.save()), c = SessionTree.load(a.save());
    const st = stepper(seed), r = stepper(seed + 50).rnd;
    a.takeChanges();
    assert.deepEqual(parts(c, r), b.takeChanges(), "the first feed (every row)");
    for (let i = 0; i < 60; i++) {
      st.step(a);
      const d = a.takeChanges();
      b.applyChanges(d, { follow: true });
      c.applyChanges(d, { follow: true });
      assert.deepEqual(parts(c, r), b.takeChanges(), `seed ${seed} step ${i}`);
    }
    assert.equal(c.save(), a.save());
    a.free(); b.free(); c.free();
  }
});

test("takeChanges({ limit }): a store written part by part while the tree changes holds the tree once the feeds are written", () => {
  for (let seed = 1; seed <= 4; seed++) {
    const t = SessionTree.fromLinear(Array.from({ length: 30 }, (_, i) => say(i)), 1);
    const st = stepper(seed);
    const db = { branches: new Map(), nodes: new Map() };
    let c = t.takeChanges({ limit: 4 });
    assert.ok(c.all && c.more);
    store(db, c);
    for (let i = 0; i < 80; i++) {
      st.step(t); // a send while the first feed is written
      c = t.takeChanges({ limit: 1 + st.rnd(6) });
      store(db, c);
      if (st.rnd(8) === 0) {
        store(db, t.takeChanges()); // all that is left and the changes since
        assert.equal(reopen(db).save(), t.save(), `seed ${seed} step ${i}`);
      }
    }
    while (c.more) store(db, (c = t.takeChanges({ limit: 3 })));
    store(db, t.takeChanges());
    const u = reopen(db);
    assert.equal(u.save(), t.save(), `seed ${seed}: the store is not the tree`);
    t.free(); u.free();
  }
});

test("takeChanges({ limit }) refuses a limit that is not a whole number above 0", () => {
  const t = SessionTree.fromLinear([say(0)], 1);
  for (const limit of [0, -1, 1.5, "3", NaN]) assert.throws(() => t.takeChanges({ limit }), "invalid_input");
  assert.equal(t.takeChanges({ limit: 1 }).more, true);
  t.free();
});

// The sync feed (live()'s pushes) and the store's are apart: a tree stored
// row by row (sessiontree/idb) and synced live gives each one every change.
test("takeChanges({ feed: \"sync\" }) is a feed of its own beside the store's", async () => {
  await initInterchange();
  const t = SessionTree.fromLinear(Array.from({ length: 5 }, (_, i) => say(i)), 1);
  const db = { branches: new Map(), nodes: new Map() };
  store(db, t.takeChanges());
  const first = t.takeChanges({ feed: "sync" });
  assert.ok(first.all && first.nodes.length === 0 && first.branches.length === 0, "the first sync take: push the whole tree");
  // A copy elsewhere, kept by the sync feed's rows as live() pushes them.
  const copy = SessionTree.load(t.save());
  for (let step = 0; step < 6; step++) {
    const id = t.append(say(10 + step), 10 + step);
    if (step % 2 === 1) t.label(id, `label ${step}`);
    if (step === 3) t.rewind(t.activePath()[2], 20);
    store(db, t.takeChanges()); // the store takes its feed first
    const rows = t.takeChanges({ feed: "sync" });
    assert.ok(!rows.all && rows.nodes.some((n) => n.id === id), `step ${step}: the sync feed lost the store's change`);
    copy.applyChanges(rows, { follow: true });
    assert.equal(copy.save(), t.save(), `step ${step}: the copy synced by the sync feed differs`);
    assert.equal(t.takeChanges({ feed: "sync" }).nodes.length, 0, "a change came twice");
  }
  assert.equal(reopen(db).save(), t.save(), "the store, taking its feed meanwhile, does not hold the tree");
  // A tree replaced whole (a merge swapped in with the lean module, an
  // every-row delta): the sync feed names what the swap changed.
  const next = SessionTree.load(t.save());
  const added = next.append(say(99), 99);
  t.applyChanges({ ...rowsOf(next), all: true });
  const after = t.takeChanges({ feed: "sync" });
  assert.ok(!after.all && after.nodes.some((n) => n.id === added), "after a whole replace the sync feed lost what it changed");
  copy.applyChanges(after, { follow: true });
  assert.equal(copy.save(), t.save(), "the copy synced through a whole replace differs");
  next.free();
  for (const bad of [{ feed: "other" }, { feed: "sync", limit: 2 }, { feed: "sync", stored: true }]) {
    assert.throws(() => t.takeChanges(bad), "invalid_input");
  }
  t.free(); copy.free();
});

// rowsOf is every row of t, in takeChanges's form (what a store would hold).
function rowsOf(t) {
  const c = SessionTree.load(t.save());
  const all = c.takeChanges();
  c.free();
  return { root: all.root, activeBranch: all.activeBranch, branches: all.branches, nodes: all.nodes };
}
