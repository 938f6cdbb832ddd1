// Conversations kept in IndexedDB through sessiontree/idb: open one (its last
// messages painted from their records first, the tree loaded in slices),
// create one, "+ New chat", close one, the save after every change, a send
// made while the tree is still loading, and another tab's changes arriving.
import { SessionTree } from "./sessiontree.js";
import { newestFirst } from "./idb.js";
import { $, toast, showError, describe, openForm, sentence, remember } from "./dom.js";
import { messageText } from "./assistant.js";
import { state, renderAll, renderHeader, prepareRequestFor } from "./app.js";
import { WINDOW, renderPreview, messageView, renderComposer } from "./chat.js";
import { reply, priorTo, appendAfter, replyTo, restorePartial } from "./reply.js";
import { change } from "./actions.js";
import { renderConversations, renderBranches, clearSearch, searchAgain, setDrawer } from "./sidebar.js";
import { forgetTree, renderTree } from "./treepanel.js";

export const CURRENT_KEY = "sessiontree-demo.current";

// A send made while its conversation was still opening (the tree not loaded):
// kept here, per conversation, until the tree is there and takes it, so that
// closing the tab meanwhile loses nothing (the next open applies it).
const QUEUED_KEY = "sessiontree-demo.queued.";
// Tests: hold an open's or an import's tree back this many ms after its preview (a slow load, on purpose).
const HOLD_OPEN_KEY = "sessiontree-demo.test-hold-open-ms";

function titleFrom(tree) {
  // The conversation's first message ever (an edited first message stays a sibling of it).
  const root = tree.pathLength() ? tree.pathWindow(0, 1).ids[0] : null;
  const first = root ? tree.node(tree.siblings(root).siblings[0]) : null;
  const text = first ? messageText(first.message).replace(/\s+/g, " ").trim() : "";
  if (text === "") return "New chat";
  return text.length > 48 ? text.slice(0, 47) + "\u2026" : text;
}

/**
 * Saves the open conversation after every change (the active branch too). The
 * save runs in the next task, after the change is drawn; flush() runs it now.
 */
export function persist() {
  const cur = state.cur;
  if (!cur?.tree) return;
  cur.meta.updatedAt = Date.now();
  if (cur.meta.autoTitle && (cur.meta.title === "New chat" || cur.tree.pathLength() <= 2)) cur.meta.title = titleFrom(cur.tree);
  state.dirty = cur;
  state.pending++;
  renderSaveState();
  state.flushTimer ||= setTimeout(flush, 0);
}

export function flush() {
  clearTimeout(state.flushTimer);
  state.flushTimer = 0;
  const cur = state.dirty;
  if (!cur) return state.writes;
  state.dirty = null;
  state.pending--;
  if (!cur.conv || cur.conv.closed) return state.writes; // closed since: its last state was saved then
  if (cur.deleted) return state.writes; // deleted in another tab: nothing of it is stored (keepDeleted)
  // Only the rows this change touched (a send: the new node, its parent, the branch);
  // an import's rows still being written take it with them.
  const conv = cur.conv;
  return write(async () => {
    const r = await conv.save();
    state.timings.takeChanges = r.takeMs;
    state.timings.rowsWritten = r.rows;
  });
}

export function write(job) {
  state.pending++;
  renderSaveState();
  state.writes = state.writes.then(job).then(
    () => { state.pending--; state.unsaved = null; renderSaveState(); },
    (e) => {
      state.pending--;
      state.unsaved = e;
      renderSaveState("failed");
      showError(sentence(`Could not save to this browser's storage: ${describe(e)}`) + " Export the conversation to keep a copy.");
    },
  );
  return state.writes;
}

/**
 * Whether the open conversation may be left: yes, unless its last write
 * failed (storage full) and a write now still fails; then the user is asked,
 * since closing it keeps its unsaved messages only where the browser can
 * still journal them. Resolves to the user's answer.
 */
