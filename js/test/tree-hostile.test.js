// A seeded random run of the tree methods with ordinary and hostile
// arguments, on two copies of a conversation that pass each other change
// feeds (takeChanges → applyChanges), deltas of every row and merges, as two
// tabs or devices do. After every call, on both: a failure is a
// SessionTreeError with a code of SPEC §4 (never a TypeError, never a wasm
// trap), the tree validate()s sound, its full list is its path's messages,
// and it saves and loads back byte for byte, and what listeners read in the
// change events is what the tree answers after the call. Found by it: an applyChanges of a
// "sync" feed's first answer emptied the copy, an apply left a branch ending
// at a removed node, and error sentences threw for an argument with no string
// form. Node and Chromium, both flavours.
import { test, assert, mainSource } from "./harness.js";
import { init, initInterchange, SessionTree, SessionTreeError } from "../sessiontree.js";

await init(mainSource);

// Each seed finds the empty every-row apply without its fix within a few
// steps; 4 and 14 (and 6) find the branch left at a removed node (lean module), in
// 2,000 steps. HOSTILE_SEEDS=5,7 HOSTILE_STEPS=5000 in Node for a longer look.
const env = globalThis.process?.env ?? {};
const SEEDS = (env.HOSTILE_SEEDS ?? "1,4,14").split(",").map(Number);
const STEPS = Number(env.HOSTILE_STEPS ?? 2000);
const CODES = new Set(["not_found", "branch_not_found", "branch_exists", "empty_branch", "invalid_input", "corrupt", "unsupported_version", "too_large", "conflict"]);

