// Issue 15: no wrong output past 2 GiB, and too_large (not a crash) at the 4
// GiB of wasm32. Runs under `node --test` and in its own Chromium page
// (browser.mjs), with the lean or the full module (SESSIONTREE_FLAVOUR=full),
// built with -tags sessiontree_testhooks into js/test/build by make test-js:
// the same module plus one export, st_test_hold(n), that keeps n bytes so that
// every later allocation lands past 2 GiB (Go's page allocator takes the
// lowest free addresses first).
import { test, assert, isNode, full } from "./harness.js";
import { init, memoryUsage, SessionTree } from "../sessiontree.js";

const GiB = 2 ** 30;
const name = full ? "sessiontree-interchange-hooks.wasm" : "sessiontree-hooks.wasm";
let exports = null; // the module's exports, caught as it is instantiated
const { instantiate, instantiateStreaming } = WebAssembly;
const catching = (fn) => async (...args) => {
  const r = await fn.apply(WebAssembly, args);
  const inst = r.instance ?? r;
  if (inst.exports?.st_test_hold) exports = inst.exports;
  return r;
};
WebAssembly.instantiate = catching(instantiate);
if (instantiateStreaming) WebAssembly.instantiateStreaming = catching(instantiateStreaming);
await init(new URL(`./build/${name}`, import.meta.url));
Object.assign(WebAssembly, { instantiate, instantiateStreaming });
if (!exports) throw new Error(`${name} has no st_test_hold export: build it with make test-js`);
const hold = (n) => exports.st_test_hold(n) >>> 0;
const lastOut = () => exports.st_out() >>> 0;

// A conversation with every kind of text: ASCII, accents, CJK, emoji, escapes.
const texts = ["hello", "héllo wörld", "你好，世界", "emoji 😀👍🏽", 'quote " back \\ slash\nnewline', "x".repeat(12000)];
const conversation = (n) => Array.from({ length: n }, (_, i) => ({
  role: i % 2 ? "assistant" : "user",
  content: `${i}: ${texts[i % texts.length]}`,
  ...(i % 7 === 0 ? { meta: { n: i, big: 12345678901234567890, f: 1.5e-7 } } : {}),
}));

// Everything a call can return, read below 2 GiB first: a save, a projection,
// a path, a node, branches, an error's code and message.
const source = SessionTree.fromLinear(conversation(3000), 1);
const first = source.activePath()[0];
source.rewind(source.activePath()[100], 2);
source.append({ role: "user", content: "on a branch ✨" }, 3);
const file = source.save(); // ~5 MB: more than a small buffer, so it is the input buffer when loaded
const want = {
  save: file,
  projection: JSON.stringify(source.linearProjection()),
  main: JSON.stringify(source.linearProjectionOf("main")),
  path: JSON.stringify(source.activePath()),
  node: JSON.stringify(source.node(first)),
  branches: JSON.stringify(source.branches()),
};
const errorOf = (fn) => { try { fn(); } catch (e) { return `${e.code}: ${e.message}`; } return "no error"; };
const wantError = errorOf(() => source.switchBranch("no such branch ✨"));

function sameAsBelow2GiB(t, where) {
  assert.equal(t.save(), want.save, `${where}: save() differs`);
  assert.equal(JSON.stringify(t.linearProjection()), want.projection, `${where}: projection differs`);
  assert.equal(JSON.stringify(t.linearProjectionOf("main")), want.main, `${where}: projection of main differs`);
  assert.equal(JSON.stringify(t.activePath()), want.path, `${where}: path differs`);
  assert.equal(JSON.stringify(t.node(first)), want.node, `${where}: node differs`);
  assert.equal(JSON.stringify(t.branches()), want.branches, `${where}: branches differ`);
  assert.equal(errorOf(() => t.switchBranch("no such branch ✨")), wantError, `${where}: error differs`);
}

