// A seeded random run of a chat client's changes, each read checked against a
// model built from the tree's own file (JSON.parse of save(): the module's
// serializer, not the page's caches). The page keeps caches the file never
// goes through: message texts by slot, the last full list, a clone's copy of
// them, slots remapped by a merge or a delta of every row, emptied by a
// prune. After each step every read a chat view makes (the path, its
// messages, windows of it, a node, its children and siblings, the ‹ n/m ›
// switchers, onPath, pathIndex, another branch's list, the tree view) must
// agree with the model; listeners read in the events as a UI's do; and every
// 4 steps a request for a model (projectFor, whose lean copy is fed only the
// changed rows and whose objects are reused) must be a fresh load's. Node and Chromium, both
// flavours. MODEL_SEEDS=1,2,3 MODEL_STEPS=2000 for a longer look.
import { test, assert, mainSource } from "./harness.js";
import { init, initInterchange, SessionTree } from "../sessiontree.js";
import { rng } from "./rng.js";

await init(mainSource);

const env = globalThis.process?.env ?? {};
const SEEDS = (env.MODEL_SEEDS ?? "1,2,3").split(",").map(Number);
const STEPS = Number(env.MODEL_STEPS ?? 400);

// The model: what the file says.
function model(t) {
  const f = JSON.parse(t.save());
  const nodes = f.nodes ?? {};
  const roots = Object.values(nodes).filter((n) => !n.parent).map((n) => n.id);
  const pathTo = (leaf) => {
    const p = [];
    for (let id = leaf; id; id = nodes[id].parent) p.push(id);
    return p.reverse();
  };
  // A deleted name stays in the file as a tombstone for merges (deleted_at_ms,
  // deleted_instances; on a live branch too when the name was made again
  // since), and a merge keeps a value of a name whose leaf another branch
  // reaches as a hidden record: neither a tombstone alone (no created_at_ms)
  // nor a hidden record is listed.
  const live = (b) => !b.hidden && b.created_at_ms !== undefined;
  const branches = Object.fromEntries(Object.entries(f.branches ?? {}).filter(([, b]) => live(b)));
  const active = f.active_branch;
  const path = branches[active]?.leaf ? pathTo(branches[active].leaf) : [];
  return { f, nodes, roots, pathTo, branches, active, path };
}

