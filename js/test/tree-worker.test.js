// sessiontree/worker (js/worker.js): the same API in a Web Worker, every
// method a Promise. Web Workers are a page's: these tests run in Chromium
// (browser.mjs) and register nothing under Node.
import { test, assert, isNode, full } from "./harness.js";

if (!isNode) {
  const { connect } = await import("../worker.js");
  const st = await connect(full ? { full: true } : undefined);
  const say = (i) => ({ role: i % 2 ? "assistant" : "user", content: `turn ${i} ✨` });

  test("worker: a tree made, edited, read and saved in the worker answers as on the page", async () => {
    const t = await st.SessionTree.fromLinear([say(0), say(1)], 1);
    const id = await t.append(say(2), 2);
    assert.equal(await t.activeBranch, "main");
    assert.deepEqual(await t.linearProjection(), [say(0), say(1), say(2)]);
    assert.equal((await t.node(id)).message.content, "turn 2 ✨");
    const file = await t.save();
    const u = await st.SessionTree.load(file);
    assert.equal(await u.save(), file);
    assert.deepEqual((await u.pathWindow(-1)).messages, [say(2)]);
    await t.free();
    await u.free();
  });

  test("worker: a File or Blob is read in the worker, and errors keep their code", async () => {
    const t = await st.newTree();
    await t.append(say(0), 1);
    const blob = new Blob([await t.save()]);
    const u = await st.SessionTree.loadFrom(blob);
    assert.equal(await u.pathLength(), 1);
    await assert.rejects(u.switchBranch("nope"), "branch_not_found");
    await assert.rejects(st.SessionTree.load("{"), "corrupt");
    await assert.rejects(u.noSuchMethod(), "invalid_input");
    await u.free();
    await assert.rejects(u.save(), "invalid_input", /freed/);
    assert.ok((await st.memoryUsage()).main > 0);
  });

  test("worker: after close(), a call fails with a code at once instead of waiting forever", async () => {
    const other = await connect(full ? { full: true } : undefined);
    const t = await other.SessionTree.fromLinear([say(0)], 1);
    other.close();
    await assert.rejects(other.memoryUsage(), "invalid_input", /closed/);
    await assert.rejects(t.save(), "invalid_input", /closed/);
  });

  test("worker: a load in slices (loadFrom's sliceMs) lets the worker answer other calls meanwhile", async () => {
    const t = await st.SessionTree.fromLinear(Array.from({ length: 20000 }, (_, i) => say(i)), 1);
    const file = await t.save();
    const other = await st.newTree();
    let loaded = false;
    const loading = st.SessionTree.loadFrom(new TextEncoder().encode(file), { sliceMs: 0 }).then((u) => { loaded = true; return u; });
    await other.append(say(0), 1);
    const answered = !loaded;
    const u = await loading;
    assert.ok(answered, "a call on another tree waited for a 20,000-message load in slices to end");
    assert.equal(await u.save(), file);
    for (const x of [t, u, other]) await x.free();
  });

  test("worker: open and merge's options cross as on the page", async () => {
    const t = await st.SessionTree.fromLinear([say(0), say(1), say(2)], 1);
    const [q, a, f] = await t.activePath();
    assert.equal(await t.rewind(a, 2), "branch-1");
    await t.deleteBranch("branch-1", 3);
    assert.equal(await t.open(f, 4), "branch-2", "a fresh name, never the deleted one");
    assert.equal((await t.pathOf("main")).at(-1), a, "main stays where it was");
    await st.initInterchange();
    const mine = await st.SessionTree.fromLinear([say(0)], 1);
    const theirs = await mine.clone();
    const x = await mine.append(say(1), 10);
    await theirs.append(say(3), 20);
    const report = await mine.merge(theirs, { freshNames: true, keepPlace: true });
    assert.equal(report.conflicts[0].keptAs, "branch-1");
    assert.equal((await mine.activePath()).at(-1), x);
    assert.ok(q);
    for (const u of [t, mine, theirs]) await u.free();
  });
}
