// js/sync.js against the real edge worker (wrangler dev): two devices, each a
// SessionTree in this Node process, append and sync() concurrently; afterwards
// the stored tree holds every node either made and both devices save() it byte
// for byte. Run by wasm/worker/httpsuite (make test-worker), which starts the
// worker and builds the package into a directory:
//   node js/test/sync-worker.mjs <dir with sessiontree.js, sync.js and both .wasm> <worker URL> <token>
import assert from "node:assert/strict";
import { workerTree } from "./worker-tree.mjs";

const [dir, url, token] = process.argv.slice(2);
if (!token) {
  console.error("usage: node js/test/sync-worker.mjs <dir> <worker URL> <token>");
  process.exit(2);
}
const { SessionTree, sync, auth, id, tree: base } = await workerTree(dir, url, token);

// Each request waits a little first, so that the two devices' pulls and pushes
// interleave and some pushes meet a stale If-Match (412) and go round again.
const slowFetch = async (...args) => {
  await new Promise((r) => setTimeout(r, Math.random() * 15));
  return fetch(...args);
};
const devices = [base.clone(), base.clone()];
const added = [];

// First a race for sure: both devices pull, then both push; the second push
// carries a stale If-Match, gets 412, and its sync goes round again.
let pulls = 0, release;
const bothPulled = new Promise((r) => { release = r; });
const racing = async (u, init) => {
  const res = await fetch(u, init);
  if (!init?.method || init.method === "GET") {
    if (++pulls === 2) release();
    await bothPulled;
  }
  return res;
};
const first = await Promise.all(devices.map((d, i) => {
  added.push(d.append({ role: "assistant", content: `device ${i} before the race` }, 50));
  return sync(d, { url, token, id, fetch: racing });
}));
assert.equal(first[0].attempts + first[1].attempts, 3, "one push met 412 and went round once more");
let rounds = 3;
await Promise.all(devices.map(async (d, i) => {
  for (let k = 0; k < 5; k++) {
    added.push(d.append({ role: "user", content: `device ${i} turn ${k} ünï 😀` }, 100 + k));
    rounds += (await sync(d, { url, token, id, fetch: slowFetch })).attempts;
  }
}));
for (const d of devices) await sync(d, { url, token, id });
const stored = SessionTree.load(await (await fetch(`${url}/v1/trees/${id}`, { headers: auth })).text());
for (const nodeId of added) assert.ok(stored.node(nodeId), `node ${nodeId} was lost`);
assert.equal(devices[0].save(), stored.save(), "device 0 differs from the stored tree");
assert.equal(devices[1].save(), stored.save(), "device 1 differs from the stored tree");
await assert.rejects(sync(devices[0], { url, token: "not-a-token", id }), (e) => e.name === "SessionTreeError" && e.code !== "" && /pulling tree/.test(e.message));
console.log(`ok   two js/sync.js clients converged through the worker: ${added.length} nodes added, ${rounds} rounds for 12 syncs (a 412 forced in the first two)`);
