// live() (js/sync.js) when things go wrong: a failed push, an ack that never
// comes, a refused socket, a change that meets an edit not pushed yet, a
// callback that throws, a tree deleted. Runs under `node --test` and in
// headless Chromium (browser.mjs), against a small fake worker: HTTP through
// live()'s `fetch`, the live socket through its `WebSocket`, with the worker's
// rules (If-Match, Idempotency-Key, a hello on open, writes acked in order).
import { test, assert, isNode, mainSource } from "./harness.js";
import { init, initInterchange, SessionTree } from "../sessiontree.js";
import { live, sync } from "../sync.js";

await Promise.all([init(mainSource), initInterchange()]);

const user = (content) => ({ role: "user", content });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const holds = (tree, text) => tree.save().includes(JSON.stringify(text));

// until waits for check() to hold, up to a generous deadline, and says what
// did not happen.
async function until(check, what, ms = 8000) {
  for (const end = Date.now() + ms; !check(); await sleep(10)) {
    if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms`);
  }
}

// settles is what p did within ms: "resolved", "rejected: …" or "pending".
function settles(p, ms = 4000) {
  let timer;
  const late = new Promise((r) => { timer = setTimeout(() => r("pending"), ms); });
  return Promise.race([p.then(() => "resolved", (e) => `rejected: ${e?.message}`), late]).finally(() => clearTimeout(timer));
}

// records is a tree's file without its active branch, each copy's own: what
// the worker compares to answer a merge's "differs".
function records(text) {
  const f = JSON.parse(text);
  delete f.active_branch;
  return JSON.stringify(f);
}

// fakeWorker holds the stored tree. write answers a POST to /merge or /delta
// ({status, etag, body}); fetch is the HTTP side; Socket the live socket's
// class, whose server side opened(ws) and written(ws, msg, text) script
// (by default: welcome, an open and a hello; serve, each write stored and
// acked under its id). w.valid, when set, is the set of tokens it takes: a
// request with another is 401, a socket with another is closed with 4001.
function fakeWorker(initial, { opened = (ws) => ws.welcome(), written = (ws, m) => ws.serve(m) } = {}) {
  const w = { tree: initial.clone(), version: 1, keys: new Map(), down: false, gets: 0, posts: [], sockets: [] };
  w.etag = () => `"${w.version}-f"`;
  w.write = (route, ifMatch, key, body) => {
    if (key && w.keys.has(key)) return w.keys.get(key);
    if (ifMatch && ifMatch !== "*" && ifMatch !== w.etag()) return { status: 412, etag: w.etag(), body: { error: { code: "precondition_failed", message: "stale" } } };
    const report = route === "delta" ? (w.tree.applyChanges(body), undefined) : w.tree.merge(body);
    w.version++;
    const a = { status: 200, etag: w.etag(), body: { etag: w.etag(), report } };
    if (route === "merge") a.body.differs = records(w.tree.save()) !== records(body);
    if (key) w.keys.set(key, a);
    return a;
  };
  w.fetch = async (url, init = {}) => {
    await sleep(1);
    if (w.down) throw new TypeError("fetch failed");
    w.requests = (w.requests ?? 0) + 1;
    const token = init.headers?.authorization?.replace(/^Bearer /, "");
    if (w.valid && !w.valid.has(token)) return new Response(JSON.stringify({ error: { code: "unauthorized", message: "the token expired" } }), { status: 401 });
    if (init.body?.length > w.cutOver) throw new TypeError("fetch failed", { cause: new Error("write ECONNRESET") });
    if (w.deleted) return new Response(JSON.stringify({ error: { code: "not_found", message: "no tree \"t1\"" } }), { status: 404 });
    if (!init.method) {
      w.gets++;
      return new Response(w.tree.save(), { headers: { etag: w.etag() } });
    }
    w.posts.push(url.split("/").pop());
    const a = w.write(url.split("/").pop(), init.headers["if-match"], init.headers["idempotency-key"], init.body);
    return new Response(JSON.stringify(a.body), { status: a.status, headers: { etag: a.etag } });
  };
  w.Socket = class {
    constructor(url) {
      this.readyState = 0;
      this.closers = [];
      this.sent = [];
      this.token = new URL(url).searchParams.get("access_token");
      w.sockets.push(this);
      if (w.valid && !w.valid.has(this.token)) setTimeout(() => { this.readyState = 1; this.onopen?.({}); this.end(4001, "the token expired"); }, 1);
      else setTimeout(() => opened(this), 1);
    }
    addEventListener(type, fn) { if (type === "close") this.closers.push(fn); }
    welcome() {
      this.readyState = 1;
      this.onopen?.({});
      this.tell({ type: "hello", id: "t1", etag: w.etag(), version: w.version });
    }
    tell(msg) { this.onmessage?.({ data: typeof msg === "string" ? msg : JSON.stringify(msg) }); }
    ack(id, a) { setTimeout(() => this.tell({ type: "ack", id, status: a.status, etag: a.etag, body: a.body }), 1); }
    serve(m) { this.ack(m.id, w.write(m.route, m.if_match, m.idempotency_key, JSON.stringify(m.body))); }
    send(text) {
      if (this.readyState !== 1) throw new Error("the socket is not open");
      this.sent.push(text);
      written(this, JSON.parse(text), text);
    }
    end(code, reason = "") {
      if (this.readyState === 3) return;
      this.readyState = 3;
      for (const fn of [this.onclose, ...this.closers]) fn?.({ code, reason });
    }
    close() { setTimeout(() => this.end(1000), 1); }
  };
  return w;
}

// start is a live() of a copy of base against w.
function start(w, base, options = {}) {
  const t = base.clone();
  const errors = [];
  const s = live(t, { url: "https://w", token: "secret", id: "t1", fetch: w.fetch, WebSocket: w.Socket, pollMs: 50,
    onError: (e) => errors.push(e), ...options });
  return { t, s, errors };
}

const startTree = () => SessionTree.fromLinear([user("start")], 1);

test("a push that failed while the socket is live is tried again until it goes in", async () => {
  let refuse = false;
  const w = fakeWorker(startTree(), {
    written: (ws, m) => refuse
      ? ((refuse = false), ws.ack(m.id, { status: 500, body: { error: { code: "internal", message: "the tree's object: boom" } } }))
      : ws.serve(m),
  });
  const { t, s, errors } = start(w, startTree());
  try {
    await until(() => s.mode === "live" && s.etag === w.etag(), "live() never went live");
    refuse = true;
    t.append(user("my message"), 5);
    assert.equal(await s.push(), null, "the refused push resolved with a result");
    assert.deepEqual(errors.map((e) => e.code), ["internal"]);
    await until(() => holds(w.tree, "my message"), "the refused push was never tried again");
  } finally {
    await s.close();
  }
});

test("a socket write goes over HTTP when it is over 1 MB of UTF-8, when its ack never comes, and when the worker acks it without an id", async () => {
  const MAX = 1 << 20; // the worker's largest socket message, in bytes
  let next = "serve";
  const w = fakeWorker(startTree(), {
    written: (ws, m, text) => {
      if (new TextEncoder().encode(text).length > MAX) { // the worker's SocketError("", too_large)
        ws.tell(`{"type":"ack","id":"","status":413,"body":{"error":{"code":"too_large","message":"a socket message may have at most ${MAX} bytes"}}}`);
      } else if (next === "lost") {
        next = "serve"; // the ack never comes
      } else if (next === "id-less") {
        next = "serve"; // the glue's catch: an ack with no id
        ws.tell({ type: "ack", status: 500, body: { error: { code: "internal", message: "the tree's object: boom" } } });
      } else {
        ws.serve(m);
      }
    },
  });
  // An over-size write and one acked without an id go over HTTP at once (the
  // ack timeout, a minute, plays no part); a lost ack after ackTimeoutMs.
  for (const [how, text, ackTimeoutMs] of [["over 1 MiB", "把".repeat(600_000), 60_000], ["id-less", "acked without an id", 60_000], ["lost", "its ack is lost", 100]]) {
    const { t, s, errors } = start(w, w.tree, { ackTimeoutMs });
    try {
      await until(() => s.mode === "live" && s.etag === w.etag(), "live() never went live");
      next = how;
      t.append(user(text), 5);
      const push = s.push();
      assert.equal(await settles(push), "resolved", `the push of a write (${how}) never settled`);
      assert.equal((await push)?.via, "http", `the write (${how}) did not go over HTTP`);
      assert.ok(holds(w.tree, text), `the worker lacks the write (${how})`);
      assert.deepEqual(errors, []);
    } finally {
      await s.close();
    }
  }
  const sizes = w.sockets.flatMap((ws) => ws.sent.map((m) => new TextEncoder().encode(m).length));
  assert.ok(sizes.every((n) => n <= MAX), `a socket message of ${Math.max(...sizes)} bytes was sent`);
});

test("a socket the worker refuses (4029) is reported, opened again only after a long wait, and the polls go on", async () => {
  const base = startTree();
  const w = fakeWorker(base, { opened: (ws) => { ws.readyState = 1; ws.onopen?.({}); setTimeout(() => ws.end(4029, "this tree has 128 live sockets, its limit"), 5); } });
  const { t, s, errors } = start(w, base, { pollMs: 1000 });
  try {
    await until(() => errors.length > 0, "the refused socket was never reported");
    assert.equal(errors[0].code, "rate_limited");
    assert.ok(/refused the live socket.*128 live sockets/.test(errors[0].message), errors[0].message);
    const other = base.clone();
    other.append(user("from another device"), 9);
    w.tree.merge(other.save());
    w.version++;
    await until(() => holds(t, "from another device"), "another device's change never came in");
    assert.ok(w.sockets.length <= 2, `${w.sockets.length} sockets opened`);
    assert.equal(s.mode, "poll");
  } finally {
    await s.close();
  }
});

// deltaOf is the delta document (as the worker pushes it) of rows, a
// takeChanges() answer.
function deltaOf(rows) {
  const kept = (list, key) => `{${list.filter((x) => x.row !== null).map((x) => `${JSON.stringify(x[key])}:${x.row}`).join(",")}}`;
  const gone = (list, key) => JSON.stringify(list.filter((x) => x.row === null).map((x) => x[key]));
  return `"root":${JSON.stringify(rows.root)},"active":${JSON.stringify(rows.activeBranch)},` +
    `"nodes":${kept(rows.nodes, "id")},"deleted_nodes":${gone(rows.nodes, "id")},` +
    `"branches":${kept(rows.branches, "name")},"deleted_branches":${gone(rows.branches, "name")}`;
}

test("another device's change never overwrites a local edit that was not pushed yet", async () => {
  const base = startTree();
  const w = fakeWorker(base);
  const { t, s, errors } = start(w, base, { pollMs: 3_600_000 });
  try {
    await until(() => s.mode === "live" && s.etag === w.etag(), "live() never went live");
    await sleep(20); // the hello's round, if any, is over
    // Another device appends on main; the worker stores it and pushes its delta.
    const b = w.tree.clone();
    b.takeChanges({ feed: "sync" });
    b.append(user("from B"), 20);
    const delta = deltaOf(b.takeChanges({ feed: "sync" }));
    w.write("delta", w.etag(), "", `{${delta}}`);
    // This device appends; the change comes before its push().
    const mine = t.append(user("mine, not pushed yet"), 10);
    w.sockets.at(-1).tell(`{"type":"change","id":"t1","etag":${JSON.stringify(w.etag())},"version":${w.version},${delta}}`);
    await until(() => holds(t, "from B"), "the other device's change never came in");
    const onBranch = (tree) => tree.branches().some((br) => tree.pathOf(br.name).includes(mine));
    assert.ok(onBranch(t), "the local message is on no branch");
    await s.push();
    assert.ok(onBranch(w.tree), "the worker's copy has the local message on no branch");
    assert.deepEqual(errors, []);
  } finally {
    await s.close();
  }
});

test("a whole push the worker's merge stores otherwise (\"differs\") is pulled back at once", async () => {
  // A kept value of main (main~<leaf>) that this copy's own branch() leaves
  // shown, where a merge hides it: the worker's merge stores another tree
  // than the one pushed. Before, live() kept its own under the worker's ETag,
  // and two devices ended apart (js/test/live-random.mjs, seed 2).
  const base = startTree();
  const mine = base.clone(), other = base.clone();
  const leaf = mine.append(user("from A"), 100);
  other.append(user("from B"), 200);
  const kept = mine.merge(other).conflicts.find((c) => c.kind === "branch")?.keptAs;
  assert.equal(kept, `main~${leaf}`);
  const w = fakeWorker(mine);
  const { t, s, errors } = start(w, mine, { pollMs: 3_600_000, deltas: false }); // pushes go whole, to the merge
  try {
    await until(() => s.mode === "live" && s.etag === w.etag(), "live() never went live");
    await sleep(20);
    t.branch(leaf, "y", 300);
    assert.ok(t.branches().some((b) => b.name === kept), "the copy hides the kept value itself: the test proves nothing");
    const gets = w.gets;
    await s.push();
    await until(() => records(t.save()) === records(w.tree.save()), "the copy never took back the tree the worker stored");
    assert.ok(!w.tree.branches().some((b) => b.name === kept), "the worker's merge shows the kept value: the test proves nothing");
    assert.ok(w.gets > gets, "no pull followed");
    assert.deepEqual(errors, []);
  } finally {
    await s.close();
  }
});

test("sync() reads back a tree the worker's merge stored otherwise (\"differs\"), or says differs when it cannot", async () => {
  // A worker whose merge stores more than it was sent (here a label of its
  // own, as a merge's hide rule would change a flag): sync() merges what it
  // stored back in, and its ETag is the read's.
  const w = fakeWorker(startTree());
  const write = w.write;
  w.write = (route, ...rest) => {
    const a = write(route, ...rest);
    if (route === "merge" && a.status === 200) {
      w.tree.label(w.tree.activePath()[0], "stored by the worker", 5);
      w.version++;
      a.body.differs = true;
    }
    return a;
  };
  const t = startTree();
  t.append(user("mine"), 10);
  const r = await sync(t, { url: "https://w", token: "secret", id: "t1", fetch: w.fetch });
  assert.equal(t.node(t.activePath()[0]).label, "stored by the worker", "the stored tree was not read back");
  assert.equal(records(t.save()), records(w.tree.save()));
  assert.equal(r.etag, w.etag(), "the ETag is not the read's");
  assert.equal(r.differs, undefined);
  // The read back fails: the result says so, and the next sync brings it.
  const u = startTree();
  u.append(user("again"), 20);
  const posts = w.posts.length;
  let failed = false;
  const fetchOnce = async (url, init = {}) => {
    if (init.method || w.posts.length === posts || failed) return w.fetch(url, init);
    failed = true; // the read after the merge
    return new Response("", { status: 503 });
  };
  const r2 = await sync(u, { url: "https://w", token: "secret", id: "t1", fetch: fetchOnce });
  assert.equal(r2.differs, true, "a failed read back is not said");
});

// catching collects what live() reports instead of throwing: unhandled
// rejections, and errors handed to reportError (or console.error).
function catching() {
  const seen = { rejections: [], reported: [] };
  const onRejection = (e) => { seen.rejections.push(e?.reason ?? e); e?.preventDefault?.(); };
  const had = Object.getOwnPropertyDescriptor(globalThis, "reportError");
  const log = console.error;
  if (had) globalThis.reportError = (e) => seen.reported.push(e);
  else console.error = (e) => seen.reported.push(e);
  if (isNode) process.on("unhandledRejection", onRejection);
  else globalThis.addEventListener("unhandledrejection", onRejection);
  seen.stop = () => {
    if (had) Object.defineProperty(globalThis, "reportError", had);
    console.error = log;
    if (isNode) process.off("unhandledRejection", onRejection);
    else globalThis.removeEventListener("unhandledrejection", onRejection);
  };
  return seen;
}

test("an onError that throws stops no sync: push() resolves, the polls go on, the error is reported and nothing is left unhandled", async () => {
  const w = fakeWorker(startTree());
  const seen = catching();
  const { t, s } = start(w, startTree(), { WebSocket: undefined,
    onError: (e) => { throw new Error(`a bug in the app's onError (${e.message})`); } });
  try {
    await until(() => s.etag !== null, "the first sync never ended");
    w.down = true;
    t.append(user("while down"), 5);
    assert.equal(await settles(s.push()), "resolved", "push() did not resolve when onError threw");
    w.down = false;
    t.append(user("after"), 6);
    assert.equal(await settles(s.push()), "resolved", "push() after onError threw did not resolve");
    assert.ok(holds(w.tree, "while down") && holds(w.tree, "after"), "an edit was not pushed");
    const gets = w.gets;
    await until(() => w.gets >= gets + 3, "the polls stopped");
    assert.deepEqual(seen.rejections.map(String), []);
    assert.ok(seen.reported.some((e) => /a bug in the app's onError/.test(e?.message)), "onError's error was not reported");
  } finally {
    await s.close();
    seen.stop();
  }
});

test("a write waiting for its ack at close() is not sent again over HTTP", async () => {
  const w = fakeWorker(startTree(), { written: () => {} }); // no ack comes
  const { t, s } = start(w, startTree(), { ackTimeoutMs: 60_000 });
  await until(() => s.mode === "live" && s.etag === w.etag(), "live() never went live");
  const posts = w.posts.length;
  t.append(user("in flight"), 5);
  const push = s.push();
  await until(() => w.sockets.at(-1).sent.length > 0, "the write never went on the socket");
  await s.close();
  assert.equal(await settles(push), "resolved");
  await sleep(50);
  assert.deepEqual(w.posts.slice(posts), [], "close() sent the write again over HTTP");
});

test("a tree deleted on the worker stops live() with a not_found error", async () => {
  const w = fakeWorker(startTree());
  const { s, errors } = start(w, startTree());
  try {
    await until(() => s.mode === "live", "live() never went live");
    w.sockets.at(-1).tell({ type: "changes", changes: [{ type: "deleted", id: "t1" }] });
    assert.deepEqual(errors.map((e) => e.code), ["not_found"]);
    assert.ok(/deleted on the worker/.test(errors[0].message), errors[0].message);
    assert.equal(s.mode, "closed");
    assert.equal(await s.push(), null);
  } finally {
    await s.close();
  }
});

test("a tree deleted on the worker while live() polls (no socket) stops it with a not_found error", async () => {
  const w = fakeWorker(startTree());
  const { t, s, errors } = start(w, startTree(), { WebSocket: null });
  try {
    await until(() => s.etag === w.etag(), "live() never synced");
    w.deleted = true;
    await until(() => s.mode === "closed", "live() kept polling a deleted tree");
    const requests = w.requests;
    assert.deepEqual(errors.map((e) => e.code), ["not_found"]);
    assert.ok(/deleted on the worker/.test(errors[0].message), errors[0].message);
    t.append(user("kept here"), 5);
    assert.equal(await s.push(), null);
    await sleep(200);
    assert.equal(w.requests, requests, "live() asked for the deleted tree again");
    assert.ok(holds(t, "kept here"));
  } finally {
    await s.close();
  }
});

// A body past a server's limit may be cut off (the connection reset while it
// is sent) rather than answered 413: wrangler dev did so once in the official
// CI (Dec 5), and sync() failed. A tree larger than a part then goes in parts.
test("a whole push cut off on the way (a connection reset, not a 413) goes in parts: sync() and live()", async () => {
  const big = (t, tag) => {
    for (let i = 0; i < 900; i++) t.append({ role: i % 2 ? "assistant" : "user", content: `${tag} ${i} ${"p".repeat(3000)}` }, 10 + i);
    return t;
  };
  const w = fakeWorker(startTree());
  w.cutOver = 2.5 * 1024 * 1024;
  const t = big(startTree(), "sync");
  assert.ok(t.save().length > w.cutOver);
  const r = await sync(t, { url: "https://w", token: "secret", id: "t1", fetch: w.fetch });
  assert.ok(r.parts >= 2, `sync() went in ${r.parts} parts`);
  assert.equal(w.tree.save(), t.save(), "the worker's copy differs");

  const w2 = fakeWorker(startTree());
  w2.cutOver = 2.5 * 1024 * 1024;
  const { t: t2, s, errors } = start(w2, startTree(), { WebSocket: null, pollMs: 3600_000 });
  try {
    big(t2, "live");
    await s.push();
    await until(() => w2.tree.save() === t2.save(), "live() never pushed the tree");
    assert.deepEqual(errors.map((e) => e.message), []);
  } finally {
    await s.close();
  }
});

// A token lasts a day at most on the worker: a page renews it, and live()
// asks a token function before each request and each socket. Before, live()
// took a string alone and, once it expired, failed every round until it was
// closed and started again.
test("a token function is asked before each request and socket: an expired token it renews keeps live() going", async () => {
  const w = fakeWorker(startTree());
  let current = "token-1";
  w.valid = new Set([current]);
  const { t, s, errors } = start(w, startTree(), { token: () => Promise.resolve(current) });
  try {
    await until(() => s.mode === "live" && s.etag === w.etag(), "live() never went live and synced");
    assert.equal(w.sockets.at(-1).token, "token-1");
    current = "token-2";
    w.valid = new Set([current]);
    w.sockets.at(-1).end(4001, "the token expired");
    await until(() => s.mode === "live" && w.sockets.at(-1).token === "token-2", "live() never opened a socket with the renewed token");
    // A request under way as the token expired may have failed with it; none after.
    assert.deepEqual(errors.filter((e) => e.code !== "unauthorized").map((e) => e.message), []);
    const before = errors.length;
    t.append(user("after the renewal"), 7);
    await s.push();
    await until(() => holds(w.tree, "after the renewal"), "the push after the renewal never went in");
    assert.deepEqual(errors.slice(before).map((e) => e.message), []);

    const r = await sync(t, { url: "https://w", token: async () => current, id: "t1", fetch: w.fetch });
    assert.equal(r.pushed !== undefined, true);
  } finally {
    await s.close();
  }
});

test("a token function that gives no token fails the round with invalid_input and live() goes on", async () => {
  const w = fakeWorker(startTree());
  let current = "";
  const { t, s, errors } = start(w, startTree(), { token: () => current, WebSocket: null });
  try {
    await until(() => errors.length > 0, "no error was reported");
    assert.equal(errors[0].code, "invalid_input");
    assert.ok(/"token" function gave an empty string/.test(errors[0].message), errors[0].message);
    current = "fine";
    t.append(user("once there is a token"), 7);
    await s.push();
    await until(() => holds(w.tree, "once there is a token"), "live() never pushed once the token came");
  } finally {
    await s.close();
  }
  await assert.rejects(sync(startTree(), { url: "https://w", token: 42, id: "t1", fetch: w.fetch }), "invalid_input");
});

test("a socket that fails with \"error\" alone (Node 20's WebSocket on a refused connection) is opened again, and one that never says hello is given up (Dec 6, night)", async () => {
  const base = startTree();
  let refusals = 2;
  const w = fakeWorker(base, {
    opened: (ws) => {
      if (refusals-- > 0) {
        ws.readyState = 3;
        ws.onerror?.({}); // no close follows
        return;
      }
      ws.welcome();
    },
  });
  const { s } = start(w, base);
  try {
    await until(() => s.mode === "live", "live() never opened its socket again after a connection failed with error alone");
    assert.equal(w.sockets.length, 3);
  } finally {
    await s.close();
  }
  // A handshake never answered: no hello, no close; given up after the request deadline.
  const w2 = fakeWorker(base, { opened: (ws) => { if (w2.sockets.length > 1) ws.welcome(); } });
  const b = start(w2, base, { requestTimeoutMs: 200 });
  try {
    await until(() => b.s.mode === "live", "a socket that never said hello held live() for good");
  } finally {
    await b.s.close();
  }
});

test("a request the network never answers fails at requestTimeoutMs and the next round goes on (Dec 6, night: it held every round)", async () => {
  const base = startTree();
  const w = fakeWorker(base);
  let hang = true;
  const fetch = (url, init) => hang
    ? new Promise((_, reject) => init.signal?.addEventListener("abort", () => reject(init.signal.reason)))
    : w.fetch(url, init);
  const { t, s, errors } = start(w, base, { fetch, WebSocket: undefined, requestTimeoutMs: 100 });
  try {
    t.append(user("sent once the network answers"), 5);
    const pushed = s.push();
    await until(() => errors.length > 0, "the hung request never failed");
    hang = false;
    await until(() => holds(w.tree, "sent once the network answers"), "the edit never went in after the network came back");
    assert.equal(await settles(pushed), "resolved");
  } finally {
    await s.close();
  }
});

test("a message over the worker's limit (413 \"limit\":\"message\") fails the round at once with too_large: not sent again whole and in parts in every round (Dec 6, night)", async () => {
  const base = startTree();
  const w = fakeWorker(base);
  const refused = new Response(JSON.stringify({ error: { code: "too_large", message: "the message of node \"x\" is 1200028 bytes; one message may have at most 1048576", limit: "message" } }), { status: 413 });
  let posts = 0;
  const fetch = (url, init = {}) => (init.method ? (posts++, Promise.resolve(refused.clone())) : w.fetch(url, init));
  const { t, s, errors } = start(w, base, { fetch, WebSocket: undefined });
  try {
    t.append(user("x".repeat(2000)), 5);
    await until(() => errors.some((e) => e.code === "too_large"), "the refusal was never reported as too_large");
    await sleep(300);
    // Each round sends the write once and stops at the refusal (it is tried
    // again later, as every failed round is: the user may shorten the message).
    const refusals = errors.filter((e) => e.code === "too_large").length;
    assert.equal(posts, refusals, `${posts} writes sent for ${refusals} refusals: the whole tree or its parts went too`);
  } finally {
    await s.close();
  }
});

// LiveResult.via is absent only when a round pushed nothing; a whole push
// made by a sync (live()'s first round, a round after a 412) goes over HTTP
// too, and said nothing until an outside pass (Dec 7).
test("a whole push over HTTP says via: \"http\", as a delta's does", async () => {
  const w = fakeWorker(startTree());
  const synced = [];
  const { t, s, errors } = start(w, startTree(), { WebSocket: null, onSync: (r) => synced.push(r) });
  try {
    await until(() => synced.length > 0, "live() never synced");
    assert.ok(synced[0].pushed, "the first round pushed nothing");
    assert.equal(synced[0].via, "http");
    t.append(user("a delta"), 6);
    const delta = await s.push();
    assert.equal(delta?.delta, true);
    assert.equal(delta.via, "http");
    assert.deepEqual(errors, []);
  } finally {
    await s.close();
  }
});

// A misspelt option was ignored without a word: { pollMS: 500 } polled every
// 5 s, { delta: false } pushed deltas (an outside pass, Dec 7).
test("sync() and live() refuse an option they do not take, naming it", async () => {
  const w = fakeWorker(startTree());
  const t = startTree();
  const opts = { url: "https://w", token: "secret", id: "t1", fetch: w.fetch };
  for (const [bad, re] of [[{ pollMS: 500 }, /"pollMS"/], [{ delta: false }, /"delta"/]]) {
    assert.throws(() => void live(startTree(), { ...opts, WebSocket: null, ...bad }).close(), "invalid_input", re);
  }
  await assert.rejects(sync(t, { ...opts, pollMs: 500 }), "invalid_input", /"pollMs"/);
  const r = await sync(t, { ...opts, attempts: 2 });
  assert.equal(r.attempts, 1);
});
