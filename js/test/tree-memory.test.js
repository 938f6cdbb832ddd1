// Memory across loads (issue 16): a freed tree's memory is reused by the next
// load of the same size, also beside a large live tree (the page's own
// conversation); appends after a large save reuse what it left (issue 26).
// Runs under node --test and in Chromium, either flavour.
import { test, assert, mainSource, full, isNode } from "./harness.js";
import { init, initInterchange, memoryUsage, settled, SessionTree } from "../sessiontree.js";

await init(mainSource);

test("appends after the save of a large tree reuse the memory the save left: the module does not grow every 512 KB", () => {
  // Past ~64 MB each growth of a WebAssembly memory costs a full collection of
  // the page's JavaScript heap (V8), and the module's heap grows 512 KB at a
  // time. Told of a growth (by sessiontree.js), the module collects the garbage
  // a save's result left, and the appends after it reuse that memory: 10k
  // appends (~5 MB) grew the module 9 times before, once now.
  const say = (i) => ({ role: i % 2 ? "assistant" : "user", content: `message ${i}: ` + "an ordinary chat reply, ".repeat(8) });
  const live = SessionTree.fromLinear(Array.from({ length: 100000 }, (_, i) => say(i)), 1);
  assert.ok(live.save().length > 30e6, "a save of tens of MB, garbage after the next call");
  const fresh = new SessionTree();
  let size = memoryUsage().main, n = 0;
  while (memoryUsage().main === size && n < 100000) fresh.append(say(n++)); // until the heap is at its end
  size = memoryUsage().main;
  assert.ok(size > 64 << 20, "the module holds more than 64 MB");
  let grew = 0;
  for (let i = 0; i < 10000; i++) {
    fresh.append(say(i));
    if (memoryUsage().main !== size) grew++, (size = memoryUsage().main);
  }
  assert.ok(grew <= 2, `the module grew ${grew} times over 10k appends (~5 MB) after a save that left ~40 MB of garbage`);
  assert.equal(fresh.pathLength(), n + 10000);
  fresh.free();
  live.free();
});

test("a run of small growths of a large module grows it ahead, and every call works after it", () => {
  // Past ~64 MB each growth of a WebAssembly memory costs V8 a full collection
  // of the JavaScript heap, and the module's runtime grows 2 MiB at a time:
  // appends in a row grow it step after step. sessiontree.js grows it ahead
  // in such a run (4 MiB, then twice as much each time, up to 32 MiB), and
  // renews the Go glue's view of the memory, which the runtime reads and
  // writes on its own (its clock, its timers, a collection).
  const say = (i) => ({ role: i % 2 ? "assistant" : "user", content: `message ${i}: ` + "an ordinary chat reply, ".repeat(8) });
  const live = SessionTree.fromLinear(Array.from({ length: 100000 }, (_, i) => say(i)), 1);
  const fresh = new SessionTree();
  let size = memoryUsage().main, n = 0;
  while (memoryUsage().main === size && n < 100000) fresh.append(say(n++)); // until the heap is at its end
  size = memoryUsage().main;
  assert.ok(size > 64 << 20, "the module holds more than 64 MB");
  const steps = [];
  while (steps.length < 4 && !(steps.at(-1) >= 6 << 20) && n < 400000) {
    fresh.append(say(n++));
    if (memoryUsage().main !== size) steps.push(memoryUsage().main - size), (size = memoryUsage().main);
  }
  assert.ok(steps.at(-1) >= 6 << 20, `steps of ${steps.map((s) => (s / 2 ** 20).toFixed(1)).join(", ")} MiB in ${n} appends: none grown ahead`);
  // The runtime reads its clock into the glue's view at every collection:
  // one on a view of the memory before it grew would throw.
  const copy = SessionTree.load(fresh.save());
  copy.free();
  assert.equal(fresh.pathLength(), n);
  assert.equal(fresh.pathWindow(-1).messages[0].content, say(n - 1).content);
  fresh.free();
  live.free();
});

test("small calls after a large one keep their arguments: the module never releases the buffer they are written into", () => {
  // A call with more than 4 MiB of arguments (the module's large-buffer line)
  // that keeps no buffer, then small calls: the module used to hand the first
  // small call its large buffer and release it after that call, so the next
  // calls' arguments went into freed memory and the module saw none.
  const say = (i) => ({ role: i % 2 ? "assistant" : "user", content: `message ${i}: ` + "x".repeat(60) });
  const t = SessionTree.fromLinear(Array.from({ length: 80000 }, (_, i) => say(i)), 1);
  for (let i = 0; i < 4; i++) {
    const s = t.subtree(null, { runs: true });
    assert.equal(s.nodes.length, 1, `call ${i + 1}: the one chain`);
    assert.equal(s.nodes[0].run, 80000);
  }
  assert.equal(t.pathWindow(79998, 80000).ids.length, 2);
  const again = SessionTree.load(t.save());
  assert.equal(again.pathLength(), 80000, "the tree is whole");
  assert.equal(again.save(), t.save());
  again.free();
  t.free();
});

