// Windowed reads (issue 16): a chat view reads the path's length and a
// screenful of it, never the whole path. Runs under node --test and in
// Chromium (browser.mjs), with either flavour (harness.js).
import { test, assert, mainSource } from "./harness.js";
import { init, SessionTree } from "../sessiontree.js";

await init(mainSource);

const say = (i) => ({ role: i % 2 ? "assistant" : "user", content: `turn ${i} ✨` });

test("pathLength counts the path of the active branch or of a named one", () => {
  const t = SessionTree.fromLinear(Array.from({ length: 10 }, (_, i) => say(i)), 1);
  assert.equal(t.pathLength(), 10);
  t.rewind(t.activePath()[3], 2);
  assert.equal(t.pathLength(), 4);
  assert.equal(t.pathLength("branch-1"), 10);
  assert.equal(new SessionTree().pathLength(), 0);
  assert.throws(() => t.pathLength("nope"), "branch_not_found");
  t.free();
});

test("pathWindow(start, end, branch) is the slice of the path and of the projection Array.slice names", () => {
  const t = SessionTree.fromLinear(Array.from({ length: 12 }, (_, i) => say(i)), 1);
  t.rewind(t.activePath()[5], 2);
  t.append(say(100), 3);
  for (const branch of [undefined, "main", "branch-1"]) {
    const path = branch ? t.pathOf(branch) : t.activePath();
    const msgs = branch ? t.linearProjectionOf(branch) : t.linearProjection();
    for (const [start, end] of [[0], [-3], [-3, -1], [2, 5], [-100], [4, 100], [5, 2], [0, 0], [-1, undefined], [3, -2], [100]]) {
      const w = t.pathWindow(start, end, branch);
      assert.deepEqual(w.ids, path.slice(start, end), `ids of ${branch} [${start}, ${end})`);
      assert.deepEqual(w.messages, msgs.slice(start, end), `messages of ${branch} [${start}, ${end})`);
    }
  }
  t.free();
});

test("a window hands out the same frozen message objects as the projection", () => {
  const t = SessionTree.fromLinear(Array.from({ length: 5 }, (_, i) => say(i)), 1);
  const tail = t.pathWindow(-2).messages;
  const all = t.linearProjection();
  assert.ok(tail[0] === all[3] && tail[1] === all[4], "not the cached objects");
  assert.ok(Object.isFrozen(tail[0]), "not frozen");
  t.free();
});

test("pathWindow checks its arguments and fails closed on a missing branch", () => {
  const t = SessionTree.fromLinear([say(0)], 1);
  assert.throws(() => t.pathWindow(1.5), "invalid_input", /"start" must be an integer/);
  assert.throws(() => t.pathWindow(0, "2"), "invalid_input", /"end" must be an integer/);
  assert.throws(() => t.pathWindow(0, 1, "nope"), "branch_not_found");
  t.free();
  assert.throws(() => t.pathWindow(0), "invalid_input", /freed/);
});

test("the last screenful of a long path is read without reading the rest", () => {
  const n = 20000;
  const t = SessionTree.fromLinear(Array.from({ length: n }, (_, i) => say(i)), 1);
  const w = t.pathWindow(-50);
  assert.equal(w.messages.length, 50);
  assert.equal(w.messages[49].content, `turn ${n - 1} ✨`);
  assert.equal(w.ids[0], t.activePath()[n - 50]);
  t.free();
});
