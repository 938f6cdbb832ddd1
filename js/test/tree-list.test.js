// The list linearProjection hands back is built on the previous one (the same
// list when nothing changed, plus the appended messages after appends: see
// wasm/internal/treecalls/project.go listMemo). It must never be stale: after
// any change it equals the list of a fresh tree loaded from the same file.
// Runs under `node --test` and, unchanged, in headless Chromium (browser.mjs).
import { test, assert, mainSource } from "./harness.js";
import { init, initInterchange, SessionTree } from "../sessiontree.js";

await Promise.all([init(mainSource), initInterchange()]);

const say = (i) => ({ role: i % 2 ? "assistant" : "user", content: `m${i}` });

// fresh is the active path's list as a tree with no list held builds it.
function fresh(t) {
  const c = SessionTree.load(t.save());
  try {
    return c.linearProjection();
  } finally {
    c.free();
  }
}

test("a list asked again with nothing changed is equal and a copy of its own", () => {
  const t = SessionTree.fromLinear([say(0), say(1), say(2)], 1);
  const a = t.linearProjection();
  a.push("mine");
  a[0] = null;
  const b = t.linearProjection();
  assert.deepEqual(b, [say(0), say(1), say(2)]);
  assert.ok(a !== b, "a new array each time");
  assert.equal(b[1], t.linearProjection()[1], "the message objects are the cached ones");
  t.free();
});

test("after appends the list is the previous one and the appended messages", () => {
  const t = new SessionTree();
  for (let i = 0; i < 20; i++) {
    t.append(say(i), i);
    assert.deepEqual(t.linearProjection(), Array.from({ length: i + 1 }, (_, j) => say(j)), `after append ${i}`);
  }
  t.apply([{ op: "append", message: say(20) }, { op: "append", message: say(21) }]);
  assert.equal(t.linearProjection().length, 22);
  t.free();
});

test("after a rewind and more appends than it took away, the list is the new path", () => {
  const t = SessionTree.fromLinear([say(0), say(1), say(2), say(3)], 1);
  const ids = t.activePath();
  t.linearProjection();
  t.rewind(ids[1], 2);
  for (let i = 10; i < 14; i++) t.append(say(i), 3);
  assert.deepEqual(t.linearProjection(), [say(0), say(1), say(10), say(11), say(12), say(13)]);
  t.free();
});

test("the list of another branch, then the active one again, are each right", () => {
  const t = SessionTree.fromLinear([say(0), say(1), say(2), say(3)], 1);
  const ids = t.activePath();
  t.regenerate(ids[1], say(9), 2);
  assert.deepEqual(t.linearProjection(), [say(0), say(9)]);
  assert.deepEqual(t.linearProjectionOf("main"), [say(0), say(1), say(2), say(3)]);
  t.append(say(10), 3);
  assert.deepEqual(t.linearProjection(), [say(0), say(9), say(10)]);
  assert.deepEqual(t.linearProjectionOf("main"), [say(0), say(1), say(2), say(3)]);
  t.free();
  assert.throws(() => t.linearProjection(), "invalid_input", /freed/);
});

test("random changes: the list after each equals a fresh tree's (seeds in failures)", () => {
  for (let seed = 1; seed <= 30; seed++) {
    let s = seed;
    const rand = (n) => ((s = (s * 1103515245 + 12345) % 2147483648), s % n);
    const t = SessionTree.fromLinear([say(0), say(1)], 1);
    let at = 2, k = 100;
    const ops = [];
    for (let step = 0; step < 120; step++) {
      const path = t.activePath();
      const node = path[rand(path.length)];
      const branches = t.branches().map((b) => b.name);
      const what = rand(16);
      let op;
      switch (what) {
        case 0: case 1: case 2: case 3: op = "append"; t.append(say(k++), at++); break;
        case 4: op = "apply"; t.apply([{ op: "append", message: say(k++) }, { op: "append", message: say(k++) }], at++); break;
        case 5: op = "edit"; t.edit(node, say(k++), at++); break;
        case 6: op = "regenerate"; t.regenerate(node, say(k++), at++); break;
        case 7: op = "rewind"; t.rewind(node, at++); break;
        case 8: op = "switch"; t.switchBranch(branches[rand(branches.length)]); break;
        case 9: op = "label"; t.label(node, `l${k++}`, at++); break;
        case 10: op = "another branch's list"; t.linearProjectionOf(branches[rand(branches.length)]); break;
        case 11: {
          op = "applyChanges";
          const c = SessionTree.load(t.save());
          c.takeChanges();
          c.append(say(k++), at++);
          t.applyChanges(c.takeChanges(), { follow: true });
          c.free();
          break;
        }
        case 12: {
          op = "merge";
          const c = SessionTree.load(t.save());
          c.append(say(k++), at++);
          c.regenerate(c.activePath()[0], say(k++), at++);
          t.merge(c);
          c.free();
          break;
        }
        case 13: op = "prune"; t.prune(); break;
        case 14: {
          op = "clone";
          const c = t.clone();
          c.append(say(k++), at++);
          assert.deepEqual(c.linearProjection(), fresh(c), `seed ${seed} step ${step}: the clone's list`);
          c.free();
          break;
        }
        default: op = "nothing";
      }
      ops.push(op);
      if (rand(3) !== 0) continue; // changes pile up between some lists
      const got = t.linearProjection();
      assert.deepEqual(got, fresh(t), `seed ${seed} step ${step}: the list after ${ops.join(", ")}`);
      got.length = 0; // the caller's copy: changing it changes nothing held
      ops.length = 0;
    }
    t.free();
  }
});

// A loaded file's messages are decoded in one piece when the stretch of the
// module's memory that holds them decodes to as many UTF-16 units as it has
// bytes (newTexts in sessiontree.js), else one at a time. Either way each
// message must come back exactly: ASCII everywhere, non-ASCII in the messages,
// non-ASCII between them (labels, branch names), and both.
test("a loaded file's list is its messages exactly, whatever the bytes between and in them", () => {
  const texts = {
    ascii: (i) => `plain message ${i}, "quoted" \\ and a tab\t`,
    wide: (i) => (i % 3 ? `m${i}` : `é ${i} 漢字 😀👍🏽 \u2028`),
  };
  for (const [name, text] of Object.entries(texts)) {
    for (const labels of [false, true]) {
      const t = new SessionTree();
      const want = [];
      for (let i = 0; i < 300; i++) {
        const m = { role: i % 2 ? "assistant" : "user", content: text(i) };
        const id = t.append(m, i + 1);
        if (labels && i % 7 === 0) t.label(id, `étiquette ${i} 🌳`, i + 1);
        want.push(m);
      }
      if (labels) t.branch(t.activePath()[5], "branché 😀", 400);
      const file = t.save();
      t.free();
      const u = SessionTree.load(file);
      if (labels) u.switchBranch("main");
      assert.deepEqual(u.linearProjection(), want, `${name}, labels ${labels}`);
      assert.deepEqual(u.pathWindow(-60).messages, want.slice(-60), `${name}, labels ${labels}: a window`);
      u.free();
    }
  }
});