test("past 2 GiB of module memory every call returns the same bytes as below it", async () => {
  source.linearProjection(); // a small result: the module drops its large result buffer (made below 2 GiB)
  assert.ok(hold(2.2 * GiB) > 0, "could not hold 2.2 GiB");
  assert.ok(memoryUsage().main > 2 * GiB, `memory is ${memoryUsage().main} bytes`);
  const t = SessionTree.load(file); // its input buffer and tree past 2 GiB
  // Go's page allocator takes the lowest free pages first: fill what is free
  // below 2 GiB (a collection can free more there), until a save lands past it.
  // The module reuses its large result buffer: drop it first (a small result),
  // collect (a large call after garbage collects it first), then fill.
  // A loaded tree's save answers the file's nodes where the load keeps them
  // (SaveInParts): a clone, never loaded, writes the whole file.
  const written = t.clone();
  for (let round = 0; round < 8; round++) {
    source.linearProjection();
    hold(4 * 2 ** 20);
    for (let i = 0; i < 8192 && hold(40 * 1024) < 2 ** 31; i++);
    written.save();
    if (lastOut() >= 2 ** 31) break;
  }
  assert.ok(lastOut() >= 2 ** 31, `the save was written at ${lastOut()}, below 2 GiB: the test proves nothing`);
  assert.equal(written.save(), want.save, "a save written past 2 GiB differs");
  written.free();
  // Loaded now (what is free below 2 GiB is filled), the file lands past it.
  const high = SessionTree.load(file);
  high.save();
  const u8 = new Uint8Array(exports.mem.buffer), at = lastOut();
  assert.equal(u8[at], 0, "the loaded tree's save is answered in parts");
  const nodesAt = (u8[at + 4] | u8[at + 5] << 8 | u8[at + 6] << 16 | u8[at + 7] << 24) >>> 0;
  assert.ok(nodesAt >= 2 ** 31, `the loaded file's nodes are at ${nodesAt}, below 2 GiB: the test proves nothing`);
  sameAsBelow2GiB(high, "a tree loaded past 2 GiB, its save read from there");
  high.free();
  sameAsBelow2GiB(t, "a tree loaded past 2 GiB");
  sameAsBelow2GiB(source, "a tree made below 2 GiB, read past it");
  const u = SessionTree.load(t.save()); // a save's output read back as a load's input, both past 2 GiB
  sameAsBelow2GiB(u, "a tree loaded from a save made past 2 GiB");
  const v = await SessionTree.loadFrom(new TextEncoder().encode(file), { sliceMs: 0 }); // its own buffer, past 2 GiB
  sameAsBelow2GiB(v, "a tree loaded in slices past 2 GiB");
  v.free();
  const id = u.append({ role: "assistant", content: "written past 2 GiB 🚀" }, 9);
  assert.deepEqual(u.node(id).message, { role: "assistant", content: "written past 2 GiB 🚀" });
  assert.deepEqual(u.apply([{ op: "label", node: id, label: "high" }, { op: "switch", branch: "main" }]), [undefined, undefined]);
  assert.equal(u.node(id).label, "high");
  t.free();
  u.free();
});

test("at the 4 GiB limit a call fails with too_large, nothing changed, and the module keeps working", async () => {
  // Fill the memory in 256 MiB pieces until the module refuses one: refused,
  // not crashed (a Go heap that cannot grow would stop the program).
  let held = 0;
  while (held < 16 && hold(256 * 2 ** 20) > 0) held++;
  assert.ok(held < 16, "the module never refused a hold: no limit reached");
  const big = JSON.stringify(conversation(2000)); // ~3 MB
  const trees = [];
  let refused = null;
  for (let i = 0; i < 400 && !refused; i++) {
    try {
      trees.push(SessionTree.fromLinear(JSON.parse(big), 1)); // each kept: memory only fills
    } catch (e) {
      refused = e;
    }
  }
  assert.ok(refused, "400 trees of ~3 MB loaded at the limit: nothing refused");
  assert.equal(refused.code, "too_large", `${refused.code}: ${refused.message}`);
  assert.ok(/nothing was changed/.test(refused.message) && /4 GiB/.test(refused.message), refused.message);
  // At the limit, small calls still run, and a large one either fits in what
  // is left or is refused with the same error (never a crash): loads of the
  // 5 MB file, kept until one is refused (what is left after the last tree
  // depends on the collector's last cycle), then a save of every tree.
  assert.equal(trees.at(-1).activePath().length, 2000);
  assert.equal(source.activeBranch, "main");
  let e = null;
  for (let k = 0; k < 100 && !e; k++) {
    try {
      trees.push(SessionTree.load(file));
    } catch (err) {
      e = err;
    }
  }
  assert.ok(e && e.code === "too_large", `loads at the limit: ${e ? `${e.code}: ${e.message}` : "100 loads of 5 MB, none refused"}`);
  for (const t of trees) {
    try {
      t.save();
    } catch (err) {
      assert.equal(err.code, "too_large", `a save at the limit: ${err.code}: ${err.message}`);
    }
  }
  await assert.rejects(SessionTree.loadFrom(new TextEncoder().encode(file)), "too_large", /nothing was changed/);
  for (const t of trees) t.free();
  hold(0);
  // After freeing, the memory is used again, and nothing was changed: the
  // module did not stop, the trees are as they were.
  sameAsBelow2GiB(source, "a tree made before the limit, read after it");
  const again = SessionTree.load(file);
  sameAsBelow2GiB(again, "a tree loaded after the limit was freed");
  again.free();
  const sliced = await SessionTree.loadFrom(new TextEncoder().encode(file));
  sameAsBelow2GiB(sliced, "a tree loaded in slices after the limit was freed");
  sliced.free();
});
