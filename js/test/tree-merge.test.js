// merge() and the sync client (js/sync.js). Runs under `node --test` and in
// headless Chromium (browser.mjs); the worker is a fake with the worker's
// If-Match and merge rules, so the test needs no network.
import { test, assert } from "./harness.js";
import { init, SessionTree } from "../sessiontree.js";
import { sync } from "../sync.js";

await init();

const user = (content) => ({ role: "user", content });

function twoCopies() {
  const base = new SessionTree();
  const root = base.append(user("start"), 1);
  return { base, root, a: base.clone(), b: base.clone() };
}

test("merge in either order saves the same bytes and keeps both sides' messages", () => {
  const { a, b } = twoCopies();
  const fromA = a.append(user("from a"), 10);
  const fromB = b.append(user("from b"), 20);
  const ab = a.clone(), ba = b.clone();
  const report = ab.merge(b);
  ba.merge(a);
  assert.equal(ab.save(), ba.save());
  assert.deepEqual(report.nodesAdded, [fromB]);
  assert.equal(report.conflicts.length, 1);
  assert.equal(report.conflicts[0].kind, "branch");
  assert.equal(report.conflicts[0].keptAs, `main~${fromA}`, "the earlier move is kept under name~leaf");
  assert.equal(ab.pathOf("main").at(-1), fromB, "the later move keeps the name");
  assert.equal(ab.pathOf(`main~${fromA}`).at(-1), fromA);
  assert.equal(report.changed, true);
  assert.equal(ab.merge(ba).changed, false, "merging the same tree again changes nothing");
});

test("merge takes a .tree.json string and the later of two labels", () => {
  const { a, b, root } = twoCopies();
  a.label(root, "from a", 5);
  b.label(root, "from b", 9);
  const report = a.merge(b.save());
  assert.equal(a.node(root).label, "from b");
  assert.deepEqual(report.labelsChanged, [root]);
});

test("merge refuses what is not a tree, and a freed tree", () => {
  const { a, b } = twoCopies();
  assert.throws(() => a.merge(42), "invalid_input", /must be a SessionTree/);
  assert.throws(() => a.merge("{"), "corrupt");
  b.free();
  assert.throws(() => a.merge(b), "invalid_input", /freed/);
});

// fakeWorker answers GET /v1/trees/{id} and POST /v1/trees/{id}/merge as the
// worker does: ETags change on every write, a stale If-Match is 412.
function fakeWorker(initial) {
  let stored = initial.clone(), version = 1;
  const etag = () => `"v${version}"`;
  const reply = (status, body, headers = {}) => new Response(body, { status, headers: { "content-type": "application/json", ...headers } });
  const fetch = async (url, init = {}) => {
    await new Promise((r) => setTimeout(r, 0)); // let the other client interleave
    if (init.headers?.authorization !== "Bearer secret") return reply(401, `{"error":{"code":"unauthorized","message":"no"}}`);
    if (!init.method || init.method === "GET") return reply(200, stored.save(), { etag: etag() });
    if (init.headers["if-match"] && init.headers["if-match"] !== etag()) {
      return reply(412, `{"error":{"code":"precondition_failed","message":"stale"}}`);
    }
    const report = stored.merge(init.body);
    version++;
    return reply(200, JSON.stringify({ etag: etag(), report }), { etag: etag() });
  };
  return { fetch, stored: () => stored };
}

test("two sync clients pushing concurrently converge with nothing lost", async () => {
  const { base } = twoCopies();
  const worker = fakeWorker(base);
  const devices = [base.clone(), base.clone()];
  const opts = { url: "https://worker.example/", token: "secret", id: "t1", fetch: worker.fetch };
  const added = [];
  let retried = 0;
  await Promise.all(devices.map(async (d, i) => {
    for (let k = 0; k < 5; k++) {
      added.push(d.append(user(`device ${i} turn ${k}`), 100 + k));
      retried += (await sync(d, opts)).attempts - 1;
    }
  }));
  for (const d of devices) await sync(d, opts);
  const stored = worker.stored();
  for (const id of added) assert.ok(stored.node(id), `node ${id} was lost`);
  assert.equal(devices[0].save(), stored.save());
  assert.equal(devices[1].save(), stored.save());
  assert.ok(retried > 0, "the clients never raced; the test did not exercise 412");
});

test("sync reports the worker's error code", async () => {
  const { base } = twoCopies();
  const worker = fakeWorker(base);
  await assert.rejects(sync(base, { url: "https://w", token: "wrong", id: "t1", fetch: worker.fetch }), "unauthorized");
  await assert.rejects(sync(base, { url: "https://w", token: "secret" }), "invalid_input", /"id"/);
});
