// sessiontree/idb: conversations kept in the browser's IndexedDB, one record per
// node and per branch, written from each tree's change feed, opened off the
// page's thread and kept in sync across tabs. Hand-written; this file is the
// API's documentation.
//
//   import { init } from "sessiontree";
//   import { openStore } from "sessiontree/idb";
//   await init();
//   const store = await openStore({ name: "my-chats" });
//   await store.removeInterrupted();               // imports whose tab closed midway
//   const newest = store.conversations[0];         // the list, newest first
//   const conv = (newest && await store.open(newest.id)) // null: another tab deleted it
//     ?? await store.create(undefined, { title: "New chat" });
//   conv.tree.append({ role: "user", content: "hi" }); // written in the next task
//   conv.subscribe((e) => redraw(conv.tree));          // another tab's changes came in
//   await conv.close();

import type { SessionTree, Problem, ImportReport, MergeOptions, MergeReport } from "./sessiontree.js";

/**
 * Node rows per packed record of an import's first feed (~100 KB of a chat's
 * rows, one IndexedDB write each).
 */
export declare const PACK_ROWS: number;
/**
 * The order of `store.conversations` (for Array's sort): newest first by
 * `createdAt`, then by id, descending; the same in every tab and after a reload.
 */
export declare function newestFirst(a: Readonly<ConversationMeta>, b: Readonly<ConversationMeta>): number;

export interface StoreOptions {
  /**
   * The IndexedDB database's name (default "sessiontree"); the tabs' channel is
   * `${name}-sync`. A database another version of this package made opens as it is.
   */
  name?: string;
  /**
   * Keep the store in memory instead (no IndexedDB, no worker, no tab sync):
   * nothing survives a reload. What to open when openStore rejects with
   * `not_found` because the browser has no IndexedDB or refuses it (a private
   * window, a sandboxed frame, storage blocked).
   */
  memory?: boolean;
  /**
   * Read opens and write imports in the store's Web Worker (default true where
   * module workers run; started on first use, stopped after 5 s idle). False:
   * on the page's thread.
   */
  worker?: boolean;
  /** Keep other tabs on the same conversations in sync (default true; never in memory). */
  sync?: boolean;
  /**
   * What a merge of two tabs' diverged copies takes (default
   * `{ freshNames: true, keepPlace: true }`: the other tab's work under a short
   * branch-N name, this tab staying on its user's work).
   */
  mergeOptions?: MergeOptions;
  /**
   * Loads the interchange module a merge needs (default `() => initInterchange()`),
   * called the first time this tab has to merge: tabs that take turns never load it.
   */
  loadMerge?: () => Promise<void>;
}

/**
 * A conversation's record, listed without opening it. Fields the app adds (a
 * system prompt, a model) are kept with it.
 */
export interface ConversationMeta {
  readonly id: string;
  title: string;
  /** Milliseconds since the epoch. */
  createdAt: number;
  updatedAt: number;
  /** The tree's root node, null for an empty tree (as of its last write). */
  readonly root?: string | null;
  /** The active branch (as of its last write); in `conversations`, as of the last change of another field. */
  readonly activeBranch?: string;
  /** The count of writes to the conversation (tab sync compares it); in `conversations`, as of the last change of another field. */
  readonly rev?: number;
  [field: string]: unknown;
}

/** The active path's last nodes as stored, read before the tree is loaded. */
export interface StoredTail {
  activeBranch: string;
  /**
   * Root first. `node` is the stored node record ({ parent, children, message,
   * label, … }); `siblings` the children of its parent (null for a root, or for
   * the top one when its parent was not read): enough for a ‹ n/m › chip.
   */
  nodes: { id: string; node: { parent?: string | null; children?: string[]; message: unknown; label?: string | null; [k: string]: unknown }; siblings: string[] | null }[];
}

/** A conversation's stored rows, as SessionTree.fromRows takes them, and the rev they are as of. */
export interface StoredRows {
  root: string | null;
  activeBranch: string;
  branches: { name: string; row: string }[];
  nodes: { id: string; row: string }[];
  rev: number;
  /** The records that hold no row (not a string), left out of the lists above: present only when storage has such records. */
  bad?: string[];
}

export interface SearchHit {
  conversation: string;
  id: string;
  message: unknown;
}

