// The chat view: the active path as a window of messages (pathWindow: at most
// MAX in the page, moved as the user scrolls), each message with its ‹ 2/3 ›
// switcher and its actions, the preview painted while a conversation opens,
// and the composer.
import { $, el, syncChildren, formatTime } from "./dom.js";
import { DEMO_MODEL, usesEndpoint, messageText } from "./assistant.js";
import { renderMarkdown, renderMessage, copyText } from "./markdown.js";
import { state } from "./app.js";
import { queuedOf, queueSend, showQueued, waitingForReply } from "./conversations.js";
import { send, replyTo } from "./reply.js";
import { regenerate, saveEdit, editableText, branchHere, labelNode, rewind, checkout } from "./actions.js";
import { slug, download } from "./importexport.js";

// The chat view is a window over the active path (pathWindow): WINDOW messages
// when it opens or follows the leaf, STEP more as the user scrolls, at most MAX
// in the page at once.
export const WINDOW = 60;
const STEP = 40;
const MAX = 160;

export function roleName(m) {
  if (m.role === "user") return "You";
  if (m.role === "assistant") return m.model === DEMO_MODEL ? "Demo assistant \u00b7 offline" : m.model ? `Assistant \u00b7 ${m.model}` : "Assistant";
  return m.role;
}

export function renderChat() {
  const box = $("messages");
  const cur = state.cur;
  if (!cur) {
    box.replaceChildren();
    return;
  }
  if (!cur.tree) {
    if (cur.loading) return; // its preview (renderPreview) stays until the tree is there
    box.replaceChildren(el("div.card.error-card", { role: "alert" },
      el("h2", null, "This conversation could not be opened"),
      el("p", null, cur.error ?? ""),
      el("p", null, "Its saved data is kept exactly as it was. Download it to inspect or repair it elsewhere."),
      cur.raw ? el("button.primary", { type: "button", onclick: () => download(`${slug(cur.meta.title)}.unreadable.tree.json`, cur.raw) }, "Download the saved file") : null));
    return;
  }
  const t = cur.tree;
  cur.previewing = false; // an import's preview (paintSliced) stops here: this render keeps its elements
  const t0 = performance.now();
  const len = t.pathLength();
  if (!len) {
    box.replaceChildren(welcome());
    state.win = { start: 0, end: 0, follow: true };
    return;
  }
  // The window of the path to show: the leaf end when following (pathWindow(-n)
  // reads only those nodes), else the same indexes as before, clamped.
  const w = state.win;
  const anchor = w.follow ? null : topVisible(box);
  let { start, end } = w;
  if (w.follow || end === 0) {
    end = len;
    start = Math.max(0, len - Math.max(WINDOW, Math.min(MAX, w.end - w.start)));
  } else {
    end = Math.min(end, len);
    start = Math.min(start, Math.max(0, end - 1));
    if (end - start < WINDOW) end = Math.min(len, start + WINDOW);
  }
  const { ids, messages } = end === len ? t.pathWindow(start - len) : t.pathWindow(start, end);
  const leaf = end === len ? ids[ids.length - 1] : t.pathWindow(-1).ids[0];
  state.win = { start, end, follow: w.follow, len };
  const items = [];
  if (start > 0) {
    state.moreAbove ??= el("div.more-above", { "aria-hidden": "true" });
    state.moreAbove.textContent = `${start} earlier message${start === 1 ? "" : "s"} \u2191`;
    items.push(state.moreAbove);
  }
  // Messages never change, so a message's element is kept and reused while its
  // label, its alternatives and its place (the leaf or not) stay the same.
  const cache = state.views.get(cur.meta.id) ?? new Map();
  const next = new Map();
  // Each message's label and ‹ 2/3 › in one call (t.switchers); its node and
  // its siblings' ids are read only for a message not drawn as it is yet.
  const nav = t.switchers(ids);
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i];
    const m = messages[i];
    if (m.role === "system" && messageText(m).trim() === "") continue; // a hidden system node (ChatGPT's)
    const key = `${nav[i].label}\u0000${nav[i].siblings}\u0000${nav[i].index}\u0000${id === leaf}`;
    let view = cache.get(id);
    if (!view || view.key !== key) {
      const editing = view?.element.querySelector(".editor");
      view = { key, element: messageView(id, t.node(id), t.siblings(id), id === leaf) };
      if (editing) keepEditing(view.element, editing); // what the user typed there is not thrown away
    }
    view.element.classList.remove("flash", "preview");
    view.element.dataset.index = String(start + i);
    next.set(id, view);
    items.push(view.element);
  }
  state.views = new Map([[cur.meta.id, next]]);
  if (end < len) {
    state.moreBelow ??= el("div.more-below", { "aria-hidden": "true" });
    state.moreBelow.textContent = `${len - end} later message${len - end === 1 ? "" : "s"} \u2193`;
    items.push(state.moreBelow);
  }
  // The reply on its way, under the message it answers: not on another branch the user went to.
  if (state.busy && end === len && (state.replyUpTo === undefined || t.pathIndex(state.replyUpTo) >= 0)) {
    items.push(el(`div.msg.assistant.typing${state.stream ? ".streaming" : ""}`, { "aria-busy": "true" },
      el("div.msg-head", null, el("span.role", null, usesEndpoint(state.settings) ? state.settings.model : "Demo assistant \u00b7 offline")),
      el("div.msg-body", { dir: "auto" }, state.stream ? renderMarkdown(state.stream) : null),
      el("div.dots", { "aria-label": "Writing a reply" }, el("span"), el("span"), el("span"))));
  }
  state.painting = true;
  // While a reply is on its way the actions wait: toggled here, so that the
  // elements of the messages are kept.
  const busy = !!state.busy;
  for (const v of next.values()) {
    if (v.busy === busy) continue;
    v.busy = busy;
    for (const b of v.element.querySelectorAll("button.act")) b.disabled = busy || b.dataset.edge === "1";
    const r = v.element.querySelector('[data-action="reply"]');
    if (r) r.hidden = busy;
  }
  syncChildren(box, items); // only what changed moves
  if (w.follow) box.scrollTop = box.scrollHeight;
  else if (anchor) {
    const e = box.querySelector(`[data-index="${anchor.index}"]`);
    if (e) box.scrollTop = e.offsetTop - anchor.offset;
  }
  state.painting = false;
  state.timings.chatWindow = performance.now() - t0;
}

