// The contenders of make bench-peers, as one module that runs in Node and in a
// Chromium page alike: sessiontree against the tree code of three chat tools,
// each on the same conversation in its own file format, and the floor V8 sets:
//   - pi: @mariozechner/pi-coding-agent's own SessionManager, from npm, pinned
//     in .tools/package.json (Node only: it reads and writes files); in
//     Chromium, "pi walk" stands in for it: its file read as it reads it (one
//     JSON.parse a line, a Map by id, the last entry the leaf) and its context
//     built as it builds it (a walk of parentId up from the leaf);
//   - LibreChat: its export, one JSON.parse, a Map by messageId built once,
//     the thread a walk of parentMessageId up from the newest message, the
//     stored message objects handed back as they are (LibreChat's
//     getMessagesForConversation, with its Map kept between calls);
//   - chatgpt: conversations.json, one JSON.parse, the thread a walk of
//     mapping[…].parent up from current_node, each node's message object
//     (chatgpt-web-share's getMessageListFromHistory);
//   - floor: sessiontree's own file read by V8 alone: one JSON.parse, the
//     path a walk of nodes[…].parent, JSON.stringify to save; what any JS
//     reader of that file pays at least.
// The walks are written here to match the fastest behaviour of each tool (a
// Map built once, no copies), not copied from them: the project commits no
// other project's code.
//
// Every contender offers the same steps, run in this order on one fresh
// process or page: open (the file's bytes → the last 50 messages as JS
// objects), full (the whole request list as objects), read (every message of
// that list read: its role, or LibreChat's sender), deep (the list from a
// leaf DEEP messages down, REPEAT times), retry (the last reply regenerated
// and the full list built again, RETRY times: a chat's "try again" before the
// request goes out), save, regenerate (REGEN replies to
// the node at depth REGEN_AT, one after the other), build (BUILD messages,
// one append each, in a new conversation). A step a tool has no code for
// answers null. Each step returns its time in ms and checks its answer.

/** The workloads' sizes. */
export const DEEP = 10000, REPEAT = 50, RETRY = 20, REGEN_AT = 1000, REGEN = 1000, BUILD = 10000;

const say = (i) => ({ role: i % 2 ? "assistant" : "user", content: `message ${i}: ` + "a sentence of an ordinary chat reply, ".repeat(6) });
const piSay = (i) => ({ role: i % 2 ? "assistant" : "user", content: [{ type: "text", text: `message ${i}: ` + "a sentence of an ordinary chat reply, ".repeat(6) }], timestamp: i });
const warmMessages = () => Array.from({ length: 3000 }, (_, j) => ({ role: "user", content: `warm ${j} `.repeat(30) }));

function check(what, got, want) {
  if (got !== want) throw new Error(`${what}: ${got}, want ${want}`);
}

const now = () => performance.now();

/**
 * The contender who, ready to run its steps: env is { st (the sessiontree
 * module, init done), loadFile (sessiontree/node's, in Node), pi (pi's
 * module, in Node), file (the contender's file path, in Node), dir (a folder
 * pi may keep its sessions in), bytes (the file's bytes), write(text) (where
 * a save goes: /dev/null in Node), n (messages on the active path) }.
 */
export function contender(who, env) {
  const make = { sessiontree, pi: piReal, "pi walk": piWalk, librechat, chatgpt, floor }[who];
  if (!make) throw new Error(`no contender ${who}`);
  return make(env);
}

/**
 * Warms who up as a page that has been open a moment is (WebAssembly runs its
 * first calls in baseline code and tiers hot functions up as they run, as V8
 * does a script's functions): a small conversation opened, listed and saved,
 * then 200 appends and 200 regenerates, in each tool's own code where the
 * bench runs it (sessiontree; pi's SessionManager, in memory); the walks get
 * JSON.parse, a walk and JSON.stringify on a small file. Both sides warm the
 * paths the regenerate and build steps time, so neither starts them cold.
 */
