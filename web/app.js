// The demo chat client: conversations kept in IndexedDB, each a SessionTree from
// the public JS API (./sessiontree.js), a chat view of the active branch with a
// 〈2/3〉 switcher at every fork, per-message and per-branch actions, search, a
// tree view, import and export. Everything the user sees is built with
// textContent: message text never becomes markup.
//
// Where things are (each view in a module of its own):
//   app.js            the shared state, the second module's loading, the top bar, start()
//   conversations.js  conversations in IndexedDB (sessiontree/idb): open, create, save,
//                     close; a send queued while a tree loads; another tab's changes
//   chat.js           the chat view: the message window, the preview while a
//                     conversation opens, each message's element, the composer
//   reply.js          a send and its reply: the request, the demo assistant, streaming, Retry
//   actions.js        change() and each message's actions (edit, regenerate, branch
//                     here, label, rewind, ‹ › alternatives)
//   sidebar.js        the conversation list, the branches and their actions, search
//   importexport.js   import (picker, drop, every format) and export
//   treepanel.js      the tree view's panel and bar (treeview.js draws the canvas)
//   settings.js       the assistant settings dialog
//   assistant.js      the demo assistant and the endpoint's client (request, stream, models)
//   branching.js      "Branch here" at a user message, a branch deleted with its messages
//   dom.js            $(), el(), the form dialog, toasts, the error banner
//   markdown.js, reasoning.js, ansi.js   a message's text as the page shows it
// The views import state (and renderAll) from here and read them only inside
// their functions: the imports go both ways, and nothing runs before start().
import { init, initInterchange, SessionTree } from "./sessiontree.js";
import { openStore } from "./idb.js";
import { $, el, toast, showError, describe } from "./dom.js";
import { loadSettings, usesEndpoint } from "./assistant.js";
import { openSettings } from "./settings.js";
import { CURRENT_KEY, flush, renderSaveState, openConversation, createConversation, orphanedSends, followStore } from "./conversations.js";
import { renderChat, renderComposer, wireChat } from "./chat.js";
import { keepPartial } from "./reply.js";
import { renderConversations, renderBranches, wireSidebar, setDrawer, drawerOpen } from "./sidebar.js";
import { wireImportExport, INTERRUPTED_KEY } from "./importexport.js";
import { renderTree, wireTree } from "./treepanel.js";

// ---- the shared state ------------------------------------------------------------

export const TREE_OPEN_KEY = "sessiontree-demo.tree-open";

export const hasFormats = typeof initInterchange === "function" && typeof SessionTree.import === "function";

// The demo's IndexedDB database (the layout of sessiontree/idb: existing data opens as it is).
const DB_NAME = "sessiontree-demo";
let busyController = null;
let busyRelease = null;

export const state = {
  store: null,
  convs: [], // metadata, newest first
  importing: null, // { read }: an import of another tool's export under way (importexport.js)
  cur: null, // { meta, tree: SessionTree | null, error: string | null, raw: string | null }
  // AbortController of the reply being fetched; while one is, the open
  // conversation takes no other tab's rows (conv.hold()).
  get busy() { return busyController; },
  set busy(c) {
    busyController = c;
    busyRelease?.();
    busyRelease = c ? state.cur?.conv?.hold() ?? null : null;
  },
  win: { start: 0, end: 0, follow: true }, // the chat view's window of path indexes
  settings: loadSettings(),
  writes: Promise.resolve(),
  unsaved: null, // the error of the last write, until one succeeds (storage full): leaving asks first
  pending: 0,
  treeView: null,
  treeSeen: null, // what the tree view was laid out from, and what changed since (treepanel.js)
  treeOpen: localStorage.getItem(TREE_OPEN_KEY) === "1",
  timings: {},
  views: new Map(), // conversation id → (node id → { key, element }) of the chat view
};

