// What the tests of whole files through callbacks share (tree-loadwith,
// tree-savewith): sample trees whose messages hold multi-byte UTF-8, and the
// error a call throws.
import { SessionTree } from "../sessiontree.js";

export const say = (i) => ({ role: i % 2 ? "assistant" : "user", content: `message ${i} ` + "é🙂 ".repeat(i % 7) });

// thrown returns what fn throws (failing when it throws nothing).
export function thrown(fn) {
  try {
    fn();
  } catch (e) {
    return e;
  }
  throw new Error("expected an error, nothing was thrown");
}

// sample is a chat of n messages with a regenerate halfway and a label.
export function sample(n) {
  const t = SessionTree.fromLinear(Array.from({ length: n }, (_, i) => say(i)), 1);
  const ids = t.activePath();
  t.regenerate(ids[Math.floor(n / 2)], say(9999), 2);
  t.label(ids[ids.length - 1], "start", 3);
  return t;
}
