// node wasm/worker/glue/fanout_test.mjs: the fan-out plan of a group of
// writes (fanout.mjs), run by make test-worker.
import assert from "node:assert/strict";
import { fanOut, socketsOver } from "./fanout.mjs";

// 200 sockets of one tree: a's and b's (their writers' sockets, tagged with
// their client names), 98 plain and 100 opened with ?batch=1. A group of two
// writes, a's on its socket (origin) and b's over HTTP (named b).
const sockets = new Map();
const a = { name: "a" }, b = { name: "b" };
sockets.set(a, { tags: ["a"], batch: false });
sockets.set(b, { tags: ["b"], batch: true });
const plain = [], batched = [];
for (let i = 0; i < 98; i++) {
  const ws = { name: "p" + i };
  plain.push(ws);
  sockets.set(ws, { tags: [], batch: false });
}
for (let i = 0; i < 100; i++) {
  const ws = { name: "q" + i };
  batched.push(ws);
  sockets.set(ws, { tags: [], batch: true });
}
const results = [
  { push: ['{"type":"change","version":2}'], pushExcept: "a" },
  { push: ['{"type":"change","version":3}'], pushExcept: "b" },
];
const plan = fanOut([a, null], results, sockets);
const of = new Map(plan.map(([ws, , frames]) => [ws, frames]));

// Each socket gets the changes of the others, in order; none its own.
assert.deepEqual(of.get(a), ['{"type":"change","version":3}']);
assert.deepEqual(of.get(b), ['{"type":"change","version":2}']); // one change: a plain frame
assert.deepEqual(of.get(plain[0]), results[0].push.concat(results[1].push));
assert.deepEqual(of.get(batched[0]), ['{"type":"changes","changes":[{"type":"change","version":2},{"type":"change","version":3}]}']);
assert.equal(plan.length, 200);

// The frames are made once and shared: every plain socket gets the same
// array, every batched socket the same one frame (before, each socket's
// frames and each batched socket's string were made for it).
for (const ws of plain) assert.equal(of.get(ws), of.get(plain[0]), "plain sockets share their frames");
for (const ws of batched) assert.equal(of.get(ws), of.get(batched[0]), "batched sockets share their frame");

// No changes, no plan; a write whose only socket is its writer's sends nothing.
assert.deepEqual(fanOut([null], [{ push: [], pushExcept: "" }], sockets), []);
assert.deepEqual(fanOut([a], [{ push: ["x"], pushExcept: "" }], new Map([[a, { tags: [], batch: false }]])), []);
// Issue 25 §4: a live socket over its tree's limit or its tenant's is
// refused with a reason a close frame can carry; under both, or with no
// limit (0), it is accepted.
for (const [n, m, perTree, perTenant, want] of [
  [2, 2, 3, 10, ""],
  [3, 3, 3, 10, "this tree has 3 live sockets, its limit; close one first"],
  [1, 10, 3, 10, "this tenant has 10 live sockets, its limit; close one first"],
  [500, 5000, 0, 0, ""],
  [1e9, 1e12, 1e9, 1e12, "this tree has 1000000000 live sockets, its limit; close one first"],
]) {
  const got = socketsOver(n, m, perTree, perTenant);
  assert.equal(got, want, `${n} ${m} open, limits ${perTree} ${perTenant}`);
  assert.ok(new TextEncoder().encode(got).length <= 123, "a close frame's reason");
}
console.log("fanout: ok");