function run(seed, steps) {
  let s = seed >>> 0;
  const rnd = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
  const pick = (a) => a[Math.floor(rnd() * a.length)];
  const junk = () => pick([undefined, null, 0, -1, 1.5, NaN, Infinity, "", "x", "main", "__proto__", "constructor", "branch-1",
    "\u0000", "\ud800", "a\nb", "a".repeat(3000), {}, [], [1], { role: 5 }, { toJSON() { throw new Error("toJSON"); } },
    Symbol("s"), 10n, () => 1, Object.create(null), { role: "user", content: "\ud83d" },
    { role: "user", get content() { throw new Error("getter"); } }]);
  let at = 1;
  const msg = () => pick([{ role: "user", content: `q ${at}` }, { role: "assistant", content: [{ type: "text", text: `a ${at}` }] },
    { role: "tool", content: "r", tool_call_id: "c1" }, { role: "user", content: "é 😀" }]);
  const a = new SessionTree();
  const b = new SessionTree();
  // a's feeds and events are the mirrors' alone (below): a row store written
  // from its store feed, a copy that applies its sync feed (as the worker
  // applies live()'s deltas), and the records its events named.
  const rows = { branches: new Map(), nodes: new Map() };
  let copy = null;
  const told = { all: false, nodes: new Set(), branches: new Set() };
  a.subscribe((e) => {
    told.all ||= e.all;
    for (const n of e.nodes) told.nodes.add(n);
    for (const n of e.branches) told.branches.add(n);
  });
  // Listeners that read as a UI's do, in the event (a window of a's path, b's
  // full list): what the last event read must be what a read after the call
  // gives (the page's caches are right before listeners are told).
  const read = { a: null, b: null };
  const windowOf = (x) => { const w = x.pathWindow(-3); return JSON.stringify([w.ids, w.messages]); };
  a.subscribe(() => { read.a = windowOf(a); });
  b.subscribe(() => { read.b = JSON.stringify(b.linearProjection()); });
  const tally = new Map();
  let most = 0; // the most nodes either copy held
  for (let step = 0; step < steps; step++) {
    const [t, other] = rnd() < 0.75 ? [a, b] : [b, a];
    // Another copy's feed, for t to apply: b's own feeds, or a feed of a
    // copy of a (a's are the mirrors').
    const feedOf = (options) => (other === b ? b.takeChanges(options) : SessionTree.load(a.save()).takeChanges(options));
    const path = t.activePath();
    const ids = t.subtree(null, { limit: 300 }).nodes.map((n) => n.id);
    const id = () => (rnd() < 0.85 && ids.length ? pick(ids) : junk());
    const names = t.branches().map((x) => x.name);
    const br = () => (rnd() < 0.85 ? pick(names) : junk());
    const m = () => (rnd() < 0.8 ? msg() : junk());
    const time = () => (rnd() < 0.9 ? at++ : junk());
    const calls = [
      ["append", () => t.append(m(), time())], ["append", () => t.append(m(), time())],
      ["rewind", () => t.rewind(id(), time())], ["branch", () => t.branch(id(), rnd() < 0.5 ? undefined : pick(["b1", "b2", junk()]), time())],
      ["switchBranch", () => t.switchBranch(br())], ["label", () => t.label(id(), rnd() < 0.8 ? `L${at % 3}` : junk(), time())],
      ["clearLabel", () => t.clearLabel(id(), time())], ["checkout", () => t.checkout(id(), time())], ["open", () => t.open(id(), time())],
      ["edit", () => t.edit(id(), m(), time())], ["regenerate", () => t.regenerate(id(), m(), time())],
      ["deleteBranch", () => t.deleteBranch(br(), time())], ["prune", () => t.prune()], ["repair", () => t.repair()],
      ["apply", () => t.apply(rnd() < 0.6 ? [{ op: "append", message: m() }, { op: pick(["rewind", "label", "nope"]), node: id(), label: "x" }] : junk(), time())],
      ["summarizeBranch", () => t.summarizeBranch(br(), rnd() < 0.8 ? "a summary" : junk(), rnd() < 0.5 ? undefined : junk(), time())],
      ["pathWindow", () => t.pathWindow(pick([0, -3, 2, 1e9, -1e9, junk()]), pick([undefined, 2, -1, junk()]), rnd() < 0.5 ? undefined : br())],
      ["subtree", () => t.subtree(rnd() < 0.5 ? null : id(), { depth: pick([undefined, 1, junk()]), limit: pick([undefined, 3, junk()]), runs: rnd() < 0.5 })],
      ["subtreeAround", () => t.subtreeAround(id(), { limit: pick([undefined, 3, junk()]) })],
      ["reads", () => [t.onPath([id()]), t.switchers([id()]), t.pathIndex(id()), t.node(id()), t.children(id()), t.siblings(id())]],
      ["branchReads", () => [t.linearProjectionOf(br()), t.pathOf(br()), t.pathLength(br()), t.stubSummary(br()), t.renderBranchText(br())]],
      ["search", () => t.search(rnd() < 0.8 ? "q" : junk(), pick([undefined, 2, junk()]))],
      ["recentBranches", () => t.recentBranches(pick([1, 3, junk()]))],
      ["takeChanges", () => b.takeChanges(rnd() < 0.5 ? undefined : { limit: pick([1, 4, junk()]), feed: pick(["store", "sync", junk()]) })],
      // Another copy's feed: its sync feed (whose first answer carries no
      // rows), its store feed in parts, or junk.
      ["applyChanges", () => t.applyChanges(rnd() < 0.4 ? feedOf({ feed: "sync" }) : rnd() < 0.7 ? feedOf({ limit: pick([2, 50]) }) : junk(), { follow: rnd() < 0.3 })],
      ["everyRow", () => t.applyChanges(SessionTree.load(other.save()).takeChanges(), { follow: rnd() < 0.5 })],
      ["merge", () => t.merge(rnd() < 0.8 ? other : junk())],
      ["loadJunk", () => SessionTree.load(rnd() < 0.5 ? junk() : t.save().slice(0, Math.floor(rnd() * 300))).free()],
      ["fromLinear", () => SessionTree.fromLinear(rnd() < 0.5 ? [msg(), msg()] : junk(), rnd() < 0.5 ? undefined : junk()).free()],
    ];
    const [name, call] = pick(calls);
    let outcome = "ok";
    try {
      call();
    } catch (e) {
      const own = e instanceof Error && /^(toJSON|getter)$/.test(e.message); // the caller's own accessor threw
      assert.ok(own || e instanceof SessionTreeError, `seed ${seed} step ${step} ${name}: threw ${e?.stack ?? e}`);
      assert.ok(own || CODES.has(e.code), `seed ${seed} step ${step} ${name}: the code ${e.code} is not one of SPEC §4's`);
      outcome = own ? "own" : e.code;
    }
    tally.set(`${name} ${outcome}`, (tally.get(`${name} ${outcome}`) ?? 0) + 1);
    if (read.a !== null) assert.equal(read.a, windowOf(a), `seed ${seed} step ${step} ${name}: a listener read another window than the tree's`);
    if (read.b !== null) assert.equal(read.b, JSON.stringify(b.linearProjection()), `seed ${seed} step ${step} ${name}: a listener read another list than the tree's`);
    read.a = read.b = null;
    for (const x of [a, b]) {
      most = Math.max(most, x.stats().nodes);
      const problems = x.validate();
      assert.equal(problems.length, 0, `seed ${seed} step ${step} ${name}: ${JSON.stringify(problems).slice(0, 300)}`);
      const list = x.linearProjection();
      const p = x.activePath();
      assert.equal(list.length, p.length, `seed ${seed} step ${step} ${name}: a list of ${list.length} for a path of ${p.length}`);
      for (let i = 0; i < p.length; i += 1 + (p.length >> 2)) assert.equal(JSON.stringify(list[i]), JSON.stringify(x.node(p[i]).message));
    }
    if (step % 25 === 0) for (const x of [a, b]) assert.equal(SessionTree.load(x.save()).save(), x.save(), `seed ${seed} step ${step}: a save that does not load back`);
    mirror(a, step, name, outcome);
  }
  a.free(); b.free(); copy?.free();
  return { tally, most };

  // mirror checks the mirrors of a after a step: every row its store feed
  // changed was told by an event, the row store reopens to a's file, and the
  // copy fed by its sync feed saves a's bytes.
  function mirror(a, step, name, outcome) {
    const at = `seed ${seed} step ${step} ${name} (${outcome})`;
    const c = a.takeChanges();
    if (c.all) { rows.branches.clear(); rows.nodes.clear(); }
    for (const { name: n, row } of c.branches) {
      row === null ? rows.branches.delete(n) : rows.branches.set(n, row);
      assert.ok(c.all || told.all || told.branches.has(n), `${at}: branch ${n}'s row changed, and no event told it`);
    }
    for (const { id, row } of c.nodes) {
      row === null ? rows.nodes.delete(id) : rows.nodes.set(id, row);
      assert.ok(c.all || told.all || told.nodes.has(id), `${at}: node ${id}'s row changed, and no event told it`);
    }
    told.all = false; told.nodes.clear(); told.branches.clear();
    const file = a.save();
    if (step % 10 === 0) {
      const back = SessionTree.fromRows({ root: c.root, activeBranch: c.activeBranch, branches: [...rows.branches].map(([n, row]) => ({ name: n, row })), nodes: [...rows.nodes].map(([id, row]) => ({ id, row })) });
      assert.equal(back.save(), file, `${at}: the row store does not reopen to the tree`);
      back.free();
    }
    const d = a.takeChanges({ feed: "sync" });
    if (d.all) {
      copy?.free();
      copy = SessionTree.load(file); // "push the whole tree"
    } else {
      copy.applyChanges(d, { follow: true });
    }
    assert.equal(copy.save(), file, `${at}: the copy fed by the sync feed is not the tree`);
  }
}

test("random calls with hostile arguments on two copies that trade feeds and merges: coded errors, sound trees, nothing lost", async () => {
  await initInterchange();
  const all = new Map();
  for (const seed of SEEDS) {
    const { tally, most } = run(seed, STEPS);
    assert.ok(most >= 10, `seed ${seed}: the copies never held more than ${most} nodes`);
    for (const [k, n] of tally) all.set(k, (all.get(k) ?? 0) + n);
  }
  // The run must do real work, not only refusals.
  const ok = (name) => all.get(`${name} ok`) ?? 0;
  for (const name of ["append", "applyChanges", "everyRow", "merge", "prune", "deleteBranch", "edit", "regenerate"]) {
    assert.ok(ok(name) >= 2 * SEEDS.length, `${name} went through ${ok(name)} times in ${SEEDS.length} runs: ${JSON.stringify([...all])}`);
  }
});
