// sessiontree — a conversation tree for LLM chat clients, compiled from
// Go to WebAssembly. Hand-written declarations: this file is the API reference.

/** Any JSON object with a string `role`; every other field is kept exactly. */
export interface Message {
  role: string;
  content?: unknown;
  [field: string]: unknown;
}

/**
 * The stable code of every failure, the same in Go, JS and the edge worker's
 * HTTP answers: `not_found` (no node with that id), `branch_not_found` (no
 * branch of that name), `branch_exists` (a branch name asked for is taken),
 * `empty_branch` (the branch has no messages yet), `invalid_input` (an
 * argument or message is malformed), `corrupt` (the tree or file is
 * structurally broken), `unsupported_version` (a file of a newer format
 * version), `too_large` (an input over a limit, or more than the module's
 * 4 GiB of memory), `conflict` (the call contradicts the tree's state: copies
 * diverged beyond a delta, a branch moved while it was summarized).
 */
export type ErrorCode =
  | "not_found" | "branch_not_found" | "branch_exists" | "empty_branch" | "invalid_input"
  | "corrupt" | "unsupported_version" | "too_large" | "conflict";

/**
 * The edge worker's own codes, beside ErrorCode, which only the errors of
 * `sessiontree/sync` carry (sync(), live()'s onError: the code of the
 * worker's answer): `unauthorized` (401, or a live socket closed 4001),
 * `rate_limited` (429, or a socket closed 4029), `quota_exceeded` (429),
 * `busy` (503), `precondition_failed`, `precondition_required`, `gone`,
 * `method_not_allowed`, `upgrade_required`, `not_implemented`, `internal`.
 */
export type WorkerErrorCode =
  | "unauthorized" | "rate_limited" | "quota_exceeded" | "busy" | "precondition_failed"
  | "precondition_required" | "gone" | "method_not_allowed" | "upgrade_required"
  | "not_implemented" | "internal";

/** What every failure throws. The message names the id or branch at fault. */
export class SessionTreeError extends Error {
  readonly name: "SessionTreeError";
  /** The machine-readable kind of failure (a WorkerErrorCode only from `sessiontree/sync`). */
  readonly code: ErrorCode | WorkerErrorCode;
  /**
   * Only on the errors of `sessiontree/sync` (sync(), live()'s onError) for a
   * worker's 429 or 503: how long it asked to wait (its Retry-After, in ms;
   * 0 when it named no time).
   */
  retryAfterMs?: number;
  /**
   * Only on the errors of `sessiontree/idb`'s open() for a conversation that
   * does not load: the stored .tree.json text, for the user to keep (null
   * when not even that could be made).
   */
  file?: string | null;
}

/** One entry of `subtree()`: a node (or, read in runs, a chain of nodes) without its message. */
export interface SubtreeNode {
  /** The node, or the run's first node. */
  id: string;
  /** `id`'s parent; null for a root. */
  parent: string | null;
  /** Entries between this one and the read's top (0 for the top). */
  depth: number;
  /** The number of children of `last` (more than were read when `depth` stopped the read here). */
  childCount: number;
  /** `id`'s message role. */
  role: string;
  /** The start of `id`'s text on one line (at most 120 bytes, then "…"). */
  preview: string;
  /** `id`'s label, or null. */
  label: string | null;
  /** The branches whose leaf is `last`, by name. */
  branches: string[];
  /** Nodes in the entry (1 unless read in runs). */
  run: number;
  /** The run's last node (`id` when `run` is 1). */
  last: string;
}

/** One message of the tree. A fresh object on every call. */
export interface TreeNode {
  id: string;
  /** null for a root. */
  parent: string | null;
  /** Ordered by (createdAtMs, id). */
  children: string[];
  message: Message;
  label: string | null;
  createdAtMs: number;
}

/** A branch summary, as of one node of the branch (normally its leaf). */
export interface Summary {
  summary: string;
  nodeId: string;
  branch: string;
  /** null for a summary the caller wrote or a stub. */
  modelId: string | null;
  createdAtMs: number;
}

/** A named line of work. */
export interface Branch {
  name: string;
  /** null for a branch with no messages yet. */
  leaf: string | null;
  summary: Summary | null;
  createdAtMs: number;
}

/** A structural fault found by validate(), or a fix made by repair(). */
export interface Problem {
  /** duplicate_id, id_mismatch, dangling_parent, cycle, children_mismatch, dangling_leaf, duplicate_key, … */
  kind: string;
  node: string | null;
  branch: string | null;
  message: string;
}

/** SessionTree.loadFrom's options. */
export interface LoadFromOptions {
  /**
   * How long one slice of the load may run before the event loop gets the
   * thread back, in milliseconds (default 25; 0: a slice every few hundred
   * nodes). A slice may run a little longer: it ends at the module's next
   * yield point.
   */
  sliceMs?: number;
}

/** One node whose text matched search(). */
export interface Hit { nodeId: string; role: string; snippet: string; }

/** What stats() counts. */
export interface Stats { nodes: number; branches: number; roots: number; leaves: number; depth: number; messageBytes: number; }

/**
 * One operation of apply(), named after the method it calls, with that method's
 * argument names. `at` is the time to record (default: apply's atMs, then Date.now()).
 * An optional `name` or `modelId` is left out (or null) for none; an empty string is
 * refused (`invalid_input`), as the methods refuse it.
 */