/**
 * The last messages of a conversation as stored (store.tail), painted before
 * its tree is loaded: read-only (their actions wait), replaced by renderChat
 * once the tree is there.
 */
export async function renderPreview(tail, cur) {
  const box = $("messages");
  // tail: an open's { nodes } from the records, or an import's { count, at(i) }.
  const n = tail.nodes?.length ?? tail.count;
  const at = tail.at ?? ((i) => tail.nodes[i]);
  // Kept as the chat view's elements of these messages (state.views, under the
  // key renderChat gives them): once the tree is loaded, renderChat reuses them
  // instead of rendering the same messages again.
  const views = new Map();
  state.views = new Map([[cur.meta.id, views]]);
  box.replaceChildren();
  $("input").disabled = true;
  $("send").disabled = true;
  $("input").placeholder = "Opening the conversation\u2026";
  // From the leaf up, a few messages a task (their Markdown is most of the
  // cost): the screenful at the bottom shows first, then as many as fit in
  // PREVIEW_SLICE_MS a task, so that no task is long on a busy machine (12
  // at a time took 133 ms there).
  for (let to = n; to > 0;) {
    const first = to === n;
    if (!first) {
      await new Promise((resolve) => setTimeout(resolve, 0));
      if (state.cur !== cur || cur.tree && !cur.previewing) return; // switched away, or renderChat took over
    }
    const t0 = performance.now();
    const items = [];
    const stop = first ? Math.max(0, n - PREVIEW_FIRST) : 0; // the first task: the screenful, whatever it costs
    while (to > stop && (first || items.length === 0 || performance.now() - t0 < PREVIEW_SLICE_MS)) {
      const i = --to;
      const { id, node, siblings } = at(i);
      const m = node.message ?? {};
      if (m.role === "system" && messageText(m).trim() === "") continue;
      const sib = siblings ? { siblings, index: Math.max(0, siblings.indexOf(id)) } : { siblings: [id], index: 0 };
      const label = node.label ?? null;
      const view = messageView(id, { message: m, label, createdAtMs: node.created_at_ms ?? 0 }, sib, i === n - 1);
      for (const b of view.querySelectorAll("button.act")) b.disabled = true;
      view.classList.add("preview");
      views.set(id, { key: `${label}\u0000${sib.siblings.length}\u0000${sib.index}\u0000${i === n - 1}`, element: view, busy: undefined });
      items.push(view);
    }
    box.prepend(...items.reverse());
    box.scrollTop = box.scrollHeight;
    performance.mark(`preview: ${n - to} painted`);
    if (!cur.previewed) {
      // The last messages are there: the composer takes a send (it waits for the tree).
      cur.previewed = true;
      cur.queued = queuedOf(cur.meta.id); // from a visit whose tab closed before the tree loaded
      if (cur.queued) showQueued(cur.queued);
      renderComposer();
    }
  }
}

