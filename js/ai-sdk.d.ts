/**
 * sessiontree/ai-sdk: the AI SDK's `UIMessage` on the tree, and `useChat`'s
 * messages kept in it with nothing lost (`ai` ≥ 6 is a peer dependency: only
 * its types are used).
 *
 * A UIMessage is stored as it is, without its id: `{ role, parts, metadata? }`.
 * A node keeps an id of its own: `syncChat` stores each new message under a
 * fresh node id and hands the messages back under the node ids
 * (`toUIMessages`), so `useChat` goes on with the tree's ids. Only the
 * `"ai-sdk"` import format (`SessionTree.import(text, "ai-sdk")`) keeps a
 * file's message ids as node ids. The core reads its parts (text, reasoning, tool
 * parts with their results, files), so projections for a model
 * (`t.projectFor`), search and the other export formats understand it.
 *
 * ```ts
 * const { messages, setMessages } = useChat({
 *   messages: toUIMessages(t),
 *   onFinish: ({ messages }) => setMessages(syncChat(t, messages).messages),
 * });
 * ```
 *
 * or, from an effect once a response is over:
 *
 * ```ts
 * useEffect(() => {
 *   if (status !== "ready") return;
 *   const r = syncChat(t, messages);
 *   if (r.changed) setMessages(r.messages); // never unconditionally: see syncChat
 * }, [status, messages, setMessages]);
 * ```
 */
import type { UIMessage } from "ai";
import type { Message, SessionTree } from "./sessiontree.js";

/** The tree message a UIMessage is stored as. */
export interface StoredUIMessage extends Message {
  role: UIMessage["role"];
  parts: UIMessage["parts"];
  metadata?: unknown;
}

/**
 * The tree message `m` is stored as: `{ role, parts, metadata? }` (then any
 * other member, the id left out), for `t.append`, `t.edit` or `t.apply`.
 * Throws `invalid_input` for a role other than system, user or assistant, or
 * parts that are not an array.
 */
export function fromUIMessage(m: UIMessage): StoredUIMessage;

/**
 * The path of `branch` (default: the active one) as UIMessages, root first,
 * each with its node's id: what `useChat` is given (`messages`, or
 * `setMessages`). The parts are copies, never the tree's frozen objects.
 * Stored UIMessages and plain `{ role, content: string }` messages are mapped
 * here; a path holding any other message (OpenAI tool calls, Anthropic blocks,
 * another tool's records) is converted by the `"ai-sdk"` export, in Go: a
 * tool call becomes a `tool-NAME` part and its result, wherever it was stored,
 * that part's output (a message of results only gives no UIMessage of its
 * own); that needs the full module or `await initInterchange()` first.
 * An empty tree gives `[]`. Throws `branch_not_found`, or `invalid_input` for
 * a bad argument.
 */
export function toUIMessages<M extends UIMessage = UIMessage>(t: SessionTree, options?: { branch?: string }): M[];

/** What `syncChat` did. */
export interface SyncChatResult<M extends UIMessage = UIMessage> {
  /**
   * The active path after the sync (`toUIMessages(t)`): hand it back to
   * `useChat` (`setMessages`), so its ids are the tree's. When nothing
   * changed, the array given (the same object).
   */
  messages: M[];
  /** The ids of the nodes the sync added, root first. */
  added: string[];
  /** Whether the tree changed. */
  changed: boolean;
}

/**
 * Brings `useChat`'s messages into the tree, so that afterwards the active path
 * is those messages, and nothing the tree held is lost. Compared with the
 * active path (by id and content), from the root:
 *
 * - messages past the path's end are appended (a finished reply under its parent);
 * - the first message that differs (a new id, or the same id with other parts:
 *   an edit with `sendMessage({ messageId })`, a reply `regenerate()` replaced,
 *   a tool result added later) becomes a new sibling on a fresh active branch,
 *   `t.regenerate` for an assistant message, `t.edit` otherwise, and the ones
 *   after it are appended; the old message and what followed it stay on their
 *   branch;
 * - a list that stops before the path's end (messages removed with
 *   `setMessages`) moves the active branch back with `t.rewind`; the rest stays
 *   on a branch.
 *
 * One `t.apply`: all or nothing, one change event. Call it when a response has
 * finished (`onFinish`, or `status === "ready"`), not on every streamed chunk.
 * Every message is checked (`fromUIMessage`) before anything changes; an empty
 * list is refused (`invalid_input`): a tree keeps its messages.
 *
 * Messages the tree holds already change nothing: `changed` is false and
 * `messages` is the array given. From an effect on `useChat`'s `messages`,
 * call `setMessages(r.messages)` only when `r.changed`: `useChat`'s
 * `setMessages` copies the array it is given, so every call is a new state
 * and the effect would run again without end (React error #185).
 */
export function syncChat<M extends UIMessage = UIMessage>(t: SessionTree, messages: readonly M[], options?: {
  /** The time to record (milliseconds; default `Date.now()`). */
  atMs?: number;
}): SyncChatResult<M>;
