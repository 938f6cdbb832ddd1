// The sidebar: the conversations (open, rename, delete), the branches of the
// open one (switch, summarize, delete the name, or the branch with the
// messages only it holds), and search across every conversation.
import { SessionTree } from "./sessiontree.js";
import { $, el, highlighted, openForm, toast, showError, describe, syncChildren, formatTime } from "./dom.js";
import { usesEndpoint, messageText, endpointSummarizer } from "./assistant.js";
import { plainText } from "./markdown.js";
import { confirmDeleteBranch, deleteBranchWithMessages, countMessages } from "./branching.js";
import { state, renderAll } from "./app.js";
import { persist, write, waitingForReply, openConversation, createConversation, newChat, forgetQueued } from "./conversations.js";
import { reveal, focusComposer } from "./chat.js";
import { change, checkout } from "./actions.js";

// The conversation list keeps each row while its conversation's title, time
// and being the open one stay the same: an open, a send or a switch rebuilds
// the row or two that changed (every row was built again: 103-141 ms each time
// with 1,000 conversations, the list's own long task).
let convRows = new Map(); // id → { key, meta, element }
// New rows are built ROWS_MS at a time (the open one whatever it costs), the
// rest in the next task: a reload with 2,002 chats listed built them in one
// task (50 ms of its 82). The top of the list comes first.
const ROWS_MS = 16;
let moreRows = 0; // the timer of the next task's rows

export function renderConversations() {
  clearTimeout(moreRows);
  moreRows = 0;
  const list = $("conv-list");
  const rows = new Map();
  const t0 = performance.now();
  const items = [];
  for (const c of state.convs) {
    const current = state.cur?.meta === c;
    const key = `${c.title}\u0000${c.updatedAt}\u0000${current}`;
    let row = convRows.get(c.id);
    if (!row || row.key !== key || row.meta !== c) {
      // A row changed is built now (a few: a rename, the open one moved);
      // a new row past the budget in a later task.
      if (!row && !current && (moreRows || performance.now() - t0 > ROWS_MS)) {
        moreRows ||= setTimeout(renderConversations, 0);
        continue;
      }
      row = { key, meta: c, element: convRow(c, current) };
    }
    rows.set(c.id, row);
    items.push(row.element);
  }
  convRows = rows;
  keepingFocus(list, () => syncChildren(list, items));
}

// One formatter for every row's time: Date's toLocaleString with options
// makes one each call (2,000 rows: 194 ms in headless Chromium, 2.8 ms with this).
const rowTime = new Intl.DateTimeFormat([], { dateStyle: "short", timeStyle: "short" });

function convRow(c, current) {
  return el(
    `li.conv${current ? ".current" : ""}`,
    { "data-id": c.id },
    el("button.conv-open", { type: "button", "data-action": "open", onclick: () => openConversation(c.id, { picked: true }), title: c.title },
      el("span.conv-name", null, c.title),
      el("span.conv-time", null, formatTime(rowTime, c.updatedAt))),
    el("button.icon.small", { type: "button", "data-action": "rename", title: "Rename", "aria-label": `Rename ${c.title}`, onclick: () => renameConversation(c) }, "\u270e"),
    el("button.icon.small", { type: "button", "data-action": "delete", title: "Delete", "aria-label": `Delete ${c.title}`, onclick: () => deleteConversation(c) }, "\u00d7"),
  );
}

/**
 * Runs render, which rebuilds rows of list, and puts the keyboard focus back
 * where it was when it took it away: the same control of the same row (a
 * conversation's id, a branch's name), else that row's first button; a row
 * gone (deleted), the first button of the row now in its place, or of the one
 * before it, brought into sight. On a narrow screen whose drawer has closed
 * (a conversation opened), the composer.
 */
function keepingFocus(list, render) {
  const a = document.activeElement;
  const row = a?.closest?.("li[data-id], li[data-branch]");
  const place = row && list.contains(row) ? { key: row.dataset.id ?? row.dataset.branch, action: a.dataset.action, at: [...list.children].indexOf(row) } : null;
  render();
  if (!place || a.isConnected) return;
  if (window.matchMedia("(max-width: 860px)").matches && !$("app").classList.contains("sidebar-open")) {
    focusComposer();
    return;
  }
  const rows = [...list.children];
  const same = rows.find((li) => (li.dataset.id ?? li.dataset.branch) === place.key);
  if (same) {
    (same.querySelector(`[data-action="${place.action}"]:not(:disabled)`) ?? same.querySelector("button:not(:disabled)"))?.focus({ preventScroll: true });
    return;
  }
  // It went (the current row, where the focus went before, may be far off screen).
  rows[Math.min(place.at, rows.length - 1)]?.querySelector("button:not(:disabled)")?.focus();
}