export interface OpenOptions {
  /**
   * Called with the active path's last `tailCount` nodes, read from their own
   * records (a few reads whatever the size), before the whole conversation is
   * read: paint them while it loads. The whole read waits for the returned
   * promise. Not called in memory or when the stored rows have no such path.
   */
  onTail?: (tail: StoredTail) => void | Promise<void>;
  /** How many nodes onTail gets (default 60). */
  tailCount?: number;
  /** The load's slices on the page's thread, in ms (SessionTree.loadFrom; default 20). */
  sliceMs?: number;
  /**
   * Write every change of the tree in the next task (default true). False: only
   * conv.save() writes (an app that saves at moments of its own).
   */
  autosave?: boolean;
  /** Gives the open up (it rejects with the signal's reason at its next step). */
  signal?: AbortSignal;
}

export interface CreateOptions {
  /** As OpenOptions.autosave. */
  autosave?: boolean;
  /**
   * Write the tree's rows a part at a time (2,000 rows a transaction, the first
   * feed packed PACK_ROWS to a record) while the conversation is already usable:
   * an import. Until the last part the record says `importing` and the
   * conversation is listed by no other tab; removeInterrupted() removes one
   * whose tab closed first.
   */
  inParts?: boolean;
}

export interface ImportOptions {
  /** A format name SessionTree.import takes, "sessiontree" for a .tree.json, or "auto" (default). */
  format?: string;
  /** The conversation's title (default: the file's name without its extension, else "Imported"). */
  title?: string;
  /**
   * More fields of the new conversations' records. An `id` there is the
   * first conversation's; the others of a multi-chat export get ids of their own.
   */
  meta?: Record<string, unknown>;
  /**
   * Check a .tree.json (validate) in a worker of its own, stopped once it
   * answers, so that only one module holds a huge tree at a time (default true).
   */
  check?: boolean;
  /** The page's load in slices, in ms (default 20). */
  sliceMs?: number;
  /** As OpenOptions.autosave. */
  autosave?: boolean;
  /**
   * A .tree.json only: called with the active path's last `tailCount` nodes,
   * read from the file's head and last megabytes before the file is checked
   * and loaded (seconds for 100 MB), and the id and title the conversation
   * will have: paint them read-only meanwhile. Not called where the file does
   * not give them that way (its nodes unsorted, or the path's last nodes far
   * from its end); what the import then makes is what the check allows, which
   * may differ. The import waits for the returned promise before it returns.
   */
  onTail?: (tail: StoredTail, meta: { id: string; title: string }) => void | Promise<void>;
  /** How many nodes onTail gets (default 60). */
  tailCount?: number;
  /**
   * false: each conversation made is closed once its rows are stored (its
   * tree freed; the result has its meta and `conversation: null`),
   * so that a whole export of thousands of chats is not held open on the page
   * (default true: each is returned open).
   */
  open?: boolean;
  /**
   * Another tool's export of 4 MiB or more, on a page: read in a
   * sessiontree/worker of its own (stopped at the end, or by store.close()),
   * a conversation at a time, so that the page holds neither the file nor a
   * long task of its import; each conversation crosses as its .tree.json and
   * is loaded here (in slices from 4 MiB). The worker loads sessiontree.wasm
   * and sessiontree-interchange.wasm from beside sessiontree.js; when it
   * cannot start (no Worker, the modules elsewhere) the page reads the file.
   * false reads it on the page, as a store opened with `{ worker: false }`
   * does (default true; a .tree.json is checked in a worker either way).
   */
  worker?: boolean;
}

export interface ImportResult<C extends Conversation | null = Conversation> {
  /**
   * The conversations made, open (close each; null with `{ open: false }`,
   * closed once stored), each with its record's meta, the file's first first. A
   * .tree.json makes one, written in parts; a multi-chat export (ChatGPT's
   * conversations.json) one per chat, titled after it.
   */
  conversations: { conversation: C; meta: Readonly<ConversationMeta>; report: ImportReport | null }[];
  /** A .tree.json's structural problems (validate), repaired as `repairs` says. */
  problems: Problem[];
  repairs: Problem[];
  /**
   * What a .tree.json's import took: { check, load } in ms, and checkMemory,
   * the checker's module memory in bytes (its peak: it is stopped then).
   */
  timings: { check?: number; load?: number; checkMemory?: number };
}

