// The contenders of make bench-peers, as one module that runs in Node and in a
// Chromium page alike: sessiontree against the way three chat tools keep a
// conversation tree, each on the same conversation in its own file format:
//   - pi: a session JSONL, one JSON.parse per line, entries in a Map by id,
//     the leaf is the last entry, the context walks parentId up from it
//     (as pi's SessionManager does);
//   - LibreChat: the flat export, JSON.parse of the file, messages in a Map by
//     messageId, the thread walks parentMessageId up from the last message
//     (as LibreChat's tree helpers do over a Map index);
//   - ChatGPT: conversations.json, JSON.parse of the file, the thread walks
//     `mapping` from `current_node` (as a ChatGPT-export viewer does).
// These are written here after those tools' published behaviour, not copied
// from them (the project commits no other project's code).

/** The contenders, in the order they run. */
export const WHO = ["sessiontree", "pi", "librechat", "chatgpt"];

const warmMessages = () => Array.from({ length: 3000 }, (_, j) => ({ role: "user", content: `warm ${j} `.repeat(30) }));

/**
 * Warms who up as a page that has been open a moment is (WebAssembly runs its
 * first calls in baseline code and tiers hot functions up as they run; the
 * peers get JSON.parse and a walk on a small file). st is the sessiontree
 * module (init done) for sessiontree.
 */
export function warm(who, st) {
  for (let i = 0; i < 5; i++) {
    if (who === "sessiontree") {
      const w = st.SessionTree.load(st.SessionTree.fromLinear(warmMessages(), 1).save());
      w.pathWindow(-50); w.linearProjection(); w.free();
    } else {
      JSON.parse(JSON.stringify(warmMessages()));
    }
  }
}

/**
 * Opens bytes (the file, already in memory) as who does: open is the time
 * until the last 50 messages are JS objects, all the time for the full
 * request list as objects after that. keep holds what stays in memory.
 */
export function contend(who, bytes, st) {
  let last50, full, keep;
  const t0 = performance.now();
  let open, all;
  if (who === "sessiontree") {
    const t = st.SessionTree.load(bytes);
    last50 = t.pathWindow(-50).messages;
    open = performance.now() - t0;
    const t2 = performance.now();
    full = t.linearProjection();
    all = performance.now() - t2;
    keep = t;
  } else {
    const text = new TextDecoder().decode(bytes);
    let index, leaf, up, msg;
    if (who === "pi") {
      index = new Map();
      let last = null;
      for (const line of text.split("\n")) {
        if (!line) continue;
        const e = JSON.parse(line);
        if (e.id) { index.set(e.id, e); last = e; }
      }
      leaf = last; up = (e) => (e.parentId ? index.get(e.parentId) : null); msg = (e) => e.message;
    } else if (who === "librechat") {
      const data = JSON.parse(text);
      index = new Map();
      for (const m of data.messages) index.set(m.messageId, m);
      leaf = data.messages[data.messages.length - 1];
      up = (m) => index.get(m.parentMessageId) ?? null; msg = (m) => ({ role: m.isCreatedByUser ? "user" : "assistant", content: m.text });
    } else {
      const conv = JSON.parse(text)[0];
      index = conv.mapping;
      leaf = index[conv.current_node];
      up = (n) => (n.parent ? index[n.parent] : null); msg = (n) => n.message && { role: n.message.author.role, content: n.message.content.parts.join("") };
    }
    const path = [];
    for (let e = leaf; e; e = up(e)) path.push(e);
    path.reverse();
    last50 = path.slice(-50).map(msg);
    open = performance.now() - t0;
    const t2 = performance.now();
    full = path.map(msg).filter(Boolean);
    all = performance.now() - t2;
    keep = index;
  }
  return { open, all, last50, full, keep };
}
