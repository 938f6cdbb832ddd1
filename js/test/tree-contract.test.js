// Two contract points of the file format, where the JS API's user sees them
// (core/contract_test.go states them natively). Runs under `node --test` and
// in headless Chromium (browser.mjs), lean and full flavour.
import { test, assert, mainSource } from "./harness.js";
import { init, SessionTree } from "../sessiontree.js";

await init(mainSource);

// A saved file whose "active_branch" names no branch ("gone").
const unknownActive = '{"format":"sessiontree","version":1,"root":"a","active_branch":"gone",' +
  '"branches":{"main":{"name":"main","leaf":"b","created_at_ms":0},"side":{"name":"side","leaf":"a","created_at_ms":0}},' +
  '"nodes":{"a":{"id":"a","children":["b"],"message":{"role":"user","content":"a"},"created_at_ms":1},' +
  '"b":{"id":"b","parent":"a","children":[],"message":{"role":"assistant","content":"b"},"created_at_ms":2}}}';

test("a file whose active_branch names no branch is corrupt (never branch_not_found), and repair() makes main active", () => {
  const t = SessionTree.load(unknownActive);
  assert.equal(t.activeBranch, "gone");
  assert.throws(() => t.linearProjection(), "corrupt", /"gone"/);
  assert.throws(() => t.activePath(), "corrupt", /"gone"/);
  assert.throws(() => t.linearProjectionOf("gone"), "corrupt", /"gone"/);
  assert.throws(() => t.append({ role: "user", content: "x" }), "corrupt", /"gone"/);
  assert.throws(() => t.linearProjectionOf("nope"), "branch_not_found", /"nope"/);
  assert.equal(t.save(), unknownActive, "the failed calls changed nothing");
  assert.ok(t.validate().some((p) => p.kind === "unknown_active_branch"));
  assert.ok(t.repair().length > 0);
  assert.equal(t.activeBranch, "main");
  assert.deepEqual(t.linearProjection().map((m) => m.content), ["a", "b"]);
  t.free();
});

test("fromLinear([]) saves exactly what new SessionTree() saves, whatever atMs", () => {
  const want = new SessionTree().save();
  assert.ok(!want.includes("moved_at_ms"), want);
  for (const at of [undefined, 0, 1, 1_700_000_000_000]) {
    const t = SessionTree.fromLinear([], at);
    assert.equal(t.save(), want, `fromLinear([], ${at})`);
    assert.equal(SessionTree.load(t.save()).save(), want);
    t.free();
  }
});

test("a file whose active branch's record names another branch loads with the file's active branch, saves back unchanged, and repair() keeps it", () => {
  const file = unknownActive.replace('"active_branch":"gone"', '"active_branch":"side"').replace('"side":{"name":"side"', '"side":{"name":"other"');
  const t = SessionTree.load(file);
  assert.equal(t.activeBranch, "side");
  assert.equal(t.save(), file);
  assert.deepEqual(t.validate().map((p) => p.kind), ["branch_name_mismatch"]);
  assert.ok(t.repair().length > 0);
  assert.equal(t.activeBranch, "side");
  assert.deepEqual(t.linearProjection().map((m) => m.content), ["a"]);
  t.free();
});
