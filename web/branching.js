// The dialogs of branching that can lose or repeat a turn, as views of their
// own: "Branch here" at the user's own message, and deleting a branch with
// the messages only it holds. Each asks and answers what the user chose; the
// page makes the change (deleteBranch, prune, apply) and stores it.
import { openForm } from "./dom.js";
import { messageText } from "./assistant.js";

/** "1 message", "2 messages": a count for a sentence. */
export const countMessages = (n) => `${n} message${n === 1 ? "" : "s"}`;

/**
 * "Branch here" at user message id of tree t. A branch ending at the user's
 * message would make the next message a second user turn in a row, so it is
 * what a chat client's edit is: the message, changed or not, is sent again as
 * its alternative (〈2/2〉) on the new branch. Resolves to { message, name }
 * (name "" for a fresh branch-N), or null when cancelled.
 */
export async function askBranchAtUserMessage(t, id) {
  const node = t.node(id);
  const v = await openForm({
    title: "Branch here",
    fields: [
      { type: "note", text: "A new branch starts with this message sent again, as you change it below; its other version stays one click away (\u2039 \u203a)." },
      { name: "message", type: "textarea", label: "Message", value: messageText(node.message), rows: 4 },
      { name: "name", label: "Branch name", placeholder: "leave empty for branch-N" },
    ],
    ok: "Create branch & send",
    check: (v) => {
      if (v.message.trim() === "") return "The message cannot be empty.";
      return v.name.trim() !== "" && t.branches().some((b) => b.name === v.name.trim()) ? `There is already a branch named \u201c${v.name.trim()}\u201d.` : null;
    },
  });
  return v && { message: { role: "user", content: v.message.trim() }, name: v.name.trim() };
}

/**
 * Asks before branch of tree t is deleted with its messages, saying how many
 * go: the ids prune() removes once the name is gone, counted on a copy (the
 * branch's own, and any that no branch held already). Resolves to true when
 * confirmed. Throws as deleteBranch or prune would (main, a tree with problems).
 */
export async function confirmDeleteBranch(t, branch) {
  const gone = removedWith(t, branch);
  const own = new Set(t.pathOf(branch));
  const only = gone.filter((id) => own.has(id)).length;
  const loose = gone.length - only;
  const ok = await openForm({
    title: `Delete branch \u201c${branch}\u201d?`,
    fields: [
      { type: "note", text: only
        ? `Its name and the ${countMessages(only)} only this branch holds are removed from this browser. The messages it shares with other branches stay.`
        : "Every message of it is on another branch too: only its name is removed." },
      loose ? { type: "note", text: `${countMessages(loose)} that no branch holds any more (their names were deleted before) are removed too.` } : null,
      t.activeBranch === branch ? { type: "note", text: "You are on this branch: main opens instead." } : null,
      { type: "note", text: "Export the conversation first to keep a copy." },
    ].filter(Boolean),
    ok: gone.length ? `Delete ${countMessages(gone.length)}` : "Delete the name",
    danger: true,
  });
  return !!ok;
}

/**
 * Deletes branch of t (leaving it for main first when it is active) and then
 * every node on no remaining branch's path; returns the removed ids.
 */
export function deleteBranchWithMessages(t, branch) {
  if (t.activeBranch === branch) t.switchBranch("main");
  t.deleteBranch(branch);
  return t.prune();
}

/** The ids deleteBranchWithMessages would remove, found on a copy of t. */
function removedWith(t, branch) {
  const copy = t.clone();
  try {
    return deleteBranchWithMessages(copy, branch);
  } finally {
    copy.free();
  }
}


