// The page js/test/react.mjs bundles with Vite (React 19 and react-dom from
// .tools, sessiontree.js and idb.js left as the served modules): components
// built on sessiontree/react, each counting its renders.
import { Activity, createElement as h, StrictMode, useEffect, useLayoutEffect, useState } from "react";
import { createRoot } from "react-dom/client";
import { useChat } from "@ai-sdk/react";
import { init, SessionTree } from "/sessiontree.js";
import { openStore } from "/idb.js";
import { useConversations, useTree, useActivePath, useSiblings, useBranches } from "../react.js";
import { syncChat, toUIMessages } from "../ai-sdk.js";
import { rng } from "./rng.js";

const renders = { list: 0, chat: 0, path: 0, siblings: 0, branches: 0 };

function List({ store }) {
  const list = useConversations(store);
  renders.list++;
  return h("ul", { id: "list" }, list.map((c) => h("li", { key: c.id }, c.title)));
}

function Path({ tree }) {
  const w = useActivePath(tree, { count: 3 });
  renders.path++;
  if (!w) return null;
  return h("ol", { id: "path", "data-length": w.length, "data-start": w.start }, w.ids.map((id, i) => h("li", { key: id, "data-id": id, "data-label": tree.node(id).label ?? "" }, String(w.messages[i].content))));
}

function Switcher({ tree, id }) {
  const s = useSiblings(tree, id);
  renders.siblings++;
  window.select = s.select;
  return h("span", { id: "siblings" }, `${s.index + 1}/${s.siblings.length}`);
}

function Branches({ tree }) {
  const b = useBranches(tree);
  renders.branches++;
  return h("p", { id: "branches" }, b ? `${b.active}: ${b.branches.map((x) => x.name).join(",")}` : "");
}

function Chat({ store, id, at }) {
  const { tree, loading, error, conversation } = useTree(store, id);
  renders.chat++;
  window.conversation = conversation;
  // A change before the hooks below subscribe (they do after every layout
  // effect): a label on the window's last message, once, when asked.
  useLayoutEffect(() => {
    const l = window.labelAtMount;
    if (!tree || !l) return;
    window.labelAtMount = null;
    tree.label(l.id, l.label);
  }, [tree]);
  if (error) return h("p", { id: "error" }, error.message);
  if (loading || !tree) return h("p", { id: "loading" }, "opening");
  return h("section", { id: "chat" }, h(Path, { tree }), h(Switcher, { tree, id: at }), h(Branches, { tree }));
}

function App({ store }) {
  const [shown, setShown] = useState(window.initial);
  window.show = setShown;
  return h("main", null, h(List, { store }), shown ? h(Chat, { store, id: shown.id, at: shown.at }) : null);
}

window.start = async () => {
  await init("/sessiontree.wasm");
  const store = await openStore({ name: "react" });
  const t = SessionTree.fromLinear(Array.from({ length: 10 }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: `m${i}` })), 1);
  const ids = t.activePath();
  const conv = await store.create(t, { title: "ten" });
  await conv.saved();
  await conv.close();
  window.store = store;
  window.openStore = openStore;
  window.ids = ids;
  window.renders = renders;
  window.initial = { id: conv.id, at: ids[8] };
  createRoot(document.getElementById("root")).render(h(StrictMode, null, h(App, { store })));
  return { id: conv.id, ids };
};

// ---- a seeded random run (js/test/react.mjs): the hooks against direct reads ----
// Windows of the active path (each with a ‹ n/m › switcher at every message
// it shows) and the branches render what they read into data-json; after each
// step the page compares that with what the tree answers directly.

function RSwitch({ tree, id }) {
  const s = useSiblings(tree, id);
  return h("i", { "data-id": id, "data-json": JSON.stringify([s.index, s.siblings]) });
}

function RPath({ tree, count, start }) {
  const w = useActivePath(tree, start === undefined ? { count } : { count, start });
  if (!w) return null;
  const labels = w.ids.map((id) => { const n = tree.node(id); return n ? n.label ?? "" : null; }); // null: not a node (the check says so)
  const json = JSON.stringify({ start: w.start, length: w.length, ids: w.ids, texts: w.messages.map((m) => m.content), labels });
  return h("div", { className: "rpath", "data-key": `${start}:${count}`, "data-json": json }, w.ids.map((id) => h(RSwitch, { key: id, tree, id })));
}

function RBranches({ tree }) {
  const b = useBranches(tree);
  return h("p", { id: "rbranches", "data-json": JSON.stringify([b.active, b.branches.map((x) => [x.name, x.leaf])]) });
}

// An op run in a layout effect as the window mounts: before its hooks subscribe.
function RMount({ tree, count, start }) {
  useLayoutEffect(() => {
    const op = window.rAtMount;
    window.rAtMount = null;
    op?.();
  }, []);
  return h(RPath, { tree, count, start });
}

