import type { MergeReport, SessionTree } from "./sessiontree.js";

/** Where and how to sync. Any other key is refused (`invalid_input`, naming it). */
export interface SyncOptions {
  /** The worker's base URL, e.g. "https://sessiontree.example.workers.dev". */
  url: string;
  /**
   * A bearer token the operator issued for the tenant, or a function that
   * gives one (or a Promise of one). A function is asked before each request
   * and each live socket, so a page renews a token that expires (the worker
   * takes one for a day at most) without restarting live(): a socket closed
   * for an expired token (4001) opens again at once with the function's
   * next token. A function that gives no string fails that round with
   * `invalid_input`.
   */
  token: string | (() => string | Promise<string>);
  /** The tree's id on the worker (from POST /v1/trees). */
  id: string;
  /** The fetch to use (default: globalThis.fetch). */
  fetch?: typeof fetch;
  /** How many pull–merge–push rounds to try when others keep pushing (412); default 10. */
  attempts?: number;
}

/** What one sync did. */
export interface SyncResult {
  /** The stored tree's ETag after the push. */
  etag: string;
  /** What merging the stored tree changed locally. */
  pulled: MergeReport;
  /** What the push changed on the worker (the worker's merge report); null when it went in parts. */
  pushed: MergeReport | null;
  /** How many rounds it took (more than 1 when another device pushed in between). */
  attempts: number;
  /**
   * Set when the tree was too large for one request (413 `too_large`, past
   * the worker's body limit, 8 MiB by default): how many parts it went in.
   */
  parts?: number;
  /**
   * True when the worker's merge stored another tree than the one pushed
   * (its answer's `"differs"`) and the stored tree could not be read back
   * right after: sync again to hold what the worker holds. A merge may hide
   * or show a branch that keeps another copy's leaf (`name~leaf`) where this
   * tree's own calls left it as it was; when the read back works, `sync()`
   * merges it in and `etag` is the read's.
   */
  differs?: boolean;
}

/**
 * Syncs `tree` with the worker's copy: GET /v1/trees/{id}, merge it into `tree`
 * (loading the interchange module first: `initInterchange()`, a no-op once loaded),
 * then POST the result to /v1/trees/{id}/merge with If-Match, starting again on 412.
 * Afterwards `tree` and the stored tree hold the same conversation (unless someone
 * pushes again). Fails with a SessionTreeError carrying the worker's error code;
 * after a 429 or 503 it also has `retryAfterMs`, the worker's Retry-After (0 when
 * it named none): wait at least that long before trying again. An answer that is
 * not the worker's (a proxy's or a captive portal's page, a body cut off) fails
 * `corrupt` when its status says success and `invalid_input` naming the status
 * otherwise; a request that never got an answer rejects with fetch's own error.
 * The tree keeps every message either way.
 *
 * A tree too large for one request (the worker answers the merge 413
 * `too_large`) goes in parts: deltas of its rows as saved, parents first,
 * about 2 MiB each, each POSTed to /v1/trees/{id}/delta on top of the ETag the
 * one before it left (on 412 the sync starts again: parts that went in change
 * nothing when sent again). A tree past the worker's own limit for one tree
 * (`"limit":"tree"`) fails with `too_large` at once.
 */
export function sync(tree: SessionTree, options: SyncOptions): Promise<SyncResult>;