// The page's handle for people poking at it from the console (and the e2e test).
window.sessiontreeDemo = {
  get tree() { return state.cur?.tree ?? null; },
  get treeView() { return state.treeView; },
  timings: state.timings,
  get store() { return state.store; },
  /** The WebAssembly memory of the demo's workers: none of its own now (sessiontree/idb's worker runs no module; its import check is not measured from here). */
  workerMemory: async () => null,
  /** Resolves once every change made so far is in IndexedDB. */
  saved: () => flush(),
};

let wasmReady = null; // init() of the page's module (start)

// ---- the second module ------------------------------------------------------------

// Other tools' formats and merge live in a second module
// (sessiontree-interchange.wasm), loaded the first time the user imports or
// exports another format, or another tab changes the open conversation, with a
// notice naming why while it loads (a .tree.json needs only the main module).
let interchangeReady = null;
export async function loadInterchange(why = "import/export", { quiet = false } = {}) {
  if (!interchangeReady) {
    const t0 = performance.now();
    const notice = quiet ? 0 : setTimeout(() => toast(`Loading the ${why} module\u2026`), 150);
    interchangeReady = initInterchange(new URL("./sessiontree-interchange.wasm", import.meta.url)).then(
      () => { state.timings.interchangeLoad = performance.now() - t0; },
      (e) => { interchangeReady = null; throw e; },
    ).finally(() => clearTimeout(notice));
  }
  return interchangeReady;
}

// ---- rendering (the top bar here, each view in its module) ------------------------

export function renderAll() {
  const parts = { renderHeader, renderConversations, renderBranches, renderChat, renderComposer, renderTree };
  for (const [name, render] of Object.entries(parts)) {
    const t0 = performance.now();
    render();
    state.timings[name] = performance.now() - t0;
  }
}

export function renderHeader() {
  $("conv-title").textContent = state.cur?.meta.title ?? "";
  const s = state.settings;
  const chip = $("assistant-chip");
  const model = usesEndpoint(s) ? s.model : "Demo assistant \u00b7 offline";
  // A model's name at every width (cut by the chip's width); on a phone the
  // demo's chip says only "Demo" (app.css shows one of its two spans).
  if (usesEndpoint(s)) chip.replaceChildren(model);
  else chip.replaceChildren(el("span.chip-long", null, model), el("span.chip-short", null, "Demo"));
  chip.title = `Replies come from ${model}: open the assistant settings`;
  chip.classList.toggle("demo", !usesEndpoint(s));
  $("btn-tree").setAttribute("aria-pressed", String(state.treeOpen));
  $("app").classList.toggle("tree-open", state.treeOpen);
}

// ---- start -------------------------------------------------------------------------------

/** The page's controls: each view wires its own; the keyboard shortcuts and Settings are the page's. */
function wire() {
  wireChat();
  wireSidebar();
  wireImportExport();
  wireTree();
  // Keyboard: Ctrl+Shift+O new chat, Shift+Esc or "/" the composer, Esc closes
  // the tree view or the sidebar's drawer (back to its button) or stops a reply, ArrowUp in an empty composer edits the last message, Alt+←/→ on a
  // focused message switches its alternatives.
  document.addEventListener("keydown", (e) => {
    if ($("dialog").open) return;
    const typing = e.target.closest?.("input, textarea, [contenteditable]");
    const mod = e.ctrlKey || e.metaKey;
    if (mod && e.shiftKey && e.key.toLowerCase() === "o") {
      e.preventDefault();
      $("btn-new").click();
    } else if ((e.key === "Escape" && e.shiftKey) || (e.key === "/" && !typing)) {
      e.preventDefault();
      $("input").focus();
    } else if (e.key === "Escape" && state.treeOpen && e.target.closest?.("#treepane")) {
      // Esc in the tree view closes it, back to its button (as the drawer).
      e.preventDefault();
      $("btn-tree").click();
      $("btn-tree").focus();
    } else if (e.key === "Escape" && drawerOpen()) {
      e.preventDefault();
      setDrawer(false);
      $("menu").focus();
    } else if (e.key === "Escape" && state.busy && (!typing || e.target === $("input"))) {
      // Not in the message editor or the search box: Esc there is theirs.
      e.preventDefault();
      state.busy.abort();
    } else if (e.key === "ArrowUp" && e.target === $("input") && $("input").value === "" && !state.busy) {
      const mine = [...$("messages").querySelectorAll("article.msg.user")].at(-1);
      const edit = mine?.querySelector('[data-action="edit"]');
      if (edit) {
        e.preventDefault();
        edit.click();
      }
    } else if (e.altKey && (e.key === "ArrowLeft" || e.key === "ArrowRight")) {
      const msg = e.target.closest?.("#messages article.msg");
      const b = msg?.querySelector(`[data-action="${e.key === "ArrowLeft" ? "prev" : "next"}"]:not([disabled])`);
      if (b) {
        e.preventDefault();
        b.click();
      }
    }
  });
  $("btn-settings").onclick = openSettings;
  $("assistant-chip").onclick = openSettings;
}

