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
}