function check(t, m, r, at) {
  const same = (got, want, what) => {
    const [g, w] = [JSON.stringify(got), JSON.stringify(want)];
    if (g === w) return;
    let i = 0;
    while (g[i] === w[i]) i++;
    assert.equal(g, w, `${at}: ${what}: from character ${i}, got …${g.slice(Math.max(0, i - 60), i + 300)}, the file says …${w.slice(Math.max(0, i - 60), i + 300)}`);
  };
  same(t.activeBranch, m.active, "the active branch");
  same(t.activePath(), m.path, "the active path");
  same(t.linearProjection(), m.path.map((id) => m.nodes[id].message), "the full list");
  same(t.pathLength(), m.path.length, "the path's length");
  // Windows as a virtualized list asks for them.
  for (const [s, e] of [[-3, undefined], [0, 4], [-6, -2], [Math.floor(r() * 10) - 5, undefined], [2, 2 + Math.floor(r() * 5)]]) {
    const w = t.pathWindow(s, e);
    const ids = m.path.slice(s, e);
    same(w.ids, ids, `pathWindow(${s}, ${e})'s ids`);
    same(w.messages, ids.map((id) => m.nodes[id].message), `pathWindow(${s}, ${e})'s messages`);
  }
  const all = Object.keys(m.nodes);
  const some = Array.from({ length: Math.min(6, all.length) }, () => all[Math.floor(r() * all.length)]);
  for (const id of some) {
    const n = m.nodes[id];
    const node = t.node(id);
    same([node.parent, node.children, node.message, node.label], [n.parent ?? null, n.children ?? [], n.message, n.label ?? null], `node(${id})`);
    same(t.children(id), n.children ?? [], `children(${id})`);
    const sibs = n.parent ? m.nodes[n.parent].children : m.roots;
    const s = t.siblings(id);
    if (n.parent) same(s, { siblings: sibs, index: sibs.indexOf(id) }, `siblings(${id})`);
    else same([...s.siblings].sort(), [...sibs].sort(), `siblings(${id}) of a root`);
    same(t.pathIndex(id), m.path.indexOf(id), `pathIndex(${id})`);
  }
  const ids = [...some, ...m.path.slice(-4), "no such node"];
  same(t.onPath(ids), ids.map((id) => m.path.includes(id)), "onPath");
  same(t.switchers(m.path.slice(-4)).map((x) => [x.label, x.siblings]), m.path.slice(-4).map((id) => {
    const n = m.nodes[id];
    return [n.label ?? null, (n.parent ? m.nodes[n.parent].children : m.roots).length];
  }), "switchers");
  const names = Object.keys(m.branches);
  same(t.branches().map((b) => [b.name, b.leaf ?? null]).sort(), names.map((b) => [b, m.branches[b].leaf ?? null]).sort(), "branches");
  // The tree view: subtree() depth first, children in their order, roots by (created, id).
  const byCreated = (a, b) => (m.nodes[a].created_at_ms - m.nodes[b].created_at_ms) || (a < b ? -1 : a > b ? 1 : 0);
  const order = [];
  const leaves = new Map();
  for (const b of names) if (m.branches[b].leaf) leaves.set(m.branches[b].leaf, [...(leaves.get(m.branches[b].leaf) ?? []), b]);
  const walk = (id, depth) => {
    const n = m.nodes[id];
    order.push([id, n.parent ?? null, depth, (n.children ?? []).length, n.message.role, n.label ?? null, (leaves.get(id) ?? []).sort()]);
    for (const c of n.children ?? []) walk(c, depth + 1);
  };
  for (const id of [...m.roots].sort(byCreated)) walk(id, 0);
  const st = t.subtree(null);
  same(st.nodes.map((x) => [x.id, x.parent, x.depth, x.childCount, x.role, x.label, [...x.branches].sort()]), order, "subtree(null)");
  const k = 1 + Math.floor(r() * 8);
  const cut = t.subtree(null, { limit: k });
  same([cut.nodes.map((x) => x.id), cut.more], [order.slice(0, k).map((x) => x[0]), order.length > k], `subtree(null, { limit: ${k} })`);
  // With runs, each entry stands for a chain of run nodes from id to last.
  const expanded = [];
  for (const e of t.subtree(null, { runs: true }).nodes) {
    let id = e.id;
    for (let i = 1; i < e.run; i++) { expanded.push(id); id = m.nodes[id].children[0]; }
    same(id, e.last, `subtree(null, { runs: true })'s run at ${e.id}`);
    expanded.push(id);
  }
  same(expanded, order.map((x) => x[0]), "subtree(null, { runs: true }) unfolded");
  same(t.recentBranches(1).map((b) => b.name), [m.active], "recentBranches(1)");
  const other = names[Math.floor(r() * names.length)];
  same(t.linearProjectionOf(other), (m.branches[other].leaf ? m.pathTo(m.branches[other].leaf) : []).map((id) => m.nodes[id].message), `linearProjectionOf(${other})`);
}

