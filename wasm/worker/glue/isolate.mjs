// The worker's entry point: one Go instance per isolate, kept for every request.
// make copies this file into build/ beside app.wasm and wasm_exec.js.
//
// The stock syumai/workers glue instantiates the Go module anew for each
// request (a fresh runtime, an empty heap: several milliseconds, and every tree
// read from D1 again). This glue starts Go once, on the first request, and then
// hands each request to the running instance, whose handler keeps loaded trees
// in memory and checks them against D1's version on every request. If the Go
// program ever exits, the next request starts a new one.
//
// Requests enter Go one at a time, each with its body already read whole (a
// slow upload waits outside, holding nothing). workerd ties every I/O call to the request
// that was running when it was made, and the Go runtime runs any ready
// goroutine inside whatever callback it is given: with two requests inside Go
// at once, one request's D1 call could be issued inside the other's callback,
// and die with it. So a request waits until no other one is inside Go (whose
// Response body is then complete, see rawbody.go). The wait is short (one
// request's D1 round trips); concurrency across isolates is untouched, and the
// stored version guards every write.
import { DurableObject } from "cloudflare:workers";
import "./wasm_exec.js";
import { fanOut, socketsOver } from "./fanout.mjs";
import mod from "./app.wasm";

// A syumai/workers program (the benchmark's trivial worker; the worker itself
// leaves that package and net/http out, and is handed env with each call)
// reads globalThis.context when its packages initialise: env (bindings,
// vars), ctx (the ExecutionContext) and binding (where Go puts
// handleRequest). One object serves the whole isolate; env is the same object
// for every request of an isolate, and is refreshed anyway.
const context = { env: undefined, ctx: undefined, binding: {} };
globalThis.context = context;
globalThis.tryCatch = (fn) => {
  try {
    return { result: fn() };
  } catch (e) {
    return { error: e };
  }
};

let go = null;
let started = null;

// instantiate starts a Go instance of the module with env in its
// environment and context as globalThis.context while its packages
// initialise (syumai/workers keeps that object); it resolves once Go is ready.
function instantiate(env, ctxObject, onExit) {
  const instanceGo = new Go();
  instanceGo.env = env;
  // Go's runtime arms a timer whenever it goes idle and clears it when it
  // wakes, often in a later request than the one that armed it; workerd
  // refuses to touch another request's timer (and has dropped it anyway once
  // that request ended), so clearing one must not throw into Go.
  instanceGo.importObject.gojs["runtime.clearTimeoutEvent"] = (sp) => {
    sp >>>= 0;
    const id = instanceGo.mem.getInt32(sp + 8, true);
    const timer = instanceGo._scheduledTimeouts.get(id);
    instanceGo._scheduledTimeouts.delete(id);
    try {
      clearTimeout(timer);
    } catch {
      // the timer belonged to another request: it cannot fire here
    }
  };
  let ready;
  const readyPromise = new Promise((resolve) => (ready = resolve));
  const instance = new WebAssembly.Instance(mod, {
    ...instanceGo.importObject,
    workers: { ready: () => ready() },
  });
  const saved = globalThis.context;
  globalThis.context = ctxObject;
  try {
    // run() executes Go's initialisation and main synchronously up to main's
    // first wait, so ctxObject is the one its packages keep.
    instanceGo.run(instance).finally(() => onExit(instanceGo));
  } finally {
    globalThis.context = saved;
  }
  return [instanceGo, readyPromise];
}

function start() {
  const [instanceGo, readyPromise] = instantiate({}, context, (g) => {
    if (go === g) started = null;
  });
  go = instanceGo;
  return readyPromise;
}

// A request that holds the instance longer than this is taken to be stuck (a
// canceled request never reaches its finally, and its D1 promises never
// settle). Its instance is then abandoned, never entered again: the next
// request starts a fresh one. Two requests never run inside one Go instance.
const LEASE_MS = 30000;
let busy = false;
let busySince = 0;
let wake = [];

// enter returns when this request may run Go. It is woken by the request that
// leaves (the compatibility date turns on handle_cross_request_promise_resolution,
// so it then runs in its own request's context), and also polls: workerd
// cancels a request that waits only on promises of other requests, so a timer
// of its own stays pending meanwhile.
async function enter() {
  while (busy) {
    if (Date.now() - busySince >= LEASE_MS) {
      started = null; // the holder is stuck: its instance is given up
      break;
    }
    let timer;
    await Promise.race([
      new Promise((resolve) => wake.push(resolve)),
      new Promise((resolve) => (timer = setTimeout(resolve, 25))),
    ]);
    clearTimeout(timer);
  }
  busy = true;
  busySince = Date.now();
  return go;
}

function leave() {
  busy = false;
  const waiters = wake;
  wake = [];
  for (const w of waiters) w();
}

// BODY_CAP is one byte more than the largest body the worker takes
// (edge.DefaultLimits.Body, 8 MiB). A body is read whole, up to this, before
// its request asks for Go, so a slow upload holds nobody else up; Go sees a
// body that reached the cap and answers 413 too_large.
const BODY_CAP = 8 * 1024 * 1024 + 1;

const BUFFER_TURN = 256 * 1024;

// buffered reads request's body whole (up to BODY_CAP) and answers the
// request as it was, its body's chunks (null for none) and their size.
async function buffered(request) {
  if (request.body === null) return [request, null, 0];
  const reader = request.body.getReader();
  const chunks = [];
  let size = 0;
  let turn = 0;
  while (size < BODY_CAP) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.byteLength;
    // Chunks already there are read in microtasks, one task in all: a body
    // of megabytes that arrived whole held the thread (~150 ms for 5.6 MB
    // under load, in a CPU profile) unless the event loop turns meanwhile.
    if (size - turn >= BUFFER_TURN) {
      turn = size;
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
  }
  // The rest of a body over the cap is read and dropped: a body left unread
  // (or canceled) breaks the next request on the connection under wrangler dev.
  if (size >= BODY_CAP) while (!(await reader.read()).done);
  return [request, chunks, Math.min(size, BODY_CAP)];
}

// frameText is a binary WebSocket frame's UTF-8 text, or null.
function frameText(data) {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(data);
  } catch {
    return null;
  }
}

// drain reads a body to its end and drops it.
async function drain(body) {
  try {
    const reader = body.getReader();
    while (!(await reader.read()).done);
  } catch {
    // (the client went away)
  }
}