export type Op =
  | { op: "append"; message: Message; at?: number }
  | { op: "rewind"; node: string; at?: number }
  | { op: "branch"; from: string; name?: string; at?: number }
  | { op: "switch"; branch: string }
  | { op: "label"; node: string; label: string; at?: number }
  | { op: "clearLabel"; node: string; at?: number }
  | { op: "checkout"; node: string; at?: number }
  | { op: "open"; node: string; at?: number }
  | { op: "edit"; node: string; message: Message; at?: number }
  | { op: "regenerate"; node: string; message: Message; at?: number }
  | { op: "summarize"; branch: string; summary: string; modelId?: string; at?: number }
  | { op: "deleteBranch"; branch: string; at?: number };

/**
 * What merge() changed in the tree merged into. Ids and names are sorted.
 */
export interface MergeReport {
  /** Nodes new to this tree. */
  nodesAdded: string[];
  /** Nodes whose label changed (the label set or cleared last wins). */
  labelsChanged: string[];
  /** Branch names new to this tree, conflict branches included. */
  branchesAdded: string[];
  /** Branches whose leaf changed (the move made last wins). */
  branchesMoved: string[];
  /** Branch names the other copy deleted after their last move here. */
  branchesDeleted: string[];
  /** Branches whose summary changed. */
  summariesChanged: string[];
  /** What was kept twice: a branch both copies moved, or one node id with two contents. */
  conflicts: MergeConflict[];
  /** The active branch after the merge: the one used last in either copy. */
  activeBranch: string;
  activeChanged: boolean;
  /** Whether anything changed: whether the tree now saves other bytes, also for what the lists do not name (a value kept hidden, a label's or a move's time, a deletion's record), a branch's use clock aside. */
  changed: boolean;
}

/**
 * What a merge into one user's copy (a tab, a device) may do beyond the rules
 * that make copies converge. Both default to false: the deterministic names.
 */
export interface MergeOptions {
  /**
   * Keep the other leaf of a branch both copies moved under a fresh `branch-N`
   * instead of `name~leaf` (the conflict's `keptAs` says which); the `name~leaf`
   * name is deleted, so a copy that still has it does not bring it back.
   */
  freshNames?: boolean;
  /**
   * Leave this tree's user where they were: on their active branch when it still
   * reaches their leaf, else on the branch that now ends at that leaf, instead of
   * the branch either copy used last.
   */
  keepPlace?: boolean;
}

/** One thing both copies changed apart that merge() kept twice. */
export interface MergeConflict {
  /** "branch": both moved `branch`; its other leaf `node` is kept on the branch `keptAs` ("branch~leaf").
   *  "node": the id `node` had two contents; the other is kept as the node `keptAs` ("id~hash"). */
  kind: "branch" | "node";
  node: string;
  branch: string;
  keptAs: string;
  message: string;
}

/**
 * A summarizer for summarizeBranchWith: typically a small-model call. It gets the
 * branch as text (renderBranchText) and an AbortSignal that fires on timeout, and
 * returns the summary, or `{ summary, modelId }`.
 */
export type Summarizer = (
  text: string,
  context: { branch: string; signal: AbortSignal },
) => Promise<string | { summary: string; modelId?: string }> | string | { summary: string; modelId?: string };

/** One conversation of a file read by `SessionTree.importAll`. */
export interface ImportedConversation {
  /** The conversation's title as the file gives it, or `""`. */
  title: string;
  tree: SessionTree;
  report: ImportReport;
}

/** What SessionTree.import read and what the format could not carry. */
export interface ImportReport {
  format: string;
  records: number;
  nodes: number;
  roots: number;
  branches: number;
  notCarried: string[];
  problems: { line: number; id: string | null; message: string }[];
}

/** A model API whose request projectFor writes (core/provider). */
export type ModelAPI = "openai-chat" | "openai-responses" | "anthropic";

/** Options of projectFor. */
export interface ProjectionOptions {
  /** The branch to project. Default: the active branch. */
  branch?: string;
  /**
   * The most approximate tokens the request may hold (a token per 4 bytes of
   * text, arguments and names, rounded up, plus 4 per message); 0 or absent:
   * no limit. Over it, the oldest turns are left out (never a tool call
   * without its result; the system messages the path starts with, its
   * preamble, always stay) and a system note takes their place, with the
   * summaries of the other branches (those without one are left out:
   * report.unsummarized counts them) and the branch's own when it covers what
   * was left out; report.budgetDropped counts the path's messages left out.
   * The newest exchange (from the last user message on) is kept whatever its
   * size. A request reads the path from its end back only as far as the
   * budget needs (the first request of a 200k-message chat converts a few
   * hundred messages), then converts only the messages added since, so it
   * costs about the same in a long chat as in a short one. With a budget,
   * the report's other counts (messages, dropped, parts, …) are of the part
   * of the path the request read. In the lean module the first request
   * copies the tree into the helper once (then hands it only the new rows):
   * a chat client that sends requests loads the full module.
   */
  budget?: number;
  /**
   * A node of the branch's path where the request's path ends: the request
   * for a regenerated reply, or for a reply to an earlier turn, without a
   * copy of the tree. Not on the path: an invalid_input error.
   */
  upTo?: string;
  /**
   * false leaves out every thinking block, even one the API would take back.
   * Default true: Anthropic gets back thinking with an Anthropic signature (it
   * refuses a signature it cannot verify: one made on another platform, such as
   * a Bedrock transcript, or for another model; then pass false).
   */
  thinking?: boolean;
}

/**
 * The fields of a request body for a model API, ready to spread into it:
 * `{ messages }` (openai-chat: POST /v1/chat/completions), `{ input }`
 * (openai-responses: POST /v1/responses), `{ system?, messages, tools? }`
 * (anthropic: POST /v1/messages; `tools` defines each tool the history calls,
 * as Anthropic requires: replace it with your own definitions). Add model,
 * max_tokens and the rest yourself.
 */