function run(seed, steps) {
  const r = rng(seed);
  const pick = (xs) => xs[Math.floor(r() * xs.length)];
  let n = 0;
  const msg = (role) => pick([
    { role: role ?? (n % 2 ? "assistant" : "user"), content: `m${seed}-${n++}` },
    { role: role ?? "assistant", content: [{ type: "text", text: `p${n++} é 😀` }] },
    { role: "tool", content: `r${n++}`, tool_call_id: "c1" },
  ]);
  let t = SessionTree.fromLinear([msg("user"), msg("assistant")], 1);
  let other = t.clone(); // another tab's copy: its changes come as deltas or merges
  other.takeChanges({ feed: "sync" }); // the feed's first answer says "push the whole tree": both hold it
  let read = null; // what a listener read in the last event
  const listen = (x) => x.subscribe(() => {
    const w = x.pathWindow(-3);
    read = JSON.stringify([w.ids, w.messages, x.linearProjection().length]);
  });
  let off = listen(t);
  const tally = {};
  for (let step = 0; step < steps; step++) {
    const m = model(t);
    const path = m.path;
    const all = Object.keys(m.nodes);
    const names = Object.keys(m.branches);
    const kinds = [
      ["append", 20, () => t.append(msg())],
      ["edit", 6, () => path.length && t.edit(pick(path), msg("user"))],
      ["regenerate", 6, () => path.length > 1 && t.regenerate(pick(path.slice(1)), msg("assistant"))],
      ["rewind", 4, () => path.length && t.rewind(pick(path))],
      ["open", 5, () => t.open(pick(all))],
      ["checkout", 2, () => t.checkout(pick(all))],
      ["label", 5, () => t.label(pick(all), `L${n++}`)],
      ["clearLabel", 2, () => t.clearLabel(pick(all))],
      ["switch", 4, () => t.switchBranch(pick(names))],
      ["branch", 2, () => t.branch(pick(all))],
      ["delete", 3, () => { const d = names.filter((b) => b !== "main" && b !== t.activeBranch); if (d.length) t.deleteBranch(pick(d)); }],
      ["prune", 3, () => t.prune()],
      ["apply", 3, () => t.apply([{ op: "append", message: msg() }, { op: "append", message: msg() }])],
      // Ops of every kind in one apply (a failing op fails the rest: each is valid here).
      ["applyMixed", 3, () => {
        const tail = path.slice(1);
        const ops = [{ op: "append", message: msg() }];
        if (tail.length) ops.push(pick([
          { op: "edit", node: pick(tail), message: msg("user") },
          { op: "regenerate", node: pick(tail), message: msg("assistant") },
          { op: "label", node: pick(tail), label: `A${n++}` },
          { op: "rewind", node: pick(tail) },
          { op: "open", node: pick(all) },
        ]));
        ops.push({ op: "append", message: msg() }, pick([{ op: "summarize", branch: "main", summary: `s${n++}` }, { op: "append", message: msg() }]));
        t.apply(ops);
      }],
      ["summarize", 1, () => t.summarizeBranch(pick(names), `summary ${n++}`)],
      ["clone", 2, () => { const c = t.clone(); off(); t.free(); t = c; off = listen(t); }],
      ["reload", 1, () => { const c = SessionTree.load(t.save()); off(); t.free(); t = c; off = listen(t); }],
      // Reopened from a row store's rows (sessiontree/idb's open).
      ["fromRows", 1, () => { const c = SessionTree.load(t.save()); const rows = c.takeChanges(); c.free(); off(); t.free(); t = SessionTree.fromRows(rows); off = listen(t); }],
      // Another tab's work: it appends and edits, and this copy takes it in.
      ["other", 4, () => { const p = other.activePath(); other.append(msg()); if (p.length > 1 && r() < 0.5) other.regenerate(pick(p.slice(1)), msg("assistant")); }],
      ["delta", 3, () => t.applyChanges(other.takeChanges({ feed: "sync" }))],
      ["everyRow", 1, () => { const c = SessionTree.load(other.save()); t.applyChanges(c.takeChanges(), { follow: r() < 0.5 }); c.free(); }],
      ["merge", 3, () => t.merge(other)],
      ["mergeBack", 2, () => other.merge(t)],
    ];
    const weight = kinds.reduce((a, k) => a + k[1], 0);
    let x = r() * weight;
    const [name, , call] = kinds.find((k) => (x -= k[1]) < 0) ?? kinds[0];
    read = null;
    try {
      call();
      tally[name] = (tally[name] ?? 0) + 1;
    } catch (e) {
      // A delta that no longer applies (the copies diverged) is a conflict:
      // merge then, as a tab does.
      if (name !== "delta" || e.code !== "conflict") throw new Error(`seed ${seed} step ${step} ${name}: ${e.stack ?? e}`);
      other.free();
      other = t.clone();
      other.takeChanges({ feed: "sync" });
      tally.conflict = (tally.conflict ?? 0) + 1;
    }
    const at = `seed ${seed} step ${step} (${name})`;
    if (read !== null) {
      const w = t.pathWindow(-3);
      assert.equal(read, JSON.stringify([w.ids, w.messages, t.linearProjection().length]), `${at}: a listener read another window than the tree's`);
    }
    check(t, model(t), r, at);
    // A request for a model: the lean module keeps a copy in the helper fed
    // only the rows changed since the last call, and both hand back the
    // objects of what a request keeps; a fresh load of the file has neither.
    if (step % 4 === 0) {
      const api = pick(["openai-chat", "openai-responses", "anthropic"]);
      const options = pick([{}, { budget: 40 + Math.floor(r() * 200) }, { branch: pick(Object.keys(model(t).branches)) }]);
      const fresh = SessionTree.load(t.save());
      try {
        const [got, want] = [t.projectFor(api, options), fresh.projectFor(api, options)];
        assert.equal(JSON.stringify(got), JSON.stringify(want), `${at}: projectFor(${api}, ${JSON.stringify(options)}) differs from a fresh load's`);
      } finally {
        fresh.free();
      }
    }
  }
  const size = Object.keys(model(t).nodes).length;
  off(); t.free(); other.free();
  return { tally, size };
}

test("a chat client's changes at random: every read a view makes agrees with the tree's own file (model from save())", async () => {
  await initInterchange(); // merge in the lean flavour
  for (const seed of SEEDS) {
    const { tally, size } = run(seed, STEPS);
    assert.ok(size >= 20, `seed ${seed}: the tree ended with ${size} nodes`);
    for (const k of ["append", "applyMixed", "prune", "merge", "delta", "clone"]) assert.ok((tally[k] ?? 0) > 0, `seed ${seed}: no ${k} in ${JSON.stringify(tally)}`);
  }
});
