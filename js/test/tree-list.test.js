// The list linearProjection hands back is built on the previous one (the same
// list when nothing changed; the part the path still starts with, plus the
// messages after it, after appends, regenerates, edits and switches: see
// wasm/internal/treecalls/project.go listMemo). It must never be stale: after
// any change it equals the list of a fresh tree loaded from the same file.
// Runs under `node --test` and, unchanged, in headless Chromium (browser.mjs).
import { test, assert, isNode, mainSource } from "./harness.js";
import { init, initInterchange, SessionTree } from "../sessiontree.js";
import { rng } from "./rng.js";

await Promise.all([init(mainSource), initInterchange()]);

const say = (i) => ({ role: i % 2 ? "assistant" : "user", content: `m${i}` });
const util = isNode ? await import("node:util") : null;

// fresh is the list of the active path (or of branch) as a tree with no list
// held builds it.
function fresh(t, branch) {
  const c = SessionTree.load(t.save());
  try {
    return (branch === undefined ? c.linearProjection() : c.linearProjectionOf(branch)).slice();
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

test("a list after appends copies the last list's array, unless its caller wrote to it", () => {
  const t = SessionTree.load(SessionTree.fromLinear(Array.from({ length: 50 }, (_, i) => say(i)), 1).save());
  const path = (n) => Array.from({ length: n }, (_, i) => say(i));
  const a = t.linearProjection(); // lazy: nothing read yet
  const third = a[3];
  t.append(say(50), 2);
  const b = t.linearProjection();
  assert.equal(b[3], third, "a message read through the last list is the same object");
  assert.deepEqual(b, path(51));
  // Written to: the next list is the path all the same.
  b[0] = "mine";
  b.push("more");
  b.length = 10;
  t.append(say(51), 3);
  const c = t.linearProjection();
  assert.deepEqual(c, path(52), "a list after one its caller wrote to");
  assert.deepEqual(b, [..."x".repeat(10)].map((_, i) => (i === 0 ? "mine" : say(i))), "the written list keeps its writes");
  // Unwritten: the next list is a copy, and writes to either stay in it.
  t.append(say(52), 4);
  const d = t.linearProjection();
  c[5] = "c's";
  d[6] = "d's";
  assert.deepEqual(c, path(52).map((m, i) => (i === 5 ? "c's" : m)));
  assert.deepEqual(d, path(53).map((m, i) => (i === 6 ? "d's" : m)));
  // After a regenerate, the part kept comes from the last list's array too.
  const e = t.linearProjection();
  const last = t.pathWindow(-1).ids[0];
  t.regenerate(last, say(99), 5);
  const f = t.linearProjection();
  assert.deepEqual(f, [...path(52), say(99)]);
  assert.deepEqual(e, path(53), "the list before the regenerate");
  assert.deepEqual(t.linearProjection(), f);
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

test("lists handed out before regenerates, edits and switches still read as the paths they were", () => {
  const t = SessionTree.fromLinear(Array.from({ length: 300 }, (_, i) => say(i)), 1);
  const lists = [];
  let k = 1000;
  for (let step = 0; step < 40; step++) {
    const path = t.activePath();
    const node = path[path.length - 1 - (step % 5)];
    switch (step % 4) {
      case 0: t.regenerate(node, say(k++), step + 2); break;
      case 1: t.edit(node, say(k++), step + 2); break;
      case 2: t.append(say(k++), step + 2); break;
      default: {
        const names = t.branches().map((b) => b.name);
        t.switchBranch(names[step % names.length]);
      }
    }
    const list = step % 5 === 4 ? t.linearProjectionOf("main") : t.linearProjection();
    lists.push([list, fresh(t, step % 5 === 4 ? "main" : undefined), step]);
    if (step % 3 === 0) for (const m of list) void m.role; // some lists read at once, some never before the end
  }
  for (const [list, want, step] of lists) assert.deepEqual(list, want, `the list of step ${step}`);
  t.free();
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

// A window (pathWindow) of messages a lazy list has not read yet reads them
// from where the list's places say they are, without asking the module again;
// messages whose texts JS let go (appends) it asks for.
test("a window after a list not read yet reads the same messages, and appended ones", () => {
  for (const text of [(i) => `message ${i} ${"x".repeat(i % 30)}`, (i) => `é ${i} 漢字 😀 ${"y".repeat(i % 20)}`]) {
    const want = Array.from({ length: 400 }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: text(i) }));
    const t = SessionTree.fromLinear(want, 1);
    const u = SessionTree.load(t.save());
    t.free();
    const list = u.linearProjection(); // not read
    assert.deepEqual(u.pathWindow(-60).messages, want.slice(-60));
    assert.deepEqual(u.pathWindow(100, 160).messages, want.slice(100, 160));
    for (let i = 0; i < 5; i++) {
      const m = { role: "user", content: text(1000 + i) };
      u.append(m, 2);
      want.push(m);
    }
    assert.deepEqual(u.linearProjection().slice(-8), want.slice(-8));
    assert.deepEqual(u.pathWindow(-10).messages, want.slice(-10));
    assert.deepEqual(list, want.slice(0, 400), "the list itself");
    u.free();
  }
});

// A list's messages are read when first read (lazyList in sessiontree.js):
// until then they are bytes in the module's memory, which the module may free
// and reuse once the tree is pruned, merged, replaced by rows or freed. Each
// of those must first keep what a list still alive may read: whatever happens
// to the tree and the memory after, a list reads as the path it was.
const wide = (i) => ({ role: i % 2 ? "assistant" : "user", content: i % 5 ? `message ${i} ${"x".repeat(i % 40)}` : `é ${i} 漢字 😀 ${"y".repeat(i % 30)}` });

let other = null; // a file of 4,000 other messages, ~3 MB
function churn() {
  // Trees of other messages made, read and freed, some as long as the list's,
  // so that freed bytes are used again; the large loads make the module's
  // collector run (wasm/internal/bridge memory.go).
  if (other === null) {
    const o = new SessionTree();
    o.apply(Array.from({ length: 4000 }, (_, i) => ({ op: "append", message: { role: "user", content: `OTHER ${i} ${"z".repeat(i % 40)} ${"w".repeat(700)}` } })), 1);
    other = o.save();
    o.free();
  }
  for (let r = 0; r < 6; r++) {
    const o = SessionTree.load(other);
    o.linearProjection().forEach((m) => m.role);
    o.apply(Array.from({ length: 3000 }, (_, i) => ({ op: "append", message: { role: "user", content: `OTHER ${r} ${i} ${"z".repeat(i % 90)}` } })), 1);
    o.free();
  }
}

const ways = {
  prune(t) {
    t.deleteBranch("side");
    t.prune();
  },
  merge(t) {
    const c = SessionTree.load(t.save());
    c.append({ role: "user", content: "theirs" }, 9000);
    t.merge(c);
    c.free();
  },
  "applyChanges (every row)"(t) {
    const c = SessionTree.load(t.save());
    c.append({ role: "user", content: "theirs" }, 9000);
    t.applyChanges(c.takeChanges(), { follow: true });
    c.free();
  },
  free(t) {
    t.free();
  },
  nothing() {},
};

test("a list not read yet reads as the path it was after its tree is pruned, merged, replaced by rows or freed, and the memory used again", () => {
  for (const [way, change] of Object.entries(ways)) {
    const s = new SessionTree();
    for (let i = 0; i < 300; i++) s.append(wide(i), i + 1);
    const t = SessionTree.load(s.save()); // the loaded file's bytes
    s.free();
    for (let i = 300; i < 400; i++) t.append(wide(i), i + 1); // texts JS let go
    t.branch(t.activePath()[10], "side", 400); // bytes of their own, which a prune frees
    t.switchBranch("side");
    for (let i = 0; i < 60; i++) t.append({ role: "user", content: `on the side ${i} ${"s".repeat(i)}` }, 401 + i);
    t.switchBranch("main");
    const want = JSON.stringify(Array.from({ length: 400 }, (_, i) => wide(i)));
    const whole = t.linearProjection();
    const tail = t.linearProjection(); // the same messages
    const side = t.linearProjectionOf("side"); // messages a prune removes
    const read = whole[7]; // one read before
    change(t);
    churn();
    assert.equal(JSON.stringify(whole), want, `${way}: the list`);
    assert.equal(tail[7], read, `${way}: a message read in one list is the same object in another`);
    assert.equal(JSON.stringify(tail), want, `${way}: the second list`);
    const sideWant = [...Array.from({ length: 11 }, (_, i) => wide(i)), ...Array.from({ length: 60 }, (_, i) => ({ role: "user", content: `on the side ${i} ${"s".repeat(i)}` }))];
    assert.equal(JSON.stringify(side), JSON.stringify(sideWant), `${way}: the list of a branch deleted and pruned`);
    if (way !== "free") {
      assert.equal(JSON.stringify(t.linearProjection()), JSON.stringify(fresh(t)), `${way}: the tree's list after`);
      t.free();
    }
  }
});

test("a prune the module refuses (a corrupt tree) leaves a list alive reading as it was, also after a free", () => {
  // A prune copies what a live list may read out of the module first
  // (keepUnread); refused, it must give the list back the module's memory and
  // keep counting it, so that the free after it copies it again.
  const s = new SessionTree();
  for (let i = 0; i < 300; i++) s.append(wide(i), i + 1);
  const at = s.activePath()[10];
  s.branch(at, "side", 400);
  const sideId = s.append({ role: "user", content: "on the side" }, 401);
  s.switchBranch("main");
  const file = JSON.parse(s.save());
  s.free();
  file.nodes[sideId].parent = "nowhere"; // off the main path: main's list is sound
  const t = SessionTree.load(JSON.stringify(file)); // the loaded file's bytes
  for (let i = 300; i < 400; i++) t.append(wide(i), i + 1); // texts JS let go
  const list = t.linearProjection(); // nothing read yet
  assert.throws(() => t.prune(), "corrupt", /repair/);
  assert.deepEqual(list[5], wide(5), "read after the refused prune");
  t.free();
  churn();
  assert.equal(JSON.stringify(list), JSON.stringify(Array.from({ length: 400 }, (_, i) => wide(i))), "the list after the free");
});

test("what a free copies for the lists is their unread messages, in runs, whatever order their bytes lie in", () => {
  // keepUnread (sessiontree.js) copies the bytes of a freed tree's unread
  // messages, merging messages next to each other in memory into runs. Where
  // the module put a message is not up to a test through the API: in the
  // Chromium run of the whole suite, a loaded file's messages lay above the
  // ones appended after it, and a run that started below the one before kept
  // its end: the copy came to 13.9 GB and failed. Here the places are made.
  const { keepUnread, decodeTexts } = SessionTree[Symbol.for("sessiontree.internals")];
  const mem = new Uint8Array(1 << 20).fill(32); // a stand-in for the module's memory
  const texts = [];
  const places = [];
  // Slots at falling addresses, rising ones with small gaps (one run), one
  // far off, one already read (a text in the cache) and one with no place.
  const at = [900000, 800000, 700000, 10000, 10050, 10110, 500000, 600000, 300, 0];
  for (let s = 0; s < at.length; s++) {
    const text = JSON.stringify({ role: "user", content: `slot ${s} ${"é".repeat(s)}` });
    const bytes = new TextEncoder().encode(text);
    texts.push(text);
    if (s === at.length - 1) {
      places.push(0, 0); // no place known
      continue;
    }
    mem.set(bytes, at[s]);
    places.push(at[s], bytes.length);
  }
  const cache = new Array(at.length);
  cache[8] = texts[8]; // read already
  keepUnread(mem, cache, Uint32Array.from(places));
  const want = places.filter((_, i) => i % 2 === 1).slice(0, 8).reduce((a, b) => a + b, 0);
  assert.ok(cache.kept.length <= 2 * want + 64 * 8, `the copy is ${cache.kept.length} bytes for ${want} bytes of messages`);
  mem.fill(0); // the module let the tree go
  decodeTexts(cache.kept, cache, Uint32Array.from(places), null, 0, at.length);
  for (let s = 0; s < 9; s++) assert.equal(cache[s], texts[s], `slot ${s}`);
  assert.equal(cache[9], undefined, "a slot with no place stays empty");
});

test("a list is an ordinary array to its caller: reads, writes, Array methods, JSON, copies", () => {
  const s = SessionTree.fromLinear([say(0)], 1);
  for (let i = 1; i < 10; i++) s.append(say(i), i + 1);
  const s2 = s.save();
  const t = SessionTree.load(s2); // no message read yet: lazy lists
  s.free();
  const want = Array.from({ length: 10 }, (_, i) => say(i));
  const a = t.linearProjection();
  const b = t.linearProjection();
  const m6 = b[6]; // read in b first: b and a have to agree
  assert.equal(a[6], m6, "the same frozen object in every list");
  assert.equal(util?.inspect(a), util?.inspect(want), "console.log shows the messages");
  assert.ok(Array.isArray(a) && a instanceof Array && a.length === 10);
  assert.equal(JSON.stringify(a), JSON.stringify(want));
  assert.deepEqual([...a], want);
  assert.deepEqual(Array.from(a), want);
  assert.deepEqual(Object.keys(a), want.map((_, i) => String(i)));
  assert.deepEqual(a.map((m) => m.content), want.map((m) => m.content));
  assert.equal(a.indexOf(a[4]), 4);
  assert.ok(a.includes(a[9]) && Object.isFrozen(a[9]) && Object.isFrozen(a[0]));
  assert.equal(a.at(-1).content, "m9");
  const copy = a.slice();
  assert.ok(!Array.isArray(copy) || Object.getPrototypeOf(copy) === Array.prototype);
  assert.deepEqual(structuredClone(copy), want, "a copy crosses structuredClone");
  // Changed as the caller's own: nothing held changes.
  a.push("mine");
  a[0] = null;
  a.splice(1, 2);
  delete a[2];
  assert.equal(a.length, 9);
  assert.equal(a[0], null);
  assert.equal(a[1].content, "m3");
  assert.equal(a[2], undefined);
  assert.equal(a[8], "mine");
  b.reverse();
  assert.equal(b[0].content, "m9");
  b.sort((x, y) => x.content.localeCompare(y.content));
  assert.equal(b[0].content, "m0");
  b.length = 3;
  assert.equal(b[5], undefined);
  assert.equal(JSON.stringify(b), JSON.stringify(want.slice(0, 3)));
  const c = t.linearProjection();
  Object.freeze(c);
  assert.deepEqual(c, want);
  assert.deepEqual(t.linearProjection(), want);
  assert.deepEqual(Object.entries(t.linearProjection())[3], ["3", say(3)]);
  t.free();
  // A length written however it is spelt cuts the list as an array's would,
  // and a length refused changes nothing.
  const u = SessionTree.load(s2);
  const d = u.linearProjection();
  let refused = null;
  try { d.length = -1; } catch (e) { refused = e; }
  assert.ok(refused instanceof RangeError, "an invalid length is refused");
  assert.deepEqual(d, want, "and the list is as it was");
  d.length = "2";
  d.length = 4;
  assert.equal(JSON.stringify(d), JSON.stringify([say(0), say(1), null, null]), "cut by a length spelt as a string: no message comes back");
  const e = u.linearProjection();
  Object.defineProperty(e, "length", { value: 1 });
  e.length = 2;
  assert.equal(JSON.stringify(e), JSON.stringify([say(0), null]), "cut by defineProperty");
  u.free();
});

test("a list of a tree dropped without free() stays readable after a collection", { skip: !isNode }, async () => {
  const v8 = await import("node:v8");
  const vm = await import("node:vm");
  v8.setFlagsFromString("--expose-gc");
  const gc = vm.runInNewContext("gc");
  let list = (() => {
    const t = SessionTree.load(SessionTree.fromLinear(Array.from({ length: 500 }, (_, i) => wide(i)), 1).save());
    return t.linearProjection(); // t is dropped here
  })();
  for (let r = 0; r < 3; r++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 10)); // finalizers run
    churn();
  }
  assert.equal(JSON.stringify(list), JSON.stringify(Array.from({ length: 500 }, (_, i) => wide(i))));
  list = null;
});

// free() of a tree whose lazy list is alive and unread keeps the tree's bytes
// in the module until that list is collected (no decoding of every message on
// the free), then frees it: loads of the same file after, each freed the same
// way, reuse that memory.
test("a tree freed while a lazy list of it is alive is freed in the module once the list is collected", { skip: !isNode }, async () => {
  const v8 = await import("node:v8");
  const vm = await import("node:vm");
  v8.setFlagsFromString("--expose-gc");
  const gc = vm.runInNewContext("gc");
  const { memoryUsage } = await import("../sessiontree.js");
  const s = SessionTree.fromLinear(Array.from({ length: 60000 }, (_, i) => wide(i)), 1);
  const bytes = new TextEncoder().encode(s.save()); // ~12 MB
  s.free();
  const round = () => {
    const t = SessionTree.load(bytes);
    let list = t.linearProjection();
    const first = list[0].content;
    t.free(); // fast: the list may still read
    assert.equal(list[59999].content, wide(59999).content, "the list reads after the free");
    list = null;
    return first;
  };
  const settle = async () => {
    for (let i = 0; i < 3; i++) {
      gc();
      await new Promise((resolve) => setTimeout(resolve, 20)); // finalizers run
    }
  };
  round();
  await settle();
  round();
  await settle();
  const before = memoryUsage().main;
  for (let r = 0; r < 8; r++) {
    round();
    await settle();
  }
  const grown = memoryUsage().main - before;
  assert.ok(grown < 4 * bytes.length, `the module grew by ${(grown / 1e6).toFixed(1)} MB over 8 loads of a ${(bytes.length / 1e6).toFixed(1)} MB file, each freed with its list then dropped`);
});

test("random Array operations on a lazy list and on a plain copy of it end alike (seeds in failures)", () => {
  const s = SessionTree.fromLinear(Array.from({ length: 40 }, (_, i) => wide(i)), 1);
  const file = s.save();
  s.free();
  for (let seed = 1; seed <= 300; seed++) {
    const next = rng(seed * 7919);
    const rand = (n) => Math.floor(next() * n);
    const t = SessionTree.load(file); // nothing read: every list starts lazy
    const lazy = t.linearProjection();
    const plain = Array.from({ length: 40 }, (_, i) => wide(i));
    const done = [];
    for (let step = 0; step < 8; step++) {
      const i = rand(45), j = rand(45);
      const ops = [
        ["read", (a) => JSON.stringify(a[i])],
        ["set", (a) => { a[i] = { role: "user", content: `set ${step}` }; }],
        ["delete", (a) => { delete a[i]; }],
        ["push", (a) => a.push({ role: "user", content: `pushed ${step}` })],
        ["pop", (a) => JSON.stringify(a.pop())],
        ["shift", (a) => JSON.stringify(a.shift())],
        ["unshift", (a) => a.unshift({ role: "user", content: `unshifted ${step}` })],
        ["splice", (a) => JSON.stringify(a.splice(i % 10, j % 4, { role: "user", content: `spliced ${step}` }))],
        ["reverse", (a) => { a.reverse(); }],
        ["sort", (a) => { a.sort((x, y) => String(x?.content).localeCompare(String(y?.content))); }],
        ["length", (a) => { a.length = Math.min(a.length, 30 + (i % 15)); }],
        ["copyWithin", (a) => { a.copyWithin(i % 20, j % 20, (j % 20) + 3); }],
        ["fill", (a) => { a.fill({ role: "user", content: "filled" }, 35, 38); }],
        ["slice", (a) => JSON.stringify(a.slice(i % 20, j))],
        ["find", (a) => a.findIndex((m) => m?.content === `message ${i} ${"x".repeat(i % 40)}`)],
        ["keys", (a) => Object.keys(a).join(",")],
        ["in", (a) => `${i in a} ${a.hasOwnProperty(j)}`],
      ];
      const [name, op] = ops[rand(ops.length)];
      done.push(name);
      const got = op(lazy), want = op(plain);
      assert.equal(got, want, `seed ${seed} step ${step}: ${done.join(", ")}: the answer`);
      assert.equal(lazy.length, plain.length, `seed ${seed} step ${step}: ${done.join(", ")}: the length`);
    }
    assert.equal(JSON.stringify(lazy), JSON.stringify(plain), `seed ${seed}: ${done.join(", ")}`);
    t.free();
  }
});

test("a list whose every message the cache holds parsed is a plain array: it crosses structuredClone", () => {
  const t = SessionTree.load(SessionTree.fromLinear([say(0), say(1), say(2), say(3)], 1).save());
  const first = t.linearProjection(); // a loaded file's: none parsed yet
  const clones = (list) => {
    try {
      structuredClone(list);
      return true;
    } catch {
      return false; // a Proxy (a lazy list) does not cross
    }
  };
  assert.equal(clones(first), false, "a list not read yet is lazy");
  first.forEach((m) => m.role);
  t.branch(t.pathWindow(-1).ids[0], "side", 2);
  t.switchBranch("main");
  t.deleteBranch("side"); // not a change the list builds on: the next one is sent whole
  const again = t.linearProjection();
  assert.ok(clones(again), "every message parsed: a plain array");
  assert.deepEqual(again, [say(0), say(1), say(2), say(3)]);
  assert.equal(again[2], first[2], "the same message objects");
  t.free();
});