function RApp({ tree }) {
  const [windows, setWindows] = useState([{ key: 0, count: 3 }]);
  window.rSetWindows = setWindows;
  return h("section", { id: "random" }, h(RBranches, { tree }), windows.map((w) => h(w.mount ? RMount : RPath, { key: w.key, tree, count: w.count, start: w.start })));
}

window.startRandom = async (n) => {
  await init("/sessiontree.wasm");
  const t = SessionTree.fromLinear(Array.from({ length: n }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: `r${i}` })), 1);
  const el = document.createElement("div");
  document.body.append(el);
  const root = createRoot(el);
  root.render(h(StrictMode, null, h(RApp, { tree: t })));
  window.rTree = t;
  window.rStop = () => { root.unmount(); el.remove(); t.free(); };
};

// The same windows over a conversation of a sessiontree/idb store (useTree),
// which another tab's store changes too: its delta is applied in place, a
// write too large for one reloads the conversation (a new tree).
function SApp({ store, id }) {
  const { tree, conversation } = useTree(store, id);
  window.sConv = conversation;
  if (!tree) return h("p", { id: "sloading" }, "opening");
  return h(RApp, { tree });
}

window.startStoreRandom = async (n, name) => {
  await init("/sessiontree.wasm");
  const store = await openStore({ name });
  window.sStore = store;
  const t = SessionTree.fromLinear(Array.from({ length: n }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: `r${i}` })), 1);
  const c = await store.create(t, { title: name });
  await c.saved();
  const id = c.id;
  await c.close();
  const otherStore = await openStore({ name }); // another tab's: its writes come over the BroadcastChannel
  const other = await otherStore.open(id);
  const el = document.createElement("div");
  document.body.append(el);
  const root = createRoot(el);
  window.sConv = null;
  root.render(h(StrictMode, null, h(SApp, { store, id })));
  while (!window.sConv) await new Promise((res) => setTimeout(res, 10));
  Object.defineProperty(window, "rTree", { get: () => window.sConv.tree, configurable: true });
  window.rStop = async () => {
    root.unmount();
    el.remove();
    await other.close();
    await otherStore.close();
    await store.close();
    delete window.rTree;
  };
  return other;
};

// A window of the last 3 messages under a listener subscribed before its
// hooks', which answers an event with a change of its own: a label on the
// first message (outside the window) puts one on the leaf (inside it).
window.startNested = async () => {
  await init("/sessiontree.wasm");
  const t = SessionTree.fromLinear(Array.from({ length: 6 }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: `n${i}` })), 1);
  const ids = t.activePath();
  t.subscribe(() => {
    if (t.node(ids[0]).label === "pinned" && t.node(ids[5]).label === null) t.label(ids[5], "pinned too");
  });
  const el = document.createElement("div");
  el.id = "nested";
  document.body.append(el);
  const root = createRoot(el);
  root.render(h(StrictMode, null, h(RPath, { tree: t, count: 3 })));
  window.nTree = t;
  window.nIds = ids;
  window.nStop = () => { root.unmount(); el.remove(); t.free(); };
};

// useTree under <Activity>: hidden, its effects are cleaned up (the
// conversation closes); shown again, they run again (it opens again). Each
// render's { loading, closed } is kept.
function ActivityProbe({ store, id }) {
  const { conversation, tree, loading } = useTree(store, id);
  window.activityLog.push({ loading, conversation: conversation !== null, closed: conversation?.closed ?? null, tree: tree !== null });
  if (conversation) window.activityConv = conversation;
  return h("p", { id: "activity" }, tree ? `${tree.pathLength()} messages` : loading ? "opening" : "none");
}

window.startActivity = async () => {
  const conv = await window.store.create(SessionTree.fromLinear([{ role: "user", content: "a" }, { role: "assistant", content: "b" }], 1), { title: "activity" });
  const { id } = conv;
  await conv.close();
  const el = document.createElement("div");
  document.body.append(el);
  const root = createRoot(el);
  window.activityLog = [];
  const render = (mode) => root.render(h(StrictMode, null, h(Activity, { mode }, h(ActivityProbe, { store: window.store, id }))));
  window.activityMode = render;
  render("visible");
  window.activityStop = () => { root.unmount(); el.remove(); };
};

// useChat on a tree as sessiontree/ai-sdk documents it from an effect:
// syncChat once a response is over, setMessages only when the tree changed.
// Its transport answers in the page ("re: " and the last message's text).
const echo = {
  async sendMessages({ messages }) {
    const text = messages.at(-1).parts.map((p) => p.text ?? "").join("");
    const chunks = [{ type: "start" }, { type: "text-start", id: "t" }, { type: "text-delta", id: "t", delta: `re: ${text}` }, { type: "text-end", id: "t" }, { type: "finish" }];
    return new ReadableStream({ start(out) { for (const c of chunks) out.enqueue(c); out.close(); } });
  },
  async reconnectToStream() { return null; },
};

