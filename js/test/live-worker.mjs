// live() of js/sync.js against the real edge worker (wrangler dev): two
// devices, each a SessionTree in this Node process with a live sync. Each
// round one device appends and push()es; the other must hold the message
// soon after, told by its WebSocket (no polling: pollMs is an hour). Prints
// the p50/p95 from the local edit (push included) to the other device
// holding it (the target is 200 ms p95; make bench-worker reports it; no time
// is asserted). A change that is not pushed fails after 5 s (polling is an hour). Run by wasm/worker/httpsuite with node --experimental-websocket:
//   node --experimental-websocket js/test/live-worker.mjs <dir> <worker URL> <token>
import assert from "node:assert/strict";
import { workerTree } from "./worker-tree.mjs";

// With a fourth argument "deltas", the devices push only their changed rows
// (live()'s deltas option), and most pushes must be deltas.
const [dir, url, token, flavour] = process.argv.slice(2);
const deltas = flavour === "deltas";
if (!token) {
  console.error("usage: node --experimental-websocket js/test/live-worker.mjs <dir> <worker URL> <token>");
  process.exit(2);
}
assert.equal(typeof WebSocket, "function", "run with node --experimental-websocket (Node 20) or Node 22+");
const { SessionTree, live, auth, id, tree: base } = await workerTree(dir, url, token);

const devices = [base.clone(), base.clone()];
const waiters = [[], []];
let applied = 0, viaSocket = 0, asDelta = 0;
const syncs = devices.map((tree, i) =>
  live(tree, {
    url, token, id, pollMs: 3600_000, deltas,
    onSync: (r) => {
      if (r.applied) applied++;
      if (r.via === "socket") viaSocket++;
      if (r.delta) asDelta++;
      for (const w of waiters[i].splice(0)) w();
    },
    onError: (e) => console.error(`device ${i}:`, e),
  }),
);
const holds = (tree, text) => tree.linearProjection().some((m) => m.content === text);

// Wait until both sockets are open.
for (let t = 0; syncs.some((s) => s.mode !== "live"); t++) {
  assert.ok(t < 100, "the live sockets did not open");
  await new Promise((r) => setTimeout(r, 50));
}

const lat = [];
for (let round = -2; round < 30; round++) { // two rounds to warm up, not counted
  const from = (round + 2) % 2, to = 1 - from;
  const text = `round ${round}`;
  const t0 = performance.now();
  devices[from].append({ role: "user", content: text });
  const pushed = syncs[from].push();
  while (!holds(devices[to], text)) {
    const got = new Promise((r) => waiters[to].push(r));
    const late = new Promise((r) => setTimeout(() => r("late"), 5000));
    assert.notEqual(await Promise.race([got, late]), "late", `device ${to} never got ${text}`);
  }
  if (round >= 0) lat.push(performance.now() - t0);
  await pushed;
}
await Promise.all(syncs.map((s) => s.close()));
await Promise.all(syncs.map((s) => s.push()));
assert.equal(devices[0].save(), devices[1].save(), "the two devices do not hold the same tree");
lat.sort((a, b) => a - b);
const p50 = lat[Math.floor(lat.length / 2)], p95 = lat[Math.floor(lat.length * 0.95)];
console.log(`live: an edit on one device held by the other after p50 ${p50.toFixed(1)} ms, p95 ${p95.toFixed(1)} ms (${lat.length} rounds, ${applied} applied from the pushed delta without a pull)`);
// The other device is idle when a change arrives, so it applies the delta in
// place; a pull happens only when a delta and a push cross.
assert.ok(applied >= 16, `only ${applied} of 32 changes were applied from their delta`);
// While its socket is open a device pushes on it, not over HTTP.
console.log(`live: ${viaSocket} pushes went on the live socket`);
assert.ok(viaSocket >= 16, `only ${viaSocket} of 32 pushes went on the live socket`);
if (deltas) {
  console.log(`live: ${asDelta} pushes sent only their changed rows`);
  assert.ok(asDelta >= 16, `only ${asDelta} of 32 pushes were deltas`);
}
// The stored tree is the devices' tree.
const stored = SessionTree.load(await (await fetch(`${url}/v1/trees/${id}`, { headers: auth })).text());
assert.deepEqual(stored.linearProjection().map((m) => m.content), devices[0].linearProjection().map((m) => m.content),
  "the stored conversation is not the devices'");
