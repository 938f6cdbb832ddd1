// A small sync client for the edge worker's HTTP API: pull the stored tree,
// merge it into the local one, push the result to POST /v1/trees/{id}/merge
// with If-Match, and on 412 (someone pushed in between) start again. Two
// devices that edit offline and sync converge, with nothing lost. With the
// lean module the merge runs in the interchange helper, which sync loads itself
// (initInterchange); with the full module (init({ full: true })) it runs in
// place and initInterchange loads nothing.
import { SessionTree, SessionTreeError, initInterchange } from "./sessiontree.js";

// SOCKET_WRITE_MAX is the largest push sent on the live socket, in bytes of
// UTF-8 (a WebSocket message of the worker may have 1 MiB, the write's
// envelope included); a larger one goes over HTTP.
const SOCKET_WRITE_MAX = 1000 * 1000;

// fitsSocket reports whether body, a write's JSON, fits in one socket
// message. body.length counts UTF-16 units, each 1 to 3 bytes of UTF-8: only
// a body between the two bounds is encoded to count. Before, the units were
// counted: 0.6 M CJK characters (1.8 MB) went on the socket, the worker
// refused the message, and the push waited for its ack for good.
function fitsSocket(body) {
  if (body.length > SOCKET_WRITE_MAX) return false;
  return body.length * 3 <= SOCKET_WRITE_MAX || new TextEncoder().encode(body).length <= SOCKET_WRITE_MAX;
}

// REFUSED_RETRY_MS is the least wait before live() opens a socket again
// after the worker refused one (too many live sockets, or the token expired).
const REFUSED_RETRY_MS = 60_000;

