// Change events (issue 24): t.version grows with every change, t.subscribe
// tells what changed (from core's watch, apart from takeChanges), reads tell
// nothing, and a merge or a delta from another copy is told too. Node and
// Chromium, both flavours.
import { test, assert, mainSource } from "./harness.js";
import { init, initInterchange, SessionTree } from "../sessiontree.js";

await init(mainSource);

const say = (i) => ({ role: i % 2 ? "assistant" : "user", content: `turn ${i}` });

test("version grows with every change and stands while the tree is only read", () => {
  const t = new SessionTree();
  const v0 = t.version;
  const a = t.append(say(0), 1);
  const v1 = t.version;
  assert.ok(v1 > v0, `append: ${v0} -> ${v1}`);
  t.node(a); t.activePath(); t.linearProjection(); t.stats(); t.save(); t.search("turn");
  assert.equal(t.version, v1, "reads changed the version");
  t.label(a, "here", 2);
  assert.ok(t.version > v1);
  t.free();
});

// Before: each of these moved the version and told a change, so a React
// store drew again and sessiontree/idb wrote a row and sent the other tabs a
// delta for nothing.
test("a call that changes nothing tells nothing: the same label, the same summary, a switch to the active branch", () => {
  const t = SessionTree.fromLinear([say(0), say(1)], 1);
  const [a] = t.activePath();
  t.label(a, "start", 5);
  t.summarizeBranch("main", "a summary", "m", 6);
  const events = [];
  const off = t.subscribe((e) => events.push(e));
  const v = t.version;
  t.label(a, "start", 5);
  t.summarizeBranch("main", "a summary", "m", 6);
  t.switchBranch("main");
  assert.equal(t.version, v, "the version moved");
  assert.deepEqual(events, []);
  t.label(a, "start", 7); // later: a change (it wins a later merge)
  assert.ok(t.version > v);
  assert.equal(events.length, 1);
  off();
  t.free();
});

test("subscribe tells each change with what it touched; unsubscribe stops it", () => {
  const t = SessionTree.fromLinear([say(0), say(1)], 1);
  const events = [];
  const off = t.subscribe((e) => events.push(e));
  const [first] = t.activePath();
  const id = t.append(say(2), 2);
  assert.equal(events.length, 1);
  assert.ok(events[0].nodes.includes(id) && events[0].branches.includes("main") && !events[0].all, JSON.stringify(events[0]));
  assert.equal(events[0].version, t.version);
  const edited = t.edit(first, { role: "user", content: "again" }, 3);
  assert.ok(events[1].nodes.includes(edited) && events[1].meta, JSON.stringify(events[1]));
  t.node(id); t.pathWindow(-2); t.siblings(first);
  assert.equal(events.length, 2, "reads told something");
  t.apply([{ op: "switch", branch: "main" }, { op: "label", node: id, label: "x" }], 4);
  assert.equal(events.length, 3, "one event for one apply");
  assert.ok(events[2].nodes.includes(id));
  off();
  t.append(say(3), 5);
  assert.equal(events.length, 3, "told after unsubscribe");
  t.free();
});

test("a listener that changes the tree is told its own change next; one that throws stops no other", () => {
  const t = new SessionTree();
  const seen = [];
  t.subscribe(() => { throw new Error("a broken listener"); });
  t.subscribe((e) => {
    seen.push(e.nodes.length);
    if (seen.length === 1) t.append(say(1), 2); // a reply, appended from a listener
  });
  const reported = [];
  const had = Object.getOwnPropertyDescriptor(globalThis, "reportError");
  const log = console.error;
  if (had) globalThis.reportError = (e) => reported.push(e);
  else console.error = (e) => reported.push(e);
  try {
    t.append(say(0), 1);
  } finally {
    if (had) Object.defineProperty(globalThis, "reportError", had);
    console.error = log;
  }
  assert.equal(seen.length, 2, `the listener's own append was told: ${JSON.stringify(seen)}`);
  assert.equal(t.activePath().length, 2);
  assert.equal(reported.length, 2, "each event's error was reported");
  assert.equal(reported[0].message, "a broken listener");
  t.free();
});

test("the store's feed and the events never take each other's changes", () => {
  const t = new SessionTree();
  t.takeChanges(); // the store starts its feed
  const told = [];
  t.subscribe((e) => told.push(...e.nodes));
  const a = t.append(say(0), 1);
  const b = t.append(say(1), 2);
  const feed = t.takeChanges();
  assert.deepEqual(feed.nodes.map((n) => n.id).sort(), [a, b].sort());
  assert.ok(told.includes(a) && told.includes(b));
  t.free();
});

test("applyChanges and merge from another copy are told", async () => {
  const a = SessionTree.fromLinear([say(0), say(1)], 1);
  const b = SessionTree.fromRows(a.takeChanges());
  const events = [];
  b.subscribe((e) => events.push(e));
  const id = a.append(say(2), 2);
  b.applyChanges(a.takeChanges(), { follow: true });
  assert.equal(events.length, 1);
  assert.ok(events[0].nodes.includes(id), JSON.stringify(events[0]));
  const v = b.version;
  await initInterchange();
  const other = SessionTree.load(a.save());
  const more = other.append(say(3), 3);
  b.merge(other);
  assert.equal(events.length, 2, "the merge was told");
  assert.ok(events[1].all || events[1].nodes.includes(more), JSON.stringify(events[1]));
  assert.ok(b.version > v, "the version went back after a merge");
  a.free(); b.free(); other.free();
});

test("subscribe's argument is checked, and free drops the listeners", () => {
  const t = new SessionTree();
  assert.throws(() => t.subscribe("nope"), "invalid_input");
  let n = 0;
  t.subscribe(() => n++);
  t.free();
  assert.equal(n, 0);
  assert.throws(() => t.version, "invalid_input");
});

test("a listener reads the message an edit or a regenerate just added (the page's cache has it before the event)", () => {
  const t = SessionTree.fromLinear([say(0), say(1)], 1);
  const [q, r] = t.activePath();
  const seen = [];
  t.subscribe(() => seen.push(t.pathWindow(-1).messages[0].content));
  t.edit(q, { role: "user", content: "edited" }, 2);
  t.switchBranch("main", 3);
  t.regenerate(r, { role: "assistant", content: "again" }, 4);
  assert.deepEqual(seen, ["edited", "turn 1", "again"]);
  t.free();
});

test("a listener reads the path as a prune is told (the page's cache is emptied before the event, as the module's slots are)", () => {
  const t = SessionTree.fromLinear([say(0), say(1), say(2)], 1);
  const [, r] = t.activePath();
  assert.equal(t.pathWindow(-3).messages.length, 3); // the cache holds the path's messages
  t.regenerate(r, { role: "assistant", content: "again" }, 2); // on a new branch, active
  const dropped = t.activeBranch;
  t.switchBranch("main");
  t.deleteBranch(dropped, 3);
  const seen = [];
  t.subscribe(() => {
    const w = t.pathWindow(-2);
    seen.push([w.ids, w.messages.map((m) => m.content)]);
  });
  const removed = t.prune();
  assert.equal(removed.length, 1);
  const path = t.activePath();
  assert.deepEqual(seen, [[path.slice(-2), ["turn 1", "turn 2"]]]);
  assert.deepEqual(t.pathWindow(-3).messages.map((m) => m.content), ["turn 0", "turn 1", "turn 2"]);
  t.free();
});
