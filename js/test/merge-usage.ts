// Type-checks merge() and sync() as a user would write them (tsc --noEmit).
import { initInterchange, SessionTree, SessionTreeError, type MergeReport, type MergeConflict } from "../sessiontree.js";
import { live, sync, type LiveResult, type LiveSync, type SyncResult } from "../sync.js";

export async function mergeUsage(a: SessionTree, b: SessionTree): Promise<string[]> {
  await initInterchange();
  const report: MergeReport = a.merge(b);
  const files: { json: string; report: MergeReport } = SessionTree.mergeJSON(a.save(), new TextEncoder().encode(b.save()));
  a.merge(files.json);
  a.merge(b, { freshNames: true, keepPlace: true });
  a.merge(b.save());
  const conflicts: MergeConflict[] = report.conflicts;
  a.label(a.activePath()[0], "start", Date.now());
  a.clearLabel(a.activePath()[0], 5);
  const r: SyncResult = await sync(a, { url: "http://127.0.0.1:8787", token: "t", id: "x" });
  return [...report.nodesAdded, ...conflicts.map((c) => c.keptAs), r.etag, String(r.pulled.changed)];
}

export async function liveUsage(t: SessionTree): Promise<string | null> {
  const s: LiveSync = live(t, {
    url: "http://127.0.0.1:8787", token: "t", id: "x", pollMs: 2000, ackTimeoutMs: 30_000,
    onSync: (r: LiveResult) => void (r.pushed ?? r.pulled), onError: (e: unknown) => void e,
  });
  const r = await s.push();
  const mode: "live" | "poll" | "closed" = s.mode;
  await s.close();
  return r ? r.etag + mode : s.etag;
}

// The codes sync.d.ts names for sync()'s errors and live()'s onError (the
// worker's own, beside ErrorCode): a check of one failed to compile until an
// outside pass (Dec 7), since SessionTreeError.code listed ErrorCode alone.
export async function syncErrorUsage(t: SessionTree): Promise<string> {
  try {
    await sync(t, { url: "http://127.0.0.1:8787", token: "t", id: "x" });
  } catch (e) {
    if (e instanceof SessionTreeError) {
      if (e.code === "unauthorized") return "log in again";
      if (e.code === "quota_exceeded" || e.code === "rate_limited" || e.code === "busy") return `wait ${e.retryAfterMs} ms`;
      if (e.code === "not_found" || e.code === "precondition_failed") return e.code;
    }
  }
  return "";
}