// versionOf reads the version a worker ETag ("<version>-<random>") names.
const versionOf = (tag) => Number(/^(?:W\/)?"(\d+)-/.exec(tag)?.[1] ?? NaN);

function fail(msg) {
  throw new SessionTreeError("invalid_input", msg);
}

// tell calls fn, an app's callback (onSync, onError), with arg. What it
// throws is reported as the platform reports a listener's error
// (reportError), else logged: never thrown into the sync, which goes on.
function tell(fn, arg) {
  try {
    fn(arg);
  } catch (err) {
    report(err);
  }
}

function report(err) {
  if (typeof globalThis.reportError === "function") globalThis.reportError(err);
  else console.error(err);
}

// treeFull is the error of a write the worker refused because the tree would
// pass its size limit ({"error":{"code":"too_large","limit":"tree"}}): no
// other form of the same write (the whole tree) can go in either.
function treeFull(error, what) {
  // A message over the worker's limit ("limit":"message") is refused in any
  // form too: until Dec 6, night, it sent the whole tree and its parts again
  // every round, for good (an outside pass).
  return error?.limit === "tree" || error?.limit === "message" ? new SessionTreeError("too_large", `${what}: ${error.message}`) : null;
}

async function httpError(res, what) {
  let body = null;
  try {
    body = await res.json();
  } catch { /* not JSON: the status says it */ }
  return withWait(coded(body?.error, what, `HTTP ${res.status}`), res.status, res.headers?.get?.("retry-after"));
}

// coded is the SessionTreeError of error, the worker's {"code","message"}:
// its code and sentence when both are strings (a code of lowercase words),
// else invalid_input with the fallback (the status), so that no answer, a
// proxy's page or a cut-off body, makes an error without a code of its own.
function coded(error, what, fallback) {
  const ok = typeof error?.code === "string" && /^[a-z_]{1,40}$/.test(error.code) && typeof error.message === "string";
  return ok ? new SessionTreeError(error.code, `${what}: ${error.message}`) : new SessionTreeError("invalid_input", `${what}: ${fallback}`);
}

// answer reads the JSON object the worker answers a write with ({"etag",…}).
// Anything else with a success status (a captive portal's page, a body cut
// off) is corrupt, and says what came: the write may have gone in, and the
// next sync finds out.
async function answer(res, what) {
  const text = await res.text();
  let body = null;
  try {
    body = JSON.parse(text);
  } catch { /* below */ }
  if (typeof body !== "object" || body === null || typeof body.etag !== "string") {
    throw new SessionTreeError("corrupt", `${what}: the worker answered HTTP ${res.status} with ${text === "" ? "nothing" : `something that is not its answer: ${JSON.stringify(text.slice(0, 60))}`}`);
  }
  return body;
}

// withWait gives e, the error of a request the worker answered with status
// (429: rate_limited, quota_exceeded; 503: busy), retryAfterMs: how long the
// worker asked the client to wait (Retry-After, seconds), 0 when it named no
// time. live() sends nothing to the worker before then (see hold).
function withWait(e, status, retryAfter) {
  if (status === 429 || status === 503) {
    const s = Number(retryAfter);
    e.retryAfterMs = retryAfter !== null && retryAfter !== undefined && retryAfter !== "" && Number.isFinite(s) && s > 0 ? s * 1000 : 0;
  }
  return e;
}

/** Syncs tree with the worker's copy of conversation `id`. See sync.d.ts. */
export function sync(tree, options) {
  try {
    checkKeys(options, "sync", SYNC_KEYS);
  } catch (e) {
    return Promise.reject(e);
  }
  return syncTree(tree, options, 0);
}

const SYNC_KEYS = ["url", "token", "id", "fetch", "attempts"];
const LIVE_KEYS = [...SYNC_KEYS, "pollMs", "ackTimeoutMs", "requestTimeoutMs", "onSync", "onError", "WebSocket", "deltas"];

// checkKeys refuses an option that what does not take, as the tree's own
// methods do: a misspelt one ({ pollMS: 500 }, { delta: false }) was ignored
// without a word (an outside pass, Dec 7).
function checkKeys(options, what, keys) {
  if (options === null || typeof options !== "object") return; // url, token and id say what is missing
  for (const k of Object.keys(options)) {
    if (!keys.includes(k)) fail(`${what}() has no option ${JSON.stringify(k)} (it takes ${keys.join(", ")})`);
  }
}

// TOO_LARGE is what a push answers when the worker refused its body as too
// large for one request (413 too_large, not the tree's own limit).
const TOO_LARGE = Symbol("too large");

// PART_BYTES is about the most node rows one part of a tree pushed in parts
// carries: well under the worker's body limit (8 MiB by default).
const PART_BYTES = 2 * 1024 * 1024;

// The trees a live() with deltas syncs, until its close(): each takes the
// tree's one sync feed, so a second at once would take the first one's rows
// and each would push only part of what changed.
const feeding = new WeakSet();

// syncTree is sync(); a tree whose save is at least partsFrom long (0:
// none) goes in parts at once instead of to /merge whole (see pushParts).
// saved is told the tree's version when the save it pushes is taken.
async function syncTree(tree, options, partsFrom, saved = () => {}) {
  if (!(tree instanceof SessionTree)) fail(`"tree" must be a SessionTree`);
  const { url, token, id, fetch: fetchFn = globalThis.fetch, attempts = 10 } = options ?? {};
  if (typeof url !== "string" || url === "") fail(`"url" must be the worker's base URL`);
  const bearer = bearerOf(token);
  if (typeof id !== "string" || id === "") fail(`"id" must be the tree's id on the worker`);
  if (!Number.isSafeInteger(attempts) || attempts < 1) fail(`"attempts" must be a positive integer`);
  const base = `${url.replace(/\/+$/, "")}/v1/trees/${encodeURIComponent(id)}`;
  await initInterchange(); // a no-op once loaded, or when the main module is full
  for (let attempt = 1; attempt <= attempts; attempt++) {
    const auth = { authorization: `Bearer ${await bearer()}` };
    const got = await fetchFn(base, { headers: auth });
    if (!got.ok) throw await httpError(got, `pulling tree ${JSON.stringify(id)}`);
    const etag = got.headers.get("etag");
    const pulled = tree.merge(await got.text());
    const whole = tree.save();
    const version = tree.version;
    saved(version);
    let put = null;
    if (partsFrom <= 0 || whole.length < partsFrom) {
      put = await postWhole(fetchFn, `${base}/merge`, {
        method: "POST",
        headers: { ...auth, "content-type": "application/json", ...(etag ? { "if-match": etag } : {}) },
        body: whole,
      });
      if (put?.status === 412) continue;
    }
    if (put === null || put.status === 413) {
      // Too large for one request (not past the tree's own limit, which
      // no form of the push passes): the tree goes in parts.
      const error = put === null ? null : (await put.json().catch(() => null))?.error;
      const full = treeFull(error, `pushing tree ${JSON.stringify(id)}`);
      if (full !== null) throw full;
      const done = await pushParts(fetchFn, base, auth, etag, SessionTree.deltaParts(whole, PART_BYTES), id);
      if (done === null) continue;
      return { etag: done.etag, pulled, pushed: null, attempts: attempt, parts: done.parts, tooLarge: whole.length };
    }
    if (!put.ok) throw await httpError(put, `pushing tree ${JSON.stringify(id)}`);
    const body = await answer(put, `pushing tree ${JSON.stringify(id)}`);
    if (body.differs === true) {
      // The merge stored another tree than the one sent (it hid or showed a
      // kept value of a branch): it is taken back, so that both hold one.
      const back = await fetchFn(base, { headers: auth });
      if (back.ok) {
        const tag = back.headers.get("etag");
        const text = await back.text();
        const clean = tree.version === version; // no local edit since the push's save
        tree.merge(text);
        if (clean) saved(tree.version); // it holds the stored tree, and nothing else
        return { etag: tag, pulled, pushed: body.report, attempts: attempt };
      }
    }
    return { etag: body.etag, pulled, pushed: body.report, attempts: attempt, differs: body.differs === true };
  }
  throw new SessionTreeError("conflict", `tree ${JSON.stringify(id)} kept changing during ${attempts} sync attempts; nothing is lost, sync again`);
}

// bearerOf checks sync()'s and live()'s token and returns what gives it: a
// string, or a function that gives one (or a Promise of one), asked before
// each request and each live socket, so that a page renews a token that
// expires (the worker's last at most a day) without restarting live().
// Before, live() took a string alone and, once it expired, failed every round
// with unauthorized until closed and started again.
function bearerOf(token) {
  if (typeof token === "function") {
    return async () => {
      const t = await token();
      if (typeof t !== "string" || t === "") {
        throw new SessionTreeError("invalid_input", `the "token" function gave ${t === "" ? "an empty string" : typeof t}, not a bearer token`);
      }
      return t;
    };
  }
  if (typeof token !== "string" || token === "") fail(`"token" must be a non-empty bearer token, or a function that gives one`);
  return () => token;
}

// postWhole posts a whole tree, body: null when the request failed on the
// way and the body is larger than a part. A server or proxy may cut off a
// body past its limit (the connection reset while it is being sent) instead
// of answering 413; the tree then goes in parts, as on 413. Offline, the
// parts fail too, and that error is thrown. Before, such a tree was never
// pushed (the official CI met the reset once, from wrangler dev, Dec 5).
async function postWhole(fetchFn, url, init) {
  try {
    return await fetchFn(url, init);
  } catch (e) {
    if (init.body.length <= PART_BYTES) throw e;
    return null;
  }
}

// pushParts sends parts (SessionTree.deltaParts) to the worker's /delta one after another,
// each on top of the ETag the one before it left: {etag, parts}, or null on
// 412 (someone wrote meanwhile: the sync pulls and tries again; the parts
// that went in are in the tree, and sent again they change nothing).
async function pushParts(fetchFn, base, auth, etag, parts, id) {
  for (const body of parts) {
    const put = await fetchFn(`${base}/delta`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json", "if-match": etag ?? "*" },
      body,
    });
    if (put.status === 412) return null;
    if (!put.ok) {
      const text = await put.text();
      let error = null;
      try {
        error = JSON.parse(text)?.error ?? null;
      } catch { /* not JSON */ }
      const full = treeFull(error, `pushing tree ${JSON.stringify(id)} in parts`);
      if (full !== null) throw full;
      throw withWait(coded(error, `pushing tree ${JSON.stringify(id)} in parts`, `HTTP ${put.status}`), put.status, put.headers?.get?.("retry-after"));
    }
    etag = (await answer(put, `pushing tree ${JSON.stringify(id)} in parts`)).etag;
  }
  return { etag, parts: parts.length };
}

