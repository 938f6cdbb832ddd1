// A tiny test harness so that one test file runs under `node --test` (it
// registers with node:test) and in a browser page (it collects and runs the
// tests itself), with the same assertions in both.
export const isNode = typeof process !== "undefined" && !!process.versions?.node;
/**
 * Which module the tests load as the main one: the lean sessiontree.wasm, or
 * with SESSIONTREE_FLAVOUR=full (Node) or ?flavour=full (the browser page) the
 * full flavour, sessiontree-interchange.wasm. Pass mainSource to init().
 */
export const full = (isNode ? process.env.SESSIONTREE_FLAVOUR : new URLSearchParams(globalThis.location?.search).get("flavour")) === "full";
export const mainSource = full ? { full: true } : undefined;
const nodeTest = isNode ? await import("node:test") : null;
const pending = [];

/** Registers a test. */
export function test(name, options, fn) {
  if (typeof options === "function") [fn, options] = [options, {}];
  if (nodeTest) nodeTest.test(name, options, fn);
  else if (!options.skip) pending.push({ name, fn });
}

/** Runs the collected tests (browser only) and returns their outcomes. */
export async function runCollected() {
  const results = [];
  for (const { name, fn } of pending) {
    try {
      await fn();
      results.push({ name, ok: true });
    } catch (e) {
      results.push({ name, ok: false, error: String(e?.stack ?? e) });
    }
  }
  return results;
}

function fail(msg) {
  throw new Error(msg);
}

function same(a, b) {
  if (Object.is(a, b)) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a), kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && same(a[k], b[k]));
}

const show = (v) => { try { return JSON.stringify(v); } catch { return String(v); } };

export const assert = {
  ok(v, msg = "expected a truthy value") { if (!v) fail(msg); },
  equal(a, b, msg) { if (!Object.is(a, b)) fail(msg ?? `expected ${show(b)}, got ${show(a)}`); },
  deepEqual(a, b, msg) { if (!same(a, b)) fail(msg ?? `expected ${show(b)}, got ${show(a)}`); },
  /** fn must throw a SessionTreeError with code (and a message matching re). */
  throws(fn, code, re) {
    try { fn(); } catch (e) { return check(e, code, re); }
    fail(`expected a ${code} error, nothing was thrown`);
  },
  async rejects(p, code, re) {
    try { await p; } catch (e) { return check(e, code, re); }
    fail(`expected a ${code} rejection, it resolved`);
  },
};

function check(e, code, re) {
  if (e?.name !== "SessionTreeError") fail(`expected a SessionTreeError, got ${e?.stack ?? e}`);
  if (code && e.code !== code) fail(`expected code ${code}, got ${e.code}: ${e.message}`);
  if (re && !re.test(e.message)) fail(`message ${show(e.message)} does not match ${re}`);
  return e;
}
