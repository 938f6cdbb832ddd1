// assistant-ui on sessiontree: the thread is a conversation tree kept in
// IndexedDB (sessiontree/idb), loaded into assistant-ui's LocalRuntime by the
// history adapter (sessiontree/assistant-ui). Every send, edit and reload is
// stored under its parent, the branch picker's choice is the tree's active
// path, a reload of the page brings it all back, and other tabs follow.
import { StrictMode, useEffect, useMemo, useState } from "react";
import { createRoot } from "react-dom/client";
import { AssistantRuntimeProvider, useAuiState, useLocalRuntime } from "@assistant-ui/react";
import { init } from "sessiontree";
import { openStore } from "sessiontree/idb";
import { useTree } from "sessiontree/react";
import { historyAdapter } from "sessiontree/assistant-ui";
import { model } from "./model.js";
import { Thread } from "./thread.jsx";

// Follow keeps the tree on the path the thread shows once a run is over (the
// branch picker switches in assistant-ui alone), and other tabs' changes off
// the tree while a reply streams.
function Follow({ history, conversation }) {
  const running = useAuiState((s) => s.thread.isRunning);
  const head = useAuiState((s) => s.thread.messages.at(-1)?.id ?? null);
  useEffect(() => (running ? conversation.hold() : undefined), [running, conversation]);
  useEffect(() => void (document.documentElement.dataset.running = running ? "1" : "0"), [running]);
  useEffect(() => {
    if (!running && head) history.open(head);
  }, [running, head, history]);
  return null;
}

function Chat({ tree, conversation }) {
  const history = useMemo(() => historyAdapter(tree), [tree]);
  const runtime = useLocalRuntime(model, { adapters: { history } });
  return (
    <AssistantRuntimeProvider runtime={runtime}>
      <Follow history={history} conversation={conversation} />
      <Thread />
    </AssistantRuntimeProvider>
  );
}

let trees = 0;
const treeKeys = new WeakMap();

function App({ store, id }) {
  const { tree, conversation, loading, error } = useTree(store, id);
  // Another tab's change came in: the runtime loads the tree again.
  const [changes, setChanges] = useState(0);
  useEffect(() => conversation?.subscribe(() => setChanges((n) => n + 1)), [conversation]);
  if (error) return <p role="alert">{error.message}</p>;
  if (loading || !tree) return <p className="loading">Opening…</p>;
  if (!treeKeys.has(tree)) treeKeys.set(tree, ++trees);
  return (
    <main data-ready="1">
      <header>assistant-ui <small>on sessiontree · IndexedDB</small></header>
      <Chat key={`${treeKeys.get(tree)}:${changes}`} tree={tree} conversation={conversation} />
    </main>
  );
}

await init();
const store = await openStore({ name: "example-assistant-ui" });
await store.removeInterrupted();
let id = store.conversations[0]?.id;
if (!id) {
  const conv = await store.create(undefined, { title: "Chat" });
  id = conv.id;
  await conv.close();
}
window.example = { store }; // for the console and the tests
createRoot(document.getElementById("root")).render(<StrictMode><App store={store} id={id} /></StrictMode>);