test("free() then a second load of the same file beside a large live tree: the module does not grow", () => {
  const say = (i) => ({ role: i % 2 ? "assistant" : "user", content: `message ${i}: ` + "an ordinary chat reply, ".repeat(8) });
  const live = SessionTree.fromLinear(Array.from({ length: 100000 }, (_, i) => say(i)), 1);
  const bytes = new TextEncoder().encode(live.save()); // the live tree's own file, as a page reopens it
  const a = SessionTree.load(bytes);
  a.free();
  const before = memoryUsage().main;
  const b = SessionTree.load(bytes);
  assert.equal(b.pathLength(), 100000);
  b.free();
  const grown = memoryUsage().main - before;
  assert.equal(grown, 0, `the module grew by ${(grown / 1e6).toFixed(1)} MB on a load of a ${(bytes.length / 1e6).toFixed(1)} MB file after a free of the same`);
  live.free();
});

test("rounds of load, list and free() with every list alive: the module does not grow, and each list reads as it was", () => {
  // A lazy list reads its messages from the module's memory when first read.
  // A free used to leave the tree in the module until V8 collected its lists,
  // which a loop of load, list and free never lets it do: the module grew by
  // a tree a round (2.7 GB after 50 rounds of a 34 MB file, make bench-soak).
  // Now the free copies the bytes a live list may read out of the module
  // first, and the tree's memory is reused by the next load.
  const say = (i) => ({ role: i % 2 ? "assistant" : "user", content: `message ${i}: ` + "an ordinary chat reply, ".repeat(8) });
  const made = SessionTree.fromLinear(Array.from({ length: 100000 }, (_, i) => say(i)), 1);
  const bytes = new TextEncoder().encode(made.save());
  made.free();
  const lists = [];
  let before = 0;
  for (let round = 0; round < 5; round++) {
    if (round === 2) before = memoryUsage().main;
    const t = SessionTree.load(bytes);
    lists.push(t.linearProjection()); // alive, nothing read
    t.free();
  }
  const grown = memoryUsage().main - before;
  assert.equal(grown, 0, `the module grew by ${(grown / 1e6).toFixed(1)} MB over 3 rounds of load, list and free of a ${(bytes.length / 1e6).toFixed(1)} MB file, each list alive`);
  const [first, second] = lists;
  assert.equal(second[99999].content, say(99999).content);
  const churn = SessionTree.load(bytes); // the freed bytes used again
  churn.apply(Array.from({ length: 2000 }, (_, i) => ({ op: "append", message: { role: "user", content: `OTHER ${i} ${"z".repeat(i % 90)}` } })), 1);
  churn.free();
  for (const i of [0, 1, 777, 50000, 99998, 99999]) assert.deepEqual(first[i], say(i), `message ${i} of the first freed tree's list`);
  assert.equal(JSON.stringify(first), JSON.stringify(Array.from({ length: 100000 }, (_, i) => say(i))), "the first list, whole");
  assert.equal(second.length, 100000);
  assert.deepEqual(second[12345], say(12345));
});

test("rounds of merge, of a live tree and of files: the module that merges does not grow", async () => {
  // In the lean flavour a merge runs in the interchange module, given both
  // trees' files: a call of more than 4 MiB, which holds the collector while
  // it runs, into an input buffer reused from the round before. Nothing told
  // the module that the two trees it loaded were garbage after the merge, and
  // a reused buffer skipped the look at the garbage that a new one makes: the
  // helper grew ~15 MB a round (27 → 330 MB over 30 rounds of a 3.1 MB file).
  await initInterchange(); // (a no-op for the full flavour, which merges in place)
  const say = (i) => ({ role: i % 2 ? "assistant" : "user", content: `message ${i} ` + "x".repeat(600) });
  const file = SessionTree.fromLinear(Array.from({ length: 4000 }, (_, i) => say(i)), 1000).save();
  const merger = () => (full ? memoryUsage().main : memoryUsage().interchange);
  let before = 0;
  for (let round = 0; round < 12; round++) {
    if (round === 2) before = merger();
    const t = SessionTree.load(file);
    const u = SessionTree.load(file);
    u.append({ role: "user", content: `round ${round}` }, 3000 + round);
    if (round % 2 === 0) {
      t.merge(u);
      assert.equal(t.node(u.activePath().at(-1)).message.content, `round ${round}`);
    } else {
      const { json } = SessionTree.mergeJSON(file, u.save());
      assert.ok(json.includes(`round ${round}`), "the merged file holds the other's append");
    }
    t.free();
    u.free();
  }
  const grown = merger() - before;
  assert.ok(grown <= 3 * file.length, `the ${full ? "module" : "interchange module"} grew by ${(grown / 1e6).toFixed(1)} MB over 10 rounds of merging two loads of a ${(file.length / 1e6).toFixed(1)} MB file`);
});