async function start() {
  wire();
  // Leaving the page: write what is pending now.
  window.addEventListener("pagehide", () => {
    keepPartial();
    flush();
  });
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "hidden") flush();
  });
  $("formats-note").textContent = hasFormats
    ? "Import: .tree.json, ChatGPT, claude.ai, Open WebUI, LibreChat, Claude Code, pi, Codex, SillyTavern, AI SDK UIMessage[], assistant-ui, OpenAI messages (detected). Export: those and Markdown."
    : "Import and export: .tree.json.";
  // The module starts while the storage opens: an open paints its last
  // messages from their records (store.tail) before it needs the module.
  // With a model endpoint configured, the full module is the page's module:
  // t.projectFor then runs on the live tree and reads only what a request
  // keeps (the lean one hands its tree to the interchange module first, a
  // copy of the whole tree at the first request after an open: 3.6 s at
  // 200k messages in Node), and the page downloads one module, not two.
  performance.mark("start");
  wasmReady = usesEndpoint(state.settings)
    ? init(new URL("./sessiontree-interchange.wasm", import.meta.url))
    : init(new URL("./sessiontree.wasm", import.meta.url));
  const wasmFailed = wasmReady.then(() => { performance.mark("module ready"); return null; }, (e) => e);
  // Conversations in IndexedDB (sessiontree/idb), every tab on one kept in
  // sync: another tab's rows applied in place, merged only when both wrote.
  const storeOptions = { name: DB_NAME, loadMerge: () => loadInterchange("tab sync") };
  try {
    state.store = await openStore(storeOptions);
  } catch (e) {
    state.store = await openStore({ ...storeOptions, memory: true });
    // not_found: no IndexedDB here, or refused (a private window); anything else said as it is.
    const why = e?.code === "not_found" ? "" : `: ${describe(e)}`;
    showError(`This browser's storage (IndexedDB) is not available here${why}. Conversations will not survive a reload; export them to keep them.`);
  }
  try {
    // An import whose tab was closed before its records were all written:
    // removed (an import under way in another tab marks its meta every part).
    const interrupted = await state.store.removeInterrupted();
    if (interrupted.length) toast(`An import that was interrupted before it was stored was removed: \u201c${interrupted[0].title}\u201d${interrupted.length > 1 ? ` and ${interrupted.length - 1} more` : ""}.`, "warn");
    // The page's own copies: it changes a conversation's record (title, system prompt) in place.
    state.convs = (await state.store.list()).map((m) => ({ ...m }));
    followStore(); // another tab's conversations listed here too
    // An import this tab was running when it reloaded: what it stored is listed.
    const cut = sessionStorage.getItem(INTERRUPTED_KEY);
    if (cut !== null) {
      sessionStorage.removeItem(INTERRUPTED_KEY);
      toast(`The import of \u201c${cut}\u201d stopped when the page was reloaded: the conversations it had stored are listed. Import the file again for the rest; those already here are merged, not listed twice.`, "warn");
    }
  } catch (e) {
    showError(`Could not read the saved conversations: ${describe(e)}. They are left untouched.`);
    state.convs = [];
  }
  renderSaveState();
  const want = localStorage.getItem(CURRENT_KEY);
  const first = state.convs.some((c) => c.id === want) ? want : state.convs[0]?.id;
  if (first) await openConversation(first); // it waits for the module only to load the tree
  const failed = await wasmFailed;
  if (failed) {
    $("messages").replaceChildren(el("div.card.error-card", { role: "alert" }, el("h2", null, "The WebAssembly module did not start"), el("p", null, describe(failed)), el("p", null, "Serve this folder over HTTP (make demo) rather than opening the file directly.")));
    return;
  }
  if (!first) await createConversation(new SessionTree());
  // A send typed during an import's preview whose tab closed before the
  // import was stored: never sent, so it is put back in the box, not lost.
  const orphans = orphanedSends(state.convs.map((c) => c.id));
  if (orphans.length) {
    const text = orphans.map((q) => q.text).join("\n\n");
    if ($("input").value.trim() === "") {
      $("input").value = text;
      toast(`${orphans.length === 1 ? "A message" : `${orphans.length} messages`} typed while a file was imported ${orphans.length === 1 ? "was" : "were"} not sent (the tab closed before the import was stored): back in the box.`, "warn");
    } else {
      toast(`Not sent, as the tab closed before an import was stored: \u201c${text.length > 200 ? text.slice(0, 200) + "\u2026" : text}\u201d`, "warn");
    }
  }
  document.body.dataset.ready = "1";
  state.timings.interactive = performance.now();
  prepareRequests();
}