// AISwitch: the ‹ n/m › switcher at each message useChat shows, its own id
// while the reply streams (not yet in the tree).
function AISwitch({ tree, id }) {
  const s = useSiblings(tree, id);
  return h("span", { className: "switch" }, `${s.index + 1}/${s.siblings.length}`);
}

function AIChat({ tree }) {
  const { messages, setMessages, sendMessage, status } = useChat({ messages: toUIMessages(tree), transport: echo });
  window.aiRenders++;
  window.aiSend = (text) => sendMessage({ text });
  useEffect(() => {
    if (status !== "ready") return;
    const r = syncChat(tree, messages);
    if (r.changed) setMessages(r.messages);
  }, [status, messages, setMessages, tree]);
  return h("ol", { id: "aichat", "data-status": status }, messages.map((m) => h("li", { key: m.id, "data-id": m.id }, m.parts.map((p) => p.text ?? "").join(""), h(AISwitch, { tree, id: m.id }))));
}

window.startAIChat = async () => {
  await init("/sessiontree.wasm");
  const t = SessionTree.fromLinear([{ role: "user", content: "hello" }, { role: "assistant", content: "hi" }], 1);
  const el = document.createElement("div");
  document.body.append(el);
  const root = createRoot(el);
  window.aiRenders = 0;
  window.aiTree = t;
  root.render(h(StrictMode, null, h(AIChat, { tree: t })));
  window.aiStop = () => { root.unmount(); el.remove(); t.free(); };
};

// What the DOM must show, read from the tree directly.
window.rExpected = () => {
  const t = window.rTree;
  const out = { paths: {}, switches: {}, branches: JSON.stringify([t.activeBranch, t.branches().map((x) => [x.name, x.leaf])]) };
  for (const el of document.querySelectorAll(".rpath")) {
    const [s, c] = el.dataset.key.split(":");
    const count = Number(c);
    const start = s === "undefined" ? -count : Number(s);
    const length = t.pathLength();
    const path = t.activePath();
    const from = start < 0 ? Math.max(0, length + start) : Math.min(start, length);
    const ids = path.slice(from, from + count);
    out.paths[el.dataset.key] = JSON.stringify({ start: from, length, ids, texts: ids.map((id) => t.node(id).message.content), labels: ids.map((id) => t.node(id).label ?? "") });
    for (const id of ids) {
      const s2 = t.siblings(id);
      out.switches[id] = JSON.stringify([s2.index, s2.siblings]);
    }
  }
  return out;
};

window.rShown = () => {
  const out = { paths: {}, switches: {}, branches: document.querySelector("#rbranches")?.dataset.json };
  for (const el of document.querySelectorAll(".rpath")) {
    out.paths[el.dataset.key] = el.dataset.json;
    for (const sw of el.querySelectorAll("i")) out.switches[sw.dataset.id] = sw.dataset.json;
  }
  return out;
};

const R_KINDS = [["append", 24], ["edit", 8], ["regenerate", 8], ["rewind", 6], ["open", 6], ["select", 5], ["label", 8], ["clear", 4], ["switch", 5], ["branch", 3], ["delete", 4], ["prune", 2], ["mount", 4], ["unmount", 3], ["batch", 6]];
const R_WINDOWS = [{ count: 3 }, { start: 0, count: 4 }, { start: 2, count: 5 }, { start: -6, count: 6 }, { count: 1 }];
const sameShown = (a, b) => JSON.stringify(a) === JSON.stringify(b);

