// SessionTree.loadWith fills the module's input buffer through a callback
// (sessiontree/node's loadFile reads a file into it with fs.readSync): it must
// load what load loads, refuse what load refuses, and leave the module sound
// whatever the callback does. Node and Chromium, both flavours (loadFile:
// Node only).
import { test, assert, isNode, mainSource } from "./harness.js";
import { init, SessionTree } from "../sessiontree.js";
import { say, sample, thrown } from "./filetrees.js";

await init(mainSource);

const bytesOf = (t) => new TextEncoder().encode(t.save());
const filler = (b) => (bytes) => bytes.set(b);

test("loadWith loads what load loads, byte for byte, small and past the module's big-input size", () => {
  for (const n of [1, 40, 60000]) {
    const t = sample(n);
    const b = bytesOf(t);
    const u = SessionTree.loadWith(b.length, filler(b));
    assert.equal(u.save(), t.save(), `${n} messages`);
    // The module may keep a big input buffer as the tree's bytes: the next
    // calls must not write over it.
    const other = sample(3);
    u.append(say(1), 4);
    other.append(say(2), 5);
    assert.deepEqual(u.linearProjection().slice(0, -1), SessionTree.load(b).linearProjection());
    t.free(); u.free(); other.free();
  }
  assert.throws(() => SessionTree.loadWith(0, () => {}), thrown(() => SessionTree.load(new Uint8Array(0))).code, /empty/);
});

test("loadWith refuses what load refuses, with the same code, and the module goes on", () => {
  const good = bytesOf(sample(5));
  const cases = [
    new TextEncoder().encode("not json"),
    good.subarray(0, good.length - 3),
    new TextEncoder().encode(`{"format":"sessiontree","version":1,"root":"n1","active_branch":"main","branches":{"main":{"name":"main","leaf":"n1","created_at_ms":1}},"nodes":{"n1":{"id":"n1","children":[],"message":{"role":"user","role":"assistant"},"created_at_ms":1}}}`),
  ];
  for (const b of cases) {
    let want;
    try { SessionTree.load(b).free(); } catch (e) { want = e.code; }
    assert.ok(want, "load refuses it");
    assert.throws(() => SessionTree.loadWith(b.length, filler(b)), want);
  }
  // A fill that leaves bytes unwritten leaves whatever was there: refused, not a crash.
  assert.throws(() => SessionTree.loadWith(good.length, (bytes) => bytes.set(good.subarray(0, 10))));
  assert.equal(SessionTree.loadWith(good.length, filler(good)).save(), SessionTree.load(good).save());
});

test("loadWith checks its arguments and options as load does", () => {
  const b = bytesOf(sample(3));
  for (const size of [-1, 1.5, "3", NaN, Infinity, undefined]) assert.throws(() => SessionTree.loadWith(size, filler(b)), "invalid_input");
  assert.throws(() => SessionTree.loadWith(b.length, "fill"), "invalid_input");
  assert.throws(() => SessionTree.loadWith(b.length, filler(b), { keepDuplicatKeys: true }), "invalid_input", /no option/);
  assert.throws(() => SessionTree.loadWith(b.length, filler(b), { keepDuplicateKeys: "yes" }), "invalid_input");
  assert.throws(() => SessionTree.loadWith(2 ** 31, filler(b)), "too_large");
  const dup = new TextEncoder().encode(`{"format":"sessiontree","version":1,"root":"n1","active_branch":"main","branches":{"main":{"name":"main","leaf":"n1","created_at_ms":1}},"nodes":{"n1":{"id":"n1","children":[],"message":{"role":"user","role":"assistant"},"created_at_ms":1}}}`);
  const kept = SessionTree.loadWith(dup.length, filler(dup), { keepDuplicateKeys: true });
  assert.equal(kept.save(), SessionTree.load(dup, { keepDuplicateKeys: true }).save(), "keepDuplicateKeys as load's");
  kept.free();
});

test("a fill that throws, or calls sessiontree, loads nothing and leaves the module sound", () => {
  const t = sample(20);
  const b = bytesOf(t);
  const before = t.save();
  const e = thrown(() => SessionTree.loadWith(b.length, () => { throw new RangeError("disk gone"); }));
  assert.ok(e instanceof RangeError && e.message === "disk gone", `fill's own error is thrown, got ${e}`);
  let inner = null;
  assert.throws(() => SessionTree.loadWith(b.length, (bytes) => {
    bytes.set(b);
    try { t.append(say(1)); } catch (e) { inner = e; }
  }), "invalid_input", /fill called sessiontree/);
  assert.equal(inner?.code, "invalid_input", "the call inside fill is refused");
  assert.equal(t.save(), before, "the tree the fill called is unchanged");
  assert.throws(() => SessionTree.loadWith(b.length, async (bytes) => bytes.set(b)), "invalid_input", /promise/);
  t.append(say(2), 9);
  assert.equal(SessionTree.loadWith(b.length, filler(b)).save(), before, "the next load is sound");
  t.free();
});

test("sessiontree/node loadFile reads a saved file back; a missing file throws Node's error", { skip: !isNode }, async () => {
  const [{ loadFile }, fs, os, path] = await Promise.all([import("../node.js"), import("node:fs"), import("node:os"), import("node:path")]);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sessiontree-loadfile-"));
  try {
    for (const n of [2, 30000]) {
      const t = sample(n);
      const file = path.join(dir, `${n}.tree.json`);
      fs.writeFileSync(file, t.save());
      const u = loadFile(file);
      assert.equal(u.save(), t.save(), `${n} messages`);
      t.free(); u.free();
    }
    assert.equal(thrown(() => loadFile(path.join(dir, "missing.tree.json"))).code, "ENOENT");
    assert.equal(thrown(() => loadFile(dir)).code, "EISDIR");
    fs.writeFileSync(path.join(dir, "empty.tree.json"), "");
    assert.throws(() => loadFile(path.join(dir, "empty.tree.json")), "corrupt", /empty/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