/**
 * With a model endpoint configured, the projections' module (the interchange
 * module: t.projectFor) is loaded once the page is idle, not by the first
 * send: compiling it took 0.4–6 s of that send's way to the wire.
 */
export function prepareRequests() {
  if (!usesEndpoint(state.settings)) return;
  const idle = window.requestIdleCallback ?? ((fn) => setTimeout(fn, 200));
  idle(() => loadInterchange("provider", { quiet: true }).then(() => idle(warmRequests, { timeout: 4000 }), () => {}), { timeout: 2000 });
}

/**
 * A request for cur's tree as it is, built while the page is idle and thrown
 * away: the first request after an open converts its window of messages
 * (~100 ms at 200k messages in Chromium); the next ones reuse what it
 * converted, so the user's send does not pay for it.
 */
export function prepareRequestFor(cur) {
  if (!usesEndpoint(state.settings)) return;
  const idle = window.requestIdleCallback ?? ((fn) => setTimeout(fn, 200));
  // A growing budget, one request an idle callback: each converts only the
  // messages the one before did not (they are kept), so no task is long.
  const budgets = [8, 4, 2, 1].map((d) => Math.ceil(state.settings.budget / d));
  state.timings.prepareRequest = [];
  const step = () => {
    if (state.cur !== cur || !cur.tree || state.busy || !budgets.length) return;
    const t0 = performance.now();
    try {
      cur.tree.projectFor(state.settings.api, { budget: budgets.shift() });
    } catch {
      return; // the real request reports it
    }
    state.timings.prepareRequest.push(Math.round(performance.now() - t0));
    performance.mark("request prepared");
    idle(step, { timeout: 3000 });
  };
  idle(() => loadInterchange("provider", { quiet: true }).then(() => idle(step, { timeout: 3000 }), () => {}), { timeout: 3000 });
}

/**
 * The first request in a page runs the projection's code for the first time,
 * and the browser compiles it then: 40–70 ms more in the first send's task.
 * A request for a small tree of its own (a fork, a budget) runs that code
 * once while the page is idle instead.
 */
function warmRequests() {
  const s = state.settings;
  const t0 = performance.now();
  const t = new SessionTree();
  try {
    const asked = t.append({ role: "user", content: "Which branch is this?" });
    t.append({ role: "assistant", content: "The first one." });
    t.edit(asked, { role: "user", content: "And this one?" });
    t.append({ role: "assistant", content: [{ type: "text", text: "The second." }] });
    t.projectFor(s.api, { budget: s.budget });
    t.projectFor(s.api);
  } catch {
    // a settings value the real request will report; nothing to warm
  } finally {
    t.free();
    state.timings.warmRequests = performance.now() - t0;
  }
}

start();