async function renameConversation(meta) {
  const v = await openForm({
    title: "Rename conversation",
    fields: [{ name: "title", label: "Title", value: meta.title }],
    ok: "Rename",
    check: (v) => (v.title.trim() === "" ? "The title cannot be empty." : null),
  });
  if (!v) return;
  meta.title = v.title.trim();
  meta.autoTitle = false;
  write(() => state.store.update(meta.id, { title: meta.title, autoTitle: false }));
  renderAll();
}

async function deleteConversation(meta) {
  if (waitingForReply()) return;
  const ok = await openForm({
    title: `Delete \u201c${meta.title}\u201d?`,
    fields: [{ type: "note", text: "The conversation and every branch of it are removed from this browser. Export it first to keep a copy." }],
    ok: "Delete",
    danger: true,
  });
  if (!ok) return;
  if (state.dirty?.meta === meta) {
    state.dirty = null;
    state.pending--;
  }
  await write(() => state.store.delete(meta.id));
  forgetQueued(meta.id); // a send left waiting for it (its tab closed while it opened) goes with it
  state.convs = state.convs.filter((c) => c !== meta);
  if (state.cur?.meta === meta) {
    state.cur.conv?.close(); // deleted: nothing more is written
    state.cur = null;
    if (state.convs.length) await openConversation(state.convs[0].id);
    else await createConversation(new SessionTree());
  } else renderConversations();
}

// The branch list shows the active branch, then the others by last use
// (t.recentBranches: it reads ROWS branches, not all of them), each row kept
// while its branch's name, leaf, summary and place stay the same: a send or a
// switch rebuilds one or two rows, whatever the number of branches.
const ROWS = 150;
let branchRows = { tree: null, rows: new Map() };

export function renderBranches() {
  const list = $("branch-list");
  const t = state.cur?.tree;
  if (!t) {
    list.replaceChildren();
    branchRows = { tree: null, rows: new Map() };
    $("branch-count").textContent = "";
    return;
  }
  if (branchRows.tree !== t) branchRows = { tree: t, rows: new Map() };
  const active = t.activeBranch;
  const count = t.branchCount();
  $("branch-count").textContent = String(count);
  const rows = new Map();
  const items = t.recentBranches(ROWS).map((b) => {
    const key = `${b.leaf}\u0000${b.name === active}\u0000${b.summary?.summary ?? ""}\u0000${b.summary?.modelId ?? ""}\u0000${b.summary ? "s" : ""}`;
    let row = branchRows.rows.get(b.name);
    if (!row || row.key !== key) row = { key, element: branchRow(t, b, active) };
    rows.set(b.name, row);
    return row.element;
  });
  branchRows.rows = rows;
  if (count > ROWS) {
    branchRows.more ??= el("li.more");
    branchRows.more.textContent = `\u2026 and ${count - ROWS} more: use search or the tree view`;
    items.push(branchRows.more);
  }
  keepingFocus(list, () => syncChildren(list, items));
}