export async function mayLeave() {
  if (!state.unsaved || !state.cur?.conv) return true;
  flush();
  await write(() => state.cur.conv.save()).catch(() => {});
  if (!state.unsaved) return true;
  const v = await openForm({
    title: "This chat is not saved",
    fields: [{ type: "note", text: sentence(`The browser's storage refused its last changes (${describe(state.unsaved)})`) + " If you leave it now, they are kept only if the browser can still journal them. Export the conversation first (Export in the menu), or free some space, then try again." }],
    ok: "Leave anyway",
    danger: true,
  });
  return v !== null;
}

// Called for each write and each conversation an import reads: written only
// when it changes, the count formatted by one formatter (toLocaleString made
// one each call: 0.6 s of a 2,001-chat import's page).
const COUNT = new Intl.NumberFormat("en-US");
export function renderSaveState(failed) {
  const s = $("save-state");
  let text;
  if (failed) text = "Not saved";
  else if (state.cur?.deleted) text = "Not stored (deleted in another tab)";
  else if (!state.store.persistent) text = "Not stored (no IndexedDB)";
  else if (state.importing) text = `Importing\u2026 ${COUNT.format(state.importing.read)} read`;
  else text = state.pending ? "Saving\u2026" : "Saved";
  const now = failed ? "failed" : state.pending || state.importing ? "saving" : "saved";
  if (s.textContent !== text) s.textContent = text;
  if (s.dataset.state !== now) s.dataset.state = now;
}

/** Whether a reply is on its way (then the conversation stays open): tells the user so. */
export function waitingForReply() {
  if (state.busy) toast("A reply is on its way: wait for it, or stop it first.", "warn");
  return !!state.busy;
}

/** Tests: resolves after the hold of HOLD_OPEN_KEY (an open's or an import's tree kept back after its preview). */
export async function heldForTests() {
  const hold = Number(localStorage.getItem(HOLD_OPEN_KEY));
  if (hold > 0) await new Promise((resolve) => setTimeout(resolve, hold));
}

/**
 * Makes cur (a conversation whose tree is not there yet) the one shown, in
 * place of the one left (written and closed): the composer waits for its last
 * messages (or its tree, in a chat with none: a send before them went
 * nowhere, its text left in the box), the tree view and the branches stay
 * empty until its tree is there (never the conversation left's). Returns cur.
 */
function beginOpening(cur) {
  flush();
  release(state.cur);
  state.cur = cur;
  if ($("search").value !== "") searchAgain(); // the chat left's results go (no tree to search until it is open)
  renderComposer();
  state.win = { start: 0, end: 0, follow: true };
  renderTree();
  renderBranches();
  return cur;
}

/**
 * cur's tree is there (adopted): the chat is painted in a task of its own (a
 * load's last slice, and at the first open the module's start, filled this
 * one), then a send made while it opened is sent.
 */
async function showOpened(cur) {
  cur.loading = false;
  await new Promise((resolve) => setTimeout(resolve, 0));
  if (state.cur !== cur) return; // its queued send, if any, waits for the next open
  // A chat the user picked (from a search's results or the list) ends the
  // search; one typed while it opened, or typed before an open the page made
  // (its first, after a delete), is the user's next step: kept.
  if (cur.searched !== undefined && $("search").value === cur.searched) clearSearch();
  renderAll();
  if ($("search").value !== "") searchAgain(); // its results, now that there is a tree to search
  performance.mark("open: rendered");
  restorePartial(cur);
  sendQueued(cur);
}

/** Opens conversation id; picked says the user picked it (the search shown then ends once it is open). */
export async function openConversation(id, { picked = false } = {}) {
  const meta = state.convs.find((c) => c.id === id);
  if (!meta || waitingForReply()) return;
  if (state.unsaved && !(await mayLeave())) return; // asked only then: an open begins in the click's task
  setDrawer(false);
  const searched = picked ? $("search").value : undefined;
  const cur = beginOpening({ meta, conv: null, tree: null, error: null, raw: null, loading: true, searched });
  remember(CURRENT_KEY, id);
  cur.opening = readInto(cur, id, meta);
  await cur.opening;
}

