/**
 * sessiontree/assistant-ui: assistant-ui's thread history on the tree
 * (`@assistant-ui/core` ≥ 0.3, through `@assistant-ui/react`, is a peer
 * dependency: only its types are used).
 *
 * ```ts
 * const runtime = useLocalRuntime(model, { adapters: { history: historyAdapter(t) } });
 * ```
 *
 * assistant-ui keeps a thread as a tree of messages with a head (its
 * `MessageRepository`): `load()` hands it every node of the tree with its
 * parent and the active leaf as the head, so the branch picker pages through
 * the tree's siblings; `append()` stores each new message under its parent, so
 * an edit or a reload is a new sibling on a fresh branch and nothing is lost.
 * The tree saves, syncs and merges as always.
 */
import type { ExportedMessageRepository, ExportedMessageRepositoryItem, ThreadHistoryAdapter, ThreadMessage } from "@assistant-ui/core";
import type { Message, SessionTree, TreeNode } from "./sessiontree.js";

/**
 * The tree message a ThreadMessage is stored as: `{ role, content, … }` with
 * its other fields (metadata, status, attachments) as JSON, the id and
 * `createdAt` left out (they are the node's id and time). Throws
 * `invalid_input` for a role other than system, user or assistant, or content
 * that is not an array of parts.
 */
export function fromThreadMessage(m: ThreadMessage): Message;

/**
 * The ThreadMessage of a node: a stored ThreadMessage as it was, with the
 * node's id and time; a `{ role, content: string }` message as one text part;
 * an AI SDK UIMessage's text, reasoning, tool (`tool-call` with its result)
 * and file parts; the text parts of any other shape (a tool message as the
 * assistant's).
 */
export function toThreadMessage(node: TreeNode): ThreadMessage;

/**
 * The whole tree as assistant-ui's `ExportedMessageRepository`: every node,
 * parents first (depth first, children in `t.children` order), `headId` the
 * active leaf (`null` for an empty tree). What `MessageRepository.import` takes.
 */
export function toRepository(t: SessionTree): ExportedMessageRepository & { headId: string | null };

/**
 * A `ThreadHistoryAdapter` on `t`. `load()` is `toRepository(t)`.
 * `append({ message, parentId })` stores the message under its parent (ids the
 * runtime gave are mapped to the nodes made for them): after the active leaf
 * an append; under a node with children a new sibling of its last child on a
 * fresh branch (`t.edit`: a reload or an edit); under another leaf that leaf's
 * branch first (`checkout`); with `parentId: null` in a non-empty tree a new
 * root beside the first. A message stored already is not stored twice. Its
 * `createdAt` is the node's time. Rejects with `not_found` for a parent the
 * tree does not hold, `invalid_input` for a message `fromThreadMessage` refuses.
 */
export function historyAdapter(t: SessionTree): ThreadHistoryAdapter & {
  load(): Promise<ExportedMessageRepository & { headId: string | null }>;
  append(item: ExportedMessageRepositoryItem): Promise<void>;
};
