// SessionTree.importAll: a file of several conversations as one tree each,
// through the interchange module (or the full module: SESSIONTREE_FLAVOUR=full).
import { test, assert, mainSource } from "./harness.js";
import { init, initInterchange, SessionTree, SessionTreeError } from "../sessiontree.js";

await init(mainSource);
await initInterchange();

const entry = (id, parent, role, text) => ({
  id, parent, children: [],
  message: { id, author: { role }, content: { content_type: "text", parts: [text] } },
});
const conversation = (id, title, pairs) => {
  const mapping = {};
  let parent = null;
  pairs.forEach(([role, text], i) => {
    const mid = `${id}-${i}`;
    mapping[mid] = entry(mid, parent, role, text);
    if (parent) mapping[parent].children.push(mid);
    parent = mid;
  });
  return { id, title, current_node: parent, mapping };
};

test("importAll gives each conversation of a conversations.json its own tree, title and report", () => {
  const file = JSON.stringify([
    conversation("c1", "Rollback", [["user", "how do I roll back?"], ["assistant", "git revert"]]),
    conversation("c2", "Café ☕", [["user", "a latte?"]]),
  ]);
  const convs = SessionTree.importAll(file);
  try {
    assert.equal(convs.length, 2);
    assert.deepEqual(convs.map((c) => c.title), ["Rollback", "Café ☕"]);
    assert.deepEqual(convs[0].tree.linearProjection().map((m) => m.content), ["how do I roll back?", "git revert"]);
    assert.deepEqual(convs[1].tree.activePath(), ["c2-0"]);
    assert.equal(convs[1].report.format, "chatgpt");
    assert.equal(convs[1].report.nodes, 1);
  } finally {
    for (const c of convs) c.tree.free();
  }
});

test("importAll of a one-conversation format is a list of one", () => {
  const convs = SessionTree.importAll(JSON.stringify([{ role: "user", content: "hi" }]), "openai");
  assert.equal(convs.length, 1);
  assert.equal(convs[0].title, "");
  assert.equal(convs[0].tree.linearProjection()[0].content, "hi");
  convs[0].tree.free();
});

test("importAll of a file of no known format throws invalid_input naming the formats it reads", () => {
  let err;
  try { SessionTree.importAll(JSON.stringify({ version: 4, history: [], folders: [], prompts: [] })); } catch (e) { err = e; }
  assert.ok(err instanceof SessionTreeError, String(err));
  assert.equal(err.code, "invalid_input");
  assert.ok(/cannot tell the format.*chatgpt, openwebui, librechat/.test(err.message), err.message);
});
