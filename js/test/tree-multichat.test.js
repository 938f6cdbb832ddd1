// SessionTree.importAll: a file of several conversations as one tree each,
// through the interchange module (or the full module: SESSIONTREE_FLAVOUR=full).
import { test, assert, mainSource } from "./harness.js";
import { init, initInterchange, memoryUsage, SessionTree, SessionTreeError } from "../sessiontree.js";

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

// First, while the module is small: a file larger than the pieces the module
// reads it in (4 MiB) and than what it reads whole (8 MiB) comes a
// conversation at a time. The module's memory grows by a piece, a
// conversation and the garbage let pile up between two collections (32 MB
// at least), not by the file (copied in whole, it grew by the file and
// more), and the conversations are importAll's, cut short or whole.
test("importEach of a 20 MB export: importAll's conversations, the module grown by less than the file", () => {
  const convs = [];
  const text = "lorem ipsum dolor ".repeat(3000);
  for (let i = 0; i < 400; i++) convs.push(conversation(`c${i}`, `Chat ${i}`, [["user", `q${i} ${text}`], ["assistant", `a${i}`]]));
  const file = new TextEncoder().encode(JSON.stringify(convs, null, 1));
  const mem = () => { const m = memoryUsage(); return m.interchange || m.main; };
  const before = mem();
  const got = [];
  for (const c of SessionTree.importEach(file, "auto", { files: true })) got.push(c);
  const grew = mem() - before;
  assert.ok(grew < file.length, `the module grew by ${grew} bytes for a file of ${file.length}`);
  const all = SessionTree.importAll(file);
  assert.equal(got.length, 400);
  got.forEach((c, i) => {
    assert.equal(c.title, all[i].title);
    assert.deepEqual(c.report, all[i].report);
    assert.equal(new TextDecoder().decode(c.file), all[i].tree.save());
  });
  for (const c of all) c.tree.free();
  // Cut in its 301st conversation: the 300 before it, then "cut short".
  const cut = file.subarray(0, new TextDecoder().decode(file).indexOf('"Chat 300"'));
  let n = 0;
  let err;
  try {
    for (const c of SessionTree.importEach(cut)) { n++; c.tree.free(); }
  } catch (e) { err = e; }
  assert.equal(n, 300);
  assert.ok(err?.code === "invalid_input" && /after its 300 whole conversations.*the file is cut short/.test(err.message), String(err));
});

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

// importEach: the same conversations as importAll, read one at a time as the
// iterator is asked for them; stopped early, the rest is given up.
test("importEach gives importAll's conversations one at a time, each tree the caller's", () => {
  const convs = [];
  for (let i = 0; i < 5; i++) convs.push(conversation(`c${i}`, `Chat ${i}`, [["user", `q${i}`], ["assistant", `a${i}`]]));
  const file = JSON.stringify(convs);
  const all = SessionTree.importAll(file);
  const it = SessionTree.importEach(new TextEncoder().encode(file), "chatgpt");
  let n = 0;
  for (const c of it) {
    try {
      assert.equal(c.title, all[n].title);
      assert.deepEqual(c.report, all[n].report);
      assert.equal(c.tree.save(), all[n].tree.save());
    } finally {
      c.tree.free();
    }
    n++;
  }
  assert.equal(n, 5);
  for (const c of all) c.tree.free();
  // Stopped after two: the rest is given up, and the next import starts afresh.
  const seen = [];
  for (const c of SessionTree.importEach(file)) {
    seen.push(c.title);
    c.tree.free();
    if (seen.length === 2) break;
  }
  assert.deepEqual(seen, ["Chat 0", "Chat 1"]);
  assert.deepEqual([...SessionTree.importEach(file)].map((c) => (c.tree.free(), c.title)), convs.map((c) => c.title));
});

test("importEach with { files: true } gives each conversation's .tree.json bytes, as its tree saves", () => {
  const file = JSON.stringify([conversation("c1", "One", [["user", "a"], ["assistant", "b"]]), conversation("c2", "Two", [["user", "c"]])]);
  const all = SessionTree.importAll(file);
  const got = [...SessionTree.importEach(file, "auto", { files: true })];
  assert.deepEqual(got.map((c) => c.title), ["One", "Two"]);
  got.forEach((c, i) => {
    assert.ok(c.file instanceof Uint8Array && c.tree === undefined);
    assert.equal(new TextDecoder().decode(c.file), all[i].tree.save());
    assert.deepEqual(c.report, all[i].report);
  });
  for (const c of all) c.tree.free();
  assert.throws(() => SessionTree.importEach(file, "auto", { file: true }), "invalid_input", /importEach has no option "file"/);
  assert.throws(() => SessionTree.importEach(file, "auto", { files: 1 }), "invalid_input", /"options.files" must be true or false/);
});

test("importEach checks its arguments at the call and reads the file at the first step", () => {
  assert.throws(() => SessionTree.importEach(42), "invalid_input", /"text" must be a string or bytes/);
  assert.throws(() => SessionTree.importEach("[]", ""), "invalid_input", /"format" must be/);
  const it = SessionTree.importEach(JSON.stringify({ version: 4, history: [], folders: [], prompts: [] }));
  let err;
  try { it.next(); } catch (e) { err = e; }
  assert.ok(err instanceof SessionTreeError && err.code === "invalid_input" && /cannot tell the format/.test(err.message), String(err));
  assert.deepEqual(it.next(), { value: undefined, done: true });
});

// An export whose download stopped midway: its whole conversations come, then
// an invalid_input that says it is cut short; the module is usable after.
test("importEach of an export cut short gives its whole conversations, then says it is cut short", () => {
  const convs = [];
  for (let i = 0; i < 4; i++) convs.push(conversation(`c${i}`, `Chat ${i}`, [["user", `q${i}`], ["assistant", `a${i}`]]));
  const file = JSON.stringify(convs);
  const cut = file.slice(0, file.indexOf(`"Chat 3"`) + 3);
  for (const files of [false, true]) {
    const titles = [];
    let err;
    try {
      for (const c of SessionTree.importEach(cut, "auto", { files })) {
        titles.push(c.title);
        c.tree?.free();
      }
    } catch (e) {
      err = e;
    }
    assert.deepEqual(titles, ["Chat 0", "Chat 1", "Chat 2"]);
    assert.ok(err instanceof SessionTreeError && err.code === "invalid_input" && /after its 3 whole conversations.*the file is cut short/.test(err.message), String(err));
  }
  assert.throws(() => SessionTree.importAll(cut), "invalid_input", /cut short/);
  assert.deepEqual([...SessionTree.importEach(file)].map((c) => (c.tree.free(), c.title)), convs.map((c) => c.title));
});