/**
 * What a conversation's listeners are told:
 * - "applied": another tab's rows were applied to conv.tree in place;
 * - "merged": this tab's write found another tab's and merged it in (report);
 * - "reloaded": conv.tree is a new tree read from storage (`previous` is freed
 *   once the listeners return: drop it, and move what held it to conv.tree: a
 *   `live()` sync of it is closed and started again on the new tree, a
 *   `t.subscribe` listener subscribed again; the React hooks do it themselves);
 * - "meta": conv.meta took fields another tab (or store.update) stored: a
 *   rename. Fields this tab changed and has not yet written keep its values;
 * - "deleted": another tab deleted the conversation (or this tab's write found
 *   it gone): nothing of it is written any more; its tree stays readable until
 *   closed (close it, and show the user another);
 * - "error": a write in the background (autosave, an import's parts, the last
 *   save of a close) failed. Its changes stay untold: the next write takes them
 *   again; at a close, `journaled` says whether they were put in localStorage
 *   (the next open of the conversation, in any tab, writes them).
 * `before` is where the user was; the tree is put back there (the branch they
 * were on, or the one now ending at their leaf).
 */
export type ConversationEvent =
  | { kind: "applied"; before: { branch: string; leaf: string | null } }
  | { kind: "merged"; report: MergeReport; before: { branch: string; leaf: string | null } }
  | { kind: "reloaded"; before: { branch: string; leaf: string | null }; previous: SessionTree }
  | { kind: "meta"; meta: ConversationMeta }
  | { kind: "deleted" }
  | { kind: "error"; error: Error; journaled?: boolean };

/** What a write did: the rev it made and the rows it wrote. */
export interface SaveResult {
  rev: number;
  rows: number;
  /** The takeChanges call's time, in ms. */
  takeMs?: number;
}

/** A conversation open in this tab: its tree, written to the store as it changes. */
export interface Conversation {
  readonly id: string;
  /**
   * The conversation's record, written with every save. Change its fields (a
   * title) and save, or use store.update.
   */
  meta: ConversationMeta;
  /**
   * The tree. Another tab's changes are applied to it in place; after a
   * "reloaded" event it is another object (the one before is freed).
   */
  readonly tree: SessionTree;
  /** The rev of the stored conversation this tree holds. */
  readonly rev: number;
  readonly closed: boolean;
  /**
   * What the open took, in ms: { tail, read, join, load, open } (those that
   * happened); after create's inParts, `parts`: the parts written so far.
   */
  readonly timings: Record<string, number | undefined>;
  /** Calls listener after another tab's changes came in (and on a background write's error). Returns the unsubscribe function. */
  subscribe(listener: (event: ConversationEvent) => void): () => void;
  /**
   * Writes what changed since the last write (the tree's change feed) and the
   * meta; if another tab wrote in between, merges the stored copy in first and
   * writes the union. Writes of one store run in order.
   */
  save(): Promise<SaveResult>;
  /**
   * Resolves once every write of this conversation (an import's parts too) is
   * done; a change whose autosave is still waiting for the next task is
   * written now, so `conv.tree.append(m); await conv.saved()` finds m stored.
   * Rejects with the error of its last write when storage refused it (a full
   * disk: QuotaExceededError) and no write has stored the change since; the
   * change stays in the tree and the next write (or the close's journal)
   * takes it.
   */
  saved(): Promise<void>;
  /**
   * Holds other tabs' changes off this tree (they are applied or reloaded after
   * the release) while work that will change it is under way, say a reply
   * streaming in. Returns the release function.
   */
  hold(): () => void;
  /**
   * Writes what is pending, then frees the tree. Each open() of the same id
   * returns the same conversation and needs its own close(); the last one closes.
   */
  close(): Promise<void>;
}