// How many messages the first task of a preview renders (a screenful; it
// also pays for the Markdown renderer's first use), and how long each later
// task renders messages for.
const PREVIEW_FIRST = 4;
const PREVIEW_SLICE_MS = 25;

/** The first message shown at the top of the chat view: its path index and offset. */
function topVisible(box) {
  const top = box.scrollTop;
  for (const e of box.querySelectorAll("article.msg[data-index]")) {
    if (e.offsetTop + e.offsetHeight > top) return { index: Number(e.dataset.index), offset: e.offsetTop - top };
  }
  return null;
}

/** Moves the chat view's window as the user scrolls: more above near the top, more below near the bottom. */
function onChatScroll() {
  const box = $("messages");
  const t = state.cur?.tree;
  if (!t || state.painting || state.cur.previewing) return; // a preview's scrolling moves no window
  const w = state.win;
  const len = w.len ?? t.pathLength(); // as of the last render: every change renders
  const fromBottom = box.scrollHeight - box.scrollTop - box.clientHeight;
  if (box.scrollTop < 300 && w.start > 0) {
    const start = Math.max(0, w.start - STEP);
    state.win = { start, end: Math.min(w.end, start + MAX), follow: false };
    renderChat();
  } else if (fromBottom < 300 && w.end < len) {
    const end = Math.min(len, w.end + STEP);
    state.win = { start: Math.max(w.start, end - MAX), end, follow: false };
    renderChat();
  } else {
    w.follow = w.end === len && fromBottom < 40;
  }
}

/** Shows node id of the active path in the chat view, centered and flashing. */
export function reveal(id) {
  const t = state.cur?.tree;
  if (!t) return;
  let e = $("messages").querySelector(`[data-id="${CSS.escape(id)}"]`);
  if (!e) {
    const i = t.pathIndex(id);
    if (i < 0) return;
    const len = t.pathLength();
    const start = Math.max(0, i - Math.floor(WINDOW / 2));
    state.win = { start, end: Math.min(len, start + WINDOW), follow: false };
    renderChat();
    e = $("messages").querySelector(`[data-id="${CSS.escape(id)}"]`);
  }
  state.win.follow = false;
  e?.scrollIntoView({ block: "center" });
  e?.classList.add("flash");
}

function welcome() {
  const ideas = ["Plan a weekend trip to Lisbon", "Explain branching in one paragraph?", "Write a haiku about trees"];
  return el("div.card.welcome", null,
    el("h2", null, "A chat that keeps every branch"),
    el("p", null, "Every message is a node of a tree. Edit a message, regenerate a reply or rewind to any point: nothing is lost, and the \u2039 2/3 \u203a arrows bring back each alternative with its own continuation."),
    el("p.muted", null, usesEndpoint(state.settings)
      ? `Replies come from ${state.settings.model}.`
      : "Replies come from the built-in demo assistant: offline and deterministic. Configure any OpenAI-compatible endpoint in Settings."),
    el("div.ideas", null, ...ideas.map((s) => el("button.chip", { type: "button", onclick: () => { $("input").value = s; $("input").focus(); autosize(); } }, s))));
}

