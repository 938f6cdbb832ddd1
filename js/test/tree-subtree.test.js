// subtree (issue 16): the nodes of a subtree without their messages, for a
// tree view, read a window at a time. Runs under node --test and in Chromium
// (browser.mjs), with either flavour (harness.js); the worker entry's copy of
// the call is at the end (Chromium only).
import { test, assert, isNode, full, mainSource } from "./harness.js";
import { init, SessionTree } from "../sessiontree.js";

await init(mainSource);

const say = (i) => ({ role: i % 2 ? "assistant" : "user", content: `turn ${i}\n  ✨` });

// a b c d on main; at b, "side" goes on with e f; c is labelled "mid".
function forked() {
  const t = SessionTree.fromLinear([say(0), say(1), say(2), say(3)], 1);
  const [a, b, c, d] = t.activePath();
  t.branch(b, "side", 2);
  const e = t.append(say(4), 3);
  const f = t.append(say(5), 4);
  t.label(c, "mid");
  return { t, a, b, c, d, e, f };
}

test("subtree lists every node depth first with its parent, child count, role, preview, label and branch ends, never a message", () => {
  const { t, a, b, c, d, e, f } = forked();
  const { nodes, more } = t.subtree();
  assert.equal(more, false);
  assert.deepEqual(nodes.map((n) => n.id), [a, b, c, d, e, f]);
  assert.deepEqual(nodes[1], { id: b, parent: a, depth: 1, childCount: 2, role: "assistant", preview: "turn 1 ✨", label: null, branches: [], run: 1, last: b });
  assert.equal(nodes[0].parent, null);
  assert.equal(nodes[2].label, "mid");
  assert.deepEqual(nodes[3].branches, ["main"]);
  assert.deepEqual(nodes[5].branches, ["side"]);
  assert.ok(nodes.every((n) => !("message" in n)));
  // The same nodes as node() tells, one by one.
  for (const n of nodes) {
    const full = t.node(n.id);
    assert.equal(n.parent, full.parent);
    assert.equal(n.childCount, full.children.length);
    assert.equal(n.role, full.message.role);
  }
  t.free();
});

test("subtree(id, { depth, limit }) reads a window: below one node, so deep, so many", () => {
  const { t, b, c, e } = forked();
  const below = t.subtree(b, { depth: 1 });
  assert.deepEqual(below.nodes.map((n) => [n.id, n.depth]), [[b, 0], [c, 1], [e, 1]]);
  assert.equal(below.nodes[1].childCount, 1, "a node at the depth bound still counts its children");
  const first = t.subtree(null, { limit: 2 });
  assert.equal(first.nodes.length, 2);
  assert.equal(first.more, true);
  assert.equal(t.subtree(null, { limit: 6 }).more, false);
  assert.deepEqual(t.subtree(b, { depth: 0 }).nodes.map((n) => n.id), [b]);
  t.free();
});

test("subtree with runs folds each chain without a fork, label or branch end into one entry", () => {
  const { t, a, b, c, d, e, f } = forked();
  const { nodes } = t.subtree(null, { runs: true });
  assert.deepEqual(nodes.map((n) => [n.id, n.last, n.run, n.depth]), [[a, b, 2, 0], [c, c, 1, 1], [d, d, 1, 2], [e, f, 2, 1]]);
  assert.deepEqual(nodes[3].branches, ["side"]);
  t.free();
  const long = SessionTree.fromLinear(Array.from({ length: 20000 }, (_, i) => say(i)), 1);
  const one = long.subtree(null, { runs: true, limit: 10 });
  assert.equal(one.nodes.length, 1);
  assert.equal(one.nodes[0].run, 20000);
  assert.equal(one.nodes[0].last, long.pathWindow(-1).ids[0]);
  assert.deepEqual(one.nodes[0].branches, ["main"]);
  long.free();
});

test("subtree checks its arguments: an unknown node, a bad depth or limit, a freed tree", () => {
  const { t } = forked();
  assert.throws(() => t.subtree("nope"), "not_found");
  assert.throws(() => t.subtree(null, { depth: -1 }), "invalid_input", /"depth"/);
  assert.throws(() => t.subtree(null, { limit: 0 }), "invalid_input", /"limit"/);
  assert.throws(() => t.subtree(null, { limit: 1.5 }), "invalid_input", /"limit"/);
  assert.throws(() => t.subtree(null, "deep"), "invalid_input", /options/);
  assert.deepEqual(new SessionTree().subtree(), { nodes: [], more: false });
  t.free();
  assert.throws(() => t.subtree(), "invalid_input", /freed/);
});

test("subtreeAround: the whole tree in runs when it fits the limit, else the boxes around a node (its own first), with the nodes above", () => {
  const { t, a, d, f } = forked();
  assert.deepEqual(t.subtreeAround(d, { limit: 4 }), { ...t.subtree(null, { runs: true }), above: 0 });
  assert.deepEqual(t.subtreeAround(f), { ...t.subtree(null, { runs: true }), above: 0 });
  t.free();
  // 2,000 messages, an edited question with its answer every 10: 400 boxes.
  const w = SessionTree.fromLinear(Array.from({ length: 2000 }, (_, i) => say(i)), 1);
  const path = w.activePath();
  for (let i = 10; i < 2000; i += 10) {
    w.edit(path[i], { role: "user", content: `again ${i}` }, 2 + i);
    w.append({ role: "assistant", content: `answer ${i}` }, 3 + i);
  }
  w.switchBranch("main");
  const leaf = w.pathWindow(-1).ids[0];
  const all = w.subtree(null, { runs: true }).nodes;
  const r = w.subtreeAround(leaf, { limit: 50 });
  assert.ok(r.nodes.length <= 50 && r.nodes.length >= 48 && r.nodes.length < all.length, `${r.nodes.length} boxes`);
  assert.ok(r.nodes.some((n) => n.last === leaf), "the leaf's box is read");
  assert.equal(r.nodes[0].depth, 0);
  assert.equal(r.above, w.pathIndex(r.nodes[0].id), "above: the nodes above the top on the path");
  // The same entries as the whole read has under that top, depths counted from it.
  const at = all.findIndex((n) => n.id === r.nodes[0].id);
  assert.deepEqual(r.nodes, all.slice(at, at + r.nodes.length).map((n) => ({ ...n, depth: n.depth - all[at].depth })));
  assert.throws(() => w.subtreeAround("nope"), "not_found");
  assert.throws(() => w.subtreeAround(leaf, { limit: 0 }), "invalid_input", /"limit"/);
  assert.throws(() => w.subtreeAround(null), "invalid_input", /"id"/);
  w.free();
});