export interface ProjectionRequest {
  messages?: unknown[];
  input?: unknown[];
  system?: string;
  tools?: { name: string; description: string; input_schema: { type: "object" } }[];
}

/** What a projection changed or left out. */
export interface ProjectionReport {
  /** Messages read from the path. */
  messages: number;
  /** Off-path nodes taken into the path: the parallel tool calls and results Claude Code hangs beside it. */
  adopted: number;
  /** Messages (input items) written; 0 when the path holds nothing a model sees (the API would refuse the empty list). */
  sent: number;
  /** Approximate tokens written (see ProjectionOptions.budget). */
  tokens: number;
  /** Messages no model sees, left out: a tool's own notes, hidden or empty ones. */
  dropped: number;
  /** Thinking parts left out: the API takes none back (OpenAI), or the signature is not the API's. */
  thinking: number;
  /** Other parts left out or written as text (unknown parts, images the API cannot take, a result's non-text parts). */
  parts: number;
  /** Ids of tool calls written as text in this request: no result followed them (none of the messages a budget left out). */
  orphanCalls: string[];
  /** Ids of tool results written as text in this request: no call before them, or a second result for one call. */
  orphanResults: string[];
  /** Call ids rewritten to be legal ([A-Za-z0-9_-]{1,64}; the same on the call and its result). */
  renamedIds: number;
  /** Tool names rewritten to be legal. */
  renamedTools: number;
  /** Anthropic: messages merged into the one before (same role). */
  merged: number;
  /** Anthropic: a user message was put first (the path starts with the assistant). */
  placeholder: boolean;
  /** Messages the budget left out: a system note stands in their place. */
  budgetDropped: number;
  /** What was kept is still over the budget (the newest exchange alone is). */
  overBudget: boolean;
  /**
   * The branches whose summaries the budget's note holds in place of what it
   * left out, the projected branch's own first when it covers that; empty
   * when nothing was left out. Show it beside the request, with budgetDropped,
   * so the user knows what the model was not sent.
   */
  summarized: string[];
  /** Other branches the note could say nothing of: they have no summary (only a stub, which is not sent). */
  unsummarized: number;
}

/** Options of summarizeBranchWith; any other key is refused (`invalid_input`). */
export interface SummarizeOptions {
  /** How long to wait for the summarizer before using the stub. Default 30000. */
  timeoutMs?: number;
  /** The model id to record when the summarizer returns a plain string. */
  modelId?: string;
}

/** What a strictly linear export can carry: the active messages and every other branch's summary or stub. */
export interface Splice { messages: Message[]; summaries: Summary[]; }

/** init's option: `full: true` loads the full module, `sessiontree-interchange.wasm`, found next to this module; `full: false` (or `{}`) the lean one, as no argument does. Any other key throws `invalid_input`. */
export interface InitOptions { full?: boolean; }

/**
 * Loads and starts the WebAssembly module; call once before anything else (a
 * second call is a no-op). Two flavours, one API: the module is whichever file
 * loads.
 *
 * - Lean (the default): with no argument it finds `sessiontree.wasm` next to
 *   this module (fetch in browsers and workers, the file system in Node).
 *   Every tree method but merge, import, export and projectFor (and the
 *   statics importAll, importEach, mergeJSON and deltaParts), which need
 *   `initInterchange()` (a second, stateless module loaded on first use).
 * - Full: `init({ full: true })` finds `sessiontree-interchange.wasm` there
 *   instead. Every tree method, and `t.merge` (in place), `SessionTree.import`,
 *   `t.export` and `SessionTree.mergeJSON` run in it, with no
 *   `initInterchange()` (which becomes a no-op). Larger, and a merge costs a
 *   tenth: for clients that sync long conversations.
 *
 * It also takes a URL, the bytes, a fetch Response, or a compiled
 * WebAssembly.Module of either file (Cloudflare Workers: the package's
 * `workerd` entry passes the bundled one, `{ full: true }` included).
 *
 * The first module loaded stays: a later init resolves at once, but
 * `init({ full: true })` after the lean one (sessiontree/idb calls `init()`
 * itself) loads the interchange module beside it (`initInterchange()`), so
 * that every method works.
 */
export function init(source?: string | URL | ArrayBuffer | ArrayBufferView | Response | WebAssembly.Module | InitOptions): Promise<void>;

/**
 * Loads and starts the interchange module, `sessiontree-interchange.wasm`: the
 * converters of other tools' chat files (import, export), merge and
 * projectFor, kept out of the main module so that it stays small and starts
 * fast. Call it once before `SessionTree.import`, `importAll`, `importEach`, `mergeJSON`,
 * `deltaParts`, `t.export`, `t.merge` or `t.projectFor` (before, they throw a
 * SessionTreeError `invalid_input` saying so); a second call is a no-op. It takes the same sources as init, and with no argument
 * finds the file next to this module (the `workerd` entry passes the bundled
 * module). It does not need init to have finished:
 * `await Promise.all([init(), initInterchange()])` loads both at once. A chat
 * client typically calls it when the user first imports, exports or syncs
 * (`sync()` of `sessiontree/sync` calls it itself). With the full module
 * loaded or loading by init (`init({ full: true })`), it resolves without
 * loading anything: the full module does all of this itself.
 */
export function initInterchange(source?: string | URL | ArrayBuffer | ArrayBufferView | Response | WebAssembly.Module): Promise<void>;