/** Reads conversation id into cur (state.cur), painting its last messages first; stops where the user opened another. */
async function readInto(cur, id, meta) {
  const t0 = performance.now();
  // The last messages first, from their own records (a few reads whatever the
  // size), painted read-only while the whole conversation loads; then
  // sessiontree/idb reads and joins the stored records in its worker, and the
  // page only loads their bytes, in slices (store.open).
  let conv = null;
  try {
    conv = await state.store.open(id, {
      autosave: false, // persist() writes after every change (conv.save)
      sliceMs: LOAD_SLICE_MS,
      tailCount: WINDOW,
      onTail: async (tail) => {
        if (state.cur !== cur) return;
        renderHeader();
        renderConversations();
        await renderPreview(tail, cur);
        if (state.cur !== cur) return;
        state.timings.openPreview = performance.now() - t0;
        await heldForTests();
      },
    });
    if (conv === null) throw new Error("its saved tree is missing from storage");
  } catch (e) {
    if (state.cur !== cur) return;
    cur.error = describe(e);
    cur.raw = e?.file ?? null;
  }
  if (state.cur !== cur) {
    conv?.close();
    return;
  }
  if (conv) {
    conv.meta = meta; // the listed record: the page's changes to it are written with the rows
    adopt(cur, conv);
    state.timings.openRead = conv.timings.read !== undefined ? (conv.timings.open - conv.timings.load) : undefined;
    state.timings.openRows = conv.timings.read; // the worker's IndexedDB read
    state.timings.openJoin = conv.timings.join; // and its fileFromRows
    state.timings.openLoad = conv.timings.load;
  }
  state.timings.open = performance.now() - t0;
  performance.mark("open: tree loaded");
  await showOpened(cur);
}

/**
 * Makes conv (sessiontree/idb) cur's conversation: its tree, and what another
 * tab's changes to it do here (applied in place, merged, or a reload's tree).
 */
function adopt(cur, conv) {
  cur.conv = conv;
  cur.tree = conv.tree;
  prepareRequestFor(cur);
  conv.subscribe((e) => {
    if (state.cur !== cur) return;
    if (e.kind === "error") {
      showError(`Could not save to this browser's storage: ${describe(e.error)}. Export the conversation to keep a copy.`);
      return;
    }
    if (e.kind === "deleted") {
      // Deleted in another tab: nothing more of it is stored; another is shown.
      toast(`\u201c${conv.meta.title || "This conversation"}\u201d was deleted in another tab.`, "warn");
      state.convs = state.convs.filter((c) => c.id !== conv.id);
      if (state.busy) {
        // Shown until its reply ends, then kept as a new conversation (keepDeleted).
        cur.deleted = true;
        renderConversations();
        renderSaveState();
        return;
      }
      conv.close();
      state.cur = null;
      if (state.convs.length) openConversation(state.convs[0].id);
      else createConversation(new SessionTree());
      return;
    }
    cur.tree = conv.tree; // a reload's tree (the one before is freed)
    if (e.kind === "merged") announceConflicts(e.report);
    renderAll();
  });
}

/**
 * The open conversation was deleted in another tab while a reply came into
 * it: what it holds now (the reply too) becomes a new conversation, opened in
 * its place, and the user is told, rather than the work going with it.
 */
export async function keepDeleted(cur) {
  const title = cur.meta.title;
  await createConversation(cur.tree.clone(), title);
  toast(`\u201c${title}\u201d was deleted in another tab while its reply came: it is kept here as a new conversation.`, "warn");
}

/** The send waiting for conversation id to open (queueSend), or null. */
export function queuedOf(id) {
  try {
    const q = JSON.parse(localStorage.getItem(QUEUED_KEY + id) ?? "null");
    return q && typeof q.text === "string" && Number.isFinite(q.at) ? q : null;
  } catch {
    return null;
  }
}

/**
 * The sends that waited for a conversation that is not there (their tab
 * closed during an import's preview, before the import was stored, or the
 * import was interrupted), oldest first, taken out of localStorage. One made
 * in the last ORPHAN_MS is left: another tab's import may still be checked.
 */
