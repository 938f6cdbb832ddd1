// merge() and the sync client (js/sync.js). Runs under `node --test` and in
// headless Chromium (browser.mjs); the worker is a fake with the worker's
// If-Match and merge rules, so the test needs no network. The merge runs in the
// interchange module (what merge says before it is loaded is tested in
// tree-interchange.test.js, which runs first in the browser page).
import { test, assert, isNode, mainSource } from "./harness.js";
import { init, initInterchange, SessionTree } from "../sessiontree.js";
import { sync, live } from "../sync.js";

await Promise.all([init(mainSource), initInterchange()]);

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

test("merge with freshNames and keepPlace: readable names and each copy where its user was", () => {
  const { a, b } = twoCopies();
  const fromA = a.append(user("from a"), 10);
  const fromB = b.append(user("from b"), 20);
  const report = a.merge(b.clone(), { freshNames: true, keepPlace: true });
  assert.equal(report.conflicts.length, 1);
  assert.equal(report.conflicts[0].keptAs, "branch-1", "the other leaf under a fresh branch-N, not main~leaf");
  assert.ok(!a.branches().some((x) => x.name.includes("~")));
  assert.equal(a.activePath().at(-1), fromA, "this copy stays on its own message");
  assert.equal(a.activeBranch, "branch-1");
  b.merge(a.save(), { freshNames: true, keepPlace: true });
  assert.equal(b.activePath().at(-1), fromB);
  assert.ok(!b.branches().some((x) => x.name.includes("~")));
  assert.throws(() => a.merge(b, { fresh: true }), "invalid_input", /no option "fresh"/);
  assert.throws(() => a.merge(b, { freshNames: 1 }), "invalid_input", /must be a boolean/);
  assert.throws(() => a.merge(b, "freshNames"), "invalid_input", /must be an object/);
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

test("after a merge the tree keeps its object, its handle and its cached messages, none stale", () => {
  const { a, b, root } = twoCopies();
  const mine = a.append(user("mine"), 10);
  const theirs = b.append(user("theirs"), 20);
  const before = a.linearProjection();
  const clone = a.clone();
  const report = a.merge(b);
  assert.deepEqual(report.nodesAdded, [theirs]);
  const after = a.linearProjection();
  assert.deepEqual(after.map((m) => m.content), ["start", "theirs"], "main took the later move");
  assert.equal(after[0], before[0], "an unchanged message is the same frozen object as before the merge");
  assert.deepEqual(a.linearProjectionOf(`main~${mine}`).map((m) => m.content), ["start", "mine"]);
  assert.equal(a.linearProjectionOf(`main~${mine}`)[1], before[1], "so is the other side's message, now on main~leaf");
  assert.deepEqual(a.node(root).message, before[0], "node() reads the merged tree");
  a.append(user("after the merge"), 30);
  assert.deepEqual(a.linearProjection().map((m) => m.content), ["start", "theirs", "after the merge"], "the same object keeps working");
  assert.deepEqual(clone.linearProjection().map((m) => m.content), ["start", "mine"], "a clone made before is untouched");
  assert.deepEqual(clone.merge(a.save()).nodesAdded.sort(), [theirs, a.activePath()[2]].sort());
  assert.equal(clone.save(), a.save());
});

test("a node whose content the merge replaced under its id is not served from the cache", () => {
  const t = SessionTree.fromLinear([user("zzz")], 1);
  const id = t.activePath()[0];
  assert.equal(t.linearProjection()[0].content, "zzz"); // cached
  // The same id with other content, which sorts first: it keeps the id, and
  // this tree's message moves to id~hash.
  const report = t.merge(t.save().replace('"zzz"', '"aaa"'));
  assert.equal(report.conflicts[0].kind, "node");
  assert.equal(t.node(id).message.content, "aaa");
  assert.equal(t.linearProjectionOf("main")[0].content, "aaa");
  assert.equal(t.node(report.conflicts[0].keptAs).message.content, "zzz");
});

test("merging what the tree holds already changes nothing and keeps every cached object", () => {
  const { a, b } = twoCopies();
  b.append(user("b"), 5);
  a.merge(b);
  const before = a.linearProjection();
  const saved = a.save();
  const report = a.merge(b);
  assert.equal(report.changed, false);
  assert.equal(a.save(), saved);
  assert.equal(a.linearProjection()[1], before[1]);
  assert.equal(a.merge(a).changed, false, "a tree merged with itself");
});

test("SessionTree.mergeJSON merges two files as merge() does", () => {
  const { a, b } = twoCopies();
  a.append(user("a"), 5);
  b.append(user("b"), 6);
  const ours = a.save(), theirs = b.save();
  const { json, report } = SessionTree.mergeJSON(ours, theirs);
  assert.equal(report.nodesAdded.length, 1);
  a.merge(b);
  assert.equal(json, a.save());
  assert.equal(SessionTree.mergeJSON(json, theirs).json, json, "ours itself when nothing changes");
  assert.equal(SessionTree.mergeJSON(new TextEncoder().encode(json), theirs).json, json, "bytes");
  assert.throws(() => SessionTree.mergeJSON(json, 42), "invalid_input", /"theirs" must be a .tree.json/);
  assert.throws(() => SessionTree.mergeJSON("{", json), "corrupt");
});

test("a merge through the interchange module saves the same bytes as core's native Merge", { skip: !isNode }, async () => {
  if (!isNode) return;
  const { execFileSync } = await import("node:child_process");
  const fs = await import("node:fs");
  const os = await import("node:os");
  const path = await import("node:path");
  const { a, b, root } = twoCopies();
  for (let i = 0; i < 20; i++) {
    a.append(user(`a ${i} ünï 😀`), 10 + i);
    b.append(user(`b ${i}`), 11 + i);
  }
  a.label(root, "a", 50);
  b.label(root, "b", 60);
  b.rewind(root, 70);
  b.summarizeBranch("branch-1", "what b left", "model-x", 80);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "st-merge-"));
  try {
    for (const [ours, theirs] of [[a, b], [b, a]]) {
      fs.writeFileSync(path.join(dir, "ours.tree.json"), ours.save());
      fs.writeFileSync(path.join(dir, "theirs.tree.json"), theirs.save());
      const repo = new URL("../../", import.meta.url).pathname;
      const want = JSON.parse(execFileSync("go", ["run", "./js/test/nativemerge", path.join(dir, "ours.tree.json"), path.join(dir, "theirs.tree.json")], { cwd: repo }).toString());
      const t = ours.clone();
      const report = t.merge(theirs);
      assert.ok(t.save() === want.tree, "save() after t.merge differs from core's Merge");
      assert.deepEqual(report, want.report);
      t.free();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

// fakeWorker answers GET /v1/trees/{id}, POST /v1/trees/{id}/merge and /delta as the
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
    if (url.endsWith("/delta")) { // the rows on top of the version If-Match names
      stored.applyChanges(init.body);
      version++;
      return reply(200, JSON.stringify({ etag: etag() }), { etag: etag() });
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

// A tree too large for one request (the worker's 413 too_large) goes in
// parts: deltas of its rows, parents first, each on top of the ETag the one
// before it left. live() tries it whole once; later rounds go in parts at
// once, and what others stored still comes in. Before, every round uploaded
// the whole tree again, to be refused again.
test("sync() and live() push a tree too large for one request in parts", async () => {
  const { base } = twoCopies();
  const worker = fakeWorker(base);
  const LIMIT = 3 * 1024 * 1024;
  const posts = [];
  const limited = async (url, init = {}) => {
    if (init.method === "POST") {
      posts.push([url.split("/").pop(), init.body.length]);
      if (init.body.length > LIMIT) return new Response(`{"error":{"code":"too_large","message":"the body is over ${LIMIT} bytes"}}`, { status: 413 });
    }
    return worker.fetch(url, init);
  };
  const local = base.clone();
  for (let i = 0; i < 700; i++) local.append(user(`turn ${i} ${"x".repeat(10_000)}`), 100 + i);
  const r = await sync(local, { url: "https://w", token: "secret", id: "t1", fetch: limited });
  assert.ok(r.parts >= 3, `${r.parts} parts`);
  assert.ok(posts.slice(1).every(([route, n]) => route === "delta" && n <= LIMIT), JSON.stringify(posts));
  assert.equal(worker.stored().save(), local.save(), "the worker's copy differs from the device's");

  // live() whole (deltas: false) and by its sync feed (the default): one
  // whole upload tried at most, and what another device stored still comes in.
  for (const deltas of [false, true]) {
    posts.length = 0;
    const errors = [];
    const s = live(local, { url: "https://w", token: "secret", id: "t1", fetch: limited, pollMs: 3_600_000, WebSocket: undefined,
      deltas, onError: (e) => errors.push(e) });
    try {
      for (let round = 0; round < 3; round++) {
        local.append(user(`more ${deltas} ${round}`), 2000 + round);
        await s.push();
      }
      assert.deepEqual(errors, []);
      const whole = posts.filter(([route]) => route === "merge");
      assert.equal(whole.length, 1, `deltas ${deltas}: the whole tree went up ${whole.length} times: ${JSON.stringify(posts)}`);
      if (deltas) {
        const small = posts.filter(([route, n]) => route === "delta" && n < 10_000);
        assert.ok(small.length >= 2, `deltas: the rounds after the first did not push their rows alone: ${JSON.stringify(posts)}`);
      }
      // The same rows; a delta leaves the worker's active branch its own
      // (the worker's /delta, as core's ApplyDelta without follow).
      const rows = (t) => t.save().replace(/"active_branch":"[^"]*"/, "");
      assert.ok(rows(worker.stored()) === rows(local), `deltas ${deltas}: the worker's copy differs from the device's`);
      const device = worker.stored().clone();
      const other = device.append(user(`from another device ${deltas}`), 5000);
      await sync(device, { url: "https://w", token: "secret", id: "t1", fetch: worker.fetch });
      await s.push();
      assert.ok(local.node(other), `deltas ${deltas}: a round no longer pulls what others stored`);
      device.free();
    } finally {
      await s.close();
    }
  }
});

// A tree a store keeps row by row (sessiontree/idb takes its takeChanges())
// and live() syncs: each push carries the rows changed since the last, not
// the whole tree, and the worker's copy holds every one of them. Before,
// live() pushed the whole tree each time, or with deltas took the store's feed.
test("live() beside a store pushes only what changed, and nothing is lost", async () => {
  const { base } = twoCopies();
  const local = base.clone();
  for (let i = 0; i < 200; i++) local.append(user(`turn ${i} ${"x".repeat(1000)}`), 100 + i);
  const worker = fakeWorker(local);
  const posts = [];
  const counted = async (url, init = {}) => {
    if (init.method === "POST") posts.push([url.split("/").pop(), init.body.length]);
    return worker.fetch(url, init);
  };
  local.takeChanges(); // the store's first feed
  const errors = [];
  const s = live(local, { url: "https://w", token: "secret", id: "t1", fetch: counted, pollMs: 3_600_000, WebSocket: undefined,
    onError: (e) => errors.push(e) });
  try {
    await s.push();
    posts.length = 0;
    for (let round = 0; round < 5; round++) {
      const id = local.append(user(`pushed ${round}`), 3000 + round);
      if (round === 2) local.label(id, "kept");
      local.takeChanges(); // the store writes its rows first
      await s.push();
    }
    assert.deepEqual(errors, []);
    assert.ok(posts.length === 5 && posts.every(([route, n]) => route === "delta" && n < 2000), JSON.stringify(posts));
    const rows = (t) => t.save().replace(/"active_branch":"[^"]*"/, "");
    assert.ok(rows(worker.stored()) === rows(local), "the worker's copy lost rows the store took");
  } finally {
    await s.close();
  }
  // Another device's write, pulled and merged (with the lean module, the
  // merged tree is swapped in), then a local push: still only what changed.
  let pulled = null;
  const p = live(local, { url: "https://w", token: "secret", id: "t1", fetch: counted, pollMs: 50, WebSocket: undefined,
    onSync: (r) => { if (r.pulled?.nodesAdded?.length) pulled = r; }, onError: (e) => errors.push(e) });
  const device = worker.stored().clone();
  try {
    await p.push(); // its first push: whole
    const far = device.append(user("from another device"), 6000);
    await sync(device, { url: "https://w", token: "secret", id: "t1", fetch: worker.fetch });
    for (let i = 0; i < 300 && !local.node(far); i++) await new Promise((r) => setTimeout(r, 10));
    assert.ok(local.node(far) && pulled !== null, "the other device's write was not pulled");
    posts.length = 0;
    const mine = local.append(user("after the pull"), 7000);
    local.takeChanges();
    await p.push();
    assert.deepEqual(errors, []);
    assert.ok(posts.length === 1 && posts[0][0] === "delta" && posts[0][1] < 5000, `the push after a pull: ${JSON.stringify(posts)}`);
    assert.ok(worker.stored().node(mine), "the push after a pull did not carry the new message");
    const rows = (t) => t.save().replace(/"active_branch":"[^"]*"/, "");
    assert.ok(rows(worker.stored()) === rows(local), "after a pull, the worker's copy differs from the device's");
  } finally {
    await p.close();
    device.free();
  }
});

// Each live() with deltas takes the tree's one sync feed: a second at once
// would take the first one's rows, and each would push part of what changed,
// on ETags of its own. So a second one throws conflict
// until the first one's close(); one without deltas takes no feed.
test("one live() with deltas per tree at a time", async () => {
  const { base } = twoCopies();
  const worker = fakeWorker(base);
  const opts = { url: "https://w", token: "secret", id: "t1", fetch: worker.fetch, pollMs: 3_600_000, WebSocket: undefined };
  const first = live(base, opts);
  let whole = null;
  try {
    let second = null;
    assert.throws(() => { second = live(base, opts); }, "conflict", /already synced by a live\(\)/);
    await second?.close(); // (had it not thrown: its timers would keep the test running)
    whole = live(base, { ...opts, deltas: false });
    const other = base.clone();
    const another = live(other, opts); // another tree: its own feed
    await another.close();
    other.free();
  } finally {
    await first.close();
    await whole?.close();
  }
  const again = live(base, opts); // after close(), the feed is free again
  try {
    base.append(user("after the first one closed"), 9000);
    await again.push();
    assert.ok(worker.stored().save().includes("after the first one closed"));
  } finally {
    await again.close();
  }
});

// A worker that answers 429 or 503 asks the client to wait: live() sends
// nothing until the time it named (Retry-After) and a backoff that doubles
// with each such answer in a row, and the edits made meanwhile go with the
// round at its end. Before, a client over its quota pushed again on every
// edit and every poll: its first push, whole, was the whole tree each time.
test("live() waits as long as a 429 or 503 asks, and then pushes every edit", async () => {
  const { base } = twoCopies();
  const local = base.clone();
  const worker = fakeWorker(base);
  let refuse = [429, 503]; // the next POSTs' answers, then the worker's own
  const sent = [];
  const gate = async (url, init = {}) => {
    sent.push([init.method ?? "GET", Date.now()]);
    if (init.method === "POST" && refuse.length > 0) {
      const status = refuse.shift();
      return status === 429
        ? new Response(`{"error":{"code":"quota_exceeded","message":"over the quota"}}`, { status, headers: { "content-type": "application/json" } })
        : new Response(`{"error":{"code":"conflict","message":"busy"}}`, { status, headers: { "content-type": "application/json", "retry-after": "1" } });
    }
    return worker.fetch(url, init);
  };
  const errors = [];
  const s = live(local, { url: "https://w", token: "secret", id: "t1", fetch: gate, pollMs: 3_600_000, WebSocket: undefined,
    onError: (e) => errors.push(e) });
  try {
    await s.push(); // refused: 429, no Retry-After: a backoff of 1 s
    assert.deepEqual(errors.map((e) => [e.code, e.retryAfterMs]), [["quota_exceeded", 0]]);
    const ids = [];
    const before = sent.length;
    for (let i = 0; i < 5; i++) {
      ids.push(local.append(user(`written while held ${i}`), 8000 + i));
      assert.equal(await s.push(), null, "a push while held sends nothing");
    }
    assert.equal(sent.length, before, "requests were sent while the worker asked to wait");
    // The round at the backoff's end: a pull, then a push refused with 503
    // and Retry-After: 1, so the next wait is the backoff doubled, 2 s.
    for (let i = 0; i < 300 && errors.length < 2; i++) await new Promise((r) => setTimeout(r, 10));
    assert.deepEqual(errors.map((e) => [e.code, e.retryAfterMs]), [["quota_exceeded", 0], ["conflict", 1000]]);
    const refusedAt = sent.at(-1)[1];
    for (let i = 0; i < 400 && !ids.every((id) => worker.stored().node(id)); i++) await new Promise((r) => setTimeout(r, 10));
    assert.ok(ids.every((id) => worker.stored().node(id)), "the edits made while held were not pushed after the wait");
    const next = sent.find(([, at]) => at > refusedAt);
    assert.ok(next && next[1] - refusedAt >= 1900, `the round after the 503 came ${next && next[1] - refusedAt} ms after it, not 2 s`);
    assert.equal(errors.length, 2);
  } finally {
    await s.close();
  }
});

test("sync reports the worker's error code", async () => {
  const { base } = twoCopies();
  const worker = fakeWorker(base);
  await assert.rejects(sync(base, { url: "https://w", token: "wrong", id: "t1", fetch: worker.fetch }), "unauthorized");
  await assert.rejects(sync(base, { url: "https://w", token: "secret" }), "invalid_input", /"id"/);
});

test("sync() turns any answer of the worker into an error with a code, and keeps every message", async () => {
  // A worker (or a proxy, a captive portal) that answers the pull with the
  // tree and the push with `push`: before, a success that was not JSON threw
  // a SyntaxError, one without an object a TypeError, and an error whose code
  // was not a string made a SessionTreeError with an object for its code.
  const cases = [
    [200, "<html>sign in to the wifi</html>", "corrupt", /HTTP 200 with something that is not its answer: "<html>/],
    [200, "", "corrupt", /HTTP 200 with nothing/],
    [200, "null", "corrupt"],
    [200, '{"etag":5}', "corrupt"],
    [200, '{"etag":"v2","re', "corrupt"],
    [500, '{"error":{"code":{"x":1},"message":7}}', "invalid_input", /HTTP 500$/],
    [500, '{"error":{"code":"not a code!","message":"x"}}', "invalid_input", /HTTP 500$/],
    [502, "<html>bad gateway</html>", "invalid_input", /HTTP 502$/],
    [429, '{"error":{"code":"rate_limited","message":"slow down"}}', "rate_limited", /slow down/],
  ];
  for (const [status, push, code, re] of cases) {
    const t = SessionTree.fromLinear([user("keep me"), user("and me")], 1);
    const remote = t.clone();
    remote.append(user("from the worker"), 5);
    const fetch = async (url, init = {}) => init.method === "POST"
      ? new Response(push, { status })
      : new Response(remote.save(), { status: 200, headers: { etag: "v1" } });
    await assert.rejects(sync(t, { url: "https://w", token: "x", id: "t", fetch }), code, re);
    assert.deepEqual(t.linearProjection().map((m) => m.content), ["keep me", "and me", "from the worker"]);
    assert.deepEqual(t.validate(), []);
    t.free(); remote.free();
  }
});

// inFreshNode runs src (an ES module body) in a fresh Node process that counts
// the Go programs instantiated (sessiontree's modules; not undici's own
// WebAssembly) and returns its output lines, the count last as "instances: n".
async function inFreshNode(src) {
  const { execFileSync } = await import("node:child_process");
  const count = `let n = 0; const inst = WebAssembly.instantiate; WebAssembly.instantiate = (...a) => { if (a[1]?.gojs) n++; return inst(...a); };
    process.on("exit", () => console.log("instances: " + n));`;
  return execFileSync(process.execPath, ["--input-type=module", "-e", count + src]).toString().trim().split("\n");
}

// A fake worker's fetch in a fresh process: GET answers the tree, POST merges.
const fakeFetch = `const fetch = async (url, init = {}) => init.method === "POST"
  ? new Response(JSON.stringify({ etag: "v2", report: { changed: false } }), { status: 200 })
  : new Response(remote, { status: 200, headers: { etag: "v1" } });`;

test("sync() with the full module merges in it and starts no interchange helper", { skip: !isNode }, async () => {
  if (!isNode) return;
  const mod = JSON.stringify(new URL("../sessiontree.js", import.meta.url).href);
  const syncMod = JSON.stringify(new URL("../sync.js", import.meta.url).href);
  for (const flavour of ["full", "lean"]) {
    const out = await inFreshNode(`import { init, SessionTree } from ${mod}; import { sync } from ${syncMod};
      await init(${flavour === "full" ? "{ full: true }" : ""});
      const t = SessionTree.fromLinear([{ role: "user", content: "a" }], 1); const o = t.clone(); o.append({ role: "user", content: "b" }, 2);
      const remote = o.save(); ${fakeFetch}
      const r = await sync(t, { url: "https://w", token: "x", id: "t", fetch });
      console.log(r.pulled.nodesAdded.length, t.linearProjection().length);`);
    assert.deepEqual(out, ["1 2", `instances: ${flavour === "full" ? 1 : 2}`], flavour);
  }
});

test("the workerd entry: init({ full: true }) takes the bundled full module, and initInterchange() then starts nothing; init({ full: false }) and init({}) the bundled lean one", { skip: !isNode }, async () => {
  if (!isNode) return;
  const hooks = JSON.stringify(new URL("./workerd-hooks.mjs", import.meta.url).href);
  const entry = JSON.stringify(new URL("../sessiontree.workerd.js", import.meta.url).href);
  for (const [flavour, option] of [["full", "{ full: true }"], ["lean", ""], ["lean", "{ full: false }"], ["lean", "{}"]]) {
    const out = await inFreshNode(`import { register } from "node:module"; register(${hooks});
      const { init, initInterchange, SessionTree } = await import(${entry});
      await init(${option}); await initInterchange();
      const t = SessionTree.fromLinear([{ role: "user", content: "a" }], 1); const o = t.clone(); o.append({ role: "user", content: "b" }, 2);
      console.log(t.merge(o).nodesAdded.length, SessionTree.import(t.export("openai")).tree.linearProjection().length);`);
    assert.deepEqual(out, ["1 2", `instances: ${flavour === "full" ? 1 : 2}`], option || flavour);
  }
});