function branchRow(t, b, active) {
  const leaf = b.leaf ? t.node(b.leaf) : null;
  const preview = leaf ? plainText(messageText(leaf.message).slice(0, 600)).slice(0, 70) : "(empty)";
  const isActive = b.name === active;
  const canDelete = b.name !== "main" && !isActive;
  return el(`li.branch${isActive ? ".active" : ""}`, { "data-branch": b.name },
    el("button.branch-open", { type: "button", "data-action": "switch", onclick: () => change("switch", (t) => t.switchBranch(b.name)), title: `Switch to ${b.name}` },
      el("span.branch-name", null, b.name),
      el("span.branch-preview", null, preview)),
    b.summary ? el("p.branch-summary", null, b.summary.summary, el("small", null, b.summary.modelId ? ` \u2014 ${b.summary.modelId}` : " \u2014 stub")) : null,
    el("div.branch-actions", null,
      el("button.link", { type: "button", "data-action": "summarize", disabled: !b.leaf, title: b.leaf ? "Attach a summary of this branch" : "The branch has no messages yet", onclick: () => summarize(b.name) }, "Summarize"),
      el("button.link", {
        type: "button", "data-action": "delete-name", disabled: !canDelete,
        title: canDelete ? "Remove the name; the messages stay" : b.name === "main" ? "main cannot be deleted" : "Switch away first",
        onclick: () => deleteBranchName(b.name),
      }, "Delete name"),
      el("button.link.danger-link", {
        type: "button", "data-action": "delete-branch", disabled: b.name === "main",
        title: b.name === "main" ? "main cannot be deleted" : "Delete this branch and the messages only it holds (asks first)",
        onclick: () => deleteBranchAndMessages(b.name),
      }, "Delete\u2026")));
}

async function summarize(branch) {
  const cur = state.cur;
  const t = cur.tree;
  const s = state.settings;
  try {
    if (usesEndpoint(s)) {
      toast(`Summarizing \u201c${branch}\u201d with ${s.model}\u2026`);
      const got = await t.summarizeBranchWith(branch, endpointSummarizer(s), undefined, { timeoutMs: 30000, modelId: s.model });
      if (got.modelId === null) showError(`${s.model} did not give a summary of \u201c${branch}\u201d (unreachable, failed or timed out); the stub summary was attached instead.`);
    } else {
      t.summarizeBranch(branch, t.stubSummary(branch).summary);
      toast("Summarized with the stub (configure a model in Settings for real summaries).");
    }
  } catch (e) {
    // The user went on while the model wrote: another chat opened (this
    // one's tree closed with it), or the branch deleted. Said as that, not
    // as the library's error ("this SessionTree was freed").
    if (state.cur !== cur) toast(`The summary of \u201c${branch}\u201d came after \u201c${cur.meta.title}\u201d was left, and was not attached: summarize it again there.`, "warn");
    else if (e?.code === "branch_not_found") toast(`\u201c${branch}\u201d was deleted while its summary was on its way; nothing was attached.`);
    else showError(`Summarize \u201c${branch}\u201d failed: ${describe(e)}`);
    return;
  }
  if (state.cur !== cur) return; // its tree kept the summary, and its store saves it
  persist();
  renderAll();
}

function deleteBranchName(branch) {
  change("deleteBranch", (t) => t.deleteBranch(branch));
  toast(`Branch name \u201c${branch}\u201d deleted; its messages stay in the tree.`);
}

/** "Delete…" on a branch: its name and the messages only it holds, once confirmed (branching.js). */
async function deleteBranchAndMessages(branch) {
  if (waitingForReply()) return;
  try {
    if (!(await confirmDeleteBranch(state.cur.tree, branch))) return;
  } catch (e) {
    showError(`Delete \u201c${branch}\u201d failed: ${describe(e)}`);
    return;
  }
  const removed = change("deleteBranchWithMessages", (t) => deleteBranchWithMessages(t, branch));
  if (removed) toast(`Branch \u201c${branch}\u201d deleted with ${countMessages(removed.length)}.`);
}

let searchTimer = 0;

function runSearch() {
  const q = $("search").value.trim();
  const box = $("search-results");
  const t = state.cur?.tree;
  if (q === "" || !t) {
    box.replaceChildren();
    box.hidden = true;
    return;
  }
  const t0 = performance.now();
  let hits;
  try {
    hits = t.search(q, 50);
  } catch (e) {
    showError(`Search failed: ${describe(e)}`);
    return;
  }
  state.timings.search = performance.now() - t0;
  box.hidden = false;
  box.replaceChildren(
    el("p.search-count", null, hits.length === 0 ? "No message matches, on any branch." : `${hits.length === 50 ? "50+" : hits.length} match${hits.length === 1 ? "" : "es"} across all branches`),
    ...hits.map((h) => el("button.hit", {
      type: "button", "data-node": h.nodeId,
      onclick: () => {
        const t1 = performance.now();
        checkout(h.nodeId, "searchCheckout");
        reveal(h.nodeId);
        state.timings.searchClick = performance.now() - t1;
        if (window.matchMedia("(max-width: 860px)").matches) setDrawer(false);
      },
    }, el("span.hit-role", null, h.role), el("span.hit-snippet", null, highlighted(clean(h.snippet), q)))),
  );
  searchOthers(q, box);
}