// addRows adds the rows of a takeChanges() answer to acc (a later row of a
// record replaces an earlier one) and returns it.
function addRows(acc, rows) {
  acc ??= { nodes: new Map(), branches: new Map(), root: null, activeBranch: "" };
  for (const n of rows.nodes) acc.nodes.set(n.id, n.row);
  for (const b of rows.branches) acc.branches.set(b.name, b.row);
  acc.root = rows.root;
  acc.activeBranch = rows.activeBranch;
  return acc;
}

// deltaText is the delta document of rows (the worker's /delta, core's ApplyDelta).
function deltaText(rows) {
  const part = (map, live) => [...map].filter(([, row]) => (row !== null) === live);
  const obj = (map) => `{${part(map, true).map(([k, row]) => `${JSON.stringify(k)}:${row}`).join(",")}}`;
  const gone = (map) => JSON.stringify(part(map, false).map(([k]) => k));
  return `{"root":${JSON.stringify(rows.root)},"active":${JSON.stringify(rows.activeBranch)},` +
    `"nodes":${obj(rows.nodes)},"deleted_nodes":${gone(rows.nodes)},` +
    `"branches":${obj(rows.branches)},"deleted_branches":${gone(rows.branches)}}`;
}

/**
 * Keeps tree in sync with the worker's copy of conversation `id`, live: a
 * WebSocket on the tree's object tells of every change another client stored,
 * and each one starts a sync(); push() syncs local changes. Without WebSocket
 * (or while it is down) it polls every `pollMs` instead, and reconnects.
 * See sync.d.ts.
 */
