import type { MergeReport, SessionTree } from "./sessiontree.js";

/** Where and how to sync. */
export interface SyncOptions {
  /** The worker's base URL, e.g. "https://sessiontree.example.workers.dev". */
  url: string;
  /** A bearer token the operator issued for the tenant. */
  token: string;
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
  /** What the push changed on the worker (the worker's merge report). */
  pushed: MergeReport;
  /** How many rounds it took (more than 1 when another device pushed in between). */
  attempts: number;
}

/**
 * Syncs `tree` with the worker's copy: GET /v1/trees/{id}, merge it into `tree`
 * (loading the interchange module first: `initInterchange()`, a no-op once loaded),
 * then POST the result to /v1/trees/{id}/merge with If-Match, starting again on 412.
 * Afterwards `tree` and the stored tree hold the same conversation (unless someone
 * pushes again). Fails with a SessionTreeError carrying the worker's error code.
 */
export function sync(tree: SessionTree, options: SyncOptions): Promise<SyncResult>;