export function warm(who, env) {
  for (let i = 0; i < 5; i++) {
    if (who === "sessiontree") {
      const { SessionTree } = env.st;
      const w = SessionTree.load(SessionTree.fromLinear(warmMessages(), 1).save());
      w.pathWindow(-50); w.linearProjection();
      let id;
      for (let j = 0; j < 200; j++) id = w.append(say(j));
      for (let j = 0; j < 200; j++) w.regenerate(id, say(j));
      w.linearProjection(); w.save(); w.free();
    } else if (who === "pi") {
      const { SessionManager } = env.pi;
      const w = SessionManager.inMemory(env.dir);
      for (let j = 0; j < 3000; j++) w.appendMessage(piSay(j));
      w.buildSessionContext();
      const parent = w.getBranch()[2998].id;
      for (let j = 0; j < 200; j++) w.appendMessage(piSay(j));
      for (let j = 0; j < 200; j++) {
        w.branch(parent);
        w.appendMessage(piSay(j));
      }
      w.buildSessionContext();
      JSON.parse(JSON.stringify(warmMessages()));
    } else {
      JSON.parse(JSON.stringify(warmMessages()));
    }
  }
}

// timed times a step: fn, or [find, fn] where find (not timed) finds what fn
// works on (a node deep in the path) and fn gets it.
function timed(fn) {
  if (fn === null) return () => null;
  const [find, run] = Array.isArray(fn) ? fn : [() => undefined, fn];
  return () => {
    const x = find();
    const t0 = now();
    run(x);
    return now() - t0;
  };
}

function steps(s) {
  return {
    open: timed(s.open), full: timed(s.full), read: timed(s.read), deep: timed(s.deep ?? null), retry: timed(s.retry ?? null), save: timed(s.save ?? null),
    regenerate: timed(s.regenerate ?? null), build: timed(s.build ?? null), keep: () => s.kept(),
  };
}

function sessiontree(env) {
  const { SessionTree } = env.st;
  let t, list;
  return steps({
    open() {
      // In Node from the file, read straight into the module (sessiontree/node's loadFile).
      t = env.loadFile ? env.loadFile(env.file) : SessionTree.load(env.bytes());
      check("sessiontree: the last 50", t.pathWindow(-50).messages.length, 50);
    },
    full() {
      list = t.linearProjection();
      check("sessiontree: the list", list.length, env.n);
    },
    read() {
      let n = 0;
      for (const m of list) n += m.role.length;
      check("sessiontree: every message read", n > 0, true);
    },
    deep: [() => t.pathWindow(DEEP - 1, DEEP).ids[0], (id) => {
      const home = t.activeBranch;
      t.branch(id);
      for (let i = 0; i < REPEAT; i++) check("sessiontree: the deep list", t.linearProjection().length, DEEP);
      t.switchBranch(home);
    }],
    retry: [() => t.pathWindow(-1).ids[0], (last) => {
      for (let i = 0; i < RETRY; i++) {
        last = t.regenerate(last, say(i));
        check("sessiontree: the list after a retry", t.linearProjection().length, env.n);
      }
    }],
    save() {
      // In Node into the sink straight from the module (sessiontree/node's saveFile).
      if (env.saveFile) env.saveFile(t, env.sink);
      else env.write(t.save());
    },
    regenerate: [() => t.pathWindow(REGEN_AT - 1, REGEN_AT).ids[0], (id) => {
      for (let i = 0; i < REGEN; i++) t.regenerate(id, say(i));
    }],
    build() {
      const b = new SessionTree();
      for (let i = 0; i < BUILD; i++) b.append(say(i));
      check("sessiontree: built", b.pathLength(), BUILD);
      b.free();
    },
    kept: () => [t, list],
  });
}