export function orphanedSends(listed) {
  const known = new Set(listed);
  const out = [];
  const keys = [];
  for (let i = 0; i < localStorage.length; i++) keys.push(localStorage.key(i));
  for (const key of keys) {
    if (!key?.startsWith(QUEUED_KEY)) continue;
    const id = key.slice(QUEUED_KEY.length);
    if (known.has(id)) continue;
    const q = queuedOf(id);
    if (q && Date.now() - q.at < ORPHAN_MS) continue;
    localStorage.removeItem(key);
    if (q && q.text.trim() !== "") out.push(q);
  }
  return out.sort((a, b) => a.at - b.at);
}

/** Drops the send waiting for conversation id (sent, given back, or deleted with it). */
export function forgetQueued(id) {
  localStorage.removeItem(QUEUED_KEY + id);
}

// ORPHAN_MS is the age from which a send whose conversation is not stored is
// taken as left behind: an import's check takes seconds, not a minute.
const ORPHAN_MS = 60_000;

/**
 * A send made while cur opens, before its tree is loaded: shown at once
 * below the preview, kept in localStorage, and sent (appended, then the
 * reply asked for) by sendQueued once the tree is there. One waits at a time.
 */
export function queueSend(cur, text) {
  const q = { text, at: Date.now() };
  remember(QUEUED_KEY + cur.meta.id, JSON.stringify(q));
  cur.queued = q;
  showQueued(q);
  state.timings.queuedShown = performance.now();
  renderComposer();
}

/** Paints a waiting send below the preview: read-only, like the preview's messages. */
export function showQueued(q) {
  const view = messageView(`queued-${q.at}`, { message: { role: "user", content: q.text }, label: null, createdAtMs: q.at }, { siblings: [], index: 0 }, true);
  for (const b of view.querySelectorAll("button.act")) b.disabled = true;
  view.classList.add("preview", "queued");
  $("messages").append(view);
  $("messages").scrollTop = $("messages").scrollHeight;
}

/** Sends what waited for cur's tree (queueSend, in this tab or one closed before it loaded). */
function sendQueued(cur) {
  const q = queuedOf(cur.meta.id);
  cur.queued = null;
  if (!q || state.cur !== cur || !cur.tree) return;
  forgetQueued(cur.meta.id);
  state.win.follow = true;
  const id = change("send", (t) => t.append({ role: "user", content: q.text }, q.at));
  if (id === undefined) return;
  state.timings.queuedSent = performance.now();
  reply({ prior: priorTo(cur.tree, id, true), upTo: id, again: () => replyTo(id) }, (t, m) => appendAfter(t, id, m));
}

// A load on the page runs in slices of this long (store.open's sliceMs): well
// under the 50 ms of a long task, a slice ending at the module's next yield point.
export const LOAD_SLICE_MS = 20;

/** Stores tree as a new conversation and lists it (and opens it, unless open is false); its meta, or undefined when it was not made (a reply on its way, or the open chat's changes kept). */
export async function createConversation(tree, title, { open = true, list = true, at = Date.now(), updatedAt = at, inParts = false } = {}) {
  if (open && (waitingForReply() || (state.unsaved && !(await mayLeave())))) {
    tree.free();
    return;
  }
  // at: its time in the list (newest first; an import of many gives each its place in the file)
  // Its id is the store's to give (create() then takes it for new without reading the store).
  const meta = { title: title ?? titleFrom(tree), autoTitle: title === undefined, createdAt: at, updatedAt };
  meta.root = tree.pathLength() ? tree.pathWindow(0, 1).ids[0] : null;
  const t1 = performance.now();
  // Written in the background ("Saving…"): the conversation shows at once.
  // inParts: a large tree's rows written a part at a time (one write of 53k rows was a task of 1.3 s).
  const conv = await state.store.create(tree, meta, { autosave: false, inParts });
  write(() => conv.saved()).then(() => { state.timings.createWrite = performance.now() - t1; });
  listFirst(meta);
  if (!open) {
    conv.close();
    if (list) renderConversations(); // else the caller lists them once (an import of many)
    return meta;
  }
  openCreated(meta, conv, true);
  return meta;
}

/**
 * Puts meta first in the page's list, in place of the copy of it the store's
 * list may have brought in already (takeStoreList).
 */
