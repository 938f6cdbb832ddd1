// A small sync client for the edge worker (SPEC §6): pull the stored tree,
// merge it into the local one, push the result to POST /v1/trees/{id}/merge
// with If-Match, and on 412 (someone pushed in between) start again. Two
// devices that edit offline and sync converge, with nothing lost. With the
// lean module the merge runs in the interchange helper, which sync loads itself
// (initInterchange); with the full module (init({ full: true })) it runs in
// place and initInterchange loads nothing.
import { SessionTree, SessionTreeError, initInterchange } from "./sessiontree.js";

function fail(msg) {
  throw new SessionTreeError("invalid_input", msg);
}

async function httpError(res, what) {
  let code = "invalid_input", message = `${what}: HTTP ${res.status}`;
  try {
    const body = await res.json();
    if (body?.error?.code) ({ code, message } = { code: body.error.code, message: `${what}: ${body.error.message}` });
  } catch { /* not JSON: keep the status */ }
  return new SessionTreeError(code, message);
}

/** Syncs tree with the worker's copy of conversation `id`. See sync.d.ts. */
export async function sync(tree, options) {
  if (!(tree instanceof SessionTree)) fail(`"tree" must be a SessionTree`);
  const { url, token, id, fetch: fetchFn = globalThis.fetch, attempts = 10 } = options ?? {};
  if (typeof url !== "string" || url === "") fail(`"url" must be the worker's base URL`);
  if (typeof token !== "string" || token === "") fail(`"token" must be a non-empty bearer token`);
  if (typeof id !== "string" || id === "") fail(`"id" must be the tree's id on the worker`);
  if (!Number.isSafeInteger(attempts) || attempts < 1) fail(`"attempts" must be a positive integer`);
  const base = `${url.replace(/\/+$/, "")}/v1/trees/${encodeURIComponent(id)}`;
  const auth = { authorization: `Bearer ${token}` };
  await initInterchange(); // a no-op once loaded, or when the main module is full
  for (let attempt = 1; attempt <= attempts; attempt++) {
    const got = await fetchFn(base, { headers: auth });
    if (!got.ok) throw await httpError(got, `pulling tree ${JSON.stringify(id)}`);
    const etag = got.headers.get("etag");
    const pulled = tree.merge(await got.text());
    const put = await fetchFn(`${base}/merge`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json", ...(etag ? { "if-match": etag } : {}) },
      body: tree.save(),
    });
    if (put.status === 412) continue;
    if (!put.ok) throw await httpError(put, `pushing tree ${JSON.stringify(id)}`);
    const body = await put.json();
    return { etag: body.etag, pulled, pushed: body.report, attempts: attempt };
  }
  throw new SessionTreeError("conflict", `tree ${JSON.stringify(id)} kept changing during ${attempts} sync attempts; nothing is lost, sync again`);
}
