// SessionTree.saveWith hands its callback views of the module's memory that
// together are the UTF-8 of save() (sessiontree/node's saveFile writes a file
// from them with fs.writeSync): whether the tree answers in parts (a loaded
// file unchanged) or whole, and whatever the callback does, the module stays
// sound. Node and Chromium, both flavours (saveFile: Node only).
import { test, assert, isNode, mainSource } from "./harness.js";
import { init, SessionTree } from "../sessiontree.js";
import { say, sample, thrown } from "./filetrees.js";

await init(mainSource);

const encoder = new TextEncoder();

// written returns the bytes saveWith hands over, copied, and the views' sizes.
function written(t) {
  const parts = [];
  const n = t.saveWith((bytes) => {
    assert.ok(bytes instanceof Uint8Array, "a Uint8Array");
    parts.push(bytes.slice());
  });
  const all = new Uint8Array(parts.reduce((k, p) => k + p.length, 0));
  let at = 0;
  for (const p of parts) all.set(p, (at += p.length) - p.length);
  assert.equal(n, all.length, "saveWith returns the bytes it wrote");
  return [all, parts.map((p) => p.length)];
}

test("saveWith writes the bytes of save(), whole or in the parts of a loaded file", () => {
  for (const n of [0, 1, 40, 60000]) {
    const t = n === 0 ? new SessionTree() : sample(n);
    const [b] = written(t);
    assert.deepEqual(b, encoder.encode(t.save()), `${n} messages`);
    if (n > 0) {
      // A loaded file, unchanged: its nodes are handed over where the load keeps them.
      const u = SessionTree.load(b);
      const [c, views] = written(u);
      assert.deepEqual(c, b, `${n} messages, loaded`);
      assert.equal(views.length, 3, "the head, the loaded nodes, the end");
      assert.equal(u.save(), t.save(), "save() in parts (loaded, unchanged) is save() whole (made here)");
      u.append(say(7), 9); // changed: written in pieces of ~1 MiB (a node more at most)
      const [d, pieces] = written(u);
      assert.deepEqual(d, encoder.encode(u.save()), `${n} messages, loaded then changed`);
      assert.equal(pieces.length, Math.floor(d.length / 2 ** 20) + 1, `${d.length} bytes in pieces of ${pieces}`);
      assert.ok(pieces.every((k) => k < 2 ** 20 + 4096), `pieces of ${pieces}`);
      u.free();
    }
    t.free();
  }
});

test("save() of a changed file past 8 MiB, joined from its pieces, is the bytes saveWith writes and loads back", () => {
  // save() takes a file past 8 MiB from the module in pieces of that size
  // (treecalls' bigPiece), each decoded, and joins them; saveWith's pieces
  // are of 1 MiB, so the two cut the file apart in different places.
  const t = sample(60000);
  const text = t.save();
  const [b] = written(t);
  assert.ok(b.length > 9 * 2 ** 20, `the file is ${b.length} bytes: the test proves nothing`);
  assert.deepEqual(encoder.encode(text), b);
  const u = SessionTree.load(text);
  assert.equal(u.save(), text, "loaded back, the same file");
  assert.deepEqual(u.linearProjection().at(-1), t.linearProjection().at(-1));
  u.free();
  t.free();
});

test("a write that throws, returns a promise or calls sessiontree fails the save and leaves the module sound", () => {
  const t = sample(20);
  const before = t.save();
  const e = thrown(() => t.saveWith(() => { throw new RangeError("disk gone"); }));
  assert.ok(e instanceof RangeError && e.message === "disk gone", `write's own error is thrown, got ${e}`);
  let inner = null;
  assert.throws(() => t.saveWith(() => {
    try { t.append(say(1)); } catch (e) { inner = e; }
  }), "invalid_input", /write called sessiontree/);
  assert.equal(inner?.code, "invalid_input", "the call inside write is refused");
  assert.throws(() => t.saveWith(async () => {}), "invalid_input", /promise/);
  assert.throws(() => t.saveWith("write"), "invalid_input");
  assert.equal(t.save(), before, "the tree is unchanged");
  t.append(say(2), 9);
  assert.deepEqual(written(t)[0], encoder.encode(t.save()), "the next save is sound");
  t.free();
  assert.throws(() => t.saveWith(() => {}), "invalid_input", /freed/);
});

test("sessiontree/node saveFile writes a file loadFile reads back, and replaces a file whole or not at all", { skip: !isNode }, async () => {
  const [{ loadFile, saveFile }, fs, os, path] = await Promise.all([import("../node.js"), import("node:fs"), import("node:os"), import("node:path")]);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sessiontree-savefile-"));
  try {
    const file = path.join(dir, "chat.tree.json");
    for (const n of [2, 30000]) {
      const t = sample(n);
      assert.equal(saveFile(t, file), encoder.encode(t.save()).length, `${n} messages: the bytes written`);
      assert.equal(fs.readFileSync(file, "utf8"), t.save(), `${n} messages`);
      const u = loadFile(file);
      assert.equal(u.save(), t.save());
      saveFile(u, file); // in parts: its nodes are the file's own bytes
      assert.equal(fs.readFileSync(file, "utf8"), t.save(), `${n} messages, saved again from the loaded tree`);
      t.free(); u.free();
    }
    // A save that fails leaves the old file as it was, and nothing beside it.
    const old = fs.readFileSync(file);
    const t = sample(3);
    t.free();
    assert.throws(() => saveFile(t, file), "invalid_input", /freed/);
    const spoilt = sample(3);
    const cut = thrown(() => saveFile({ saveWith: (w) => { spoilt.saveWith(w); throw new RangeError("cut short"); } }, file));
    assert.ok(cut instanceof RangeError && cut.message === "cut short", `the error is thrown as it was, got ${cut}`);
    spoilt.free();
    assert.deepEqual(fs.readFileSync(file), old, "the old file is untouched");
    assert.deepEqual(fs.readdirSync(dir), ["chat.tree.json"], "no file left beside it");
    assert.equal(thrown(() => saveFile(sample(2), path.join(dir, "missing", "x.tree.json"))).code, "ENOENT");
    assert.equal(thrown(() => saveFile(sample(2), dir)).code, "EISDIR", "a folder is not a file");
    assert.deepEqual(fs.readdirSync(dir), ["chat.tree.json"]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
