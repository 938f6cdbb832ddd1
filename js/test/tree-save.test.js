// save() of a loaded tree (issue 26): while no node changed since the load,
// the module answers with the file's own nodes where the load keeps them
// (wasm/internal/treecalls SaveInParts), so a save neither writes the nodes
// again nor grows the module by the file's size. What it returns is always
// the file a tree that was never loaded saves, byte for byte.
// Runs under node --test and in Chromium, either flavour.
import { test, assert, mainSource } from "./harness.js";
import { init, memoryUsage, SessionTree } from "../sessiontree.js";

await init(mainSource);

const say = (i) => ({ role: i % 2 ? "assistant" : "user", content: `message ${i}: ` + ["plain text", "naïve café ✓ 🌳", "a \"quoted\"\nline", "中文"][i % 4] });

// twins returns a tree built by calls and the same tree loaded from its file.
function twins(n) {
  const a = new SessionTree();
  let at = 1, id;
  for (let i = 0; i < n; i++) {
    id = a.append(say(i), at++);
    if (i % 7 === 6) a.regenerate(id, say(i + 1000), at++);
    if (i % 11 === 3) a.label(id, i % 2 ? "kept" : "✓ checked", at++);
  }
  const file = a.save();
  return [a, SessionTree.load(file), file];
}

test("a loaded tree saves its file byte for byte, non-ASCII text and labels included", () => {
  const [a, b, file] = twins(300);
  assert.equal(b.save(), file);
  assert.equal(b.save(), file, "and again");
  a.free(); b.free();
});

// A clone is never loaded: its save writes every node.
function written(t) {
  const c = t.clone();
  try { return c.save(); } finally { c.free(); }
}

test("after branch changes, and after each change to its nodes, a loaded tree saves what writing every node saves", () => {
  const [a, b] = twins(200);
  const home = a.activeBranch;
  const steps = [
    (t) => t.branch(t.pathWindow(50, 51).ids[0], "side", 5000),
    (t) => t.switchBranch(home),
    (t) => t.summarizeBranch("side", "the side so far", "m", 5001),
    (t) => t.append(say(5), 5002),
    (t) => t.label(t.pathWindow(10, 11).ids[0], "later", 5003),
    (t) => t.regenerate(t.pathWindow(20, 21).ids[0], say(7), 5004),
    (t) => t.rewind(t.pathWindow(5, 6).ids[0], 5005),
    (t) => t.append(say(9), 5006),
  ];
  for (const [i, step] of steps.entries()) {
    step(a); step(b);
    const want = written(b);
    if (i < 3) assert.equal(want, a.save(), `step ${i}: the tree built by calls (new nodes have new random ids after it)`);
    assert.equal(b.save(), want, `step ${i}`);
    const c = SessionTree.load(b.save());
    assert.equal(c.save(), want, `step ${i}, loaded again`);
    c.free();
  }
  a.free(); b.free();
});

test("the save of a large loaded tree does not grow the module by the file's size", () => {
  const t = SessionTree.fromLinear(Array.from({ length: 40000 }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: `message ${i}: ` + "an ordinary chat reply, ".repeat(8) })), 1);
  const file = t.save();
  t.free();
  const b = SessionTree.load(file);
  b.pathWindow(-50);
  const before = memoryUsage().main;
  for (let i = 0; i < 3; i++) assert.equal(b.save().length, file.length);
  const grew = memoryUsage().main - before;
  assert.ok(grew < file.length / 4, `three saves of a ${(file.length / 1e6).toFixed(1)} MB file grew the module ${(grew / 1e6).toFixed(1)} MB`);
  b.free();
});