function piReal(env) {
  const { SessionManager } = env.pi;
  let sm, list;
  return steps({
    open() {
      sm = SessionManager.open(env.file, env.dir);
      check("pi: the last 50", sm.buildSessionContext().messages.slice(-50).length, 50);
    },
    full() {
      list = sm.buildSessionContext().messages;
      check("pi: the list", list.length, env.n);
    },
    read() {
      let n = 0;
      for (const m of list) n += m.role.length;
      check("pi: every message read", n > 0, true);
    },
    deep: [() => sm.getBranch()[DEEP - 1].id, (id) => {
      const home = sm.getLeafId();
      sm.branch(id);
      for (let i = 0; i < REPEAT; i++) check("pi: the deep list", sm.buildSessionContext().messages.length, DEEP);
      sm.branch(home);
    }],
    retry: [() => sm.getBranch().at(-1).parentId, (parent) => {
      const persist = sm.persist;
      sm.persist = false; // in memory, as SessionManager.inMemory keeps a session (the file is the bench's)
      for (let i = 0; i < RETRY; i++) {
        sm.branch(parent);
        sm.appendMessage(piSay(i));
        check("pi: the list after a retry", sm.buildSessionContext().messages.length, env.n);
      }
      sm.persist = persist; // the save step rewrites the file whole
    }],
    save() {
      // pi rewrites its session file whole (after a migration, a fork); here into env.write's sink.
      sm.sessionFile = env.sink;
      sm._rewriteFile();
    },
    regenerate: [() => sm.getBranch()[REGEN_AT - 1].parentId, (parent) => {
      sm.persist = false; // kept in memory from here, as SessionManager.inMemory keeps a session
      for (let i = 0; i < REGEN; i++) {
        sm.branch(parent);
        sm.appendMessage(piSay(i));
      }
    }],
    build() {
      const b = SessionManager.inMemory(env.dir);
      for (let i = 0; i < BUILD; i++) b.appendMessage(piSay(i));
      check("pi: built", b.buildSessionContext().messages.length, BUILD);
    },
    kept: () => [sm, list],
  });
}

// walk returns the objects from leaf up to the root, root first: up(x) is
// x's parent object or undefined, of(x) what goes in the list (skipped when
// null).
function walk(leaf, up, of) {
  const out = [];
  for (let x = leaf; x !== undefined; x = up(x)) {
    const m = of(x);
    if (m !== null) out.push(m);
  }
  return out.reverse();
}

function piWalk(env) {
  let index, entries, leaf, list;
  const up = (e) => (e.parentId ? index.get(e.parentId) : undefined);
  const of = (e) => (e.type === "message" ? e.message : null);
  return steps({
    open() {
      const text = new TextDecoder().decode(env.bytes());
      index = new Map();
      entries = [];
      for (const line of text.split("\n")) {
        if (!line) continue;
        const e = JSON.parse(line);
        entries.push(e);
        if (e.type !== "session") { index.set(e.id, e); leaf = e; }
      }
      check("pi walk: the last 50", walk(leaf, up, of).slice(-50).length, 50);
    },
    full() {
      list = walk(leaf, up, of);
      check("pi walk: the list", list.length, env.n);
    },
    read() {
      let n = 0;
      for (const m of list) n += m.role.length;
      check("pi walk: every message read", n > 0, true);
    },
    deep: [() => walk(leaf, up, (e) => e)[DEEP - 1], (at) => {
      for (let i = 0; i < REPEAT; i++) check("pi walk: the deep list", walk(at, up, of).length, DEEP);
    }],
    retry() {
      for (let i = 0; i < RETRY; i++) {
        const e = { type: "message", id: `retry-${i}`, parentId: leaf.parentId, timestamp: new Date(i).toISOString(), message: piSay(i) };
        entries.push(e);
        index.set(e.id, e);
        leaf = e;
        check("pi walk: the list after a retry", walk(leaf, up, of).length, env.n);
      }
    },
    save() {
      env.write(entries.map((e) => JSON.stringify(e)).join("\n") + "\n");
    },
    kept: () => [index, entries, list],
  });
}

