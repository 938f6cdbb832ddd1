// A message that names a key twice means one thing to JSON.parse (the last
// member) and another to a projection (the first): the stores' ways in refuse
// it as corrupt, naming the node; a load that keeps it reports it, fails
// closed and repairs it to what JSON.parse reads (issue 23 §1). Node and
// Chromium, both flavours.
import { test, assert, mainSource } from "./harness.js";
import { init, initInterchange, SessionTree } from "../sessiontree.js";

await init(mainSource);

const file = (msg) => `{"format":"sessiontree","version":1,"root":"n1","active_branch":"main","branches":{"main":{"name":"main","leaf":"n1","created_at_ms":1}},"nodes":{"n1":{"id":"n1","children":[],"message":${msg},"created_at_ms":1}}}`;
const dup = `{"role":"user","role":"assistant","content":[{"type":"text","text":"shown","text":"sent"}]}`;

test("load, loadFrom, fromRows and applyChanges refuse a message naming a key twice, as corrupt naming the node", async () => {
  assert.throws(() => SessionTree.load(file(dup)), "corrupt", /node "n1".*"role".*\$\.role/);
  assert.throws(() => SessionTree.load(new TextEncoder().encode(file(dup))), "corrupt", /node "n1"/);
  await assert.rejects(SessionTree.loadFrom(new TextEncoder().encode(file(dup))), "corrupt", /node "n1"/);
  const row = `{"id":"n1","children":[],"message":${dup},"created_at_ms":1}`;
  const mainRow = `{"name":"main","leaf":"n1","created_at_ms":1}`;
  assert.throws(() => SessionTree.fromRows({ root: "n1", activeBranch: "main", branches: [{ name: "main", row: mainRow }], nodes: [{ id: "n1", row }] }), "corrupt", /node "n1"/);
  const t = new SessionTree();
  const before = t.save();
  assert.throws(() => t.applyChanges({ all: false, root: "n1", activeBranch: "main", branches: [{ name: "main", row: mainRow }], nodes: [{ id: "n1", row }] }), "corrupt", /"role"/);
  assert.equal(t.save(), before, "refused changes changed the tree");
  t.free();
});

// (append, edit, regenerate, apply and fromLinear take JS objects, which
// cannot name a key twice: their JSON text is refused in core, tested natively.)

// Random messages whose keys repeat, read by the real JSON.parse: the kept
// and repaired message is exactly what JSON.parse made of the original.
test("keepDuplicateKeys: validate reports it, projections fail closed, repair keeps what JSON.parse reads", () => {
  let seed = 7;
  const rnd = (n) => { seed = (seed * 1103515245 + 12345) & 0x7fffffff; return seed % n; };
  const keys = ["role", "content", "text", "type", "id", "r\\u006fle"];
  const value = (depth) => {
    switch (depth > 2 ? rnd(3) : rnd(5)) {
      case 0: return JSON.stringify(["user", "assistant", "tool", "shown", "sent"][rnd(5)]);
      case 1: return String(rnd(100));
      case 2: return "null";
      case 3: return "[" + Array.from({ length: rnd(3) }, () => object(depth + 1)).join(",") + "]";
      default: return object(depth + 1);
    }
  };
  const object = (depth) => "{" + Array.from({ length: 1 + rnd(5) }, () => `"${keys[rnd(keys.length)]}":${value(depth)}`).join(",") + "}";
  let checked = 0;
  for (let i = 0; i < 300; i++) {
    const msg = `{"role":"user",` + object(0).slice(1);
    const parsed = JSON.parse(msg);
    if (typeof parsed.role !== "string") continue;
    let t;
    try { t = SessionTree.load(file(msg), { keepDuplicateKeys: true }); } catch (e) { assert.equal(e.code, "invalid_input"); continue; }
    const problems = t.validate();
    if (problems.length === 0) { t.free(); continue; } // no key repeated
    assert.ok(problems.every((p) => p.kind === "duplicate_key" && p.node === "n1"), JSON.stringify(problems));
    assert.throws(() => t.linearProjection(), "corrupt", /node "n1"/);
    t.repair();
    assert.deepEqual(t.validate(), []);
    assert.deepEqual(t.node("n1").message, parsed, `${msg} repaired to ${JSON.stringify(t.node("n1").message)}`);
    assert.deepEqual(t.linearProjection()[0], parsed);
    SessionTree.load(t.save()).free(); // loads back without the option
    t.free();
    checked++;
  }
  assert.ok(checked > 100, `only ${checked} messages with a repeated key`);
});

test("load's options are checked", () => {
  assert.throws(() => SessionTree.load(file(dup), { keepDuplicateKeys: "yes" }), "invalid_input");
  assert.throws(() => SessionTree.load(file(dup), null), "invalid_input");
});

test("an import keeps the last value of a key named twice and says so", async () => {
  await initInterchange();
  const { tree, report } = SessionTree.import(`[{"role":"user","content":"shown","content":"sent"}]`, "openai");
  assert.equal(tree.linearProjection()[0].content, "sent");
  assert.ok(report.problems.some((p) => /named twice/.test(p.message ?? p)), JSON.stringify(report));
  tree.free();
});