export function listFirst(meta) {
  const at = state.convs.findIndex((c) => c.id === meta.id);
  if (at >= 0) state.convs.splice(at, 1);
  state.convs.unshift(meta);
}

// The page's list follows the store's (store.subscribe): conversations made,
// imported, renamed or deleted in another tab show here too. Before, a tab
// listed what it read at its start and what it made itself: another tab's
// import stayed unlisted until a reload, and imported here again it was
// listed twice. The page keeps its own copies of the records (it edits a
// title in place), so the store's list comes in as: an id not listed here
// is added; a record written since, its fields taken (not into the open
// conversation's, which takes them itself); an id the store listed and lists
// no more, removed (not the open conversation: it says so itself). Drawn at
// most every LIST_MS: an import in another tab lists hundreds a second.
const LIST_MS = 250;
// The store's records as last taken, by id: what the list shows of each. A
// record is taken into the page's copy when the store's changed since (a
// rename there), never because the page's own copy differs (its change on
// its way to the store).
let storeSeen = new Map();
let listTimer = null;
// What a record shows, as sessiontree/idb's list compares them: but for its rev
// and active branch, whatever the order of its fields (its root is how an
// import finds the chat it merges into).
// Kept by record: the store replaces a record it changes (its records are
// frozen), and a list of 8,000 chats took 16 ms to compare each time it moved.
const shownOf = ({ rev, activeBranch, ...m }) => JSON.stringify(Object.keys(m).sort().map((k) => [k, m[k]]));
const shownCache = new WeakMap();
function shown(m) {
  let s = shownCache.get(m);
  if (s === undefined) shownCache.set(m, (s = shownOf(m)));
  return s;
}

/** Has the page's list follow the store's from now (app.js, once the list is read). */
export function followStore() {
  storeSeen = new Map(state.store.conversations.map((m) => [m.id, shown(m)]));
  state.store.subscribe(() => {
    listTimer ??= setTimeout(takeStoreList, LIST_MS);
  });
}

/** Takes the store's list into the page's now (and draws it, unless an import here lists its own at its end). */
export function takeStoreList() {
  clearTimeout(listTimer);
  listTimer = null;
  const list = state.store.conversations;
  const seen = new Map(list.map((m) => [m.id, shown(m)]));
  const mine = new Map(state.convs.map((c) => [c.id, c]));
  let changed = false;
  for (const m of list) {
    const c = mine.get(m.id);
    if (!c) {
      state.convs.push({ ...m });
      changed = true;
    } else if (c !== state.cur?.meta && storeSeen.has(m.id) && storeSeen.get(m.id) !== seen.get(m.id)) {
      Object.assign(c, m);
      changed = true;
    }
  }
  const gone = new Set(state.convs.filter((c) => storeSeen.has(c.id) && !seen.has(c.id) && c !== state.cur?.meta));
  if (gone.size) {
    state.convs = state.convs.filter((c) => !gone.has(c));
    changed = true;
  }
  storeSeen = seen;
  if (!changed) return;
  state.convs.sort(newestFirst);
  if (!state.importing) renderConversations();
}

/** Whether a conversation has no message and no system prompt of its own: a "+ New chat" reuses it. */
function blank(meta, tree) {
  if (meta.system) return false;
  return tree ? tree.pathLength() === 0 && tree.stats().nodes === 0 : meta.root === null;
}

/**
 * "+ New chat": the open conversation when it is blank, else a blank one
 * already listed (the newest), else a new one; never a second empty "New chat".
 */
export async function newChat() {
  if (waitingForReply()) return;
  const cur = state.cur;
  if (cur?.tree && blank(cur.meta, cur.tree)) return;
  const other = state.convs.find((c) => c !== cur?.meta && blank(c));
  if (other) {
    await openConversation(other.id);
    // Its stored meta said empty: another tab may have written since.
    if (state.cur?.meta === other && (!state.cur.tree || blank(other, state.cur.tree))) return;
  }
  await createConversation(new SessionTree());
}

/**
 * An import's last messages, read from the file (sessiontree/idb's onTail)
 * while it is checked and loaded: painted read-only as an open's preview, the
 * composer taking a send that waits for the tree (queueSend). The conversation
 * is listed once it is made (importDone); returns what state.cur becomes.
 */
