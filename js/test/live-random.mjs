// live() of js/sync.js at random against the real edge worker (wrangler dev):
// two devices, each a SessionTree with a live sync pushing deltas (for even
// seeds, the first pushes its whole tree instead), take seeded
// edits (appends, rewinds, edits, regenerates, labels, branch switches and
// deletions) and pushes, over a network that fails at random: a request that
// never leaves, an answer lost after the worker acted on the request, a slow
// request, a live socket dropped. Then the network heals, both devices push
// until a round goes through, and: every message either device wrote is in
// both trees and in the stored tree, the three hold the same tree (each
// device's own place aside), and no round failed with an error that is not a
// network's or a code of SPEC §4.
// Run by wasm/worker/httpsuite with node --experimental-websocket:
//   node --experimental-websocket js/test/live-random.mjs <dir> <worker URL> <token>
// LIVE_RANDOM_SEEDS=1,2,3 LIVE_RANDOM_STEPS=300 for a longer look.
import assert from "node:assert/strict";
import { workerTree } from "./worker-tree.mjs";
import { rng } from "./rng.js";

const [dir, url, token] = process.argv.slice(2);
const seedList = process.env.LIVE_RANDOM_SEEDS ?? "1,2";
const stepArg = process.env.LIVE_RANDOM_STEPS ?? "120";
if (!token) {
  console.error("usage: node --experimental-websocket js/test/live-random.mjs <dir> <worker URL> <token>");
  process.exit(2);
}
assert.equal(typeof WebSocket, "function", "run with node --experimental-websocket (Node 20) or Node 22+");
const STEPS = Number(stepArg);

// The tree as the devices and the worker must agree on it: not a device's own place.
const shared = (text) => {
  const f = JSON.parse(text);
  delete f.active_branch;
  for (const b of Object.values(f.branches)) delete b.used;
  return JSON.stringify(f);
};

for (const seed of seedList.split(",").map(Number)) {
  const r = rng(seed);
  const { SessionTree, live, auth, id, tree: base } = await workerTree(dir, url, token);
  const devices = [base.clone(), base.clone()];
  const net = [{ bad: true }, { bad: true }]; // while bad, requests fail at random
  const sockets = [[], []];
  const failures = [];
  const codes = {};
  let lostAnswers = 0, neverSent = 0, dropped = 0;
  const flaky = (i) => async (input, init) => {
    const x = r();
    if (net[i].bad && x < 0.1) {
      neverSent++;
      throw new TypeError("fetch failed (the network is down)");
    }
    if (net[i].bad && x < 0.2) await new Promise((res) => setTimeout(res, Math.floor(r() * 60)));
    const res = await fetch(input, init);
    if (net[i].bad && x > 0.9) {
      lostAnswers++;
      await res.arrayBuffer().catch(() => {});
      throw new TypeError("fetch failed (the answer was lost)");
    }
    return res;
  };
  const socketOf = (i) => class extends WebSocket {
    constructor(...args) {
      super(...args);
      sockets[i].push(this);
    }
  };
  // Even seeds: the first device pushes its whole tree each time (deltas:
  // false, live()'s fallback), beside the other's deltas.
  const deltasOf = (i) => i !== 0 || seed % 2 === 1;
  const syncs = devices.map((tree, i) => live(tree, {
    url, token, id, deltas: deltasOf(i), pollMs: 200, fetch: flaky(i), WebSocket: socketOf(i),
    onError: (e) => {
      if (e instanceof TypeError && /fetch failed/.test(e.message)) return;
      if (e?.name === "SessionTreeError" && typeof e.code === "string" && e.code !== "corrupt") {
        codes[e.code] = (codes[e.code] ?? 0) + 1;
        return;
      }
      failures.push(`device ${i}: ${e?.stack ?? e}`);
    },
  }));
  const written = [];
  const log = [];
  for (let step = 0; step < STEPS; step++) {
    const i = r() < 0.5 ? 0 : 1;
    const t = devices[i];
    const path = t.activePath();
    const at = (list) => list[Math.floor(r() * list.length)];
    const text = `l${seed}-${step}-${i}`;
    const x = r();
    let kind;
    if (x < 0.35) { kind = "append"; t.append({ role: path.length % 2 ? "assistant" : "user", content: text }); written.push(text); }
    else if (x < 0.42) { kind = "rewind"; t.rewind(at(path)); t.append({ role: "user", content: text }); written.push(text); }
    else if (x < 0.49) { kind = "edit"; t.edit(at(path), { role: "user", content: text }); written.push(text); }
    else if (x < 0.56) { kind = "regenerate"; t.regenerate(at(path), { role: "assistant", content: text }); written.push(text); }
    else if (x < 0.61) { kind = "label"; t.label(at(path), text); }
    else if (x < 0.66) { kind = "switch"; t.switchBranch(at(t.branches()).name); }
    else if (x < 0.69) {
      kind = "delete";
      const names = t.branches().map((b) => b.name).filter((n) => n !== "main" && n !== t.activeBranch);
      if (names.length) t.deleteBranch(at(names));
    } else if (x < 0.74) {
      kind = "drop";
      const open = sockets[i].filter((s) => s.readyState === WebSocket.OPEN);
      if (open.length) { dropped++; open.at(-1).close(); }
    } else if (x < 0.8) { kind = "wait"; await new Promise((res) => setTimeout(res, Math.floor(r() * 80))); }
    else { kind = "push"; }
    log.push(`${step}.${i}:${kind}`);
    // A client pushes after its edits (live() says so); often without waiting for it.
    const pushed = syncs[i].push();
    if (r() < 0.5) await pushed;
  }
  // The network heals; each device pushes until a round goes through and
  // both hold what the worker stores.
  net[0].bad = net[1].bad = false;
  const storedText = async () => (await fetch(`${url}/v1/trees/${id}`, { headers: auth })).text();
  let stored = "";
  for (let k = 0; k < 40; k++) {
    for (const s of syncs) await s.push();
    stored = shared(await storedText());
    if (devices.every((d) => shared(d.save()) === stored)) break;
    await new Promise((res) => setTimeout(res, 100));
  }
  await Promise.all(syncs.map((s) => s.close()));
  const where = `seed ${seed}; its steps: ${log.join(" ")}`;
  const lost = (text) => written.filter((w) => !text.includes(`"${w}"`));
  assert.deepEqual(failures, [], `rounds failed with errors that are not the network's; ${where}`);
  assert.deepEqual(lost(devices[0].save()), [], `device one lost messages; ${where}`);
  assert.deepEqual(lost(devices[1].save()), [], `device two lost messages; ${where}`);
  assert.deepEqual(lost(stored), [], `the worker lost messages; ${where}`);
  assert.equal(shared(devices[0].save()), stored, `device one does not hold the stored tree; ${where}`);
  assert.equal(shared(devices[1].save()), stored, `device two does not hold the stored tree; ${where}`);
  for (const d of devices) assert.deepEqual(d.validate(), [], `a device's tree is not sound; ${where}`);
  assert.ok(neverSent > 0 && lostAnswers > 0 && dropped > 0, `the network did not fail every way: ${neverSent} never sent, ${lostAnswers} answers lost, ${dropped} sockets dropped`);
  console.log(`ok   seed ${seed}: ${STEPS} steps, ${written.length} messages written, all in both devices and the worker; ${neverSent} requests never sent, ${lostAnswers} answers lost, ${dropped} sockets dropped; errors by code ${JSON.stringify(codes)}`);
  for (const d of devices) d.free();
  base.free();
}
console.log("live() at random over a failing network: all passed");
