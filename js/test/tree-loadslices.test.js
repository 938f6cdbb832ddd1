// loadFrom in slices (issue 16: a huge open with no long task): the event loop
// runs between the slices of a load — timers, calls on other trees, a second
// load — and the tree is the one load gives, byte for byte; a file that is
// corrupt late fails as load does, and the module keeps working. A slice of 0
// ms parks the load every few hundred nodes, so nothing here depends on the
// machine's speed. Runs under node --test and in Chromium, either flavour.
import { test, assert, mainSource } from "./harness.js";
import { init, SessionTree } from "../sessiontree.js";

await init(mainSource);

const say = (i) => ({ role: i % 2 ? "assistant" : "user", content: `message ${i}: an ordinary reply` });
const fileOf = (n) => {
  const t = SessionTree.fromLinear(Array.from({ length: n }, (_, i) => say(i)), 1);
  const bytes = new TextEncoder().encode(t.save());
  t.free();
  return bytes;
};

test("loadFrom yields: a timer set before it fires, and calls on another tree run, before the load ends", async () => {
  const bytes = fileOf(20000); // under the 4 MB copied at once: the module's slices alone yield
  const other = SessionTree.fromLinear([say(0)], 1);
  let fired = false;
  let loaded = false;
  let between = 0;
  setTimeout(() => { fired = !loaded; }, 0);
  const busy = () => {
    if (loaded) return;
    other.append(say(between++), 2); // the shared input buffer, reused between slices
    other.save();
    setTimeout(busy, 0);
  };
  setTimeout(busy, 0);
  const t = await SessionTree.loadFrom(bytes, { sliceMs: 0 });
  loaded = true;
  assert.ok(fired, "a timer set before loadFrom fired only after the load of a 20,000-message file");
  assert.ok(between > 0, "no call on another tree ran during the load");
  const want = SessionTree.load(bytes);
  assert.equal(t.save(), want.save(), "the sliced load gives another tree than load");
  assert.equal(t.pathLength(), 20000);
  assert.equal(other.pathLength(), 1 + between);
  for (const x of [t, want, other]) x.free();
});

test("two loads in slices at once give their own trees", async () => {
  const a = fileOf(20000);
  const b = fileOf(15000);
  const [ta, tb] = await Promise.all([SessionTree.loadFrom(a, { sliceMs: 0 }), SessionTree.loadFrom(new Blob([b]), { sliceMs: 0 })]);
  assert.equal(ta.save(), new TextDecoder().decode(a));
  assert.equal(tb.save(), new TextDecoder().decode(b));
  ta.free();
  tb.free();
});

test("a file corrupt at its end fails in a late slice as load fails, and the module keeps working", async () => {
  const good = fileOf(20000);
  const bad = new Uint8Array(good.length + 3);
  bad.set(good);
  bad.set(new TextEncoder().encode(" {}"), good.length);
  let want;
  try {
    SessionTree.load(bad);
  } catch (e) {
    want = e;
  }
  assert.equal(want?.code, "corrupt");
  await assert.rejects(SessionTree.loadFrom(bad, { sliceMs: 0 }), "corrupt", new RegExp(want.message.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")));
  const t = await SessionTree.loadFrom(good, { sliceMs: 0 });
  assert.equal(t.pathLength(), 20000);
  t.free();
});

test("loadFrom's options are checked", async () => {
  const bytes = fileOf(3);
  await assert.rejects(SessionTree.loadFrom(bytes, { sliceMs: -1 }), "invalid_input", /sliceMs/);
  await assert.rejects(SessionTree.loadFrom(bytes, { sliceMs: "25" }), "invalid_input", /sliceMs/);
  await assert.rejects(SessionTree.loadFrom(bytes, { slices: 2 }), "invalid_input", /sliceMs/);
  const t = await SessionTree.loadFrom(bytes, { sliceMs: 40 });
  assert.equal(t.pathLength(), 3);
  t.free();
});

test("an empty source (a Response with no body, no bytes, an empty Blob) is corrupt, saying it is empty", async () => {
  const sources = [new Response(null), new Response(""), new Uint8Array(0)];
  if (typeof Blob === "function") sources.push(new Blob([]));
  for (const source of sources) await assert.rejects(SessionTree.loadFrom(source), "corrupt", /it is empty/);
  assert.throws(() => SessionTree.load(""), "corrupt", /it is empty/);
});

test("a Blob is copied into the load as its stream is read: the same tree, and a stream that disagrees with its size fails with nothing loaded", async () => {
  if (typeof Blob === "undefined") return;
  const bytes = fileOf(3000);
  const t = await SessionTree.loadFrom(new Blob([bytes.subarray(0, 1000), bytes.subarray(1000)]), { sliceMs: 0 });
  assert.equal(t.save(), new TextDecoder().decode(bytes));
  t.free();
  // A Blob whose stream gives more, or fewer, bytes than its size says.
  class Liar extends Blob {
    constructor(size, actual) { super([new Uint8Array(size)]); this.actual = actual; }
    stream() { return new Blob([this.actual]).stream(); }
  }
  await assert.rejects(SessionTree.loadFrom(new Liar(bytes.length - 10, bytes)), "invalid_input", /more than/);
  await assert.rejects(SessionTree.loadFrom(new Liar(bytes.length + 10, bytes)), "invalid_input", /ended after/);
  const again = await SessionTree.loadFrom(new Blob([bytes]));
  assert.equal(again.pathLength(), 3000, "the module loads again");
  again.free();
});