test("free() then a second loadFrom (in slices) of the same file beside a large live tree: the module does not grow", async () => {
  const say = (i) => ({ role: i % 2 ? "assistant" : "user", content: `message ${i}: ` + "an ordinary chat reply, ".repeat(8) });
  const live = SessionTree.fromLinear(Array.from({ length: 100000 }, (_, i) => say(i)), 1);
  const bytes = new TextEncoder().encode(live.save());
  const a = await SessionTree.loadFrom(bytes);
  a.free();
  const before = memoryUsage().main;
  const b = await SessionTree.loadFrom(bytes);
  assert.equal(b.pathLength(), 100000);
  b.free();
  const grown = memoryUsage().main - before;
  assert.equal(grown, 0, `the module grew by ${(grown / 1e6).toFixed(1)} MB on a loadFrom of a ${(bytes.length / 1e6).toFixed(1)} MB file after a free of the same`);
  live.free();
});

test("after a large load the module collects what the load left in idle slices; calls work meanwhile", async () => {
  // A load leaves its garbage beside the tree, and the collector's next cycle
  // is due only when the heap has grown by as much again: until then each
  // request's allocations take fresh memory, and each growth of a large
  // module's memory costs V8 a full collection of the page's heap
  // (wasm/internal/bridge/tidy.go). settled() resolves when the tidy
  // collection the load started is over, with the idle slices it took.
  const say = (i) => ({ role: i % 2 ? "assistant" : "user", content: `message ${i}: ` + "an ordinary chat reply, ".repeat(12) });
  const made = SessionTree.fromLinear(Array.from({ length: 100000 }, (_, i) => say(i)), 1);
  const bytes = new TextEncoder().encode(made.save());
  made.free();
  await settled();
  await initInterchange(); // the lean module's requests are made there (a no-op for the full one)
  const t = SessionTree.load(bytes);
  const tidy = settled();
  // Calls made while it runs see the tree as it is.
  const id = t.append({ role: "user", content: "asked while the module tidies" }, 2);
  assert.equal(t.pathLength(), 100001);
  const { steps } = await tidy;
  assert.ok(steps >= 2, `a ${(bytes.length / 1e6).toFixed(1)} MB load was tidied in ${steps} idle slice(s), want it cut into slices`);
  assert.equal(t.node(id).message.content, "asked while the module tidies");
  const { request } = t.projectFor("openai-chat", { budget: 32000 });
  assert.equal(request.messages.at(-1).content, "asked while the module tidies");
  await settled(); // the lean module's first request hands the tree to its helper: a large call too
  // A small chat's calls start none.
  const small = SessionTree.fromLinear([say(0), say(1)], 1);
  small.append(say(2), 2);
  assert.deepEqual(await settled(), { steps: 0 }, "a small chat started a tidy");
  small.free();
  t.free();
});

// A store keeps each conversation's root id and active branch (its list). They
// were pieces of takeChanges's whole answer, and V8 keeps the whole string a
// piece of 13 characters or more was cut from: a 34 MB export's 1,000
// conversations kept 55 MB on the page after the import, each its first
// write's rows. Node only (it measures the heap after a collection).
if (isNode) {
  test("what takeChanges gives a store to keep (root, active branch) does not keep the rows' text with it", async () => {
    const v8 = await import("node:v8");
    const vm = await import("node:vm");
    v8.setFlagsFromString("--expose-gc");
    const gc = vm.runInNewContext("gc");
    const kept = [];
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < 100; i++) {
      const t = new SessionTree();
      t.takeChanges(); // starts the feed
      t.append({ role: "user", content: "x".repeat(200000) + i }, 1);
      const c = t.takeChanges();
      assert.ok(c.root.length > 13, "a root id long enough to be a piece of the text");
      kept.push({ root: c.root, activeBranch: c.activeBranch });
      t.free();
    }
    gc();
    const grew = process.memoryUsage().heapUsed - before;
    assert.ok(grew < 5e6, `100 roots and branches kept ${(grew / 1e6).toFixed(1)} MB (each change's 200 KB text: 20 MB or more)`);
    assert.equal(kept.length, 100);
  });
}