/** What takeChanges answers: the rows to write (a null row: delete the record). */
export interface RowChanges {
  /** Every row of the tree (the first call): replace what the store holds. */
  all: boolean;
  /**
   * Asked with a `limit`: the rest of this feed comes from the next calls
   * (before anything changed since); write this part, then ask again.
   */
  more: boolean;
  root: string | null;
  activeBranch: string;
  branches: { name: string; row: string | null }[];
  nodes: { id: string; row: string | null }[];
}

/**
 * What a change event tells (SessionTree.subscribe): what changed since the
 * listeners were last told.
 */
export interface TreeChange {
  /** The tree's version after the change (SessionTree.version). */
  version: number;
  /** Anything may have changed: the tree was replaced whole (a merge in the lean module, applyChanges of every row). */
  all: boolean;
  /** The root or the active branch may have changed. */
  meta: boolean;
  /** Ids of the nodes added, changed (children, label) or removed, sorted; `node(id)` is null for a removed one. */
  nodes: string[];
  /** Names of the branches added, moved, summarized or deleted, sorted. */
  branches: string[];
}

/** Bytes of WebAssembly memory held by each loaded module. */
export interface MemoryUsage {
  /** The main module's memory: the peak it has needed (WebAssembly memory never shrinks). */
  main: number;
  /** The interchange helper's memory, or 0 when it is not loaded. */
  interchange: number;
}

/**
 * How much WebAssembly memory the modules hold, for a page that watches its
 * footprint. The module reuses its large buffers and collects what a freed
 * tree or a large call left before the next large call, so this stays near
 * the largest working set rather than growing with every call. Past 64 MB,
 * many calls in a row that each grow it a little have it grown ahead, up to
 * 32 MiB, in pages untouched until used (each growth costs the page a full
 * collection of its JavaScript heap). A wasm32 module is limited to 4 GiB: a call that would need more fails with
 * `too_large` before it changes anything, and the module keeps working.
 * Throws `invalid_input` before `init`.
 */
export function memoryUsage(): MemoryUsage;

/**
 * Resolves when the module's tidy collection is over (at once when none is
 * under way), with the number of idle slices it took (0: none was under way). After a large load or build (32 MB through the module), the
 * module collects the garbage it left in idle callbacks, 5 ms at a time, so
 * that the calls that follow reuse that memory rather than grow the module.
 * Nothing needs to wait for it: calls work meanwhile.
 */
export function settled(): Promise<{ steps: number }>;

/**
 * A conversation tree, held in the WebAssembly module. Every method is one call
 * into the module. Times (`atMs`) are integer milliseconds and default to
 * Date.now(). Failures throw SessionTreeError. Release it with free() or `using`.
 */
export class SessionTree implements Disposable {
  /** An empty tree: one leafless branch "main", active. */
  constructor();
  /** The single-path tree of messages, each stamped atMs. Zero messages give an empty tree. */
  static fromLinear(messages: Message[], atMs?: number): SessionTree;
  /**
   * Loads a .tree.json file, as text or UTF-8 bytes (bytes are faster for big files).
   * Throws `corrupt` naming the node, the key and where it is for a message that
   * names a key twice at any depth (JSON.parse would read the last of the two
   * and a projection the first). With `keepDuplicateKeys: true` such a message
   * is kept instead: `validate()` reports it (`duplicate_key`), every projection
   * and export through it throws `corrupt`, and `repair()` keeps the last value
   * of each such key, as JSON.parse reads it.
   */
  static load(json: string | ArrayBuffer | ArrayBufferView, options?: { keepDuplicateKeys?: boolean }): SessionTree;
  /**
   * Loads a .tree.json of `size` bytes that `fill(bytes)` writes straight into
   * the module's memory: `bytes` is a Uint8Array of exactly `size` bytes
   * there, valid only while `fill` runs, which must write all of them,
   * synchronously, and call nothing of sessiontree's (such a call throws
   * `invalid_input`, and so does the load; so does a `fill` that returns a
   * promise: use `loadFrom` for a stream). In Node, `sessiontree/node`'s
   * `loadFile` reads a file into it with `fs.readSync`: the file is never
   * whole in JavaScript memory. Options as `load`'s; an error thrown by
   * `fill` is thrown, with nothing loaded.
   */
  static loadWith(size: number, fill: (bytes: Uint8Array) => void, options?: { keepDuplicateKeys?: boolean }): SessionTree;
  /**
   * Loads a .tree.json from bytes, a Blob (a File), a ReadableStream of
   * Uint8Array chunks or a fetch Response, without making it a string, and in
   * slices: the chunks are read, copied into a buffer of the module's memory
   * that is this load's alone (a few MB at a time), and read there by the
   * module for about `sliceMs` at a time (default 25; 0: a slice every few
   * hundred nodes), the event loop running in between — rendering, input,
   * timers, calls on other trees — so that a 100 MB file makes no long task on
   * the page. The tree keeps the bytes (not copied again) and is the tree
   * `load` gives, byte for byte. Rejects as `load` throws (`corrupt`, …);
   * `not_found` for a Response that is not ok. Several loads may run at once.
   */
  static loadFrom(source: ArrayBuffer | ArrayBufferView | Blob | ReadableStream<Uint8Array> | Response, options?: LoadFromOptions): Promise<SessionTree>;
  /**
   * The tree whose rows these are: a store's records, as `takeChanges` gave
   * them, in any order. Its `save()` is byte for byte the file they were cut
   * from. Throws `corrupt` for a row that is not one, `invalid_input` for a
   * malformed argument.
   */
  static fromRows(rows: { root?: string | null; activeBranch: string; branches: { name: string; row: string }[]; nodes: { id: string; row: string }[] }): SessionTree;
  /**
   * The .tree.json text of a store's rows (as `fromRows` takes them; null rows
   * are left out), without loading it: what a worker hands a page to load.
   * Needs no `init`. Throws `invalid_input` for a malformed argument.
   */
  static fileFromRows(rows: { root?: string | null; activeBranch: string; branches: { name: string; row: string | null }[]; nodes: { id: string; row: string | null }[] }): string;

