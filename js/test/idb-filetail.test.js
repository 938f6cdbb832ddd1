// sessiontree/idb's import shows a .tree.json's last messages before the file is
// checked and loaded (fileTail: its head and last megabytes): the active path's
// last nodes as the loaded tree has them, whatever the head or the messages
// hold; a file it cannot read that way gives null (the import goes on without
// the early view), never an exception and never other messages. Runs under
// node --test and in Chromium.
import { test, assert, mainSource } from "./harness.js";
import { init, SessionTree } from "../sessiontree.js";
import { fileTail } from "../idb-records.js";

await init(mainSource);

const say = (i, pad = "") => ({ role: i % 2 ? "assistant" : "user", content: `message ${i}: an ordinary reply${pad}` });

/** What fileTail must answer for the tree in file: its path's last count nodes, root first, with their siblings. */
function expected(file, count) {
  const t = SessionTree.load(file);
  try {
    const { ids, messages } = t.pathWindow(-Math.min(count, t.pathLength()));
    return ids.map((id, i) => {
      const parent = t.node(id).parent;
      return { id, message: messages[i], siblings: parent ? t.node(parent).children : null };
    });
  } finally {
    t.free();
  }
}

function same(got, file, count) {
  assert.ok(got, "fileTail gave nothing");
  const want = expected(file, count);
  assert.deepEqual(got.nodes.map((n) => ({ id: n.id, message: n.node.message, siblings: n.siblings })), want);
}

test("a chat's last messages, from a File and from bytes, with their siblings", async () => {
  const t = SessionTree.fromLinear(Array.from({ length: 300 }, (_, i) => say(i)), 1);
  const path = t.activePath();
  t.rewind(path[280], 2);
  t.append({ role: "assistant", content: "another reply" }, 3);
  t.switchBranch("main");
  const file = t.save();
  t.free();
  const bytes = new TextEncoder().encode(file);
  same(await fileTail(bytes, 60), file, 60);
  if (typeof Blob === "function") same(await fileTail(new Blob([file]), 60), file, 60);
  const got = await fileTail(bytes, 60);
  assert.equal(got.activeBranch, "main");
  assert.ok(got.nodes.some((n) => n.siblings?.length === 2), "the fork's ‹ 1/2 › is there");
  // A short chat: all of it, the root without siblings.
  const short = SessionTree.fromLinear([say(0), say(1)], 1);
  const small = short.save();
  short.free();
  same(await fileTail(new TextEncoder().encode(small), 60), small, 60);
});

test("a path whose last messages sit megabytes before the file's end: read further back", async () => {
  // Main's messages are made first; a long branch made later sorts after them.
  const pad = " padding".repeat(80);
  const t = SessionTree.fromLinear(Array.from({ length: 120 }, (_, i) => say(i, pad)), 1);
  t.rewind(t.activePath()[3], 2);
  for (let i = 0; i < 4000; i++) t.append(say(i, pad), 3 + i);
  t.switchBranch("main");
  const file = t.save();
  t.free();
  assert.ok(file.length > 2.5e6);
  same(await fileTail(new TextEncoder().encode(file), 60), file, 60);
});

test("what the head or the messages hold never misleads it", async () => {
  const tricky = `","nodes":{"x":{"id":"x","parent":"y"}} ":{"id":" \\" é 日本 🌳`;
  const t = SessionTree.fromLinear(Array.from({ length: 80 }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: `${tricky} ${i}` })), 1);
  const q = t.activePath()[40];
  t.rewind(q, 2);
  t.append({ role: "assistant", content: tricky }, 3);
  // A summary holding the same text and multi-byte letters, before the
  // active branch, named "nodes" (sorted after "branch-1").
  t.switchBranch("main");
  t.summarizeBranch("branch-1", `${tricky} ,"nodes":{`, undefined, 4);
  const file = t.save().replaceAll('"main"', '"nodes"');
  t.free();
  assert.equal(file.indexOf(',"nodes":{'), file.indexOf(',"nodes":{"name":"nodes"'), "the branch comes first");
  same(await fileTail(new TextEncoder().encode(file), 60), file, 60);
});

test("a file it cannot read that way gives null, never an exception", async () => {
  const t = SessionTree.fromLinear([say(0), say(1), say(2)], 1);
  const file = t.save();
  t.free();
  const enc = (s) => new TextEncoder().encode(s);
  const leaf = JSON.parse(file).branches.main.leaf;
  const bad = [
    "", "{", "not json at all", file.slice(0, file.length / 2), file.replace('"nodes":{', '"nodez":{'),
    // The leaf's parent is no node of the file (the check repairs or refuses it).
    file.replace(/"parent":"[^"]+"/, '"parent":"nowhere"'),
    // No branch is active, or the active one has no leaf.
    file.replace('"active_branch":"main"', '"active_branch":"gone"'),
    file.replace(`"leaf":"${leaf}",`, ""),
    // Another member after the nodes.
    file.slice(0, -1) + ',"extra":1}',
  ];
  for (const b of bad) assert.equal(await fileTail(enc(b), 60), null, b.slice(0, 80));
  // A cycle in the parents: at most count messages, and it ends.
  const cyc = file.replace(/"children":\[\],/, "").replace(new RegExp(`"${JSON.parse(file).root}":\\{"id":"([^"]+)",`), `"${JSON.parse(file).root}":{"id":"$1","parent":"${leaf}",`);
  const got = await fileTail(enc(cyc), 5);
  assert.ok(got === null || got.nodes.length <= 5);
});
