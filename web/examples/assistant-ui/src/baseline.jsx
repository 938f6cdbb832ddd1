// The same app without sessiontree: assistant-ui's LocalRuntime on its own
// (the thread in memory, branches while the page lives, nothing kept).
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { useEffect } from "react";
import { AssistantRuntimeProvider, useAuiState, useLocalRuntime } from "@assistant-ui/react";
import { model } from "./model.js";
import { Thread } from "./thread.jsx";

function Running() {
  const running = useAuiState((s) => s.thread.isRunning);
  useEffect(() => void (document.documentElement.dataset.running = running ? "1" : "0"), [running]);
  return null;
}

function App() {
  const runtime = useLocalRuntime(model);
  return (
    <AssistantRuntimeProvider runtime={runtime}>
      <Running />
      <main data-ready="1">
        <header>assistant-ui <small>baseline · in memory</small></header>
        <Thread />
      </main>
    </AssistantRuntimeProvider>
  );
}

createRoot(document.getElementById("root")).render(<StrictMode><App /></StrictMode>);