  /**
   * Imports another tool's chat export: format is chatgpt, openwebui,
   * librechat, claudecode, pi, codex, claudeai (claude.ai's conversations.json),
   * sillytavern (a SillyTavern chat .jsonl), openai, ai-sdk (a UIMessage[]),
   * assistant-ui (an ExportedMessageRepository),
   * sessiontree (a .tree.json), or auto
   * (detect; the default). The
   * report says what was read and everything the format could not carry.
   * Needs the full module (`init({ full: true })`) or `await initInterchange()` once before.
   */
  static import(text: string | ArrayBuffer | ArrayBufferView, format?: string): { tree: SessionTree; report: ImportReport };
  /**
   * Imports a file that holds several conversations (a ChatGPT or claude.ai
   * conversations.json, an Open WebUI export of several chats) as one tree per
   * conversation, each with its title (`""` when the file gives none) and its
   * own report. A file of any other format is one conversation. `format` as
   * for `import` (`"auto"` by default). Needs the full module or
   * `await initInterchange()` once before.
   */
  static importAll(text: string | ArrayBuffer | ArrayBufferView, format?: string): ImportedConversation[];
  /**
   * `importAll` a conversation at a time: the file is read as the iterator is
   * asked for its next conversation, so that the module holds a piece of the
   * file and one conversation, never the trees of them all nor the file (what
   * a whole data export needs: a 345 MB ChatGPT export holds 2,001). In a Web
   * Worker it also takes a `Blob` or `File`, read a piece at a time
   * (`FileReaderSync`), so that the file is held nowhere. Each tree is the caller's
   * to keep or free. Its arguments are checked at the call; the file is read
   * at the first `next()`, which throws what `importAll` would (a file no
   * format reads). A list of conversations that stops being JSON part-way
   * (an export whose download stopped midway) gives its whole conversations
   * first, then throws `invalid_input` saying where it stops and, when its
   * end cut it, that the file is cut short (`importAll` throws that alone).
   * Stopping early (`break`, `return()`) gives the rest up.
   * Needs the full module or `await initInterchange()` once before.
   */
  static importEach(text: string | ArrayBuffer | ArrayBufferView | Blob, format?: string, options?: { files?: false }): Generator<ImportedConversation, void, undefined>;
  /** `{ files: true }`: each conversation as its .tree.json bytes, loaded by no module (what a store writes, or a worker hands a page to load). */
  static importEach(text: string | ArrayBuffer | ArrayBufferView | Blob, format: string, options: { files: true }): Generator<{ title: string; file: Uint8Array; report: ImportReport }, void, undefined>;
  /** The tree in another format (chatgpt, openwebui, librechat, claudecode, pi, codex, claudeai, sillytavern, openai, ai-sdk, assistant-ui or markdown; `save()` writes the .tree.json), as text. Needs the full module or `await initInterchange()` once before. */
  export(format: string): string;
  /**
   * The same with a report: for `"openai"` (Chat Completions messages, the
   * conversion `projectFor("openai-chat")` makes without a budget) what it
   * could not carry (thinking, parts the API cannot take, calls without a
   * result, messages no model sees); null for the other formats, which carry
   * what they cannot write in the file itself.
   */
  export(format: string, options: { report: true }): { text: string; report: ProjectionReport | null };
  /**
   * The path of a branch (default: the active one) as the fields of a request
   * body for a model API, with a report of what was changed or left out:
   * roles mapped, every tool call paired with its result by id (an orphan
   * becomes text), import fields stripped, thinking kept only where the API
   * takes it back (Anthropic, with an Anthropic signature), Anthropic's
   * alternation and tool rules kept. The messages may come from any format
   * SessionTree.import reads. Needs the full module or `await initInterchange()` once before
   * (the full module projects the live tree; the lean one keeps a copy in the helper,
   * handed only the rows changed since the last call). When the path ends with the
   * assistant, Anthropic continues that message (a prefill) where OpenAI writes a new
   * one: append the user's turn first.
   *
   * A chat resends the same prefix at every turn: the messages (Responses: input items;
   * Anthropic: each message's content blocks) are frozen objects, and the next call hands
   * back the same objects for what it keeps, neither written nor parsed again, so a
   * request costs what changed since the last one. Copy one to change it (`{ ...m }`);
   * the arrays (and Anthropic's message objects) are new for each call.
   *
   * ```js
   * const { request } = t.projectFor("anthropic", { budget: 100_000 });
   * await fetch(url, { method: "POST", body: JSON.stringify({ model, max_tokens: 1024, ...request }) });
   * ```
   */
  projectFor(api: ModelAPI, options?: ProjectionOptions): { request: ProjectionRequest; report: ProjectionReport };
  /**
   * Merges two .tree.json files without loading either as a tree, as merge()
   * does: the merged file's text (`ours` itself, as text, when the merge left it
   * as it was) and what changed in `ours`. For storage layers that hold files
   * (a tab syncing through IndexedDB). Needs only `await initInterchange()` (or the full module).
   */
  static mergeJSON(ours: string | ArrayBuffer | ArrayBufferView, theirs: string | ArrayBuffer | ArrayBufferView): { json: string; report: MergeReport };
  /**
   * A .tree.json file as delta documents (the worker's `/delta`,
   * `applyChanges`) of about `bytes` of node rows each, in the order to apply
   * them: every row as the file has it, parents before their children, the
   * branches and the active branch with the last. Applied in order to a copy,
   * they bring it every row of the file; a part sent again changes nothing.
   * How `sync()` pushes a tree too large for one request. Needs only
   * `await initInterchange()` (or the full module).
   */
  static deltaParts(file: string | ArrayBuffer | ArrayBufferView, bytes: number): string[];

