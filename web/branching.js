// The dialogs of branching that can lose or repeat a turn, as views of their
// own: "Branch here" at the user's own message. Each asks and answers what the
// user chose; the page makes the change (apply) and stores it.
import { openForm } from "./dom.js";
import { messageText } from "./assistant.js";

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