function librechat(env) {
  let data, index, leaf, list;
  const up = (m) => index.get(m.parentMessageId);
  const of = (m) => m;
  return steps({
    open() {
      data = JSON.parse(new TextDecoder().decode(env.bytes()));
      index = new Map();
      for (const m of data.messages) index.set(m.messageId, m);
      leaf = data.messages[data.messages.length - 1];
      check("librechat: the last 50", walk(leaf, up, of).slice(-50).length, 50);
    },
    full() {
      list = walk(leaf, up, of);
      check("librechat: the list", list.length, env.n);
    },
    read() {
      let n = 0;
      for (const m of list) n += m.sender.length;
      check("librechat: every message read", n > 0, true);
    },
    deep: [() => walk(leaf, up, of)[DEEP - 1], (at) => {
      for (let i = 0; i < REPEAT; i++) check("librechat: the deep list", walk(at, up, of).length, DEEP);
    }],
    retry() {
      for (let i = 0; i < RETRY; i++) {
        const m = { messageId: `retry-${i}`, parentMessageId: leaf.parentMessageId, conversationId: leaf.conversationId, sender: "assistant", isCreatedByUser: false, createdAt: new Date(i).toISOString(), text: say(i).content };
        data.messages.push(m);
        index.set(m.messageId, m);
        leaf = m;
        check("librechat: the list after a retry", walk(leaf, up, of).length, env.n);
      }
    },
    save() {
      env.write(JSON.stringify(data));
    },
    kept: () => [data, index, list],
  });
}

function chatgpt(env) {
  let all, mapping, leaf, list;
  const up = (n) => (n.parent ? mapping[n.parent] : undefined);
  const of = (n) => n.message;
  return steps({
    open() {
      all = JSON.parse(new TextDecoder().decode(env.bytes()));
      mapping = all[0].mapping;
      leaf = mapping[all[0].current_node];
      check("chatgpt: the last 50", walk(leaf, up, of).slice(-50).length, 50);
    },
    full() {
      list = walk(leaf, up, of);
      check("chatgpt: the list", list.length, env.n);
    },
    read() {
      let n = 0;
      for (const m of list) n += m.author.role.length;
      check("chatgpt: every message read", n > 0, true);
    },
    deep: [() => walk(leaf, up, (n) => (n.message ? n : null))[DEEP - 1], (at) => {
      for (let i = 0; i < REPEAT; i++) check("chatgpt: the deep list", walk(at, up, of).length, DEEP);
    }],
    retry() {
      for (let i = 0; i < RETRY; i++) {
        const id = `retry-${i}`;
        mapping[id] = { id, parent: leaf.parent, children: [], message: { id, author: { role: "assistant" }, create_time: i, content: { content_type: "text", parts: [say(i).content] } } };
        mapping[leaf.parent].children.push(id);
        all[0].current_node = id;
        leaf = mapping[id];
        check("chatgpt: the list after a retry", walk(leaf, up, of).length, env.n);
      }
    },
    save() {
      env.write(JSON.stringify(all));
    },
    kept: () => [all, list],
  });
}

function floor(env) {
  let file, nodes, leaf, list;
  const up = (n) => (n.parent ? nodes[n.parent] : undefined);
  const of = (n) => n.message;
  return steps({
    open() {
      file = JSON.parse(new TextDecoder().decode(env.bytes()));
      nodes = file.nodes;
      leaf = nodes[file.branches[file.active_branch].leaf];
      const last = [];
      for (let n = leaf; n !== undefined && last.length < 50; n = up(n)) last.push(n.message);
      check("floor: the last 50", last.length, 50);
    },
    full() {
      list = walk(leaf, up, of);
      check("floor: the list", list.length, env.n);
    },
    read() {
      let n = 0;
      for (const m of list) n += m.role.length;
      check("floor: every message read", n > 0, true);
    },
    deep: [() => walk(leaf, up, (n) => n)[DEEP - 1], (at) => {
      for (let i = 0; i < REPEAT; i++) check("floor: the deep list", walk(at, up, of).length, DEEP);
    }],
    retry() {
      for (let i = 0; i < RETRY; i++) {
        const id = `retry-${i}`;
        nodes[id] = { id, parent: leaf.parent, children: [], message: say(i), created_at_ms: i };
        nodes[leaf.parent].children.push(id);
        leaf = nodes[id];
        check("floor: the list after a retry", walk(leaf, up, of).length, env.n);
      }
    },
    save() {
      env.write(JSON.stringify(file));
    },
    kept: () => [file, list],
  });
}