  /** Adds message after the active branch's leaf and returns the new node's id. The message is copied. */
  append(message: Message, atMs?: number): string;
  /** Moves the active branch back to node; the old leaf is kept under a fresh "branch-N", whose name is returned (null for a no-op). */
  rewind(node: string, atMs?: number): string | null;
  /** Forks at node `from`: a new branch (named `name`, or a fresh "branch-N") becomes active. Returns its name. */
  branch(from: string, name?: string, atMs?: number): string;
  /** Makes the branch active. */
  switchBranch(branch: string): void;
  /** Sets a node's label (non-empty, ≤ 4096 bytes), as of atMs (merge keeps the later label). */
  label(node: string, label: string, atMs?: number): void;
  /** Removes a node's label, if any, as of atMs (merge keeps the later of a label and a clear). */
  clearLabel(node: string, atMs?: number): void;
  /**
   * Makes node visible on the active path, switching to the most recently used branch whose
   * path holds it, and returns the active branch's name.
   * When no branch's path holds node, it moves the active branch (main, say) to the newest
   * leaf below node, keeping the old leaf under a fresh name; see open() for a chat client.
   */
  checkout(node: string, atMs?: number): string;
  /**
   * Opens node as a chat client's "go to this message" should: switches to the most
   * recently used branch whose path holds node (as checkout); when none does (its branch
   * name was deleted, say), the newest leaf below node gets a fresh `branch-N` of its own,
   * active. No branch moves, and a deleted name never comes back (fresh names skip
   * deleted ones). Returns the active branch's name. Branches are asked from the most
   * recently used, O(log path length) each, until none left could be more recent: a ‹ ›
   * switch back and forth asks one or two; the first switch to an alternative unused since
   * it was made asks every branch used after it.
   */
  open(node: string, atMs?: number): string;
  /** Adds message as a new sibling of node on a fresh active branch; returns the new id. */
  edit(node: string, message: Message, atMs?: number): string;
  /** Adds an alternative reply to node (a sibling on a fresh active branch); returns the new id. */
  regenerate(node: string, message: Message, atMs?: number): string;
  /** Removes a branch name; its nodes stay (see prune). Not main, not the active branch. A merge keeps this branch deleted against copies that did not move it after atMs; another copy's branch made apart under the same name stays, and so does an append another copy made to this branch apart (the name comes back at it). */
  deleteBranch(branch: string, atMs?: number): void;
  /**
   * Merges another copy of this conversation into this one: the
   * union of nodes; a branch both copies moved keeps the later move and the other
   * leaf on "name~leaf"; labels, summaries and deletions by their times. Merging in
   * any order gives the same save(). `other` is not changed. Throws `corrupt` for a
   * tree with structural problems (repair() it first). With the full module
   * (`init({ full: true })`) it merges in place, in that module; with the lean
   * one it needs `await initInterchange()` once before (the merge runs in the
   * helper and is swapped in). Either way this object keeps its handle and its
   * cached messages. `options` (see MergeOptions) are for a merge into one
   * user's copy: `{ freshNames: true, keepPlace: true }` is what a tab wants.
   */
  merge(other: SessionTree | string | Uint8Array | ArrayBuffer, options?: MergeOptions): MergeReport;
  /**
   * Runs ops in one call, all or nothing. Returns one result per op: the new id
   * (append, edit, regenerate), the kept branch or null (rewind), the branch name
   * (branch, checkout, open), undefined otherwise.
   */
  apply(ops: Op[], atMs?: number): (string | null | undefined)[];

