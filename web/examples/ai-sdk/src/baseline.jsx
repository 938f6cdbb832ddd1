// The same app without sessiontree: useChat's own state (in memory, no
// branches: an edit or a regenerate replaces, nothing kept after a reload).
import { StrictMode, useEffect } from "react";
import { createRoot } from "react-dom/client";
import { useChat } from "@ai-sdk/react";
import { transport } from "./transport.js";
import { ChatView } from "./chat.jsx";

function App() {
  const { messages, sendMessage, regenerate, status } = useChat({ transport });
  const running = status === "submitted" || status === "streaming";
  useEffect(() => void (document.documentElement.dataset.running = running ? "1" : "0"), [running]);
  return (
    <main data-ready="1">
      <header>useChat <small>baseline · in memory</small></header>
      <ChatView messages={messages} status={status} sendMessage={sendMessage} regenerate={regenerate} />
    </main>
  );
}

createRoot(document.getElementById("root")).render(<StrictMode><App /></StrictMode>);
