// sessiontree/worker's readAhead: an importEach's steps read ahead of their use,
// bounded by the bytes of their files, in order, errors at their step, the
// rest given up (and trees freed) by return().
// Runs in Node and in headless Chromium (harness.js).
import { test, assert } from "./harness.js";
import { readAhead } from "../worker.js";

// steps yields n conversations of `size` bytes each (then the end, or an
// error at `failAt`), counting what was asked and what is out at most.
function source(n, size, { failAt = -1, trees = false } = {}) {
  const s = { asked: 0, returned: false, freed: 0, taken: 0, mostOut: 0 };
  s.it = {
    next: async () => {
      await new Promise((r) => setTimeout(r, 0));
      const i = s.asked++;
      s.mostOut = Math.max(s.mostOut, s.asked - s.taken);
      if (i === failAt) throw Object.assign(new Error(`step ${i} failed`), { code: "invalid_input" });
      if (i >= n) return { done: true, value: undefined };
      const value = trees ? { title: `c${i}`, tree: { free: async () => { s.freed++; } } } : { title: `c${i}`, file: new Uint8Array(size) };
      return { done: false, value };
    },
    return: async () => {
      s.returned = true;
      return { done: true, value: undefined };
    },
  };
  return s;
}
const pause = (ms) => new Promise((r) => setTimeout(r, ms));

test("every step comes, in order, and the end after them, however far ahead it reads", async () => {
  for (const bytes of [0, 1, 250, 1 << 20]) {
    const s = source(12, 100);
    const got = [];
    for await (const c of readAhead(s.it, { bytes })) got.push(c.title);
    assert.deepEqual(got, Array.from({ length: 12 }, (_, i) => `c${i}`), `bytes ${bytes}`);
    assert.equal(s.asked, 13, "each step asked once, the end once");
  }
});

test("it reads ahead while the caller is busy, up to the limit in bytes and no further", async () => {
  const s = source(40, 100);
  const it = readAhead(s.it, { bytes: 1000 });
  await pause(50); // the caller busy: the reader goes on meanwhile
  // 1,000 bytes of 100-byte files: it stops once it holds 10 (the one that crosses the limit is the last asked).
  assert.equal(s.asked, 10);
  const first = await it.next();
  assert.equal(first.value.title, "c0");
  assert.equal(it.most, 10);
  await pause(20);
  assert.equal(s.asked, 11, "one taken, one more read");
  let n = 1;
  while (!(await it.next()).done) n++;
  assert.equal(n, 40);
});

test("a step without a file is read one ahead", async () => {
  const s = source(5, 0, { trees: true });
  const it = readAhead(s.it);
  await pause(30);
  assert.equal(s.asked, 1);
  const got = [];
  for await (const c of it) got.push(c.title);
  assert.equal(got.length, 5);
});

test("an error comes at its step, after the steps read before it, and nothing after", async () => {
  const s = source(10, 10, { failAt: 3 });
  const it = readAhead(s.it, { bytes: 1 << 20 });
  await pause(50);
  assert.equal(s.asked, 4, "no step asked past the error");
  const got = [];
  let error = null;
  try {
    for (;;) {
      const step = await it.next();
      if (step.done) break;
      got.push(step.value.title);
    }
  } catch (e) {
    error = e;
  }
  assert.equal(error?.message, "step 3 failed");
  assert.deepEqual(got, ["c0", "c1", "c2"]);
  assert.deepEqual(await it.next(), { done: true, value: undefined });
});

test("return() gives the rest up: the source is told, trees read ahead are freed, no step comes after", async () => {
  const s = source(10, 0, { trees: true });
  const it = readAhead(s.it, { bytes: 0 });
  const first = await it.next();
  assert.equal(first.value.title, "c0");
  await pause(20); // c1 read ahead (a tree)
  await it.return();
  await pause(20);
  assert.equal(s.returned, true);
  assert.equal(s.freed, 1, "the tree read ahead and never taken is freed");
  assert.deepEqual(await it.next(), { done: true, value: undefined });
  // A break in for await does the same.
  const t = source(10, 5);
  for await (const c of readAhead(t.it, { bytes: 50 })) if (c.title === "c2") break;
  assert.equal(t.returned, true);
});

test("a step still being read when return() comes is freed when it arrives", async () => {
  const s = source(10, 0, { trees: true });
  const it = readAhead(s.it, { bytes: 0 });
  await it.next();
  await it.return(); // c1 is being read (asked right after c0 was taken)
  await pause(30);
  assert.equal(s.freed, 1);
});

test("bytes must be a number ≥ 0", () => {
  for (const bytes of [-1, "1", NaN]) {
    assert.throws(() => readAhead(source(1, 1).it, { bytes }), "invalid_input");
  }
});

// Found by the outside pass of Dec 7 (evening): two next() calls at once
// shared one wake-up, and the first never settled.
test("next() called twice at once: both settle, in order", async () => {
  const s = source(3, 10);
  const it = readAhead(s.it);
  const [a, b] = await Promise.all([it.next(), it.next()]);
  assert.equal(a.value.title, "c0");
  assert.equal(b.value.title, "c1");
  const all = await Promise.all([it.next(), it.next(), it.next()]);
  assert.deepEqual(all.map((r) => r.done), [false, true, true]);
});

test("bad arguments and a bad step are refused with a code; a tree whose free throws does not stop return()", async () => {
  for (const [steps, options] of [[source(1, 1).it, null], [{}, undefined], [null, undefined], [source(1, 1).it, 5]]) {
    assert.throws(() => readAhead(steps, options), "invalid_input");
  }
  const odd = readAhead({ next: async () => 42 });
  await assert.rejects(odd.next(), "invalid_input");
  let returned = false;
  const it = readAhead({
    n: 0,
    async next() { return this.n++ < 3 ? { done: false, value: { tree: { free() { throw new Error("freed already"); } } } } : { done: true }; },
    async return() { returned = true; return { done: true }; },
  }, { bytes: 0 });
  await it.next();
  await pause(20);
  await it.return();
  assert.equal(returned, true);
});