// Runs steps seeded changes on window.rTree, each (or a few in one task, or
// one in a mounting window's layout effect) followed by a wait until the DOM
// shows what the tree answers; returns the first step where it did not (5 s).
window.rRun = async (seed, steps, other) => {
  const tree = () => window.rTree; // a store's conversation swaps it on a reload
  const r = rng(seed);
  const pickOf = (xs) => xs[Math.floor(r() * xs.length)];
  const weight = R_KINDS.reduce((s, k) => s + k[1], 0);
  const kind = () => { let x = r() * weight; for (const [k, w] of R_KINDS) if ((x -= w) < 0) return k; return "append"; };
  const ids = (t) => t.subtree(null).nodes.map((x) => x.id);
  let n = 0;
  let bulks = 0; // another tab's writes too large for a delta (each reloads this tab's tree)
  let windows = [{ key: 0, count: 3 }];
  let nextKey = 1;
  const log = [];
  const msg = (role) => ({ role: role ?? (n % 2 ? "assistant" : "user"), content: `s${seed}-${n++}` });
  // One change of the tree; false when the kind had nothing to act on.
  const change = (k, t = tree()) => {
    const path = t.activePath();
    switch (k) {
      case "append": t.append(msg()); return true;
      case "edit": if (!path.length) return false; t.edit(pickOf(path), msg("user")); return true;
      case "regenerate": if (path.length < 2) return false; t.regenerate(pickOf(path.slice(1)), msg("assistant")); return true;
      case "rewind": if (!path.length) return false; t.rewind(pickOf(path)); return true;
      case "open": t.open(pickOf(ids(t))); return true;
      case "select": {
        const tail = path.slice(-3).filter((id) => t.siblings(id).siblings.length > 1);
        if (!tail.length) return false;
        const s = t.siblings(pickOf(tail));
        t.open(s.siblings[(s.index + 1 + Math.floor(r() * (s.siblings.length - 1))) % s.siblings.length]);
        return true;
      }
      case "label": if (!path.length) return false; t.label(r() < 0.6 ? pickOf(path.slice(-3)) : pickOf(path), `l${n++}`); return true;
      case "clear": {
        const labelled = path.filter((id) => t.node(id).label);
        if (!labelled.length) return false;
        t.clearLabel(pickOf(labelled));
        return true;
      }
      case "switch": t.switchBranch(pickOf(t.branches()).name); return true;
      case "branch": t.branch(pickOf(ids(t))); return true;
      case "delete": {
        const names = t.branches().map((b) => b.name).filter((b) => b !== "main" && b !== t.activeBranch);
        if (!names.length) return false;
        t.deleteBranch(pickOf(names));
        return true;
      }
      case "prune": t.prune(); return true;
      default: return false;
    }
  };
  const plain = () => { let k; do k = kind(); while (k === "mount" || k === "unmount" || k === "batch"); return k; };
  for (let i = 0; i < steps; i++) {
    const k = kind();
    if (k === "mount") {
      const op = plain();
      window.rAtMount = () => change(op);
      windows = [...windows, { key: nextKey++, mount: true, ...pickOf(R_WINDOWS) }];
      window.rSetWindows(windows);
      log.push(`${i}:mount+${op}`);
    } else if (k === "unmount") {
      if (windows.length > 1) windows = windows.filter((_, j) => j !== Math.floor(r() * windows.length));
      window.rSetWindows(windows);
      const op = plain();
      change(op); // in the same task as the unmount
      log.push(`${i}:unmount+${op}`);
    } else if (other && r() < 0.35) {
      // Another tab's changes to the conversation: one, a few, or more rows
      // than a delta carries (this tab reloads it); then written.
      const t = other.tree;
      const x = r();
      if (x < 0.08 && bulks++ < 2) {
        const reloads = window.sStore.stats.reloads;
        t.apply(Array.from({ length: 2100 }, () => ({ op: "append", message: msg() })));
        log.push(`${i}:other bulk`);
        await other.saved();
        // This tab reloads the conversation at its first quiet moment (a change
        // of its own before that merges the rows instead): the run gives it one,
        // so that every run over a store takes a reload, whatever the machine's
        // timing (a CI run under load merged both bulks of both seeds).
        for (const end = performance.now() + 5000; window.sStore.stats.reloads === reloads && performance.now() < end;) {
          await new Promise((res) => setTimeout(res, 20));
        }
      } else {
        const ops = [plain(), plain()].slice(0, 1 + Math.floor(r() * 2)).filter((op) => op !== "prune");
        for (const op of ops) change(op, t);
        log.push(`${i}:other(${ops.join(",")})`);
      }
      await other.saved();
    } else if (k === "batch") {
      const ops = [plain(), plain(), plain()].slice(0, 2 + Math.floor(r() * 2));
      for (const op of ops) change(op);
      log.push(`${i}:batch(${ops.join(",")})`);
    } else {
      change(k);
      log.push(`${i}:${k}`);
    }
    await new Promise((res) => setTimeout(res, 0));
    if (window.rAtMount) await new Promise((res) => setTimeout(res, 20));
    const until = performance.now() + 5000;
    let shown, expected;
    for (;;) {
      shown = window.rShown();
      expected = window.rExpected();
      if (sameShown(shown, expected) && !window.rAtMount) break;
      if (performance.now() > until) return { step: i, log: log.slice(-8), shown, expected, atMountPending: !!window.rAtMount };
      await new Promise((res) => requestAnimationFrame(() => setTimeout(res, 0)));
    }
  }
  return { step: steps, messages: n, branches: tree().branches().length, nodes: ids(tree()).length, windows: windows.length };
};