export function messageView(id, node, sib, isLeaf) {
  const m = node.message;
  const act = (label, action, fn, title) => el("button.act", { type: "button", "data-action": action, title: title ?? label, onclick: fn }, label);
  const actions = [];
  if (sib.siblings.length > 1) {
    // A group, so that its name ("Alternative 2 of 3") is read: a plain span's aria-label is not.
    actions.push(el("span.switcher", { role: "group", "aria-label": `Alternative ${sib.index + 1} of ${sib.siblings.length}` },
      el("button.act", { type: "button", "data-action": "prev", "data-edge": sib.index === 0 ? "1" : "0", "aria-label": "Previous alternative", onclick: () => checkout(sib.siblings[sib.index - 1], "switchSibling") }, "\u2039"),
      el("span.count", { "aria-hidden": "true" }, `${sib.index + 1}/${sib.siblings.length}`),
      el("button.act", { type: "button", "data-action": "next", "data-edge": sib.index === sib.siblings.length - 1 ? "1" : "0", "aria-label": "Next alternative", onclick: () => checkout(sib.siblings[sib.index + 1], "switchSibling") }, "\u203a")));
  }
  const view = el(`article.msg.${m.role === "user" ? "user" : m.role === "assistant" ? "assistant" : "other"}${m.incomplete ? ".incomplete" : ""}`, { "data-id": id, tabIndex: -1 });
  const body = el("div.msg-body", { dir: "auto" }, renderMessage(m));
  const copy = act("Copy", "copy", () => copyText(copy, messageText(m)), "Copy the message's text");
  actions.push(copy);
  actions.push(act("Edit", "edit", () => editInPlace(view, body, id, node)));
  if (m.role === "assistant") actions.push(act("Regenerate", "regenerate", () => regenerate(id)));
  if (m.role === "user" && isLeaf) actions.push(act("Get a reply", "reply", () => replyTo(id)));
  if (!isLeaf) actions.push(act("Rewind here", "rewind", () => rewind(id), "Continue from this message; the later ones stay on a branch"));
  actions.push(act("Branch here", "branch", () => branchHere(id), "Start a named branch at this message"));
  actions.push(act(node.label ? "Relabel" : "Label", "label", () => labelNode(id)));
  view.append(
    el("div.msg-head", null,
      el("span.role", null, roleName(m)),
      node.label ? el("span.label-chip", { title: "Label" }, node.label) : null,
      m.incomplete ? el("span.msg-status", { title: "The reply was cut short; regenerate to try again" }, `incomplete (${m.stop_reason ?? "stopped"})`) : null,
      timeOf(node.createdAtMs)),
    body,
    el("div.msg-actions", null, ...actions));
  return view;
}

/**
 * A message's time element; none for no time, or one Date cannot hold (a
 * file's created_at_ms past ±8.64e15: toISOString threw there).
 */
function timeOf(ms) {
  const at = ms ? new Date(ms) : null;
  if (!at || Number.isNaN(at.getTime())) return null;
  return el("time", { dateTime: at.toISOString(), title: formatTime(fullTime, ms) }, stamp(ms));
}

/**
 * A message's time as its head shows it: the time of day for today's, with
 * the day before it for an earlier one, and the year for another year's (an
 * imported chat's messages showed "09:00 AM" for a day of 2024). A time of 0
 * is a format's "no time" (ids and times generated): nothing is shown.
 */
function stamp(ms) {
  const at = new Date(ms);
  const now = new Date();
  const time = formatTime(timeOfDay, ms);
  if (at.toDateString() === now.toDateString()) return time;
  const day = formatTime(at.getFullYear() === now.getFullYear() ? dayOfYear : dayAndYear, ms);
  return `${day}, ${time}`;
}

// The formatters of a message's times, made once: Date's toLocale*String with
// options makes one each call (~0.1 ms each, three a message drawn).
const timeOfDay = new Intl.DateTimeFormat([], { hour: "2-digit", minute: "2-digit" });
const dayOfYear = new Intl.DateTimeFormat([], { month: "short", day: "numeric" });
const dayAndYear = new Intl.DateTimeFormat([], { year: "numeric", month: "short", day: "numeric" });
const fullTime = new Intl.DateTimeFormat([], { dateStyle: "full", timeStyle: "short" });

/** Opens the editor of a message's new element with what its old element's editor held. */
function keepEditing(element, old) {
  element.querySelector('[data-action="edit"]').click();
  const area = element.querySelector(".editor");
  area.value = old.value;
  if (document.activeElement !== old) area.blur();
}

