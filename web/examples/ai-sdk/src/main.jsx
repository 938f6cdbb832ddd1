// useChat on sessiontree: the AI SDK's useChat shows the tree's active path
// (sessiontree/ai-sdk's toUIMessages); each finished reply is brought into the
// tree with syncChat (an edit or a regenerate is a new sibling, nothing is
// lost); the tree lives in IndexedDB (sessiontree/idb), its ‹ n/m › switcher is
// sessiontree/react's useSiblings, and other tabs follow.
import { StrictMode, useEffect, useRef, useState } from "react";
import { createRoot } from "react-dom/client";
import { useChat } from "@ai-sdk/react";
import { init } from "sessiontree";
import { openStore } from "sessiontree/idb";
import { useSiblings, useTree } from "sessiontree/react";
import { syncChat, toUIMessages } from "sessiontree/ai-sdk";
import { transport } from "./transport.js";
import { ChatView } from "./chat.jsx";

// Siblings is the ‹ n/m › switcher at a stored message (select opens the
// other version with its own continuation: t.open).
function Siblings({ tree, id, running }) {
  const { siblings, index, select } = useSiblings(tree, id);
  if (siblings.length < 2) return null;
  return (
    <span className="picker">
      <button className="prev" aria-label="previous version" disabled={index === 0 || running} onClick={() => select(index - 1)}>‹</button>
      <span className="count">{index + 1}/{siblings.length}</span>
      <button className="next" aria-label="next version" disabled={index === siblings.length - 1 || running} onClick={() => select(index + 1)}>›</button>
    </span>
  );
}

function Chat({ tree, conversation }) {
  const [initial] = useState(() => toUIMessages(tree));
  const { messages, setMessages, sendMessage, regenerate, status } = useChat({
    id: conversation.id,
    messages: initial,
    transport,
    onFinish: ({ messages, isError }) => {
      if (!isError) setMessages(syncChat(tree, messages).messages); // ids become the tree's
    },
  });
  const running = status === "submitted" || status === "streaming";
  useEffect(() => void (document.documentElement.dataset.running = running ? "1" : "0"), [running]);
  useEffect(() => (running ? conversation.hold() : undefined), [running, conversation]);
  // The tree changed (‹ ›, another tab): useChat shows its active path again.
  const idle = useRef(!running);
  idle.current = !running;
  useEffect(() => tree.subscribe(() => {
    if (idle.current) setMessages(toUIMessages(tree));
  }), [tree, setMessages]);

  return <ChatView messages={messages} status={status} sendMessage={sendMessage} regenerate={regenerate} picker={(id) => tree.node(id) && <Siblings tree={tree} id={id} running={running} />} />;
}

let trees = 0;
const treeKeys = new WeakMap();

function App({ store, id }) {
  const { tree, conversation, loading, error } = useTree(store, id);
  if (error) return <p role="alert">{error.message}</p>;
  if (loading || !tree) return <p className="loading">Opening…</p>;
  if (!treeKeys.has(tree)) treeKeys.set(tree, ++trees);
  return (
    <main data-ready="1">
      <header>useChat <small>on sessiontree · IndexedDB</small></header>
      <Chat key={treeKeys.get(tree)} tree={tree} conversation={conversation} />
    </main>
  );
}

await init();
const store = await openStore({ name: "example-ai-sdk" });
await store.removeInterrupted();
let id = store.conversations[0]?.id;
if (!id) {
  const conv = await store.create(undefined, { title: "Chat" });
  id = conv.id;
  await conv.close();
}
window.example = { store }; // for the console and the tests
createRoot(document.getElementById("root")).render(<StrictMode><App store={store} id={id} /></StrictMode>);
