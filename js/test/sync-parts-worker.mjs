// sync() of js/sync.js with a tree too large for one request against the real
// edge worker: a tree of ~9.5 MB (past the worker's 8 MiB body limit) is
// refused whole (413) and goes in parts (/delta, each on top of the last),
// and the worker then holds every node as the device does; a live() client
// with deltas pushes the same kind of tree in parts once, and its next push
// is a delta of what changed. Run by wasm/worker/httpsuite:
//   node --experimental-websocket js/test/sync-parts-worker.mjs <dir> <worker URL> <token>
import assert from "node:assert/strict";
import { workerTree } from "./worker-tree.mjs";

const [dir, url, token] = process.argv.slice(2);
if (!token) {
  console.error("usage: node --experimental-websocket js/test/sync-parts-worker.mjs <dir> <worker URL> <token>");
  process.exit(2);
}

const sent = [];
const countingFetch = (u, init = {}) => {
  if (init.method === "POST") sent.push([new URL(u).pathname.split("/").pop(), init.body.length]);
  return fetch(u, init);
};

async function bigTree(tag) {
  const w = await workerTree(dir, url, token);
  const line = "p".repeat(3000);
  for (let i = 0; i < 3200; i++) w.tree.append({ role: i % 2 ? "assistant" : "user", content: `${tag} ${i} ${line}` });
  return w;
}

// sync(): refused whole, then in parts.
{
  const { sync, auth, id, tree, SessionTree } = await bigTree("sync");
  const size = tree.save().length;
  assert.ok(size > 8 * 1024 * 1024, `the tree takes ${size}, not past the 8 MiB body limit`);
  sent.length = 0;
  const r = await sync(tree, { url, token, id, fetch: countingFetch });
  assert.ok(r.parts >= 4, `pushed in ${r.parts} parts`);
  assert.ok(sent.every(([route, n]) => route === "merge" || n < 4 * 1024 * 1024), JSON.stringify(sent));
  const stored = SessionTree.load(await (await fetch(`${url}/v1/trees/${id}`, { headers: auth })).text());
  for (const nid of tree.activePath()) assert.ok(stored.node(nid), `node ${nid} is not on the worker`);
  assert.equal(stored.save(), tree.save(), "the worker's copy differs from the device's");
  console.log(`sync(): a tree of ${size} characters went in ${r.parts} parts (${sent.map(([k, n]) => `${k} ${n}`).join(", ")})`);
}

// live() with deltas: in parts once, then deltas.
{
  const { live, auth, id, tree, SessionTree } = await bigTree("live");
  const errors = [];
  sent.length = 0;
  const s = live(tree, { url, token, id, pollMs: 3600_000, deltas: true, fetch: countingFetch, onError: (e) => errors.push(e) });
  try {
    await s.push();
    assert.deepEqual(errors, []);
    const wholeSends = sent.filter(([route]) => route === "merge").length;
    tree.append({ role: "user", content: "one more" });
    sent.length = 0;
    await s.push();
    assert.deepEqual(errors, []);
    assert.ok(sent.length === 0 || sent.every(([route, n]) => route === "delta" && n < 10_000), `the push after the parts: ${JSON.stringify(sent)}`);
    const stored = SessionTree.load(await (await fetch(`${url}/v1/trees/${id}`, { headers: auth })).text());
    assert.equal(stored.pathLength(), tree.pathLength());
    for (const nid of tree.activePath()) assert.ok(stored.node(nid), `node ${nid} is not on the worker`);
    console.log(`live(): whole pushes tried ${wholeSends}, then in parts; the next push ${sent.length ? sent.map(([k, n]) => `${k} ${n}`).join(", ") : "on the socket"}`);
  } finally {
    await s.close();
  }
}
process.exit(0);