  /**
   * The active branch's messages, root first. Messages are frozen and shared
   * between calls. The list is a new array of the caller's own each call, lazy:
   * a message is read from the module and parsed when first read (a list of
   * 100k messages is handed out without parsing them). It is an Array (a
   * Proxy of one while a message of it is unread, else a plain one) to every
   * read, write, Array method and JSON.stringify; like
   * any Proxy it cannot cross structuredClone or postMessage: send a copy
   * (`list.slice()`, `Array.from(list)`). It stays readable after the tree
   * changes, is pruned or is freed.
   */
  linearProjection(): readonly Readonly<Message>[];
  /** A branch's messages, root first (frozen; lazy, as linearProjection's). Fails closed (corrupt) on a broken path. */
  linearProjectionOf(branch: string): readonly Readonly<Message>[];
  /** The active branch's node ids, root first. */
  activePath(): string[];
  /** A branch's node ids, root first. */
  pathOf(branch: string): string[];
  /**
   * The number of nodes on the path of `branch` (default: the active one),
   * counted without reading the messages: a virtualized chat view's length.
   * Throws `branch_not_found`, or `corrupt` for a broken path.
   */
  pathLength(branch?: string): number;
  /**
   * The change feed of a store that keeps one record per node and per branch
   * (IndexedDB, a SQL table), so that a change writes a handful of records,
   * never the whole tree. The first call answers every row (`all: true`) and
   * starts recording; each later call answers the rows changed since the
   * previous one: a `row` is the record's canonical JSON text (what .tree.json
   * holds under its key), `null` for a record that is gone. `root` and
   * `activeBranch` always come along. `SessionTree.fromRows` makes the tree
   * of the stored rows again. After `t.merge` with the lean module (the
   * interchange helper swaps a merged tree in) the next call answers every
   * row again (`all: true`); with the full module a merge is recorded like
   * any change. `{ stored: true }`: the store holds every row already (the
   * tree was made from them, `fromRows`, or written elsewhere): a first call
   * starts recording and answers no row (a later call is as without it), so
   * opening a huge stored session does not turn every record into a string.
   * `{ limit: n }`: at most n rows per call (branches first, then nodes), so
   * that a huge first feed is written a part at a time, never held whole;
   * `more: true` says the rest of the same feed comes from the next calls,
   * before anything changed since (only the first part is `all`). A record
   * changed after its part was taken comes again in a later feed, so a store
   * that writes the parts in order, then the later feeds, holds the tree. A
   * call without a limit takes all that is left of a feed and the changes since.
   * `{ feed: "sync" }`: a second feed, kept apart from the store's, for a
   * client that pushes what changed to a copy elsewhere (`live()` of
   * `sessiontree/sync` with `deltas`), so that a tree stored row by row
   * (`sessiontree/idb`) is synced by its changes too. Its rows are what
   * changed since its previous call (after a tree replaced whole, a merge
   * with the lean module or an every-row delta: what the swap changed);
   * `all: true`, with no rows, on its first call: push the whole tree then.
   * It takes neither `stored` nor `limit`.
   */
  takeChanges(options?: { stored?: boolean; limit?: number; feed?: "store" | "sync" }): RowChanges;
  /**
   * The tree's version: larger after every call that changed it (applyChanges
   * and merge too), never smaller, the same while nothing changes: a snapshot
   * for React's `useSyncExternalStore(t.subscribe.bind(t), () => t.version)`.
   */
  readonly version: number;
  /**
   * Calls `listener` after every call on this object that changed the tree,
   * with what changed since the listeners were last told; a listener's own
   * changes are told next, a listener that throws stops no other (its error
   * goes to `reportError` where the platform has it, else `console.error`;
   * never to the caller). Independent of takeChanges: a store's feed
   * and events never take each other's changes. Returns the unsubscribe
   * function; free() drops every listener.
   */
  subscribe(listener: (event: TreeChange) => void): () => void;
  /**
   * Brings in what another copy of this conversation changed, as that copy's
   * `takeChanges()` gave it: what a second tab or device applies instead of
   * reloading or merging the whole tree. Applied to a copy that was equal to
   * the other before its changes, the two `save()` the same bytes after
   * (active branch aside). This copy's active branch stays unless `follow` is
   * set or it is gone; a node keeps the children only this copy knows of and
   * the later of two labels, so no local message is lost. Checked before
   * anything changes: `corrupt` for a row that is not one; `conflict` when the
   * copies diverged beyond a delta (a node that differs under the same id, a
   * parent or leaf in neither copy): merge then. The applied records are
   * changes for this tree's own `takeChanges()`. A delta with `all: true`
   * replaces the tree with its rows, which must make a whole tree
   * (`validate()` finds nothing in it, this copy's branch kept as above), or
   * it is `corrupt` and nothing changes: so a part of a feed taken with
   * `limit`, or the "sync" feed's first answer (no rows: push the whole tree),
   * never empties the tree. `changes` may also be a delta document
   * (JSON text or bytes) as the edge worker pushes to live clients:
   * `{"root","active","nodes":{id: node},"deleted_nodes":[…],"branches":{name:
   * branch},"deleted_branches":[…]}`, records as in .tree.json. Rows this
   * tree already holds (a delta delivered twice) change nothing: the version
   * stays, no listener is told, no feed names them.
   */
  applyChanges(changes: RowChanges | string | Uint8Array, options?: { follow?: boolean }): void;
  /**
   * A window of the path of `branch` (default: the active one): the ids and
   * the messages of `path.slice(start, end)`, with Array.prototype.slice's
   * rules (a negative index counts from the leaf; `end` omitted is the end).
   * The messages are the same frozen objects the projections hand out. A
   * window at the leaf end (`pathWindow(-50)`) reads only its own nodes, so a
   * screenful costs the same in a 100- and a 200k-message chat; any other
   * window also counts the path. Throws `invalid_input` for a non-integer
   * index, `branch_not_found`, or `corrupt` for a broken stretch it crosses.
   */
  pathWindow(start: number, end?: number, branch?: string): { ids: string[]; messages: readonly Readonly<Message>[] };
  /**
   * The nodes under `id` (every root when it is omitted or null), depth
   * first, children in `children()` order, without their messages: what a
   * tree view lays out. `depth` bounds how far below the top it reads (0:
   * the top alone), `limit` how many entries it returns (`more` is true when
   * it stopped there); with `runs: true` each chain of nodes without a fork,
   * label or branch end is one entry (`id` its first node, `last` its last,
   * `run` their number), so a 200k-message chat without forks is one entry.
   * A node reached twice in a corrupt tree is listed once. The cost grows
   * with the nodes it reads, never with the messages' size. Throws
   * `not_found` for an unknown id, `invalid_input` for a bad option.
   */
  subtree(id?: string | null, options?: { depth?: number; limit?: number; runs?: boolean }): { nodes: SubtreeNode[]; more: boolean };
  /**
   * At most `limit` entries of the tree read in runs (as `subtree(id, { runs:
   * true })` reads them) around node `id`: the subtree under the highest
   * ancestor of `id` whose subtree has at most `limit` entries, the first
   * node of `id`'s own chain at least (then `more` says it stopped at the
   * limit), every root when the whole tree fits. What a tree view of a huge
   * chat lays out around the message a user is at: the cost grows with
   * `limit` and the chains between `id` and the read's top, not with the
   * tree (a 200k-message chat forking every 50 messages reads `limit`
   * entries, where `subtree` reads 8,000). `above` is the number of nodes
   * above the read's top on its path (0 when it starts at a root). `limit`
   * omitted reads the whole tree. Throws `not_found` for an unknown id,
   * `invalid_input` for a bad limit.
   */
  subtreeAround(id: string, options?: { limit?: number }): { nodes: SubtreeNode[]; more: boolean; above: number };
  /**
   * For each of `ids`, whether that node is on the active path, inside the
   * module (no id of the path is copied out): how a tree view highlights its
   * boxes in a huge chat without `activePath()`. A few ids cost O(log path
   * length) each (each node knows its depth); more than the path's length
   * over 64, one walk up the path. An unknown id is not on the path. Throws
   * `corrupt` like `activePath()`.
   */
  onPath(ids: readonly string[]): boolean[];
  /**
   * For each of `ids`, what a chat view shows of that node besides its
   * message: its label (`null` when none), how many alternatives it has
   * (`siblings`, the node included) and its place among them (`index`), or
   * `null` for an id that is not a node: one call for a screen of messages,
   * where `node()` and `siblings()` are two each and copy the message and the
   * list. Throws `corrupt` for a node whose parent is missing.
   */
  switchers(ids: readonly string[]): ({ label: string | null; siblings: number; index: number } | null)[];
  /**
   * `id`'s index on the active path (0: the root), or -1 when it is not on
   * it: what `activePath().indexOf(id)` answers, without copying the path's
   * ids out (a chat view scrolling to a message of a huge chat), in O(log
   * path length) steps.
   */
  pathIndex(id: string): number;
  /** The node with id, or null. */
  node(id: string): TreeNode | null;
  /** A node's children, ordered by (createdAtMs, id). */
  children(id: string): string[];
  /** The node's siblings (itself included) and its index: the data of a 〈2/3〉 switcher. */
  siblings(id: string): { siblings: string[]; index: number };
  /** Every branch, by name. */
  branches(): Branch[];
  /**
   * At most `limit` branches: the active one first, then the others by their
   * last use, most recent first. Reads `limit` branches, not every branch.
   */
  recentBranches(limit: number): Branch[];
  /** The number of branches. */
  branchCount(): number;
  /** The name of the branch appends go to. */
  readonly activeBranch: string;
  /** Whether the tree has more than its main branch. */
  hasBranches(): boolean;