export function live(tree, options) {
  if (!(tree instanceof SessionTree)) fail(`"tree" must be a SessionTree`);
  checkKeys(options, "live", LIVE_KEYS);
  const {
    url, token, id, pollMs = 5000, ackTimeoutMs = 30_000, requestTimeoutMs = 120_000, onSync = () => {}, onError = () => {},
    WebSocket: WS = globalThis.WebSocket,
  } = options ?? {};
  if (typeof url !== "string" || url === "") fail(`"url" must be the worker's base URL`);
  const bearer = bearerOf(token), refreshes = typeof token === "function";
  if (typeof id !== "string" || id === "") fail(`"id" must be the tree's id on the worker`);
  if (!Number.isSafeInteger(pollMs) || pollMs < 50) fail(`"pollMs" must be an integer of at least 50`);
  if (!Number.isSafeInteger(ackTimeoutMs) || ackTimeoutMs < 50) fail(`"ackTimeoutMs" must be an integer of at least 50`);
  if (!Number.isSafeInteger(requestTimeoutMs) || requestTimeoutMs < 50) fail(`"requestTimeoutMs" must be an integer of at least 50`);
  const base = `${url.replace(/\/+$/, "")}/v1/trees/${encodeURIComponent(id)}`;
  // This client's name: its socket is tagged with it and its writes carry it,
  // so the object pushes its changes to every other client only.
  const client = Array.from(crypto.getRandomValues(new Uint8Array(12)), (b) => b.toString(16).padStart(2, "0")).join("");
  const plainFetch = options.fetch ?? globalThis.fetch;
  // After close() nothing more is sent: a round under way fails here (and
  // tells no one), so a write waiting for its ack is not sent again over HTTP.
  // Each request has a deadline (requestTimeoutMs): a request a network
  // never answered held the round, and every round after it, until the
  // platform gave up (Node: 300 s; until Dec 6, night: an outside pass).
  const fetchFn = (u, init = {}) => closed
    ? Promise.reject(new SessionTreeError("conflict", `live() of tree ${JSON.stringify(id)} was closed`))
    : plainFetch(u, { signal: AbortSignal.timeout(requestTimeoutMs), ...init, headers: { ...init.headers, "sessiontree-client": client } });
  const syncOptions = { ...options, fetch: fetchFn };
  let etag = null, closed = false, socket = null, timer = null, connectTimer = null, retry = 250;
  let running = null, again = false, mode = "poll", dirty = true;
  let writes = 0;
  // synced is the tree's version when it last held nothing the worker lacks
  // (after a round's push or a clean pull, and after a delta applied), and
  // captured the version when the round under way took what it pushes: a
  // delta is applied in place only on a tree unchanged since synced. Before,
  // only push() counted, and a delta landed on an edit not yet pushed,
  // leaving its message on no branch.
  let synced = -1, captured = -1;
  // A round the worker refused with 429 or 503 holds the next ones off
  // until holdUntil (Date.now() ms): the time it named (Retry-After), and
  // no less than a backoff that doubles with each such answer in a row,
  // from 1 s to 10 min. Before, a client over its tenant's quota sent its
  // push again every poll and after every edit: whole, the first push, that
  // was an upload of the whole tree every 5 s, each refused.
  let holdUntil = 0, holdTimer = null, backoff = 0;
  // A round that failed otherwise is tried again after pollMs, doubling with
  // each failure in a row (failures) up to a minute, in every mode. Before,
  // only the poll tried again, and none runs while the socket is live: a
  // push that failed then waited for the next edit.
  let failures = 0, retryTimer = null;
  // With deltas (the default), live() takes the tree's sync feed
  // (takeChanges({feed: "sync"}), apart from a store's): unpushed holds the
  // rows changed since the last push that went in (null: none).
  const deltas = options.deltas !== false;
  let unpushed = null;
  // stale: the worker's merge of this client's last whole push stored a tree
  // that differs from it (its "differs"): the next round pulls first.
  let stale = false;
  if (deltas) {
    if (feeding.has(tree)) {
      throw new SessionTreeError("conflict", "this tree is already synced by a live() with deltas: close() it first (two would take each other's changes, and each push only part of them)");
    }
    tree.takeChanges({ feed: "sync" }); // start recording; the first round pushes the whole tree
    feeding.add(tree);
  }
  const acks = new Map(); // id of a write sent on the socket → {ws, resolve, timer}
  // The length of the smallest whole tree (tree.save()) the worker refused
  // as too large for one request (413 too_large, not the tree's own limit);
  // 0 while none was. A tree only grows, so a whole push at least that long
  // is not sent again: it goes in parts (sync's pushParts). Before, every
  // round sent it again whole, to be refused again (8 MiB and more a poll).
  let wholeRefused = 0;

  // pull merges the stored tree into tree, pushing nothing: what a change of
  // another client needs when this one has nothing new.
  async function pull() {
    await initInterchange();
    const got = await fetchFn(base, { headers: { authorization: `Bearer ${await bearer()}` } });
    if (!got.ok) throw await httpError(got, `pulling tree ${JSON.stringify(id)}`);
    const tag = got.headers.get("etag");
    const text = await got.text();
    const clean = tree.version === synced; // then the merge leaves the stored tree
    const pulled = tree.merge(text);
    if (clean) synced = tree.version;
    return { etag: tag, pulled, pushed: null, attempts: 1 };
  }

  // pushKnown sends tree to the worker's merge with If-Match of the ETag this
  // client last saw: since it holds everything stored up to then, the merge
  // needs no pull first. null on 412 (someone wrote since): a sync follows.
  // While the live socket is open the write goes on it (one message into the
  // tree's object, no HTTP request); if the socket closes before the ack, the
  // ack does not come in ackTimeoutMs, or the worker could not read the
  // message, the same write is sent over HTTP with the same Idempotency-Key,
  // so it is stored once either way.
  async function pushKnown() {
    if (deltas) {
      captured = tree.version;
      const rows = tree.takeChanges({ feed: "sync" });
      if (rows.all) unpushed = null; // the feed's first call: a whole push carries every row
      else unpushed = addRows(unpushed, rows);
      if (unpushed !== null) {
        const done = await pushDelta(unpushed);
        if (done !== undefined) {
          if (done !== null) unpushed = null;
          return done;
        }
      }
    }
    const done = await pushWhole();
    if (done !== null) unpushed = null; // the whole tree holds every unpushed row
    return done;
  }

  // liveSocket is the socket a write may go on: open, and hello'd.
  function liveSocket() {
    return socket !== null && mode === "live" && socket.readyState === 1 ? socket : null;
  }

  // pushDelta sends only the rows changed since the last push ({"type":"write",
  // "route":"delta"} on the socket, or POST /delta) on top of the ETag this
  // client holds: null on 412 (a sync follows), undefined when the worker
  // cannot take it as a delta (409: the copies diverged; too large for one
  // message): the whole tree is pushed instead. A tree the worker holds at
  // its size limit (413 with "limit":"tree") throws too_large: pushed whole it
  // would be refused too, after an upload of all of it.
  async function pushDelta(rows) {
    const body = deltaText(rows);
    const key = `push-${client}-${++writes}`;
    const ws = liveSocket();
    if (ws !== null && fitsSocket(body)) {
      const ack = await socketWrite(ws, { route: "delta", if_match: etag, idempotency_key: key }, body);
      if (ack !== null) {
        if (ack.status === 412) return null;
        const full = treeFull(ack.body?.error, `pushing tree ${JSON.stringify(id)}`);
        if (full !== null) throw full;
        if (ack.status === 409 || ack.status === 413) return undefined;
        if (ack.status !== 200) throw ackError(ack);
        return { etag: ackTag(ack), pulled: null, pushed: null, attempts: 1, via: "socket", delta: true };
      }
    }
    const put = await fetchFn(`${base}/delta`, {
      method: "POST",
      headers: { authorization: `Bearer ${await bearer()}`, "content-type": "application/json", "if-match": etag, "idempotency-key": key },
      body,
    });
    if (put.status === 412) return null;
    if (put.status === 413) {
      const full = treeFull((await put.json().catch(() => null))?.error, `pushing tree ${JSON.stringify(id)}`);
      if (full !== null) throw full;
    }
    if (put.status === 409 || put.status === 413) return undefined;
    if (!put.ok) throw await httpError(put, `pushing tree ${JSON.stringify(id)}`);
    const done = await answer(put, `pushing tree ${JSON.stringify(id)}`);
    return { etag: done.etag, pulled: null, pushed: null, attempts: 1, via: "http", delta: true };
  }

  // pushWhole sends the whole tree to the worker's merge (see pushKnown):
  // null on 412, or when the tree is too large for one request (a sync
  // follows, which pushes it in parts).
  async function pushWhole() {
    const body = tree.save();
    captured = tree.version;
    if (wholeRefused > 0 && body.length >= wholeRefused) return null;
    const done = await pushWholeBody(body);
    if (done === TOO_LARGE) {
      wholeRefused = wholeRefused > 0 ? Math.min(wholeRefused, body.length) : body.length;
      return null;
    }
    return done;
  }

  async function pushWholeBody(body) {
    const key = `push-${client}-${++writes}`;
    const ws = liveSocket();
    if (ws !== null && fitsSocket(body)) {
      const ack = await socketWrite(ws, { route: "merge", if_match: etag, idempotency_key: key }, body);
      if (ack !== null) {
        if (ack.status === 412) return null;
        const full = treeFull(ack.body?.error, `pushing tree ${JSON.stringify(id)}`);
        if (full !== null) throw full;
        if (ack.status === 413) return TOO_LARGE;
        if (ack.status !== 200) throw ackError(ack);
        return { etag: ackTag(ack), pulled: null, pushed: ack.body?.report ?? null, attempts: 1, via: "socket", differs: ack.body?.differs === true };
      }
    }
    const put = await postWhole(fetchFn, `${base}/merge`, {
      method: "POST",
      headers: { authorization: `Bearer ${await bearer()}`, "content-type": "application/json", "if-match": etag, "idempotency-key": key },
      body,
    });
    if (put === null) return TOO_LARGE; // cut off on the way (see postWhole)
    if (put.status === 412) return null;
    if (put.status === 413) {
      const full = treeFull((await put.json().catch(() => null))?.error, `pushing tree ${JSON.stringify(id)}`);
      if (full !== null) throw full;
      return TOO_LARGE;
    }
    if (!put.ok) throw await httpError(put, `pushing tree ${JSON.stringify(id)}`);
    const done = await answer(put, `pushing tree ${JSON.stringify(id)}`);
    return { etag: done.etag, pulled: null, pushed: done.report, attempts: 1, via: "http", differs: done.differs === true };
  }

  // ackTag is the ETag of a write the worker acked on the socket: corrupt
  // when the ack carries none, as answer() is for HTTP.
  function ackTag(ack) {
    if (typeof ack.etag !== "string") throw new SessionTreeError("corrupt", `pushing tree ${JSON.stringify(id)}: the worker's ack of status 200 carries no ETag`);
    return ack.etag;
  }

  // ackError is the error of a write the worker refused on the socket.
  function ackError(ack) {
    const e = ack.body?.error;
    return withWait(coded(e, `pushing tree ${JSON.stringify(id)}`, `status ${ack.status}`), ack.status, ack.retry_after);
  }

  // socketWrite sends a write on ws ({"type":"write"}, see the worker's
  // README) and resolves with its ack, or with null if the socket closes
  // first, the ack does not come in ackTimeoutMs, or the worker could not
  // read the message (see settleAck): the write then goes over HTTP.
  function socketWrite(ws, fields, body) {
    const wid = `w${++writes}`;
    return new Promise((resolve) => {
      const timer = setTimeout(() => settle(wid, null), ackTimeoutMs);
      acks.set(wid, { ws, resolve, timer });
      try {
        ws.send(`{"type":"write","id":${JSON.stringify(wid)},${Object.entries(fields)
          .map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(",")},"body":${body}}`);
      } catch {
        settle(wid, null);
      }
    });
  }

  // settle resolves the write wid waits on with ack.
  function settle(wid, ack) {
    const w = acks.get(wid);
    if (w === undefined) return;
    acks.delete(wid);
    clearTimeout(w.timer);
    w.resolve(ack);
  }

  // settleAck takes msg, an ack that came on ws. One without an id answers
  // a message the worker could not read as a write (over 1 MiB, not JSON; or
  // its object failed): the worker acks a socket's messages in order
  // (wasm/edge/socket.go), so it is the oldest write waiting on ws, which
  // goes over HTTP. An ack of a write that went over HTTP already is dropped.
  function settleAck(ws, msg) {
    if (typeof msg.id === "string" && msg.id !== "") return settle(msg.id, msg);
    for (const [wid, w] of acks) {
      if (w.ws === ws) return settle(wid, null);
    }
  }

  // dropAcks resolves the writes waiting on ws with null: they go over HTTP.
  function dropAcks(ws) {
    for (const [wid, w] of acks) {
      if (w.ws === ws) settle(wid, null);
    }
  }

  // syncWhole pulls, merges and pushes the whole tree (sync()): it carries
  // every unpushed row, always over HTTP (/merge, or /delta in parts).
  async function syncWhole() {
    const result = await syncTree(tree, syncOptions, wholeRefused, (v) => { captured = v; });
    if (result.tooLarge > 0) wholeRefused = wholeRefused > 0 ? Math.min(wholeRefused, result.tooLarge) : result.tooLarge;
    unpushed = null;
    return { ...result, via: "http" };
  }

  // failed keeps the rounds off after e, the error of a round: until the
  // time the worker asked to wait (see holdUntil), after which a round pushes
  // what waits, or pulls (a change told on the socket meanwhile was not
  // pulled); any other error is tried again after pollMs, doubling with each
  // failure in a row up to a minute (or pollMs, if longer).
  function failed(e) {
    clearTimeout(retryTimer);
    retryTimer = null;
    if (e?.retryAfterMs === undefined) {
      backoff = 0;
      failures++;
      retryTimer = setTimeout(() => {
        retryTimer = null;
        background();
      }, Math.min(pollMs * 2 ** (failures - 1), Math.max(pollMs, 60_000)));
      return;
    }
    backoff = Math.min(Math.max(2 * backoff, 1000), 600_000);
    holdUntil = Date.now() + Math.max(e.retryAfterMs, backoff);
    clearTimeout(holdTimer);
    holdTimer = null;
    holdEnd();
  }

  // holdEnd runs a round when the hold ends (a timer may fire a little
  // before Date.now() reaches holdUntil: the round then sets it again).
  function holdEnd() {
    if (holdTimer !== null || closed) return;
    holdTimer = setTimeout(() => {
      holdTimer = null;
      background(); // what waits to be pushed, or a pull of what was missed meanwhile
    }, Math.max(1, holdUntil - Date.now()));
  }

  // Syncs run one at a time; a request during one runs once more after it.
  // After local edits (push) a sync pulls and pushes; otherwise it only pulls.
  // While the worker's wait holds (failed), a round sends nothing and answers
  // null; the edits stay to be pushed. A round never rejects: its error goes
  // to onError, and what onSync or onError throw is reported (tell), not
  // kept in running. Before, an onError that threw left running a rejected
  // promise, and live() never ran a round again.
  function run() {
    if (closed) return Promise.resolve(null);
    if (running) {
      again = true;
      return running;
    }
    if (Date.now() < holdUntil) {
      holdEnd();
      return Promise.resolve(null);
    }
    running = (async () => {
      // The round starts once running holds it: one that ended without an
      // await would clear running before it is set, and stay there for good.
      await null;
      let result = null;
      try {
        do {
          again = false;
          if (Date.now() < holdUntil) {
            holdEnd(); // a round asked for during one that the worker refused
            break;
          }
          const pushing = dirty;
          dirty = false;
          try {
            let got = null;
            if (stale) {
              // What a push left stored differs from this tree: it is
              // merged in first, and rows pushed go on top of it (see below).
              got = await pull();
              etag = got.etag;
              stale = false;
            }
            result = !pushing ? got ?? (await pull()) : (etag !== null && (await pushKnown())) || (await syncWhole());
            stale = result.differs === true;
          } catch (e) {
            result = null;
            if (closed) break; // close() stopped it: nothing failed
            if (e?.code === "not_found" && etag !== null) {
              gone(); // it was there (this client synced it): deleted, told on no socket (polling)
              break;
            }
            dirty = dirty || pushing;
            failed(e);
            tell(onError, e);
            continue;
          }
          etag = result.etag;
          if (pushing) synced = captured;
          // The worker's merge of a whole push stored another tree than
          // this one (it hid or showed a kept value of a branch that this
          // tree's own calls left as it was): a pull follows at once, or
          // the two would hold different trees under one ETag for good
          // (js/test/live-random.mjs, seed 2).
          if (stale) again = true;
          backoff = 0;
          failures = 0;
          clearTimeout(retryTimer);
          retryTimer = null;
          tell(onSync, result);
        } while (again && !closed);
      } finally {
        running = null;
      }
      return result;
    })();
    return running;
  }

  // background runs a round no caller awaits (a timer's, a socket's).
  function background() {
    run().catch(report);
  }

  // applyDelta applies another client's change in place (t.applyChanges of
  // the pushed rows) when it is the very next version after the one this
  // client holds, the tree is unchanged since it last held nothing the
  // worker lacks (synced: pushed or not, a local edit is not overwritten),
  // and no round is under way: a change then costs its own size, not the
  // tree's. Anything else — a gap in versions, a partial delta, a delta that
  // does not fit, a local edit — is a pull and merge, which keeps both.
  function applyDelta(msg, text) {
    if (running || dirty || msg.partial || etag === null || versionOf(etag) !== msg.version - 1) return false;
    try {
      if (tree.version !== synced) return false;
      tree.applyChanges(text);
    } catch {
      return false; // a pull brings it
    }
    synced = tree.version;
    etag = msg.etag;
    tell(onSync, { etag, pulled: null, pushed: null, attempts: 0, applied: true });
    return true;
  }

  // poll runs a round every pollMs while no socket is live (its timer, if
  // set, is left: a socket that keeps closing does not put the poll off).
  function poll() {
    if (closed || mode === "live" || timer !== null) return;
    timer = setTimeout(() => {
      timer = null;
      run().catch(report).finally(poll);
    }, pollMs);
  }

  function stopPolling() {
    clearTimeout(timer);
    timer = null;
  }

  // gone stops live() for a tree deleted on the worker: nothing is left to
  // sync with, and every round would fail not_found.
  function gone() {
    close();
    tell(onError, new SessionTreeError("not_found", `tree ${JSON.stringify(id)} was deleted on the worker: live() stopped; the local tree keeps every message`));
  }

  // refusedError is the error of a socket the worker closed with code (4029:
  // too many live sockets; 4001: the token expired) and reason.
  function refusedError(code, reason, wait) {
    const why = code === 4029 ? "refused the live socket" : "closed the live socket: the bearer token expired";
    return new SessionTreeError(code === 4029 ? "rate_limited" : "unauthorized",
      `tree ${JSON.stringify(id)}: the worker ${why}${reason ? ` (${reason})` : ""}; polling every ${pollMs} ms, connecting again in ${Math.round(wait / 1000)} s`);
  }

  function connect() {
    connectTimer = null;
    if (closed) return;
    if (typeof WS !== "function") return poll();
    if (!refreshes) return open(token);
    Promise.resolve().then(bearer).then(open, (e) => {
      // No token to connect with (the token function failed): poll, whose
      // rounds ask for it again, and try the socket again later.
      if (closed) return;
      tell(onError, e);
      poll();
      const wait = Math.max(retry, REFUSED_RETRY_MS);
      retry = Math.min(2 * wait, Math.max(wait, 30_000));
      connectTimer = setTimeout(connect, wait);
    });
  }

  function open(token) {
    if (closed) return;
    const wsURL = `${base.replace(/^http/, "ws")}/live?client=${client}&batch=1&access_token=${encodeURIComponent(token)}`;
    let ws;
    try {
      ws = new WS(wsURL);
    } catch (e) {
      tell(onError, e);
      return poll();
    }
    socket = ws;
    // A socket that neither says hello nor closes (a handshake never
    // answered) is given up after the request deadline.
    const helloTimer = setTimeout(() => {
      if (socket !== ws || mode === "live") return;
      try {
        ws.close();
      } catch {
        // closing a socket that never opened
      }
      down({ code: 1006 });
    }, Math.min(requestTimeoutMs, 30_000));
    // The socket is live once the worker's hello came: only then does the
    // poll stop and the reconnect's backoff start again. A socket the worker
    // refuses opens and closes at once (close code 4029), with no hello.
    // Before, each open reset both: a refused client reconnected 4 times a
    // second, for good, and never polled.
    poll();
    ws.onmessage = (ev) => {
      if (socket !== ws) return;
      const text = typeof ev.data === "string" ? ev.data : new TextDecoder().decode(ev.data);
      let msg;
      try {
        msg = JSON.parse(text);
      } catch {
        return;
      }
      if (msg.type === "ack") return settleAck(ws, msg);
      if (msg.type === "hello") {
        clearTimeout(helloTimer);
        mode = "live";
        retry = 250;
        stopPolling();
        // Edits that wait (a round failed while the socket was down) and
        // changes missed meanwhile go now.
        if (dirty || msg.etag !== etag) background();
        return;
      }
      // The changes of several writes stored together come as one message
      // (?batch=1): each is taken in order, as if it came alone.
      const changes = msg.type === "changes" && Array.isArray(msg.changes) ? msg.changes : [msg];
      for (const c of changes) {
        if (c.type === "deleted") return gone();
        // A change this client stored itself carries the ETag it already has.
        if (c.etag === etag || c.type !== "change") continue;
        if (applyDelta(c, changes.length === 1 ? text : JSON.stringify(c))) continue;
        background(); // a pull brings this change and every later one
        return;
      }
    };
    const down = (ev) => {
      clearTimeout(helloTimer);
      dropAcks(ws);
      if (socket !== ws) return;
      socket = null;
      if (closed) return;
      mode = "poll";
      let wait = retry;
      if (ev?.code === 4029 || (ev?.code === 4001 && !refreshes)) {
        // Refused: connecting again at once is refused again. The polls
        // go on meanwhile. An expired token that a token function renews
        // is asked for again at the next connect, after the usual wait.
        wait = Math.max(retry, REFUSED_RETRY_MS);
        tell(onError, refusedError(ev.code, ev.reason, wait));
      }
      retry = Math.min(2 * wait, Math.max(wait, 30_000));
      poll();
      connectTimer = setTimeout(connect, wait);
    };
    ws.onclose = down;
    // A socket that fails to connect gets "close" after its "error" where the
    // platform follows the spec; Node 20's WebSocket fires "error" alone, and
    // the client never connected again (until Dec 6, night: an outside pass).
    // down runs once either way (socket is null after the first).
    ws.onerror = () => {
      if (ws.readyState !== 1) setTimeout(() => down({ code: 1006 }), 0);
    };
  }

  function close() {
    if (deltas && !closed) feeding.delete(tree);
    closed = true;
    mode = "closed";
    stopPolling();
    clearTimeout(holdTimer);
    clearTimeout(retryTimer);
    clearTimeout(connectTimer);
    const ws = socket;
    socket = null;
    if (ws) dropAcks(ws);
    if (!ws || ws.readyState === 3) return Promise.resolve();
    // Resolves once the close handshake is done (or after a second).
    return new Promise((resolve) => {
      const done = setTimeout(resolve, 1000);
      ws.addEventListener("close", () => {
        clearTimeout(done);
        resolve();
      });
      ws.close(1000, "done");
    });
  }

  initInterchange().catch(() => {}); // load the merge early; sync() awaits it anyway
  background();
  connect();
  return {
    push() {
      dirty = true;
      return run();
    },
    get mode() {
      return mode;
    },
    get etag() {
      return etag;
    },
    close,
  };
}
