// The page js/test/react.mjs bundles with Vite (React 19 and react-dom from
// .tools, sessiontree.js and idb.js left as the served modules): components
// built on sessiontree/react, each counting its renders.
import { createElement as h, StrictMode, useLayoutEffect, useState } from "react";
import { createRoot } from "react-dom/client";
import { init, SessionTree } from "/sessiontree.js";
import { openStore } from "/idb.js";
import { useConversations, useTree, useActivePath, useSiblings, useBranches } from "../react.js";

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
