// Package formats imports and exports the chat formats other tools write:
// chatgpt (conversations.json), openwebui, librechat, claudecode (session
// JSONL), pi (session JSONL v3), codex (rollout JSONL), claudeai (claude.ai's
// conversations.json), sillytavern (SillyTavern's chat JSONL), ai-sdk (the AI
// SDK's UIMessage[], linear: package aisdk), assistant-ui (assistant-ui's
// ExportedMessageRepository, the whole tree: package assistantui), openai (a
// messages array) and markdown (export only). "auto" detects the format by content.
//
// Decisions, the same for every format:
//
//   - A node's message is a chat message ({"role","content",…}) that keeps the
//     format's original record whole: when the record is a message already
//     (Open WebUI, the "message" of a Claude Code, pi or Codex line) it is the
//     message, and the rest of the line is kept under the format's name with
//     "message" replaced by 0 (so content is held once); otherwise the message is
//     {"role","content":text,"<format>":record}. Export writes the record back.
//   - Records that are not messages are never dropped: the ChatGPT null-message
//     root and the conversation's fields go under "<format>_conversation" on the
//     conversation's first node; JSONL lines that are not messages (file
//     snapshots, session headers, model changes, reasoning, duplicated events,
//     Claude Code's progress lines and hook summaries, whose children then hang
//     on the nearest message) are kept with the node before them under "<format>_after" (before the
//     first node: "<format>_before") and written back in place. So a projection
//     holds only real messages.
//   - Several roots stay several roots: the tree is a forest. LibreChat's
//     several roots, a Claude Code compact_boundary (parentUuid null, with
//     logicalParentUuid kept in its line) and sidechain roots, several
//     conversations of one file, a record whose parent is not in the file (a
//     fragment) — each is a root. The active branch then projects what the model
//     saw (after a compaction: the boundary, the summary and what followed), and
//     the pre-compaction history stays whole on its own branch.
//   - Branches: main ends at the format's current leaf (current_node, currentId,
//     the last line of a JSONL session, the last LibreChat message, claude.ai's
//     current_leaf_message_uuid or newest leaf, SillyTavern's swipe_id on the
//     last line, or its mes when swipe_id names no swipe); every other
//     leaf gets a branch "branch-N" (other conversations of a file: a branch
//     named after their id), so no line of work is unnamed. A file with the
//     branch list an export wrote gets those branches back, and then what the
//     tool did since: the active branch follows the file's current leaf when
//     it continues the branch's leaf (else that leaf gets a branch of its own,
//     made active and reported), and every leaf no branch ends at is named,
//     except those the export lists as "unnamed" (on no branch in the tree).
//   - A message of another format's shape is written in the target format's
//     own shape, read through core/chat (text, reasoning, tool calls and
//     results, images as the format writes them), so the tool that reads the
//     file shows it as its own.
//   - What a format has no field for (branch names, summaries, labels, a time or
//     message the record does not reproduce) goes under a "sessiontree" member:
//     of the file (in a JSONL session: its header line, where pi keeps it,
//     or, in Claude Code's, the first line's "sessiontree" under "tree": a
//     line of a type of its own is one its readers report as unknown; an
//     empty tree's export is that line alone) for branches, of a record for
//     a node. The
//     original message kept there holds no second copy of a string the record
//     holds already: a reference to it stands in (see internal/convert,
//     Elide). So import(export(t)) gives t back for chatgpt,
//     openwebui, librechat, claudecode, pi, claudeai and sillytavern (whose
//     chat is one chain of swipes: the nodes below a swipe off the path ride
//     in its header). A message that came from another format is written in
//     the target's own form (through core/chat), and the original rides in
//     the record's "sessiontree" member, so it comes back as it was.
//     codex, openai and markdown are
//     linear: they carry the active path (codex and markdown add the other
//     branches' summaries).
//   - Every import returns a Report: counts, what the format could not carry,
//     and every record it could not read (malformed or torn lines, dangling
//     parents, duplicate ids), with its line number or id; the rest is kept.
package formats