/** A store of conversations. */
export interface ConversationStore {
  readonly name: string;
  /** False for a store in memory. */
  readonly persistent: boolean;
  /**
   * Every conversation's record, newest first: a frozen array, replaced (never
   * changed) when the list changes here or in another tab. Imports still being
   * written are not listed.
   */
  readonly conversations: readonly Readonly<ConversationMeta>[];
  /** Calls listener when `conversations` changed. Returns the unsubscribe function. */
  subscribe(listener: (conversations: readonly Readonly<ConversationMeta>[]) => void): () => void;
  /** Reads the list again (what openStore did). */
  list(): Promise<readonly Readonly<ConversationMeta>[]>;
  /** A conversation's record as stored, or null. */
  meta(id: string): Promise<ConversationMeta | null>;
  /** A conversation's rows as stored (SessionTree.fromRows takes them), or null. */
  rows(id: string): Promise<StoredRows | null>;
  /** The active path's last count nodes (default 50) from their own records; null in memory or when not stored so. */
  tail(id: string, count?: number): Promise<StoredTail | null>;
  /** Messages of the stored conversations (but except) that contain query, any case: at most limit (default 30). */
  search(query: string, options?: { except?: string; limit?: number }): Promise<SearchHit[]>;
  /**
   * Opens conversation id: its rows read and joined in the store's worker, the
   * bytes loaded on the page in slices (no long task), the legacy whole-file
   * record of version 1 turned into rows. Null when no such conversation is
   * stored. Rejects with a SessionTreeError whose `file` is the stored
   * .tree.json text (for the user to keep) when it does not load; `corrupt`
   * naming them when records hold no row (damaged in storage, or written by
   * other code), `file` then holding every other record. A failed open
   * writes nothing.
   */
  open(id: string, options?: OpenOptions): Promise<Conversation | null>;
  /**
   * Stores tree (default: an empty one) as a new conversation and opens it;
   * the meta object given becomes conv.meta (id, title, createdAt and
   * updatedAt filled in when missing). The tree is the conversation's now.
   */
  create(tree?: SessionTree, meta?: Partial<ConversationMeta>, options?: CreateOptions): Promise<Conversation>;
  /**
   * Imports a file: a .tree.json checked in a worker of its own, loaded in
   * slices and written in parts (create's inParts); another tool's export
   * through the interchange module (loadMerge loads it), one conversation per chat.
   * A failure part-way (a write refused: storage full) rejects; the
   * conversations stored before it stay stored and listed, closed.
   */
  importFile(file: Blob | Uint8Array, options: ImportOptions & { open: false }): Promise<ImportResult<null>>;
  importFile(file: Blob | Uint8Array, options?: ImportOptions & { open?: true }): Promise<ImportResult>;
  /** `open` not known until run time: each entry's conversation is open or null. */
  importFile(file: Blob | Uint8Array, options: ImportOptions): Promise<ImportResult<Conversation | null>>;
  /**
   * Merges fields into a conversation's record (not its id, rev, root or
   * active branch); a tab that has it open takes them into conv.meta (event
   * "meta"), and no tab's later write puts back what it held before.
   */
  update(id: string, fields: Partial<ConversationMeta>): Promise<void>;
  /**
   * Removes a conversation and its journals; an open one, in this tab or
   * another, is written no more (its saves resolve writing nothing). Another
   * tab's listeners hear an event "deleted" (close it there); this tab's hear
   * none: the caller of delete() closes it here.
   */
  delete(id: string): Promise<void>;
  /**
   * Removes the conversations whose import's tab closed before its last part
   * was written (marked importing longer than olderThanMs, default 60 s:
   * parts take < 1 s each); resolves to their records. Call it at start.
   */
  removeInterrupted(options?: { olderThanMs?: number }): Promise<ConversationMeta[]>;
  /** Resolves once every write queued so far is done (an open conversation's change waiting for its autosave is written now). */
  saved(): Promise<void>;
  /**
   * Writes what the open conversations have not yet got into IndexedDB (the
   * write in flight's changes and those waiting) to localStorage,
   * synchronously. The store calls it itself when the page is hidden or goes
   * away (`pagehide`), where a write in flight or queued may never finish;
   * the next open() of a conversation applies its journal and writes it, and
   * the write that lands it removes it. A journal that no longer applies is
   * kept under `<key>:unapplied:<ms>` and said on the console.
   */
  journal(): void;
  /** What the tab sync did so far (replayed: journals applied at an open). */
  readonly stats: { merges: number; reloads: number; posted: number; applied: number; replayed: number };
  /**
   * Closes every open conversation (writing what is pending), the worker, the
   * channel and the database. From the call on, an open() or create() still
   * under way, and every later call, is refused (invalid_input); a second
   * close() returns the first one's promise.
   */
  close(): Promise<void>;
}

/**
 * Opens the store called options.name. Rejects with a SessionTreeError
 * `not_found` when the browser has no IndexedDB or the database cannot be
 * opened (a private window, a sandboxed frame): open `{ memory: true }` then.
 */
export declare function openStore(options?: StoreOptions): Promise<ConversationStore>;