// joined is chunks of size bytes in one array, made a turn of the event loop
// at a time for a large body (each turn copies BUFFER_TURN bytes).
async function joined(chunks, size) {
  const body = new Uint8Array(size);
  let at = 0;
  let turn = 0;
  for (const c of chunks) {
    if (at >= size) break;
    const n = Math.min(c.byteLength, size - at);
    body.set(n === c.byteLength ? c : c.subarray(0, n), at);
    at += n;
    if (at - turn >= BUFFER_TURN) {
      turn = at;
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
  }
  return body;
}

// STREAM_MIN is the size from which a body goes to its tree's object as a
// stream of its chunks rather than one array: an RPC argument is copied
// (structured clone) in one piece, which for a 7 MB batch held the isolate
// 30-100 ms under load (issue 25), and the object reads a stream a turn at a time.
const STREAM_MIN = 1024 * 1024;

// streamOf is a byte stream of chunks (size bytes in all).
function streamOf(chunks, size) {
  const { readable, writable } = new FixedLengthStream(size);
  (async () => {
    const w = writable.getWriter();
    let left = size;
    for (const c of chunks) {
      if (left <= 0) break;
      const piece = c.byteLength <= left ? c : c.subarray(0, left);
      left -= piece.byteLength;
      await w.write(piece);
    }
    await w.close();
  })().catch((e) => console.error("sessiontree: a body's stream to its object failed:", e));
  return readable;
}

// inGo runs request in the isolate's router instance, one request at a time:
// the worker's sessiontreeList (the tree list, over D1), or the handler of a
// syumai/workers program (the benchmark's trivial worker).
async function inGo(request, body, env, ctx) {
  await enter();
  let mine = null;
  try {
    context.env = env;
    context.ctx = ctx;
    if (started === null || go.exited) started = start();
    mine = go;
    await started;
    if (typeof globalThis.sessiontreeList !== "function") return await context.binding.handleRequest(request);
    return responseOf(unpacked(await globalThis.sessiontreeList(env, request.method, request.url, packed(request.headers), body)));
  } finally {
    // A request whose instance was given up meanwhile leaves nothing: the
    // slot belongs to the request that started the new instance.
    if (mine === go) leave();
  }
}

const PREFIX = "x-sessiontree-";

// Headers cross into Go and back packed in one string, "name\nvalue\n…"
// (jsread.Pack and Unpack in Go): an array of pairs cost Go a call into
// JavaScript and a value (with a finalizer) for each pair and each string,
// a quarter of the isolate's busy time in a profile of 2,000 upgrades. A
// header holds no line break (Headers refuses one).

// packed is headers (a Headers or [name, value] pairs) packed for Go.
function packed(headers) {
  let s = "";
  for (const [k, v] of headers) s += (s === "" ? "" : "\n") + k + "\n" + v;
  return s;
}

// unpacked turns the packed headers of an answer of Go into pairs, in place.
function unpacked(res) {
  if (typeof res?.headers === "string") {
    const f = res.headers === "" ? [] : res.headers.split("\n");
    const pairs = [];
    for (let i = 0; i + 1 < f.length; i += 2) pairs.push([f[i], f[i + 1]]);
    res.headers = pairs;
  }
  return res;
}

function responseOf(res) {
  const empty = res.body.length === 0 || res.status === 204 || res.status === 304;
  // The X-Sessiontree- headers are for this glue, never for the client.
  const headers = res.headers.filter(([k]) => !k.toLowerCase().startsWith(PREFIX));
  return new Response(empty ? null : res.body, { status: res.status, headers });
}

export default {
  async fetch(request, env, ctx) {
    // Go routes synchronously, in the objects' instance (no I/O there), from
    // the method, the URL and the headers; only the tree list (null: it
    // reads D1) waits for the router's instance.
    if (objectStarted === null || objectGo.exited) objectStarted = startObjects(env);
    await objectStarted;
    const text = (v) => (typeof v === "string" ? v : "");
    // A program without the objects' role (the benchmark's trivial worker)
    // has no router of its own: its one instance serves everything.
    const routed = typeof globalThis.sessiontreeRoute !== "function" ? null
      : unpacked(globalThis.sessiontreeRoute(text(env.SESSIONTREE_SIGNING_KEY), text(env.SESSIONTREE_CORS_ORIGINS),
        text(env.SESSIONTREE_RATE_LIMIT), request.method, request.url, packed(request.headers)));
    // The router names the tree's object: the request goes there, with the
    // router's x-sessiontree- headers and none of the client's.
    const object = routed?.headers.find(([k]) => k.toLowerCase() === PREFIX + "object");
    if (routed !== null && object === undefined) {
      // The router's own answer (401, 429, 404, a preflight) needs no body:
      // it goes at once, and the body is read and dropped after it (left
      // unread it breaks the next request on the connection under wrangler
      // dev), never kept. Before, every body was read whole first: 40
      // uploads with no token held 8 MB each until their last byte came.
      if (request.body !== null) ctx.waitUntil(drain(request.body));
      return responseOf(routed);
    }
    const [req, chunks, size] = await buffered(request);
    // The body in one array, for Go's router instance and for a small call
    // of an object; a large one goes to its object as a stream (streamOf).
    const whole = async () => {
      const body = chunks === null ? null : await joined(chunks, size);
      return [body === null ? req : new Request(req, { body }), body];
    };
    if (routed === null) return inGo(...(await whole()), env, ctx);
    const body = chunks === null || size >= STREAM_MIN ? null : await joined(chunks, size);
    const headers = new Headers(request.headers);
    for (const k of [...headers.keys()]) if (k.startsWith(PREFIX)) headers.delete(k);
    for (const [k, v] of routed.headers) {
      const name = k.toLowerCase();
      if (name.startsWith(PREFIX) && name !== PREFIX + "object") headers.set(name, v);
    }
    // Whether the client takes gzip, as it said: the fetch to the object
    // says it takes gzip whatever the client sent (workerd's own fetch), and
    // a large read answered a client that never asked (curl) in gzip.
    if (/\bgzip\b/i.test(request.headers.get("accept-encoding") ?? "")) headers.set(PREFIX + "gzip", "1");
    // A create takes its place under the tenant's quota first (reserve);
    // a place whose create did not go in is given back.
    let reservation = null;
    let fwdBody = chunks !== null && size >= STREAM_MIN ? null : body;
    const created = routed.headers.find(([k]) => k.toLowerCase() === PREFIX + "create")?.[1];
    if (created !== undefined) {
      const quota = quotaOf(env);
      if (quota !== null) {
        const tenant = routed.headers.find(([k]) => k.toLowerCase() === PREFIX + "tenant")?.[1] ?? "";
        const r = await reserve(env.DB, tenant, created, size + CREATE_SLACK, quota);
        if (r.reserved) reservation = { tenant, id: created };
        // The tree may take what was reserved for it (edge.reserveRows); if
        // it takes more, the object's glue raises the reservation (RAISE).
        if (r.held !== null && quota[1] > 0) headers.set(PREFIX + "grant", `${r.held} ${quota[1]}`);
        else if (!r.mine) {
          // Over the quota: the object answers 429 quota_exceeded
          // (edge.checkQuota), and needs no body for it (no tree and no kept
          // answer has this id): a refused create costs the object nothing
          // of its size.
          headers.set(PREFIX + "quota", `${quota[0]} ${quota[1]}`);
          headers.set(PREFIX + "usage", `${r.trees} ${r.bytes}`);
          headers.delete("content-length");
          fwdBody = new Uint8Array(0);
        }
      }
    }
    const stub = env.TREES.get(env.TREES.idFromName(object[1]));
    const upgrade = request.headers.get("upgrade")?.toLowerCase() === "websocket";
    if (upgrade) {
      // A tenant opens at most UPGRADE_RATE live sockets a second: the
      // rest wait their turn here (see pace).
      const tenant = routed.headers.find(([k]) => k.toLowerCase() === PREFIX + "tenant")?.[1] ?? "";
      const wait = pace("upgrades " + tenant, 1, envLimit(env.SESSIONTREE_UPGRADE_RATE, UPGRADE_RATE));
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    }
    let res;
    try {
      res = upgrade
        ? await stub.fetch(request.url, { method: request.method, headers, body })
        : await stub.serveRouted(request.method, request.url, [...headers], fwdBody ?? (chunks === null ? null : streamOf(chunks, size)));
    } finally {
      if (reservation !== null && res?.status !== 201) {
        await env.DB.prepare(RELEASE).bind(reservation.id, reservation.tenant).run();
      }
    }
    // The router's other headers (CORS, Cache-Control) go on the object's answer.
    const extra = routed.headers.filter(([k]) => !k.toLowerCase().startsWith(PREFIX));
    const encoded = res.headers.has("content-encoding"); // a kept read's gzip: sent as it is
    if (res.status === 101 || (extra.length === 0 && !encoded)) return res;
    const out = new Response(res.body, { status: res.status, statusText: res.statusText, headers: res.headers,
      ...(encoded ? { encodeBody: "manual" } : {}) });
    for (const [k, v] of extra) {
      if (k.toLowerCase() === "vary") out.headers.append(k, v);
      else out.headers.set(k, v);
    }
    return out;
  },
};

// A tenant may hold at most MAX_TREES trees taking MAX_BYTES bytes in all
// (SESSIONTREE_MAX_TREES, SESSIONTREE_MAX_BYTES; 0 for no limit), answered
// 429 quota_exceeded. One place counts: the index of trees in D1. A create
// takes its place there before it goes to its tree's object, with one
// statement that checks the quota and inserts the tree's row (version 0, a
// reservation, its bytes below) in one step: D1 runs statements one
// at a time, so creates racing each other never pass the quota. The object's
// row of the new tree (version 1, its real bytes) replaces the reservation;
// a create that fails gives it back (RELEASE), and a reservation older than
// RESERVATION_MS (its router died) counts no longer and is dropped.
//
// A reservation's bytes are the body's size and CREATE_SLACK, or what the
// quota leaves if less; the tree's object refuses a tree that takes more
// (edge.HeaderGrant on the create; 429 with edge.HeaderNeed), and its glue
// raises the reservation to the tree's size if the tenant's other trees and
// reservations leave the room (RAISE, one statement) and runs the create
// again (the object kept the tree it built for it: edge keepBuilt).
// Counted at its body's size alone, a create of short messages (rows twelve
// times its body) passed the quota, and so did creates racing each other.
// The slack covers a tree of one large message (its ids and times), so that
// only creates of many messages need the second call; it is no more, so
// that racing creates are not refused for room they do not take.
const MAX_TREES = 100000;
const CREATE_SLACK = 16 * 1024;
const MAX_BYTES = 10 * 1024 * 1024 * 1024;
const RESERVATION_MS = 60000;
const LIVE_ROWS = "tenant = ?2 AND (version > 0 OR created_ms > ?3 - " + RESERVATION_MS + ")";
const RESERVE_PRUNE = "DELETE FROM trees WHERE tenant = ?1 AND version = 0 AND created_ms <= ?2";
const RESERVE = `INSERT INTO trees (id, tenant, version, etag, root, active, created_ms, updated_ms, title, nodes, bytes)
  SELECT ?1, ?2, 0, '', '', '', ?3, ?3, '', 0,
    CASE WHEN ?6 = 0 THEN ?4 ELSE MIN(?4, ?6 - (SELECT COALESCE(SUM(MAX(bytes, granted)), 0) FROM trees WHERE ${LIVE_ROWS})) END
  WHERE NOT EXISTS (SELECT 1 FROM trees WHERE id = ?1)
    AND (?5 = 0 OR (SELECT COUNT(*) FROM trees WHERE ${LIVE_ROWS}) < ?5)
    AND (?6 = 0 OR (SELECT COALESCE(SUM(MAX(bytes, granted)), 0) FROM trees WHERE ${LIVE_ROWS}) < ?6)`;
const RESERVED = `SELECT COUNT(*) AS n, COALESCE(SUM(MAX(bytes, granted)), 0) AS b,
  (SELECT COUNT(*) FROM trees WHERE id = ?1 AND tenant = ?2) AS mine,
  (SELECT bytes FROM trees WHERE id = ?1 AND tenant = ?2 AND version = 0) AS held FROM trees WHERE ${LIVE_ROWS}`;
const RELEASE = "DELETE FROM trees WHERE id = ?1 AND tenant = ?2 AND version = 0";
// RAISE sets the bytes of tree ?1's reservation to ?3 if the tenant's other
// trees and reservations (?5: now) leave that much under its quota ?4.
const RAISE = `UPDATE trees SET bytes = ?3 WHERE id = ?1 AND tenant = ?2 AND version = 0
  AND (?4 = 0 OR ?3 + (SELECT COALESCE(SUM(MAX(o.bytes, o.granted)), 0) FROM trees o
    WHERE o.tenant = ?2 AND o.id != ?1 AND (o.version > 0 OR o.created_ms > ?5 - ${RESERVATION_MS})) <= ?4)`;

// A tree grows within its tenant's quota of bytes by grants, counted in the
// same place. Each row of the index has the bytes its tree takes as stored
// (its rows' keys and JSON, kept by its object after its writes) and the
// bytes granted to it (granted); a tenant's trees count each at the larger of
// the two, and creates count them so too (RESERVE). Before a write, the
// tree's object takes a grant that covers what the write may add (GRANT: one
// statement that checks what the tenant's other trees hold and raises the
// grant in one step, so writes of two trees racing each other never pass the
// quota), and hands it to Go (edge.HeaderGrant), which refuses a write that
// would take the tree past it: 429 quota_exceeded, "limit":"bytes". A grant
// is never more than the room the tenant's quota leaves; a write that needs
// more than was asked for (edge.HeaderNeed) is sent again once with a grant
// that covers it, if there is room. What a grant holds beyond a little room
// to grow is given back after the write (SHRINK). Rows of trees stored
// before grants have granted 0 and their storage's bytes.
//
// GRANT raises tree ?1's grant to its size (?3, or the index's bytes if ?3
// is -1) plus ?4, at most what the quota ?5 leaves beside the tenant's other
// trees and reservations (?6: now), and returns the grant and the bytes.
const GRANT = `UPDATE trees SET granted = MAX(granted, MIN((CASE WHEN ?3 >= 0 THEN ?3 ELSE bytes END) + ?4,
    ?5 - (SELECT COALESCE(SUM(MAX(o.bytes, o.granted)), 0) FROM trees o
          WHERE o.tenant = ?2 AND o.id != ?1 AND (o.version > 0 OR o.created_ms > ?6 - ${RESERVATION_MS}))))
  WHERE id = ?1 AND tenant = ?2 AND version > 0 RETURNING granted, bytes`;
const SHRINK = "UPDATE trees SET granted = ?3 WHERE id = ?1 AND tenant = ?2 AND granted > ?3";
// A write may add up to GRANT_PER_BODY_BYTE times its body and GRANT_MIN
// bytes (an op of 40 bytes stores a branch row of ~150; an append stores its
// node and grows its parent's row), and a grant leaves a tree headroom to
// grow besides: a sixteenth of its size, between GRANT_MIN and GRANT_MAX_ROOM.
const GRANT_PER_BODY_BYTE = 8;
const GRANT_MIN = 16 * 1024;
const GRANT_MAX_ROOM = 1024 * 1024;

function headroom(rows) {
  return Math.min(Math.max(Math.floor(rows / 16), GRANT_MIN), GRANT_MAX_ROOM);
}

function headerOf(pairs, name) {
  return pairs.find(([k]) => k.toLowerCase() === name)?.[1];
}

// withGrant is call ([method, url, headers, body]) with the grant header.
function withGrant([method, url, headers, body], grant, quota) {
  const h = headers.filter(([k]) => k.toLowerCase() !== PREFIX + "grant");
  h.push([PREFIX + "grant", `${grant} ${quota}`]);
  return [method, url, h, body];
}

// reserve takes the place of tree id (a create of size bytes) in tenant's
// quota: {reserved} if this call took it, {mine} if the tree or its
// reservation was there already (a retried create), {held}: the bytes of
// that reservation (null if none), else what the tenant holds ({trees,
// bytes}), at or over its quota.
async function reserve(db, tenant, id, bytes, quota) {
  const now = Date.now();
  const [, insert, held] = await db.batch([
    db.prepare(RESERVE_PRUNE).bind(tenant, now - RESERVATION_MS),
    db.prepare(RESERVE).bind(id, tenant, now, bytes, quota[0], quota[1]),
    db.prepare(RESERVED).bind(id, tenant, now),
  ]);
  const row = held.results[0] ?? {};
  return { reserved: insert.meta.changes === 1, mine: row.mine > 0, held: row.held ?? null, trees: row.n ?? 0, bytes: row.b ?? 0 };
}

// quotaOf is [trees, bytes] of the configured quota, or null for none.
function quotaOf(env) {
  const q = [envLimit(env?.SESSIONTREE_MAX_TREES, MAX_TREES), envLimit(env?.SESSIONTREE_MAX_BYTES, MAX_BYTES)];
  return q[0] === 0 && q[1] === 0 ? null : q;
}

// envLimit is a limit set by the variable v: d when v is unset, a whole
// number of at least 1, or 0 (no limit) for anything else ("0" included).
function envLimit(v, d) {
  if (typeof v !== "string" || v.trim() === "") return d;
  const n = Math.floor(Number(v));
  return Number.isSafeInteger(n) && n > 0 ? n : 0;
}

// STREAM_SLICE is the size of the slices a large answer (an export) is sent
// in, one per turn of the event loop: a 10 MB body copied in one go would
// hold the isolate's thread (under wrangler dev, every tenant's) meanwhile.
const STREAM_SLICE = 256 * 1024;

// A tenant's large answers (over STREAM_SLICE: exports, whole trees) leave an
// isolate at most EGRESS_RATE bytes a second once a burst of a quarter
// second's worth is spent (SESSIONTREE_EGRESS_RATE: bytes a second, 0 for no
// limit). Slices alone keep any one step short, but a client downloading
// exports back to back keeps the thread that serves every object of the
// isolate (under wrangler dev, the whole worker) busy half the time, which
// doubles every other tenant's latency. At 32 MiB/s an 8 MiB export still
// leaves at once and a 100 MB one takes about 3 s. Per isolate, like the rate
// limit: it shares out the isolate's thread, which is what the isolate has.
const EGRESS_RATE = 32 * 1024 * 1024;
const egress = new Map(); // tenant → {owed: bytes beyond its allowance (< 0: burst left), at: ms}

// egressDelay counts n bytes sent to tenant now and returns the milliseconds
// to wait before sending them: none while the tenant has burst left.
function egressDelay(tenant, n, rate) {
  if (rate <= 0) return 0;
  const now = Date.now();
  const burst = rate / 4;
  if (egress.size > 10000) {
    for (const [t, b] of egress) if (b.owed - ((now - b.at) * rate) / 1000 <= -burst) egress.delete(t);
  }
  const b = egress.get(tenant) ?? { owed: -burst, at: now };
  b.owed = Math.max(-burst, b.owed - ((now - b.at) * rate) / 1000) + n;
  b.at = now;
  egress.set(tenant, b);
  return b.owed > 0 ? (b.owed * 1000) / rate : 0;
}

// paced streams a large answer in slices, one per turn of the event loop,
// each when the tenant's egress allows it.
function paced(res, tenant, rate, encoded = false) {
  const body = res.body;
  let at = 0;
  const stream = new ReadableStream({
    async pull(controller) {
      const slice = body.subarray(at, at + STREAM_SLICE);
      const wait = egressDelay(tenant, slice.length, rate);
      if (at > 0 || wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      controller.enqueue(slice.slice());
      at += STREAM_SLICE;
      if (at >= body.length) controller.close();
    },
  });
  const headers = res.headers.filter(([k]) => !k.toLowerCase().startsWith(PREFIX));
  return new Response(stream, { status: res.status, headers, ...(encoded ? { encodeBody: "manual" } : {}) });
}

// Large reads are served from what a version already serialized, compressed
// once: an object keeps the gzip of its last few large GET answers
// (READS_KEPT, over READ_GZIP_MIN bytes) with their ETag. A GET of a client
// that takes gzip, for an answer it keeps, is asked of Go with If-None-Match
// of that ETag: Go answers 304 at once when the tree has not changed (no
// serializing, no copy), and the kept bytes go out (paced per tenant like
// any large answer). A client's own If-None-Match is Go's to answer (304).
// While no call but reads ran since (this.writes) and no writer waits for a
// turn, the kept bytes go out without a call into Go at all.
const READ_GZIP_MIN = 64 * 1024;
// KEPT_READ: the tree and its projections (exports keep their own pacing by
// their bytes: the isolation numbers below).
const KEPT_READ = /^\/v1\/trees\/[0-9a-f]{32}(\/projection)?$/;
const READS_KEPT = 4;

async function gzip(bytes) {
  const out = new Response(new Blob([bytes]).stream().pipeThrough(new CompressionStream("gzip")));
  return new Uint8Array(await out.arrayBuffer());
}

// plainETag is an ETag without the ticket of a writer's place (edge.splitTicket).
const plainETag = (tag) => tag.replace(/~\d+"$/, '"');

// keptAnswer is the answer of a kept read: its gzip, its headers, and Go's
// ETag of this call (which may carry a ticket).
function keptAnswer(kept, res, tenant, rate) {
  const etag = res.headers.find(([k]) => k.toLowerCase() === "etag")?.[1] ?? kept.etag;
  const headers = [...kept.headers, ["etag", etag], ["content-encoding", "gzip"], ["vary", "Accept-Encoding"]];
  const out = { status: 200, headers, body: kept.gz };
  if (kept.gz.length > STREAM_SLICE) return paced(out, tenant, rate, true);
  return new Response(kept.gz, { status: 200, headers, encodeBody: "manual" });
}

// A tenant's fan-out (the frames its writes send to the live sockets of its
// trees) leaves an isolate at most FANOUT_RATE frames a second
// (SESSIONTREE_FANOUT_RATE; 0 for no limit) once a burst of a quarter
// second's worth is spent, FANOUT_SLICE sockets a turn of the event loop; and
// a tenant opens at most UPGRADE_RATE live sockets a second
// (SESSIONTREE_UPGRADE_RATE), the rest waiting their turn in the router.
// Nothing is refused or dropped: a tree's writes wait for its fan-out
// (drain), so a tenant that writes faster than its sockets can be told is
// slowed, not every tenant of the isolate (issue 25: each write to a tree of
// 128 sockets sent 128 frames in one piece, and 2,000 upgrades at once, and
// another tenant's p99 went up 7-13x). Per isolate, like the egress rate;
// counted by the objects' Go instance (edge.Pacer, sessiontreePace).
const FANOUT_RATE = 2048;
const FANOUT_SLICE = 32;
const UPGRADE_RATE = 32;

// pace counts n units of key's work under rate a second and answers the
// milliseconds to wait before doing them (edge.Pacer.Delay).
function pace(key, n, rate) {
  if (rate <= 0 || typeof globalThis.sessiontreePace !== "function") return 0;
  const d = globalThis.sessiontreePace(key, n, rate, Date.now());
  return d > 0 ? d : 0;
}

// A tree takes at most SOCKETS_PER_TREE live sockets and a tenant
// SOCKETS_PER_TENANT (SESSIONTREE_MAX_SOCKETS_PER_TREE,
// SESSIONTREE_MAX_SOCKETS_PER_TENANT; 0 for no limit; socketsOver in
// fanout.mjs refuses past them): each write goes out as a frame per socket of
// its tree. The tenant's are counted over the objects of this isolate
// (socketCounts: each object's own count, since an object sees only its own
// sockets), as the rate limit is.
const SOCKETS_PER_TREE = 128;
const SOCKETS_PER_TENANT = 1024;
const socketCounts = new Map(); // object id → {tenant, n}: its live sockets
// acksOf: a live socket → the promise that its last frame's ack was sent
// (webSocketMessage sends each ack after the one before it).
const acksOf = new WeakMap();
// turnOf: a live socket opened without ?client= → its place in the If-Match line.
const turnOf = new WeakMap();
const upgradingOf = new Map(); // tenant → its live sockets being opened, over every object

// socketsOfTenant counts tenant's live sockets over the objects of this
// isolate, and those being opened.
function socketsOfTenant(tenant) {
  let n = upgradingOf.get(tenant) ?? 0;
  for (const c of socketCounts.values()) if (c.tenant === tenant) n += c.n;
  return n;
}

// refuseSocket answers an upgrade with a WebSocket closed at once with
// CLOSE_TOO_MANY_SOCKETS and reason, which a browser's WebSocket can read.
// It is accepted as a hibernatable socket of ctx's object (tagged REFUSED,
// left out of the counts): one accepted with accept() and closed at once
// threw "Network connection lost" uncaught in the isolate for every refusal
// once its client closed, even with allowHalfOpen and listeners (wrangler
// dev formats and logs each, about 4 ms of its Node's CPU: 2,000 upgrades
// on one tree cost Node a quarter of a core).
function refuseSocket(ctx, reason) {
  const [client, server] = Object.values(new WebSocketPair());
  ctx.acceptWebSocket(server, [REFUSED]);
  server.close(CLOSE_TOO_MANY_SOCKETS, reason);
  return new Response(null, { status: 101, webSocket: client });
}

// CLOSE_TOO_MANY_SOCKETS is the close code of a live socket refused over a
// limit (edge.CloseTooManySockets).
const CLOSE_TOO_MANY_SOCKETS = 4029;

// REFUSED tags a socket refused over a limit (closed at once with its code):
// it is not a live socket, and is left out of every count and fan-out. No
// client's name can be it (a name is A-Z a-z 0-9 - _, edge.validClient, and
// tags a live socket): "sessiontree-refused" could, and a client of that name
// opened live sockets past every limit, uncounted, never closed at its
// token's expiry.
const REFUSED = "sessiontree:refused";

// refused reports whether ws was refused over a limit (tagged REFUSED);
// false when its tags are gone with it.
function refused(ctx, ws) {
  try {
    return ctx.getTags(ws).includes(REFUSED);
  } catch {
    return false;
  }
}

// OLD_META reads a tree's row of the D1 index (the older version's only row).
const OLD_META =
  "SELECT id, tenant, version, etag, root, active, created_ms, updated_ms FROM trees WHERE id = ?1 AND tenant = ?2";

// IDEM_OF_D1 reads an Idempotency-Key the older version kept in D1, and
// IDEM_KEEP_MS is how long a key is kept (edge.IdemKeepMs).
const IDEM_OF_D1 = "SELECT fingerprint, status, etag, location, body, created_ms FROM idempotency WHERE tenant = ?1 AND key = ?2";
const IDEM_KEEP_MS = 24 * 60 * 60 * 1000;

// INDEX_GAP_MS is the least time between two writes of one tree's index row.
const INDEX_GAP_MS = 100;

// CLOSE_TOKEN_EXPIRED is the close code of a live socket whose token expired
// (edge.CloseTokenExpired): the client opens a new one with a new token.
const CLOSE_TOKEN_EXPIRED = 4001;

// expired closes ws if the token it was opened with has expired, and says so.
function expired(ws) {
  const exp = ws.deserializeAttachment()?.exp;
  if (!(exp > 0) || Date.now() < exp * 1000) return false;
  try {
    ws.close(CLOSE_TOKEN_EXPIRED, "the bearer token expired; connect again with a new one");
  } catch {
    // closed already
  }
  return true;
}

// SOCKET is the method of a write sent on a live socket (object.go's
// methodSocket): its url is the tree's, its body the message.
const SOCKET = "SOCKET";

// BATCH_MAX is the most writes applied in one group (drain), and
// BATCH_BYTES the largest body a write in a group may have: a larger one, and
// every read, runs alone, in slices.
const BATCH_MAX = 64;
const BATCH_BYTES = 64 * 1024;

function batchable([method, , , body]) {
  return (method === "POST" || method === SOCKET) && (body === null || body.length <= BATCH_BYTES);
}

// The objects' Go instance: one per isolate, beside the router's, serving
// every TreeObject of the isolate. Its calls are synchronous (the object's
// SQLite storage answers at once), so they need no slot: JavaScript runs one
// at a time, and a call never waits inside Go.
const objectContext = { env: undefined, ctx: undefined, binding: {} };
let objectGo = null;
let objectStarted = null;

// env's SESSIONTREE_KEPT_BYTES bounds the bytes of the trees the instance
// keeps loaded (object.go, keptBytes); SESSIONTREE_GC_HOLD_BYTES how far its
// heap may grow while a long call holds the collector (collector.Cap);
// SESSIONTREE_MAX_TREE_BYTES the bytes of a tree's stored rows (object.go, limits).
function startObjects(env) {
  const goEnv = { SESSIONTREE_ROLE: "object" };
  if (env?.SESSIONTREE_MAX_TREE_BYTES !== undefined) goEnv.SESSIONTREE_MAX_TREE_BYTES = String(env.SESSIONTREE_MAX_TREE_BYTES);
  if (env?.SESSIONTREE_KEPT_BYTES !== undefined) goEnv.SESSIONTREE_KEPT_BYTES = String(env.SESSIONTREE_KEPT_BYTES);
  if (env?.SESSIONTREE_GC_HOLD_BYTES !== undefined) goEnv.SESSIONTREE_GC_HOLD_BYTES = String(env.SESSIONTREE_GC_HOLD_BYTES);
  const [instanceGo, readyPromise] = instantiate(goEnv, objectContext, (g) => {
    if (objectGo === g) objectStarted = null;
  });
  objectGo = instanceGo;
  return readyPromise;
}

// TreeObject is the Durable Object of one tree (named tenant/id by the
// router). It keeps the tree loaded in Go and its rows in its own SQLite
// storage; each write is one storage transaction, and the D1 statements Go
// returns (the tenant's index of trees) run after it.
//
// The router calls it by RPC (serveRouted), not by fetch: no HTTP request
// and response are made inside the isolate for a call. Only a live socket's
// upgrade, which needs a Response with a WebSocket, goes through fetch.
export class TreeObject extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    this.ctx = ctx;
    this.env = env;
    this.indexQueue = [];
    this.queue = []; // calls waiting for Go: {call: [method, url, headers, body], resolve, reject}
    this.draining = false;
    this.held = new Map(); // place in line → wakers of its writes held for an earlier writer's turn
    this.reads = new Map(); // path and query of a large GET → {etag, gz, headers, writes}: kept reads
    this.writes = 0; // calls other than reads served (drain): a kept read made at another count is asked of Go again
    this.indexing = null;
    this.upgrading = 0; // live sockets being opened (handle)
    this.live = null; // what push needs of each live socket (liveSockets), or null to read it again
    const storage = ctx.storage;
    this.tx = (fn) =>
      storage.transactionSync(() => {
        const err = fn();
        if (err) throw new Error(err);
      });
  }

  async fetch(request) {
    return this.handle(request, new Uint8Array(await request.arrayBuffer()));
  }

  // serveRouted is a call of this object by the router (RPC): the request's
  // method, URL, headers (pairs) and body (bytes or null); it answers a Response.
  // A large body comes as a stream (streamOf), read here a turn at a time,
  // and goes to Go as its chunks ({chunks, length}), which Go copies a piece
  // at a time (object.go, requestLater): joined here into one array, a 7 MB
  // body's new memory took 20 ms in one piece, every page touched first.
  async serveRouted(method, url, headers, body) {
    if (body instanceof ReadableStream) {
      const [, chunks, size] = await buffered({ body });
      body = { chunks, length: size };
    }
    return this.handle({ method, url, headers: new Headers(headers) }, body ?? new Uint8Array(0));
  }

  // handle serves request ({method, url, headers}) with its body read.
  async handle(request, body) {
    const tenant = request.headers.get(PREFIX + "tenant") ?? "";
    if (objectStarted === null || objectGo.exited) objectStarted = startObjects(this.env);
    await objectStarted;
    if (!request.headers.has(PREFIX + "create")) {
      try {
        await this.migrateOnce(request);
        const key = request.headers.get("idempotency-key");
        if (key && this.movedMs > 0 && Date.now() - this.movedMs < IDEM_KEEP_MS) {
          await this.adoptKey(tenant, key);
        }
      } catch (e) {
        const error = { code: "internal", message: `the tree's object: ${e.message}` };
        return new Response(JSON.stringify({ error }) + "\n", {
          status: 500,
          headers: { "content-type": "application/json; charset=utf-8" },
        });
      }
    }
    const headers = [...request.headers];
    const upgrade = request.headers.get("upgrade")?.toLowerCase() === "websocket";
    if (upgrade) {
      // A live socket over its tree's limit or its tenant's is refused here,
      // before any call into Go (socketsOver). Upgrades still on their way
      // count as open: 2,000 at once each saw fewer than the limit and all
      // went in (174 of a limit of 128).
      this.countSockets(tenant);
      const over = socketsOver(this.liveCount() + this.upgrading, socketsOfTenant(tenant),
        envLimit(this.env.SESSIONTREE_MAX_SOCKETS_PER_TREE, SOCKETS_PER_TREE),
        envLimit(this.env.SESSIONTREE_MAX_SOCKETS_PER_TENANT, SOCKETS_PER_TENANT));
      if (over !== "") return refuseSocket(this.ctx, over);
      this.upgrading++;
      upgradingOf.set(tenant, (upgradingOf.get(tenant) ?? 0) + 1);
    }
    try {
      return await this.serveRequest(request, body, tenant, headers);
    } finally {
      if (upgrade) {
        this.upgrading--;
        const n = upgradingOf.get(tenant) - 1;
        if (n > 0) upgradingOf.set(tenant, n);
        else upgradingOf.delete(tenant);
      }
    }
  }

  // serveRequest serves request with its body, after handle's checks.
  async serveRequest(request, body, tenant, headers) {
    const url = new URL(request.url);
    const readKey = request.method === "GET" && KEPT_READ.test(url.pathname) && !request.headers.has("upgrade") &&
      request.headers.get(PREFIX + "gzip") === "1" ? url.pathname + url.search : null;
    const kept = readKey === null ? undefined : this.reads.get(readKey);
    const asked = kept !== undefined && !request.headers.has("if-none-match");
    const rate = envLimit(this.env.SESSIONTREE_EGRESS_RATE, EGRESS_RATE);
    if (asked && kept.writes === this.writes && this.held.size === 0) {
      // No call since it was kept could have changed the tree (and no
      // writer waits for a turn, whose read may be owed its place): the
      // kept bytes go out without a call into Go.
      return keptAnswer(kept, { headers: [] }, tenant, rate);
    }
    if (asked) headers.push(["if-none-match", kept.etag]);
    const res = await this.serve(request.method, request.url, headers, body,
      request.headers.get("sessiontree-client") ?? "");
    const live = res.headers.find(([k]) => k.toLowerCase() === PREFIX + "live")?.[1];
    if (live !== undefined) {
      // Go accepted a live client: a hibernatable WebSocket on this object,
      // tagged with the client's name, greeted with the answer's body.
      const [client, server] = Object.values(new WebSocketPair());
      const tag = res.headers.find(([k]) => k.toLowerCase() === PREFIX + "client");
      this.ctx.acceptWebSocket(server, tag ? [tag[1]] : []);
      // The socket lives no longer than the token it was opened with: the
      // expiry is kept with the socket (it survives hibernation), and an
      // alarm closes it then.
      const exp = Number(res.headers.find(([k]) => k.toLowerCase() === PREFIX + "expires")?.[1]);
      // What a write sent on the socket needs (webSocketMessage): the tree's
      // URL without the query (which may hold the token), the tenant, the client.
      const url = new URL(request.url);
      const tree = url.origin + url.pathname.replace(/\/live$/, "");
      const batch = url.searchParams.get("batch") === "1";
      server.serializeAttachment({ exp: exp > 0 ? exp : 0, tree, tenant, client: tag ? tag[1] : "", batch });
      this.live = null; // the sockets' details are read again at the next fan-out
      if (exp > 0) {
        const alarm = await this.ctx.storage.getAlarm();
        if (alarm === null || alarm > exp * 1000) await this.ctx.storage.setAlarm(exp * 1000);
      }
      server.send(new TextDecoder().decode(res.body));
      this.countSockets(tenant);
      return new Response(null, { status: 101, webSocket: client });
    }
    const writes = this.writes; // as of this read's answer
    await this.finish(res, null);
    if (asked && res.status === 304) {
      kept.writes = writes;
      return keptAnswer(kept, res, tenant, rate);
    }
    const etag = res.headers.find(([k]) => k.toLowerCase() === "etag")?.[1];
    if (readKey !== null && res.status === 200 && res.body.length >= READ_GZIP_MIN && etag !== undefined &&
        !res.headers.some(([k]) => k.toLowerCase() === "content-encoding")) {
      const fresh = {
        writes,
        etag: plainETag(etag),
        gz: await gzip(res.body),
        headers: res.headers.filter(([k]) => !k.toLowerCase().startsWith(PREFIX) && !["etag", "content-length"].includes(k.toLowerCase())),
      };
      this.reads.delete(readKey);
      this.reads.set(readKey, fresh);
      if (this.reads.size > READS_KEPT) this.reads.delete(this.reads.keys().next().value);
      return keptAnswer(fresh, res, tenant, rate);
    }
    if (res.body.length > STREAM_SLICE) return paced(res, tenant, rate);
    return responseOf(res);
  }

  // serve runs one call of this object (queued: see drain) and returns its
  // answer. A write held for an earlier writer's turn (wasm/edge/turns.go) is
  // asked again a little later, saying how long it has waited and its place
  // in line; the object serves other calls meanwhile. It is asked again when
  // a write names its place next, or after the hold's milliseconds at most.
  async serve(method, url, headers, body, name, origin = null) {
    const start = Date.now();
    let call = [method, url, headers, body];
    for (;;) {
      const res = await this.call(call, origin);
      const hold = res.headers.find(([k]) => k.toLowerCase() === PREFIX + "hold");
      if (hold === undefined) {
        const next = res.headers.find(([k]) => k.toLowerCase() === PREFIX + "next");
        if (next !== undefined) for (const wake of this.held.get(next[1]) ?? []) wake();
        return res;
      }
      // Its place in line (a name, or "#n" for a writer without one) is
      // what a later write names next, and goes with the call asked again.
      const place = res.headers.find(([k]) => k.toLowerCase() === PREFIX + "turn")?.[1] ?? name;
      let timer, wake;
      await Promise.race([
        new Promise((resolve) => {
          wake = resolve;
          if (!this.held.has(place)) this.held.set(place, new Set());
          this.held.get(place).add(wake);
        }),
        new Promise((resolve) => (timer = setTimeout(resolve, Number(hold[1]) || 1))),
      ]);
      clearTimeout(timer);
      this.held.get(place)?.delete(wake);
      if (this.held.get(place)?.size === 0) this.held.delete(place);
      call = [method, url, [...headers, [PREFIX + "held", String(Math.max(1, Date.now() - start))], [PREFIX + "turn", place]], body];
    }
  }

  // push sends the changes of a group of calls (drain) to the live clients,
  // each to every socket but its writer's (its client name, and origin, the
  // socket a write came on), in order. A socket opened with ?batch=1 gets the
  // changes of one group as one message {"type":"changes","changes":[…]}
  // (one frame, not one per write: 32 live writers otherwise cost 31 frames
  // a write); any other gets one message per change.
  //
  // Each frame is made once per group and shared by every socket that gets
  // the same changes (all of them but the writers' own, as a rule: see
  // fanOut), and what push needs of a socket (its tags, ?batch, expiry,
  // tenant) is read once per socket, not per write (liveSockets): the work
  // per socket and write is a send. The frames go out FANOUT_SLICE sockets
  // at a time, a turn of the event loop between slices, each slice when the
  // tenant's fan-out rate allows it (pace): other tenants' requests run in
  // between. The first slice of a fan-out within the tenant's burst goes
  // out before push returns.
  async push(group, results) {
    // A group with nothing to send (reads, upgrades) reads no socket: while
    // sockets open and close, the details of every socket would be read
    // again after each call (2,000 upgrades on one tree: ~5% of the isolate).
    if (!results.some((res) => res?.push && res.push.length > 0)) return;
    const sockets = this.liveSockets();
    if (sockets.size === 0) return;
    const plan = fanOut(group.map((g) => g.origin), results, sockets);
    if (plan.length === 0) return;
    const tenant = sockets.values().next().value.tenant;
    const rate = envLimit(this.env?.SESSIONTREE_FANOUT_RATE, FANOUT_RATE);
    for (let i = 0; i < plan.length; i += FANOUT_SLICE) {
      const slice = plan.slice(i, i + FANOUT_SLICE);
      const frames = slice.reduce((n, [, , f]) => n + f.length, 0);
      const wait = pace("frames " + tenant, frames, rate);
      if (i > 0 || wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      const now = Date.now();
      for (const [ws, info, f] of slice) {
        if (info.exp > 0 && now >= info.exp * 1000) {
          expired(ws);
          continue;
        }
        try {
          for (const frame of f) ws.send(frame);
        } catch {
          // a socket closing meanwhile: its client reads the tree when it reconnects
        }
      }
    }
  }

  // liveSockets is what push needs of each live socket of this object
  // (ws → {tags, batch, exp, tenant}), read from its tags and attachment once
  // and kept until a socket is accepted, closed or fails (this.live = null),
  // or the object is evicted or hibernates (a new instance reads them again).
  liveSockets() {
    if (this.live === null) {
      this.live = new Map();
      for (const ws of this.ctx.getWebSockets()) {
        const tags = this.ctx.getTags(ws);
        if (tags.includes(REFUSED)) continue;
        const a = ws.deserializeAttachment() ?? {};
        this.live.set(ws, { tags, batch: a.batch === true, exp: a.exp > 0 ? a.exp : 0, tenant: a.tenant ?? "" });
      }
    }
    return this.live;
  }

  // liveCount is the number of this object's live sockets (refused ones
  // still closing left out), from liveSockets: each upgrade counts them, and
  // two getWebSockets() of every socket per count were ~2% of the isolate
  // while 2,000 upgrades came to one tree (a profile of the stalls bench).
  liveCount(closing = null) {
    let n = this.liveSockets().size;
    if (closing !== null) {
      try {
        if (!this.ctx.getTags(closing).includes(REFUSED)) n--;
      } catch {
        n--; // its tags are gone with it: counted as live, as before
      }
    }
    return n;
  }

  // finish queues a call's row of the index in D1 (awaited for a create or
  // a delete); its change went to the live clients with its group (push).
  async finish(res, origin) {
    if (res.index.length > 0) {
      this.indexQueue.push(...res.index);
      const flushing = this.flushIndex(res.indexNow);
      if (res.indexNow) await flushing;
    }
  }

  // migrateOnce moves a tree stored by the older version of the worker (in
  // D1 rows: the trees, nodes and branches tables) into this object, on the
  // object's first request, if the object holds no tree; see migrate.
  migrateOnce(request) {
    if (this.migration === undefined) {
      this.migration = this.migrate(request).catch((e) => {
        this.migration = undefined; // tried again on the next request
        throw e;
      });
    }
    return this.migration;
  }

  async migrate(request) {
    let holds = false;
    try {
      holds = this.ctx.storage.sql.exec("SELECT 1 AS x FROM tree LIMIT 1").toArray().length > 0;
    } catch {
      // no table yet: a new object
    }
    if (holds) {
      try {
        this.movedMs = this.ctx.storage.sql.exec("SELECT ms FROM moved").toArray()[0]?.ms ?? 0;
      } catch {
        this.movedMs = 0; // never moved: no table
      }
      return;
    }
    const tenant = request.headers.get(PREFIX + "tenant");
    const id = new URL(request.url).pathname.split("/")[3] ?? "";
    if (!tenant || !/^[0-9a-f]{32}$/.test(id)) return;
    const db = this.env.DB;
    // A tree of the older version has its branches in D1; one of objects
    // has only its row in the index there.
    const [meta, branches] = await db.batch([
      db.prepare(OLD_META).bind(id, tenant),
      db.prepare("SELECT name AS k, json FROM branches WHERE tree = ?1 ORDER BY name").bind(id),
    ]);
    if (meta.results.length === 0 || branches.results.length === 0) return;
    const nodes = await db.prepare("SELECT id AS k, json FROM nodes WHERE tree = ?1 ORDER BY id").bind(id).all();
    if (objectStarted === null || objectGo.exited) objectStarted = startObjects(this.env);
    await objectStarted;
    const err = globalThis.sessiontreeMigrate(this.ctx.id.toString(), this.ctx.storage.sql, this.tx,
      meta.results[0], nodes, branches);
    if (err !== "") throw new Error(err);
    // When it moved: for a day (the life of a key) the older version's
    // Idempotency-Keys are looked up in D1 (adoptKey).
    this.movedMs = Date.now();
    this.ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS moved (ms INTEGER NOT NULL)");
    this.ctx.storage.sql.exec("INSERT INTO moved (ms) VALUES (?)", this.movedMs);
    // The rows are in the object now; D1 keeps only the index row.
    await db.batch([
      db.prepare("DELETE FROM nodes WHERE tree = ?1").bind(id),
      db.prepare("DELETE FROM branches WHERE tree = ?1").bind(id),
    ]);
  }

  // adoptKey copies the answer the older version kept in D1 for the tenant's
  // Idempotency-Key into this object, if the object keeps none for it: a write
  // sent to the older version and retried after its tree moved here is
  // answered from it (or refused, if the key named another request), never
  // applied twice. The older version kept keys per tenant, so this is its rule.
  async adoptKey(tenant, key) {
    const sql = this.ctx.storage.sql;
    try {
      if (sql.exec("SELECT 1 AS x FROM idempotency WHERE key = ?", key).toArray().length > 0) return;
    } catch {
      return; // no table of keys: the object holds no tree
    }
    const row = await this.env.DB.prepare(IDEM_OF_D1).bind(tenant, key).first();
    if (row === null) return;
    sql.exec("INSERT OR IGNORE INTO idempotency (key, tenant, fingerprint, status, etag, location, body, created_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
      key, tenant, row.fingerprint, row.status, row.etag, row.location, row.body, row.created_ms);
  }

  // call runs one call of this object in Go ([method, url, headers, body]),
  // in the order the calls came. One call at a time: a call that pauses
  // between its slices keeps the tree to itself until it answers.
  call(call, origin = null) {
    return new Promise((resolve, reject) => {
      this.queue.push({ call, origin, resolve, reject });
      if (!this.draining) this.drain();
    });
  }

  // drain runs the queued calls. The small writes that arrived while the
  // previous call ran go to Go together (sessiontreeObjectBatch): one Go
  // call, one storage transaction, each write still applied alone and in
  // order, each with its own answer. A group commit: under load, a write
  // costs one entry into Go and one transaction per group, not each.
  async drain() {
    this.draining = true;
    try {
      while (this.queue.length > 0) {
        let n = 1;
        if (batchable(this.queue[0].call)) {
          while (n < this.queue.length && n < BATCH_MAX && batchable(this.queue[n].call)) n++;
        }
        const group = this.queue.splice(0, n);
        try {
          // The writers are answered once their fan-out has begun; the
          // next call waits for the rest of it (paced: see push), so the
          // frames of one socket keep their order and a tenant writing
          // faster than its fan-out may go is slowed itself.
          await this.grantFor(group);
          if (group.length === 1) {
            const res = await this.runGranted(group[0].call);
            this.grown(group, [res]);
            const pushing = this.push(group, [res]);
            group[0].resolve(res);
            await pushing;
          } else {
            const out = globalThis.sessiontreeObjectBatch(this.ctx.id.toString(), this.ctx.storage.sql, this.tx,
              group.map(({ call: [method, url, headers, body] }) => [method, url, packed(headers), body]));
            out.batch?.forEach(unpacked);
            if (out.batch === undefined) throw new Error(out.body ? new TextDecoder().decode(out.body) : "batch failed");
            this.grown(group, out.batch);
            const pushing = this.push(group, out.batch);
            group.forEach((g, i) => g.resolve(out.batch[i]));
            await pushing;
          }
        } catch (e) {
          for (const g of group) g.reject(e);
        }
        // Every call but a read may have changed the tree: kept reads made
        // before it are asked of Go again.
        if (group.some((g) => g.call[0] !== "GET")) this.writes++;
        // The event loop turns once: other objects, the router, and the
        // writes that arrived meanwhile (the next group) run before the next
        // call. A call arriving while the queue is empty is run at once.
        await new Promise((resolve) => setTimeout(resolve, 0));
      }
    } finally {
      this.draining = false;
    }
  }

  // grantFor takes the grant the writes of a group of calls need before
  // they run (see GRANT), and gives it to each; nothing without a quota of
  // bytes, for a create (the router reserved its place) or a delete.
  async grantFor(group) {
    const quota = quotaOf(this.env)?.[1] ?? 0;
    if (quota <= 0) return;
    const writes = group.filter((g) => g.call[0] !== "GET" && g.call[0] !== "DELETE" && headerOf(g.call[2], PREFIX + "create") === undefined);
    if (writes.length === 0) return;
    const body = writes.reduce((n, g) => n + (g.call[3]?.length ?? 0), 0);
    const extra = GRANT_PER_BODY_BYTE * body + GRANT_MIN;
    if (this.granted === undefined || this.rows === undefined || this.rows + extra > this.granted) {
      await this.grant(writes[0].call, extra + headroom(this.rows ?? 0), quota);
    }
    // A tree missing from the index (its create's row not written) has no
    // grant: its writes go unbounded by the quota rather than refused.
    if (this.granted !== undefined) for (const g of writes) g.call = withGrant(g.call, this.granted, quota);
  }

  // grant raises this tree's grant to its size plus extra bytes (GRANT),
  // after the object's earlier grant statements.
  grant(call, extra, quota) {
    const tenant = headerOf(call[2], PREFIX + "tenant") ?? "";
    const id = new URL(call[1], "http://x").pathname.split("/")[3] ?? "";
    const run = async () => {
      const r = await this.env.DB.prepare(GRANT).bind(id, tenant, this.rows ?? -1, extra, quota, Date.now()).first();
      if (r === null) return;
      if (this.rows === undefined) this.rows = r.bytes;
      this.granted = r.granted;
      this.grantFull = r.granted < this.rows + extra; // the quota left no more
    };
    this.granting = (this.granting ?? Promise.resolve()).then(run, run);
    return this.granting;
  }

  // runGranted runs one call; a write refused for needing more than its
  // grant (HeaderNeed) is sent once more with a grant that covers it, if the
  // tenant's quota leaves the room (the group's grant is an estimate). A
  // create's grant is its reservation (see RESERVE), raised so (RAISE).
  async runGranted(call) {
    const res = await this.runOne(call);
    const need = Number(headerOf(res.headers, PREFIX + "need"));
    const created = headerOf(call[2], PREFIX + "create");
    if (created !== undefined) {
      const quota = quotaOf(this.env)?.[1] ?? 0;
      if (!(need > 0) || quota <= 0) return res;
      const tenant = headerOf(call[2], PREFIX + "tenant") ?? "";
      const raised = await this.env.DB.prepare(RAISE).bind(created, tenant, need, quota, Date.now()).run();
      return raised.meta.changes === 1 ? this.runOne(withGrant(call, need, quota)) : res;
    }
    if (!(need > 0) || this.granted === undefined || need <= this.granted) return res;
    const quota = quotaOf(this.env)?.[1] ?? 0;
    await this.grant(call, need - (this.rows ?? 0) + headroom(need), quota);
    return this.granted >= need ? this.runOne(withGrant(call, this.granted, quota)) : res;
  }

  // grown notes the tree's size after a group's answers (edge.HeaderRows),
  // and gives back what its grant holds beyond room to grow (SHRINK): lowered
  // here first, so Go is never granted more than the index holds for it.
  grown(group, results) {
    results.forEach((res, i) => {
      const n = Number(headerOf(res?.headers ?? [], PREFIX + "rows"));
      if (n >= 0) this.rows = n;
      if (group[i].call[0] === "DELETE" && res?.status === 204) this.rows = this.granted = undefined;
    });
    if (this.granted === undefined || this.rows === undefined) return;
    const call = group[group.length - 1].call;
    const room = headroom(this.rows);
    if (this.granted < this.rows + 2 * GRANT_MIN + room / 2) {
      // Running low: the next grant is taken now, beside the writes, so a
      // write rarely waits for one (not while the quota leaves no more).
      if (!this.grantFull && !this.prefetching) {
        this.prefetching = true;
        const quota = quotaOf(this.env)?.[1] ?? 0;
        this.grant(call, 2 * GRANT_MIN + 2 * room, quota)
          .catch((e) => console.error("sessiontree: a tree's grant was not raised:", e))
          .finally(() => (this.prefetching = false));
      }
      return;
    }
    // (Not while a grant is on its way: it would set the grant it read before.)
    if (this.prefetching || this.granted <= this.rows + 4 * room + 4 * GRANT_MIN) return;
    const target = this.rows + room;
    this.granted = target;
    const tenant = headerOf(call[2], PREFIX + "tenant") ?? "";
    const id = new URL(call[1], "http://x").pathname.split("/")[3] ?? "";
    const run = () =>
      this.env.DB.prepare(SHRINK).bind(id, tenant, target).run().catch((e) => {
        console.error("sessiontree: a tree's grant was not given back:", e);
      });
    this.granting = (this.granting ?? Promise.resolve()).then(run, run);
  }

  async runOne([method, url, headers, body]) {
    let res = globalThis.sessiontreeObject(this.ctx.id.toString(), this.ctx.storage.sql, this.tx,
      method, url, packed(headers), body);
    // A long call answers a number (the paused call's) after each slice of
    // a few ms: the event loop serves everyone else before its next slice.
    while (typeof res === "number") {
      await new Promise((resolve) => setTimeout(resolve, 0));
      res = globalThis.sessiontreeResume(res);
    }
    return unpacked(res);
  }

  // flushIndex writes this tree's row of the tenant's index in D1. Each
  // queued statement is the tree's whole row (at a later version, or its
  // deletion), so only the last one is run; while one runs, and for
  // INDEX_GAP_MS after it, writes only queue theirs. A create or a delete
  // (urgent: in the list before its answer) skips the gap.
  flushIndex(urgent) {
    if (urgent) this.indexUrgent = true;
    if (this.indexing === null) {
      this.indexing = (async () => {
        while (this.indexQueue.length > 0) {
          const wait = (this.indexAt ?? 0) + INDEX_GAP_MS - Date.now();
          if (wait > 0 && !this.indexUrgent) await new Promise((resolve) => setTimeout(resolve, wait));
          const [sql, ...args] = this.indexQueue[this.indexQueue.length - 1];
          this.indexQueue = [];
          this.indexUrgent = false;
          try {
            await this.env.DB.prepare(sql).bind(...args).run();
          } catch (e) {
            console.error("sessiontree: the index of trees in D1 was not updated:", e);
          }
          this.indexAt = Date.now();
        }
        this.indexing = null;
      })();
    }
    return this.indexing;
  }

  // alarm closes the live sockets whose token expired, and is set again for
  // the next expiry.
  async alarm() {
    let next = Infinity;
    for (const [ws, info] of this.liveSockets()) {
      if (!expired(ws)) next = Math.min(next, info.exp * 1000 || Infinity);
    }
    if (next !== Infinity) await this.ctx.storage.setAlarm(next);
  }

  // A live client may send its writes on the socket (edge.ServeSocket:
  // {"type":"write",…}, answered {"type":"ack",…} on the same socket); other
  // messages are ignored (a ping keeps a connection open through proxies). A
  // message on a socket whose token expired closes it, unanswered.
  async webSocketMessage(ws, msg) {
    if (expired(ws)) return;
    // A frame is a write; one sent as binary is read as its UTF-8 text. Any
    // other frame is answered with a 400 ack: it was dropped with no answer,
    // and its client waited for one for good (issue 25's hostile pass).
    if (typeof msg !== "string") msg = frameText(msg);
    // This frame's ack goes out after the one of the frame before it on this
    // socket: writes are served in groups and answered at once, so an ack
    // sent when ready overtook, or fell behind, its neighbours.
    const before = acksOf.get(ws);
    let sent;
    const mine = new Promise((resolve) => (sent = resolve));
    acksOf.set(ws, mine);
    const send = async (ack) => {
      await before;
      try {
        if (ack !== undefined) ws.send(ack);
      } catch {
        // the client went away; a write's change stands (its Idempotency-Key answers a retry)
      } finally {
        sent();
        if (acksOf.get(ws) === mine) acksOf.delete(ws);
      }
    };
    // Most frames that are not writes are told by a look at the text; one
    // whose "type" is spelled with escapes ("\u0077rite") is read first.
    const looksWrite = msg !== null && msg.includes('"write"');
    let frame = null;
    if (msg !== null && !looksWrite) {
      try {
        frame = JSON.parse(msg);
      } catch {
        // not JSON
      }
    }
    if (!looksWrite && frame?.type !== "write") {
      const id = typeof frame?.id === "string" && frame.id.length <= 64 ? frame.id : undefined; // its ack names it, as a write's does
      await send(JSON.stringify({ type: "ack", id, status: 400, body: { error: { code: "invalid_input",
        message: 'a frame on this socket is a write, {"type":"write","id":…,"route":…,"body":…} as UTF-8 text; this one was not: nothing was done' } } }));
      return;
    }
    const { tree, tenant, client } = ws.deserializeAttachment() ?? {};
    if (!tree || !tenant) {
      await send(JSON.stringify({ type: "ack", status: 400, body: { error: { code: "invalid_input",
        message: "this socket was opened before writes went over sockets; open it again to write on it" } } }));
      return;
    }
    let res;
    try {
      if (objectStarted === null || objectGo.exited) objectStarted = startObjects(this.env);
      await objectStarted;
      const headers = [[PREFIX + "tenant", tenant]];
      if (client) headers.push(["sessiontree-client", client]);
      else {
        // A socket without a name is one writer in the If-Match line
        // (wasm/edge/turns.go): its place, kept from its 412 to its next
        // write. Each write took a new place, and the next one was held
        // ~2 s behind the place its own 412 had made head (and a later
        // write without If-Match went in first).
        let place = turnOf.get(ws);
        if (place === undefined) turnOf.set(ws, (place = `#socket-${crypto.randomUUID()}`));
        headers.push([PREFIX + "turn", place]);
      }
      res = await this.serve(SOCKET, tree, headers, new TextEncoder().encode(msg), client ?? "", ws);
    } catch (e) {
      res = { ack: JSON.stringify({ type: "ack", status: 500, body: { error: { code: "internal", message: `the tree's object: ${e.message}` } } }), push: [], index: [], headers: [] };
    }
    await send(res.ack);
    await this.finish(res, ws);
  }

  // countSockets keeps this object's count of live sockets (socketCounts),
  // leaving out closing, a socket that is closing.
  countSockets(tenant, closing = null) {
    const n = this.liveCount(closing);
    const key = this.ctx.id.toString();
    if (n === 0) socketCounts.delete(key);
    else socketCounts.set(key, { tenant: tenant || socketCounts.get(key)?.tenant || this.liveSockets().values().next().value?.tenant || "", n });
  }

  webSocketError(ws) {
    if (!refused(this.ctx, ws)) this.closed(ws);
  }

  // closed counts this object's live sockets without ws, which is closing
  // (getWebSockets still has it during its event, not after), and has them
  // read again at the next count or fan-out.
  closed(ws) {
    this.live = null;
    this.countSockets("", ws);
    this.live = null;
  }

  webSocketClose(ws, code) {
    // A refused socket (closed at once over a limit) was never live: its
    // close changes no count and no fan-out, and reads no socket.
    if (!refused(this.ctx, ws)) this.closed(ws);
    try {
      ws.close(code === 1005 || code === 1006 ? 1000 : code, "closed");
    } catch {
      // already closed
    }
  }
}