function editInPlace(view, body, id, node) {
  if (view.querySelector(".editor")) return;
  // Only the text is edited: the message's other parts (tool calls, images) are kept as they are.
  const area = el("textarea.editor", { value: editableText(node.message), rows: 3, "aria-label": "Edit the message" });
  const isUser = node.message.role === "user";
  // Closed unsaved, the focus goes back where it was (the composer after ↑, the Edit button), else to the message.
  const back = document.activeElement;
  const close = () => {
    form.replaceWith(body);
    (back?.isConnected && back !== document.body ? back : view).focus({ preventScroll: true });
  };
  const form = el("form.edit-form", null, area, el("div.edit-buttons", null,
    el("button.ghost", { type: "button", onclick: close }, "Cancel"),
    el("button.primary", { type: "submit", "data-action": "save-edit" }, isUser ? "Save & send" : "Save as a new version")));
  form.onsubmit = (e) => {
    e.preventDefault();
    const text = area.value.trim();
    if (text === "") return;
    // An editor opened before a reply began stays open (keepEditing): its
    // save would start a second reply beside it, which Stop cannot reach.
    if (waitingForReply()) return; // says so: the text stays in the editor
    saveEdit(id, node, text);
  };
  area.onkeydown = (e) => {
    if (e.key === "Enter" && !e.shiftKey) {
      e.preventDefault();
      form.requestSubmit();
    } else if (e.key === "Escape") close();
  };
  body.replaceWith(form);
  area.focus();
  area.style.height = `${Math.min(300, area.scrollHeight + 4)}px`;
}

let composerFocusWanted = false;

/** Focuses the composer, now or, while it is disabled (a chat opening), once it takes input. */
export function focusComposer() {
  composerFocusWanted = $("input").disabled;
  $("input").focus({ preventScroll: true });
}

export function renderComposer() {
  const busy = !!state.busy;
  const cur = state.cur;
  // Also while the conversation opens, once its last messages are painted: a
  // send then waits for the tree (queueSend), one at a time. Not in one that
  // failed to open: a send there would go nowhere.
  const ready = !!cur?.tree || (!!cur?.previewed && !!cur.loading && !cur.queued);
  $("input").disabled = !ready;
  // A focus asked of it while it could take none (a chat opened by keyboard
  // from the phone's drawer: the focus was dropped on the page).
  if (ready && composerFocusWanted) {
    composerFocusWanted = false;
    if (document.activeElement === document.body) $("input").focus({ preventScroll: true });
  }
  $("input").placeholder = cur && !cur.tree && !cur.loading ? "This conversation could not be opened"
    : usesEndpoint(state.settings) ? `Message ${state.settings.model}\u2026` : "Message the demo assistant\u2026";
  // Send and Stop take each other's place: the focus on the one hidden goes to the composer.
  const hiding = busy ? $("send") : $("stop");
  const focused = document.activeElement === hiding;
  $("send").hidden = busy;
  $("stop").hidden = !busy;
  if (focused) $("input").focus({ preventScroll: true });
  $("send").disabled = !ready;
}

function autosize() {
  const a = $("input");
  a.style.height = "auto";
  a.style.height = `${Math.min(200, a.scrollHeight + 2)}px`;
}

/** The composer (send, Enter, its height), the chat view's scrolling and Stop. */
export function wireChat() {
  $("composer").addEventListener("submit", (e) => {
    e.preventDefault();
    const text = $("input").value.trim();
    if (text === "") return;
    if (waitingForReply()) return; // says so: the text stays in the box
    const cur = state.cur;
    if (cur && !cur.tree && cur.loading) {
      if (!cur.previewed || cur.queued) return;
      $("input").value = "";
      autosize();
      queueSend(cur, text);
      return;
    }
    if (!cur?.tree) return; // nowhere to send it (a conversation that failed to open): the text stays
    $("input").value = "";
    autosize();
    send(text);
  });
  $("input").addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      $("composer").requestSubmit();
    }
  });
  $("input").addEventListener("input", autosize);
  $("messages").addEventListener("scroll", () => {
    if (!state.scrollFrame) state.scrollFrame = requestAnimationFrame(() => { state.scrollFrame = 0; onChatScroll(); });
  }, { passive: true });
  $("stop").onclick = () => state.busy?.abort();
}
