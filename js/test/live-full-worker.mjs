// live() of js/sync.js with deltas, against a worker whose trees may take at
// most a few MiB (SESSIONTREE_MAX_TREE_BYTES): a device appends until its
// push is refused for the tree's size. The error is too_large naming the
// limit, and no push of the whole tree follows it (a whole tree past the
// limit is refused too, after an upload of all of it): before, every push
// round sent the whole tree again. Run by wasm/worker/httpsuite:
//   node --experimental-websocket js/test/live-full-worker.mjs <dir> <worker URL> <token>
import assert from "node:assert/strict";
import { workerTree } from "./worker-tree.mjs";

const [dir, url, token] = process.argv.slice(2);
if (!token) {
  console.error("usage: node --experimental-websocket js/test/live-full-worker.mjs <dir> <worker URL> <token>");
  process.exit(2);
}
const { live, id, tree } = await workerTree(dir, url, token);

// Every request of the sync, by route.
const sent = [];
const countingFetch = (u, init) => {
  sent.push(new URL(u).pathname.split("/").pop());
  return fetch(u, init);
};
const errors = [];
const s = live(tree, { url, token, id, pollMs: 3600_000, deltas: true, fetch: countingFetch, onError: (e) => errors.push(e) });
for (let t = 0; s.mode !== "live"; t++) {
  assert.ok(t < 100, "the live socket did not open within 5 s");
  await new Promise((r) => setTimeout(r, 50));
}
await s.push(); // the first round pushes the whole (small) tree

const line = "w".repeat(4000);
let round = 0;
while (errors.length === 0) {
  assert.ok(round < 40, `40 rounds of 200 KB of appends into a tree of a few MiB, and no refusal`);
  for (let i = 0; i < 50; i++) tree.append({ role: "user", content: `${round}.${i} ${line}` });
  sent.length = 0;
  await s.push();
  round++;
}
const e = errors[0];
assert.equal(e.code, "too_large", String(e));
assert.match(e.message, /a tree may take at most \d+/);
assert.deepEqual(sent.filter((r) => r === "merge"), [], `after the refusal the whole tree was pushed: ${sent.join(" ")}`);
s.close();
console.log(`refused after ${round} rounds of 50 appends of 4 KB: ${e.message}`);
process.exit(0);
