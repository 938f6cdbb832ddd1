/**
 * sessiontree/assistant-ui: assistant-ui's thread history on the tree
 * (`@assistant-ui/core` ≥ 0.3, through `@assistant-ui/react`, is a peer
 * dependency: only its types are used).
 *
 * ```ts
 * const runtime = useLocalRuntime(model, { adapters: { history: historyAdapter(t) } });
 * // a sessiontree/idb conversation (useTree's), whose tree a reload replaces:
 * const runtime = useLocalRuntime(model, { adapters: { history: historyAdapter(conversation) } });
 * ```
 *
 * assistant-ui keeps a thread as a tree of messages with a head (its
 * `MessageRepository`): `load()` hands it every node of the tree with its
 * parent and the active leaf as the head, so the branch picker pages through
 * the tree's siblings; `append()` stores each new message under its parent, so
 * an edit or a reload is a new sibling on a fresh branch and nothing is lost.
 * The tree saves, syncs and merges as always.
 */
import type { ExportedMessageRepository, ExportedMessageRepositoryItem, GenericThreadHistoryAdapter, MessageFormatAdapter, MessageFormatItem, MessageFormatRepository, ThreadHistoryAdapter, ThreadMessage } from "@assistant-ui/core";
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
 * an AI SDK UIMessage's text and reasoning (with their `providerMetadata`),
 * tool (`tool-call` with its result), file, `source-url` and `source-document`
 * (`source`) and `data-NAME` (`data`) parts, its metadata as `metadata.custom`;
 * the text parts of any other shape (a tool message as the assistant's).
 */
export function toThreadMessage(node: TreeNode): ThreadMessage;

/**
 * The whole tree as assistant-ui's `ExportedMessageRepository`: every node,
 * parents first (depth first, children in `t.children` order), `headId` the
 * active leaf (`null` for an empty tree). What `MessageRepository.import` takes.
 * Stored ThreadMessages, UIMessages and `{ role, content: string }` messages
 * map in JS (`toThreadMessage`); a tree with other shapes (OpenAI tool calls,
 * Anthropic blocks, another tool's records) goes through Go's `assistant-ui`
 * export, a call with its result (needs `await initInterchange()` or the full
 * module), the parts assistant-ui takes.
 */
export function toRepository(t: SessionTree): ExportedMessageRepository & { headId: string | null };

/**
 * A `ThreadHistoryAdapter` on a tree, for `useLocalRuntime` (and, through
 * `withFormat`, `useChatRuntime` / `useAISDKRuntime`). Nothing is ever removed
 * from the tree: a changed message is a newer version beside the old one, a
 * deleted one is left out of the active path and kept on a branch.
 *
 * `source` is the tree, or a conversation: an object whose `tree` is the
 * tree, read at every call (a `sessiontree/idb` Conversation, whose tree
 * another tab's large write replaces: the adapter follows it). Making it
 * inline on every render is fine: what it learns of the runtime's message ids
 * (an id the runtime gave a message it made, the node a changed message moved
 * to) is kept with the tree, or the conversation, not with one adapter; give
 * the conversation when its tree may be replaced, else a message made before
 * the reload is unknown after it (`not_found`).
 *
 * - `load()` is `toRepository(t)`. It tells the adapters that the runtime
 *   knows every node by its own id now: call it from the runtime only (read
 *   the tree with `toRepository`).
 * - `append({ message, parentId })` stores the message under its parent (ids
 *   the runtime gave are mapped to the nodes made for them): after the active
 *   leaf an append; under a node with children a new sibling of its last child
 *   on a fresh branch (`t.edit`: a reload or an edit); under another leaf that
 *   leaf's branch first (`checkout`); with `parentId: null` in a non-empty tree
 *   a new root beside the first. A message stored already is not stored twice.
 *   Its `createdAt` is the node's time. Rejects with `not_found` for a parent
 *   the tree does not hold, `invalid_input` for a message `fromThreadMessage`
 *   refuses.
 * - `update({ message, parentId })` (a finished paused run, a tool result, a
 *   feedback): a message not stored yet is appended (an upsert); one stored
 *   with the same fields is left alone; a changed one is stored as its newer
 *   version, a sibling on a fresh active branch (`t.regenerate` for the
 *   assistant's, `t.edit` otherwise), and the messages after it on the active
 *   path are copied after the new version in the same `t.apply` (a 👍 on an
 *   earlier reply keeps the conversation whole, as assistant-ui shows it); the
 *   runtime's ids name the new nodes from then on. A message off the active
 *   path has its path opened first (`t.open`). An alternative the runtime
 *   keeps below the changed message (a reload of a later reply) is copied
 *   under the new version when the runtime reaches it (a pick, a message
 *   under it). The older version and what followed it stay on their branch
 *   (‹ › after a reload shows both): the tree rewrites nothing in place.
 * - `delete(items)`: each message on the active path is left out of it: the
 *   messages after it on the path are copied under its parent as a new sibling
 *   on a fresh active branch (what assistant-ui's repository shows: the
 *   children moved up to the parent), the runtime's ids naming the copies; its
 *   other children are copied under the parent when the runtime reaches them.
 *   The last message: the path goes where assistant-ui's head goes, to the
 *   branch of the parent's last other child (`t.open`), else back to the
 *   parent (`t.rewind`). The message and what followed it stay on their
 *   branch. A message not in the tree or off the active path is a success
 *   with nothing to do; the only message of a tree is kept.
 * - `withFormat(formatAdapter)`: the same on messages of another shape (the
 *   AI SDK's `UIMessage` for `useChatRuntime`, format `"ai-sdk/v6"`): a node
 *   stores what `encode` gives (an object with a role of system, user or
 *   assistant, else `invalid_input`), `load` gives every node to `decode` as
 *   `{ id, parent_id, format, content }` with the active leaf as `headId`. For
 *   an `ai-sdk/…` format a node stored in another shape is given as
 *   `{ role, parts }`, as `toUIMessages` gives it: a `{ role, content }`
 *   text as a text part; a ThreadMessage's text and reasoning parts as
 *   theirs, an image or a file as a `file` part (a data URL's media type, or
 *   by the extension; base64 data as a data URL), a `tool-call` as a tool
 *   part (its result a text, JSON when not a string), in order; a user's or
 *   system message with none as one empty text part (`validateUIMessages`
 *   wants one). A stored UIMessage (`sessiontree/ai-sdk`'s shape) is given as
 *   it is, so the two entries share a tree.
 *
 * Throws `invalid_input` for a source that is neither.
 */
export function historyAdapter(source: SessionTree | { readonly tree: SessionTree }): TreeHistoryAdapter;

/** What `historyAdapter` returns: a `ThreadHistoryAdapter` with every method. */
export interface TreeHistoryAdapter extends Omit<ThreadHistoryAdapter, "load" | "append" | "update" | "delete" | "withFormat"> {
  load(): Promise<ExportedMessageRepository & { headId: string | null }>;
  append(item: ExportedMessageRepositoryItem): Promise<void>;
  update(item: ExportedMessageRepositoryItem): Promise<void>;
  delete(items: ExportedMessageRepositoryItem[]): Promise<void>;
  withFormat<TMessage, TStorageFormat extends Record<string, unknown>>(
    formatAdapter: MessageFormatAdapter<TMessage, TStorageFormat>,
  ): TreeFormatHistoryAdapter<TMessage>;
  /**
   * Makes the tree follow assistant-ui's branch picker: opens the node that
   * holds the runtime's message `messageId` (`t.open`, nothing when it is the
   * active leaf already), so the path the user switched to is the active one
   * after a reload and in other tabs. Call it with the thread's last message
   * once a run is over (`useAuiState((s) => s.thread.messages.at(-1)?.id)`).
   * Returns the active branch's name, or null for a message not stored yet.
   * Not part of assistant-ui's interface: its runtime tells a history nothing
   * of a switch.
   */
  open(messageId: string): string | null;
}

/** What `withFormat` returns: a `GenericThreadHistoryAdapter` with every method. */
export interface TreeFormatHistoryAdapter<TMessage> extends Omit<GenericThreadHistoryAdapter<TMessage>, "load" | "append" | "update" | "delete"> {
  load(): Promise<MessageFormatRepository<TMessage> & { headId: string | null }>;
  append(item: MessageFormatItem<TMessage>): Promise<void>;
  update(item: MessageFormatItem<TMessage>, localMessageId?: string): Promise<void>;
  delete(items: MessageFormatItem<TMessage>[]): Promise<void>;
}