/** Options of live(): those of sync(), and how to listen; any other key is refused (`invalid_input`). */
export interface LiveOptions extends SyncOptions {
  /**
   * How often to poll while no WebSocket is live, in ms (default 5000, at
   * least 50); also the first wait before a failed round is tried again.
   */
  pollMs?: number;
  /**
   * How long a write sent on the live socket waits for its ack, in ms
   * (default 30000, at least 50; the worker may hold a write up to 10 s for
   * the writers before it): then it goes over HTTP, with the same
   * Idempotency-Key, so it is stored once either way.
   */
  ackTimeoutMs?: number;
  /**
   * The deadline of each HTTP request, in ms (default 120000, at least 50):
   * a request the network never answers fails then, and the round is tried
   * again, rather than holding every later round.
   */
  requestTimeoutMs?: number;
  /**
   * Called after each sync, with what it did. What it throws is reported
   * (`reportError` where the platform has it, else `console.error`), never
   * thrown into the sync, which goes on.
   */
  onSync?: (result: LiveResult) => void;
  /**
   * Called when a sync fails. The round is tried again after `pollMs`, then
   * after twice as long with each failure in a row, up to a minute (or
   * `pollMs` if longer), in every mode, and at once when the live socket
   * opens again with edits waiting; polls and pushes try too. What it throws
   * is reported as onSync's is.
   *
   * A tree the worker refused whole as too large for one request (413
   * `too_large`, 8 MiB by default) goes in parts (see sync), and later rounds
   * send it in parts at once, never whole again: a tree only grows. When the worker
   * answered 429 (`rate_limited`, `quota_exceeded`) or 503, the error has
   * `retryAfterMs` (its Retry-After, 0 when it named none) and live() sends
   * nothing until then, nor before a backoff that doubles with each such
   * answer in a row (1 s to 10 min); the edits wait, and go with the round
   * at its end.
   *
   * Also called, without a failed round, when the worker refuses the live
   * socket: too many live sockets (close code 4029; `rate_limited`) or the
   * token expired (4001; `unauthorized`). live() polls meanwhile and opens a
   * socket again after a minute at least, doubling up to 10 min. And when
   * the socket says the tree was deleted on the worker, or a round gets
   * `not_found` for a tree it synced before (polling, no socket):
   * `not_found`, and live() stops (as close(); the local tree keeps every
   * message). A tree never synced yet is tried again (it may be created).
   */
  onError?: (error: unknown) => void;
  /** The WebSocket constructor (default: globalThis.WebSocket; none: polling only). */
  WebSocket?: typeof WebSocket;
  /**
   * Push only what changed (the default; `false`: each push sends the whole
   * tree to `/merge`, which saves and uploads all of it). Each push sends
   * the rows changed since the last push that went in, on top of the ETag
   * this client holds (`/delta`, on the live socket when open), from the
   * tree's sync feed (`takeChanges({ feed: "sync" })`), apart from the
   * store's: a tree that `sessiontree/idb` stores row by row is synced by its
   * changes too, and a merge with the lean module (which swaps the merged
   * tree in) by the rows it changed. One live() with deltas per tree at a
   * time: another before the first one's close() throws `conflict` (two would
   * take each other's rows). The first push sends the whole tree. A delta the
   * worker cannot take (409: the copies diverged; 413) is followed by a
   * whole push; a 412 by a sync, as without deltas. A tree the worker holds
   * at its size limit (SESSIONTREE_MAX_TREE_BYTES; 413 with `"limit":"tree"`)
   * is not pushed whole: onError gets a `too_large` error.
   */
  deltas?: boolean;
}

/**
 * What one round of live() did: a sync; a delta of another client's change
 * applied in place (applied, pulled and pushed null); a pull of it (pushed
 * null); or a push of local edits on top of the last ETag seen,
 * which needs no pull (pulled null).
 */
export interface LiveResult {
  /** The stored tree's ETag when it was read or pushed. */
  etag: string;
  /** What merging the stored tree changed locally; null when the round only pushed. */
  pulled: MergeReport | null;
  /** What the push changed on the worker; null when the round only pulled. */
  pushed: MergeReport | null;
  /** How many rounds the sync took (1 for a pull, 0 for a delta applied). */
  attempts: number;
  /**
   * True when another client's change was applied in place from the delta
   * the socket pushed: the next version after this client's, and the tree
   * unchanged since its last round or applied delta. No pull, a cost of the
   * change's size. A tree with a local edit (push()ed or not) pulls and
   * merges instead, which keeps both sides.
   */
  applied?: boolean;
  /**
   * True when the worker's merge of this round's whole push stored another
   * tree than the one pushed (see `SyncResult.differs`): a pull follows at
   * once, before any other push.
   */
  differs?: boolean;
  /**
   * How a push went: "socket" when it was sent on the live socket (a write
   * message, acked there), "http" when over POST /merge or /delta: no live
   * socket, a write over 1 MB (of UTF-8) or, with the same Idempotency-Key
   * so that the push is stored once, a socket write not acked: the socket
   * closed first, the ack did not come in `ackTimeoutMs`, or the worker
   * could not read the message. Absent when the round pushed nothing.
   */
  via?: "socket" | "http";
  /** True when the push sent only the rows changed since the last one (the `deltas` option). */
  delta?: boolean;
}

/** A live sync of one tree; see live(). */
export interface LiveSync {
  /** Syncs now, pushing local edits: resolves with the round's result (null once closed or if it failed); never rejects. */
  push(): Promise<LiveResult | null>;
  /**
   * "live" while the WebSocket is open and the worker's hello came on it,
   * "poll" while polling (a socket opening, or refused, polls too), "closed"
   * after close().
   */
  readonly mode: "live" | "poll" | "closed";
  /** The stored tree's ETag after the last sync (null before the first). */
  readonly etag: string | null;
  /**
   * Stops listening, polling and reconnecting; resolves once the socket is
   * closed. A round under way sends nothing more (a socket write waiting for
   * its ack is not sent again over HTTP) and tells onError nothing.
   */
  close(): Promise<void>;
}

/**
 * Keeps `tree` in sync with the worker's copy, live: a WebSocket on the tree's
 * Durable Object (GET /v1/trees/{id}/live, the token as ?access_token=) tells of
 * every change stored by another client, and each one pulls it (a sync() when
 * there are local edits not pushed yet); call push() after local edits. Without a WebSocket (or while it is down) it polls
 * every `pollMs` and reconnects with backoff. Syncs run one at a time.
 */
export function live(tree: SessionTree, options: LiveOptions): LiveSync;
