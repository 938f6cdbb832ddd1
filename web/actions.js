// Changes to the open tree: change() runs one (then it is saved and the page
// redrawn, the focus kept where it was), and each message's actions: edit,
// regenerate, branch here, label, rewind, open an alternative.
import { $, openForm, toast, showError, describe } from "./dom.js";
import { askBranchAtUserMessage } from "./branching.js";
import { state, renderAll } from "./app.js";
import { persist } from "./conversations.js";
import { reply, priorTo, replyTo } from "./reply.js";

/** Runs one change on the open tree, then saves and redraws; a failure is shown, nothing else changes. */
export function change(name, fn) {
  const t = state.cur?.tree;
  if (!t) return undefined;
  const t0 = performance.now();
  let result;
  try {
    result = fn(t);
  } catch (e) {
    showError(`${name} failed: ${describe(e)}`);
    return undefined;
  }
  const focus = focusPlace();
  persist();
  renderAll();
  restoreFocus(focus);
  state.timings[name] = performance.now() - t0;
  return result;
}

/** Where the keyboard focus is in the chat view: the message's path index and the control's action. */
export function focusPlace() {
  const a = document.activeElement;
  const msg = a?.closest?.("#messages article.msg[data-index]");
  return msg ? { index: msg.dataset.index, action: a.dataset?.action ?? null } : null;
}

/** Puts the focus back on the same control of the message at the same place, when a redraw took it away. */
function restoreFocus(place) {
  if (!place || (document.activeElement && document.activeElement !== document.body)) return;
  const msg = $("messages").querySelector(`article.msg[data-index="${place.index}"]`);
  const other = { prev: "next", next: "prev" }[place.action];
  const ctl = place.action
    ? msg?.querySelector(`[data-action="${place.action}"]:not([disabled])`) ?? (other ? msg?.querySelector(`[data-action="${other}"]:not([disabled])`) : null)
    : null;
  (ctl ?? msg)?.focus({ preventScroll: true });
}

export async function regenerate(id) {
  const t = state.cur.tree;
  const prior = priorTo(t, id, false);
  prior.variant = t.siblings(id).siblings.length;
  await reply({ prior, upTo: t.node(id).parent ?? undefined, again: () => regenerate(id) }, (t, m) => t.regenerate(id, m));
}

export async function saveEdit(id, node, text) {
  const message = edited(node.message, text);
  if (node.message.role === "user") {
    const newId = change("edit", (t) => t.edit(id, message));
    if (newId !== undefined) await replyTo(newId);
  } else {
    change("edit", (t) => t.edit(id, message));
  }
}

const isText = (p) => p && typeof p === "object" && typeof p.text === "string";

/** The text of a message the editor changes: its string content or its text parts (not its tool calls, images…). */
export function editableText(m) {
  if (typeof m.content === "string") return m.content;
  return Array.isArray(m.content) ? m.content.filter(isText).map((p) => p.text).join("\n") : "";
}

/**
 * message as an edit to text writes it: the text parts replaced by one (in
 * the first one's place), every other part (a tool call, an image) kept as it
 * was; what said how the model's reply ended (incomplete, stop_reason, usage,
 * the provider's id) is dropped, as it is not true of the new version.
 */
export function edited(message, text) {
  const m = { ...message };
  for (const k of ["incomplete", "stop_reason", "stop_sequence", "usage", "id"]) delete m[k];
  if (!Array.isArray(m.content)) return { ...m, content: text };
  const content = [];
  for (const p of m.content) {
    if (!isText(p)) content.push(p);
    else if (!content.some(isText)) content.push({ ...p, text });
  }
  if (!content.some(isText)) content.unshift({ type: "text", text });
  return { ...m, content };
}

/**
 * "Branch here". At a reply (or any message not the user's): a new branch
 * ends at it, and what the user sends next continues from it. At the user's
 * own message: the message is sent again, changed or not, as its alternative
 * on the new branch, and answered (askBranchAtUserMessage says why).
 */
export async function branchHere(id) {
  const t = state.cur.tree;
  const node = t.node(id);
  if (node.message.role === "user") return branchAtUserMessage(id);
  const v = await openForm({
    title: "Branch here",
    fields: [
      { type: "note", text: "A new branch starts at this message and becomes active; what you send next goes there." },
      { name: "name", label: "Branch name", placeholder: "leave empty for branch-N" },
    ],
    ok: "Create branch",
    check: (v) => (v.name.trim() !== "" && t.branches().some((b) => b.name === v.name.trim()) ? `There is already a branch named \u201c${v.name.trim()}\u201d.` : null),
  });
  if (!v) return;
  const name = change("branch", (t) => t.branch(id, v.name.trim() || undefined));
  if (name) toast(`On branch \u201c${name}\u201d`);
}

async function branchAtUserMessage(id) {
  const v = await askBranchAtUserMessage(state.cur.tree, id);
  if (!v) return;
  const newId = change("branch", (t) => {
    // edit() puts the new version on a fresh branch; a name given takes its place.
    const [sent] = t.apply([{ op: "edit", node: id, message: v.message }]);
    if (v.name) t.apply([{ op: "branch", from: sent, name: v.name }, { op: "deleteBranch", branch: t.activeBranch }]);
    return sent;
  });
  if (newId === undefined) return;
  toast(`On branch \u201c${state.cur.tree.activeBranch}\u201d`);
  await replyTo(newId);
}

export async function labelNode(id) {
  const node = state.cur.tree.node(id);
  const v = await openForm({
    title: node.label ? "Change the label" : "Label this message",
    fields: [{ name: "label", label: "Label (empty removes it)", value: node.label ?? "", placeholder: "e.g. good answer" }],
    ok: "Save label",
  });
  if (!v) return;
  const label = v.label.trim();
  if (label === "") change("clearLabel", (t) => t.clearLabel(id));
  else change("label", (t) => t.label(id, label));
}

export function rewind(id) {
  const kept = change("rewind", (t) => t.rewind(id));
  if (kept) toast(`Rewound. The later messages are kept on \u201c${kept}\u201d.`);
}

/**
 * Shows message id on the active path (open: the latest branch through it, else a
 * fresh branch of its own; main and every other branch stay where they are).
 */
export function checkout(id, name = "checkout") {
  return change(name, (t) => t.open(id));
}