  /** Attaches a summary to a branch as of its leaf; modelId omitted for one the caller wrote. */
  summarizeBranch(branch: string, summary: string, modelId?: string, atMs?: number): void;
  /**
   * Summarizes a branch with an async summarizer without blocking the module: a
   * rejection, a timeout, or an empty answer falls back to the stub
   * ("[N turns, unsummarized]"). Rejects with `conflict` if the branch moved
   * while the summarizer ran (nothing is attached). Resolves to what was attached.
   */
  summarizeBranchWith(branch: string, summarizer: Summarizer, atMs?: number, options?: SummarizeOptions): Promise<Summary>;
  /** The deterministic stub summary of a branch. */
  stubSummary(branch: string): Summary;
  /** The branch as text, one turn per line ("role: text"): a summarizer's input. A part without text, and a reasoning or thinking part, shows as its type ("[reasoning]"); so do Open WebUI's `<details type="reasoning">` blocks in an assistant's content string. */
  renderBranchText(branch: string): string;
  /** The active messages and, for every other branch in name order, its summary or stub. */
  spliceForLinearExport(): Splice;

  /** Every structural problem (none for a tree built by these methods). */
  validate(): Problem[];
  /** Fixes every problem without dropping a message; one entry per change. */
  repair(): Problem[];
  /** Deletes nodes on no branch's path and returns their ids. Refuses a tree with problems (repair first). */
  prune(): string[];
  /** Nodes whose text contains query (any case), on every branch; limit 0 or omitted: all. */
  search(query: string, limit?: number): Hit[];
  /** Counts of nodes, branches, roots, leaves, depth and message bytes. */
  stats(): Stats;
  /** An independent copy. */
  clone(): SessionTree;
  /** The canonical .tree.json text; load(save()) saves the same bytes. */
  save(): string;
  /**
   * Writes what `save()` returns, as UTF-8 bytes, by handing `write` views of
   * the module's memory in order; returns how many bytes there were. Each
   * view is valid only while that call of `write` runs, which must use it
   * synchronously (write it out, or copy it) and call nothing of
   * sessiontree's (such a call, or a promise returned, fails the save with
   * `invalid_input`). No string of the file is made: in Node,
   * `sessiontree/node`'s `saveFile` writes a file so; in a worker, an OPFS
   * sync access handle's `write` takes the views as they come.
   */
  saveWith(write: (bytes: Uint8Array) => void): number;
  /**
   * Releases the tree in the module at once. Later calls throw. Calling it twice is harmless.
   * Lists it handed out stay readable: the bytes of messages they have not read yet are
   * copied out of the module first (JavaScript memory, given back when the lists are).
   */
  free(): void;
  /** free(), for `using t = new SessionTree()`. */
  [Symbol.dispose](): void;
}