test("a preview is one short line of the message's text", () => {
  const t = new SessionTree();
  t.append({ role: "user", content: "  many\n\nlines\there  " }, 1);
  t.append({ role: "assistant", content: "é".repeat(500) }, 2);
  t.append({ role: "assistant", content: [{ type: "text", text: "a part" }] }, 3);
  const p = t.subtree().nodes.map((n) => n.preview);
  assert.equal(p[0], "many lines here");
  assert.equal(p[1], "é".repeat(60) + "…");
  assert.equal(p[2], "a part");
  t.free();
});

test("onPath and pathIndex answer as activePath would (membership, index), and follow a switch", () => {
  const { t, a, b, c, d, e, f } = forked();
  const all = [a, b, c, d, e, f, "no-such-node"];
  const expect = () => { const p = new Set(t.activePath()); return all.map((id) => p.has(id)); };
  assert.deepEqual(t.onPath(all), [true, true, false, false, true, true, false]); // side is active
  assert.deepEqual(t.onPath(all), expect());
  t.switchBranch("main");
  assert.deepEqual(t.onPath(all), [true, true, true, true, false, false, false]);
  assert.deepEqual(t.onPath([]), []);
  assert.throws(() => t.onPath("a"), "invalid_input");
  assert.throws(() => t.onPath([a, "x\ny"]), "invalid_input");
  for (const id of all) assert.equal(t.pathIndex(id), t.activePath().indexOf(id), `pathIndex(${id})`);
  t.switchBranch("side");
  for (const id of all) assert.equal(t.pathIndex(id), t.activePath().indexOf(id), `pathIndex(${id}) on side`);
  t.free();
  assert.throws(() => t.onPath([a]), "invalid_input");
  assert.throws(() => t.pathIndex(a), "invalid_input");
});

if (!isNode) {
  test("worker: subtree answers through sessiontree/worker as on the page", async () => {
    const { connect } = await import("../worker.js");
    const st = await connect(full ? { full: true } : undefined);
    const { t } = forked();
    const w = await st.SessionTree.load(t.save());
    assert.deepEqual(await w.subtree(null, { runs: true }), t.subtree(null, { runs: true }));
    await w.free();
    t.free();
    st.close();
  });
}

test("recentBranches: the active branch, then the others by last use, at most limit, as branches() describes them; branchCount counts them all", () => {
  const { t, b } = forked(); // main, side (active)
  for (let i = 0; i < 5; i++) t.branch(b, `b${i}`, 10 + i);
  t.switchBranch("b1");
  t.switchBranch("b3");
  t.switchBranch("main");
  assert.equal(t.branchCount(), 7);
  assert.equal(t.branches().length, 7);
  const names = t.recentBranches(100).map((x) => x.name);
  assert.deepEqual(names.slice(0, 4), ["main", "b3", "b1", "b4"]);
  assert.deepEqual([...names].sort(), t.branches().map((x) => x.name).sort());
  assert.deepEqual(t.recentBranches(2).map((x) => x.name), ["main", "b3"]);
  assert.deepEqual(t.recentBranches(0), []);
  const byName = new Map(t.branches().map((x) => [x.name, x]));
  for (const x of t.recentBranches(100)) assert.deepEqual(x, byName.get(x.name));
  // A reload keeps the order of use.
  const u = SessionTree.load(t.save());
  assert.deepEqual(u.recentBranches(3).map((x) => x.name), ["main", "b3", "b1"]);
  for (const bad of [-1, 1.5, "3", null, undefined]) assert.throws(() => t.recentBranches(bad), "invalid_input");
  u.free();
  t.free();
});

test("switchers: each node's label, number of alternatives and place among them, as node() and siblings() say, in one call", () => {
  const { t, a, b, c, d, e, f } = forked();
  t.label(c, "good answer");
  const x = t.regenerate(b, { role: "assistant", content: "third version" });
  const all = [a, b, c, d, e, f, x];
  const want = all.map((id) => {
    const s = t.siblings(id);
    return { label: t.node(id).label ?? null, siblings: s.siblings.length, index: s.index };
  });
  assert.deepEqual(t.switchers(all), want);
  assert.ok(want.some((w) => w.siblings > 1) && want.some((w) => w.label === "good answer"), "the tree has a fork and a label");
  assert.deepEqual(t.switchers([a, "no-such-node"]), [want[0], null]);
  assert.deepEqual(t.switchers([]), []);
  assert.throws(() => t.switchers("a"), "invalid_input");
  assert.throws(() => t.switchers([a, "x\ny"]), "invalid_input");
  t.free();
  assert.throws(() => t.switchers([a]), "invalid_input");
});