export function previewImport(meta, tail) {
  const cur = { meta: { ...meta }, conv: null, tree: null, error: null, raw: null, loading: true, left: state.cur?.meta.id ?? null };
  // What waits for the conversation to open (an export clicked meanwhile).
  cur.opening = new Promise((resolve) => { cur.opened = resolve; });
  beginOpening(cur);
  renderHeader();
  renderConversations();
  renderPreview(tail, cur);
  return cur;
}

/**
 * The import previewImport showed is made (conv, written in parts from now):
 * listed and opened in the preview's place, a send made meanwhile sent. When
 * the user opened another conversation meanwhile, it is only listed.
 */
export async function importDone(cur, conv) {
  const meta = conv.meta;
  listFirst(meta);
  if (state.cur !== cur) {
    cur.opened();
    conv.close();
    renderConversations();
    return;
  }
  cur.meta = meta;
  adopt(cur, conv);
  remember(CURRENT_KEY, meta.id);
  cur.opened();
  await showOpened(cur);
}

/**
 * An import previewImport showed failed: the conversation left before it is
 * opened again, and a send typed meanwhile goes back into the composer.
 */
export async function importFailed(cur) {
  const q = queuedOf(cur.meta.id);
  forgetQueued(cur.meta.id);
  try {
    if (state.cur !== cur) return;
    const back = state.convs.find((c) => c.id === cur.left) ?? state.convs[0];
    if (back) await openConversation(back.id);
    else await createConversation(new SessionTree());
    if (q) $("input").value = q.text;
  } finally {
    cur.opened();
  }
}

/** Opens a conversation just made (listed first), conv (sessiontree/idb); listed says whether it is in the list already. */
export function openCreated(meta, conv, listed = false, { sliced = false } = {}) {
  if (!listed) listFirst(meta);
  flush();
  release(state.cur);
  const cur = state.cur = { meta, conv: null, tree: null, error: null, raw: null };
  adopt(cur, conv);
  state.win = { start: 0, end: 0, follow: true };
  forgetTree();
  remember(CURRENT_KEY, meta.id);
  clearSearch();
  if (sliced) paintSliced(cur);
  else renderAll();
  return cur;
}

/**
 * An import's first paint: its last messages a few a task, from the leaf up
 * (renderPreview, as an open paints them from their records), then the chat
 * view, which keeps their elements: the window in one task took 135-411 ms
 * (the first Markdown of the page's life among it). Any render before the
 * preview is done (a send) takes over from it.
 */
function paintSliced(cur) {
  const t = cur.tree;
  const { ids, messages } = t.pathWindow(-Math.min(t.pathLength(), WINDOW));
  const nav = t.switchers(ids);
  // Each message's node as an open's records give it, read when the task
  // that paints it comes.
  const at = (i) => {
    const id = ids[i];
    return { id, node: { message: messages[i], label: nav[i].label, created_at_ms: t.node(id).createdAtMs }, siblings: nav[i].siblings > 1 ? t.siblings(id).siblings : null };
  };
  cur.previewing = true;
  for (const render of [renderHeader, renderConversations, renderBranches, renderComposer, renderTree]) render();
  renderPreview({ count: ids.length, at }, cur).then(() => {
    if (state.cur === cur && cur.previewing) renderAll();
  });
}

/** Closes a conversation that is left (sessiontree/idb writes what is pending, then frees its tree). */
function release(cur) {
  if (!cur?.conv) return;
  flush();
  cur.conv.close();
  cur.tree = null;
}

/**
 * After a merge with another tab's copy (merged with { freshNames, keepPlace }:
 * a branch both tabs moved keeps the other leaf under a fresh branch-N, and this
 * tab stays on its user's work): say what was kept where.
 */
function announceConflicts(report) {
  const kept = report.conflicts.filter((c) => c.kind === "branch").map((c) => c.keptAs);
  if (kept.length) toast(`Another tab wrote here at the same time: its work and yours are both kept (${kept.join(", ")}).`);
}