/** A snippet on one line: newlines (and their escaped form) as spaces. */
function clean(snippet) {
  return snippet.replace(/\\n|\s+/g, " ").trim();
}

let searchToken = 0;

/**
 * The other conversations' matches, read from their stored records (a scan of
 * the rows that contain the query, parsed only then), listed under the open
 * conversation's; a hit opens its conversation at that message.
 */
async function searchOthers(q, box) {
  const token = ++searchToken;
  if (q.length < 2 || state.convs.length < 2) return;
  let hits;
  try {
    hits = (await state.store.search(q, { except: state.cur?.meta.id, limit: 30 })).map((h) => ({ ...h, conv: h.conversation }));
  } catch (e) {
    console.warn(`sessiontree: searching the other conversations failed: ${e.message}`);
    return;
  }
  if (token !== searchToken || !hits.length) return;
  const lower = q.toLowerCase();
  const title = (id) => state.convs.find((c) => c.id === id)?.title ?? "(removed)";
  box.append(
    el("p.search-count", null, `${hits.length === 30 ? "30+" : hits.length} in other conversations`),
    ...hits.map((h) => {
      const text = clean(messageText(h.message));
      const at = Math.max(0, text.toLowerCase().indexOf(lower) - 40);
      const snippet = `${at ? "\u2026" : ""}${text.slice(at, at + 120)}`;
      return el("button.hit", {
        type: "button", "data-node": h.id, "data-conv": h.conv,
        onclick: async () => {
          await openConversation(h.conv, { picked: true });
          if (state.cur?.meta.id !== h.conv || !state.cur.tree?.node(h.id)) return;
          checkout(h.id, "searchCheckout");
          reveal(h.id);
        },
      }, el("span.hit-role", null, `${h.message.role} \u00b7 ${title(h.conv)}`), el("span.hit-snippet", null, highlighted(snippet, q)));
    }),
  );
}

/** Runs the search typed again (the open conversation changed under it). */
export const searchAgain = () => runSearch();

export function clearSearch() {
  $("search").value = "";
  runSearch();
}

/**
 * Opens or closes the sidebar's drawer (a narrow screen): the menu button says
 * which (aria-expanded); opened from it, the focus goes to the drawer's first
 * control. Closed, the drawer is hidden (app.css), out of the Tab order.
 */
export function setDrawer(open, focus = false) {
  $("app").classList.toggle("sidebar-open", open);
  $("menu").setAttribute("aria-expanded", String(open));
  if (!open || !focus) return;
  const to = drawerFocus();
  to.focus({ preventScroll: inDrawer(to) });
}

/**
 * What the drawer focuses as it opens, where the user left its scroll (a
 * focus on + New chat scrolled a long list back to its top): the open chat's
 * row, + New chat, or the first row, whichever is in sight first; else + New
 * chat, scrolled to.
 */
function drawerFocus() {
  const current = document.querySelector("#conv-list li.current .conv-open");
  if (current && inDrawer(current)) return current;
  if (inDrawer($("btn-new"))) return $("btn-new");
  for (const b of document.querySelectorAll("#conv-list .conv-open")) if (inDrawer(b)) return b;
  return $("btn-new");
}

/** Whether el is whole within the sidebar's visible height. */
function inDrawer(el) {
  const box = $("sidebar").getBoundingClientRect();
  const r = el.getBoundingClientRect();
  return r.height > 0 && r.top >= box.top && r.bottom <= box.bottom;
}

/** Whether the sidebar is a drawer (a narrow screen) and open. */
export function drawerOpen() {
  return $("app").classList.contains("sidebar-open") && window.matchMedia("(max-width: 860px)").matches;
}

/** "+ New chat", the sidebar's toggle on a narrow screen, and search as the user types. */
export function wireSidebar() {
  $("btn-new").onclick = async () => {
    await newChat();
    setDrawer(false);
    $("input").focus();
  };
  $("menu").onclick = () => setDrawer(!drawerOpen(), true);
  $("search").addEventListener("input", () => {
    clearTimeout(searchTimer);
    searchTimer = setTimeout(runSearch, 120);
  });
}
