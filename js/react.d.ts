// sessiontree/react: React hooks over a SessionTree's change events and a
// sessiontree/idb store (React ≥ 18 is a peer dependency). Hand-written; this
// file is the API's documentation.
//
//   import { useConversations, useTree, useActivePath, useSiblings, useBranches } from "sessiontree/react";
//   function Chat({ store, id }) {
//     const { tree, loading } = useTree(store, id);
//     const path = useActivePath(tree, { count: 50 });   // the last 50 messages
//     …
//   }

import type { SessionTree, Message, Branch } from "./sessiontree.js";
import type { ConversationStore, ConversationMeta, Conversation, OpenOptions } from "./idb.js";

/** The store's conversations, newest first (store.conversations); re-renders when the list changes, here or in another tab. */
export declare function useConversations(store: ConversationStore): readonly Readonly<ConversationMeta>[];

export interface UseTreeResult {
  /** The open conversation, null while it opens, when none is stored under that id, or after an error. */
  conversation: Conversation | null;
  /** Its tree (a reload from another tab's changes hands a new one: this follows it). */
  tree: SessionTree | null;
  /** True while the conversation opens. */
  loading: boolean;
  /** Why the open failed (a SessionTreeError; `file` holds the stored text when it did not load). */
  error: Error | null;
}

/**
 * Opens conversation id of store while the component is mounted, and closes it
 * (writing what is pending) when it unmounts or id changes. Options are read
 * when it opens. null or undefined id: nothing is open.
 */
export declare function useTree(store: ConversationStore, id: string | null | undefined, options?: OpenOptions): UseTreeResult;

export interface PathWindow {
  /** The path index of ids[0]. */
  start: number;
  ids: string[];
  messages: readonly Readonly<Message>[];
  /** The whole active path's length: a virtualized list's row count. */
  length: number;
}

/**
 * A window of the active path (t.pathWindow) for a virtualized list: `count`
 * nodes (default 50) from `start` (negative counts from the leaf; default
 * -count: the last ones). The same object while nothing in it changed: a
 * component re-renders only when the window's nodes, their labels or the
 * path's length change, not for a change elsewhere in the tree. null while t is null.
 */
export declare function useActivePath(t: SessionTree | null, options?: { start?: number; count?: number }): PathWindow | null;

export interface SiblingsResult {
  /** The node's alternatives (its parent's children), in order. */
  siblings: string[];
  /** Its place among them; -1 without a node (id null, or not in the tree). */
  index: number;
  /** Opens the i-th alternative (t.open: with its own continuation); returns the active branch's name. */
  select(i: number): string;
}

/**
 * The alternatives at node id, for a ‹ n/m › switcher; re-renders only when
 * they change. An id the tree does not hold (a message useChat shows under its
 * own id until syncChat stores it) has none: siblings [], index -1.
 */
export declare function useSiblings(t: SessionTree | null, id: string | null | undefined): SiblingsResult;

/** Every branch and the active one's name; re-renders only when they change. null while t is null. */
export declare function useBranches(t: SessionTree | null): { active: string; branches: Branch[] } | null;
