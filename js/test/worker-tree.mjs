// What each script that runs js/sync.js against the real edge worker starts
// with (sync-worker.mjs, live-worker.mjs, live-full-worker.mjs): the package
// built in dir, a new tree on the worker at url made with token, and that
// tree loaded as the worker stores it.
import assert from "node:assert/strict";
import path from "node:path";
import { pathToFileURL } from "node:url";

export async function workerTree(dir, url, token) {
  const { init, SessionTree } = await import(pathToFileURL(path.join(dir, "sessiontree.js")).href);
  const { sync, live } = await import(pathToFileURL(path.join(dir, "sync.js")).href);
  await init(); // not initInterchange: sync() and live() load the interchange module themselves
  const auth = { authorization: `Bearer ${token}` };
  const created = await fetch(`${url}/v1/trees`, { method: "POST", headers: auth, body: JSON.stringify({ messages: [{ role: "user", content: "start" }] }) });
  assert.equal(created.status, 201, await created.clone().text());
  const { id } = await created.json();
  const tree = SessionTree.load(await (await fetch(`${url}/v1/trees/${id}`, { headers: auth })).text());
  return { SessionTree, sync, live, auth, id, tree };
}
