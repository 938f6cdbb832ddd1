// sessiontree/worker: the JS API of sessiontree.js in a Web Worker. Every method
// of SessionTree is here, returning a Promise of what it returns; trees live in
// the worker and the page holds proxies, so a huge session is opened, imported,
// saved or searched with no long task on the page's thread.
import type { ImportReport, InitOptions, LoadFromOptions, MemoryUsage, SessionTree, SessionTreeError } from "./sessiontree.js";
export { SessionTreeError } from "./sessiontree.js";

/** Every method of T, returning a Promise of its result; trees as AsyncSessionTree. */
type Async<T> = {
  [K in keyof T]: T[K] extends (...args: infer A) => infer R
    ? (...args: { [I in keyof A]: A[I] extends SessionTree ? AsyncSessionTree | string : A[I] }) => Promise<Awaited<Lift<R>>>
    : Promise<T[K]>;
};
type Lift<R> = R extends SessionTree ? AsyncSessionTree
  : R extends { tree: SessionTree } ? Omit<R, "tree"> & { tree: AsyncSessionTree }
  : R extends Array<infer E> ? Array<E extends { tree: SessionTree } ? Omit<E, "tree"> & { tree: AsyncSessionTree } : E>
  : R;

/**
 * A SessionTree held by the worker. `summarizeBranchWith` cannot cross (its
 * summarizer is a function): get the text with `await t.renderBranchText(branch)`,
 * call your model on the page, then `await t.summarizeBranch(branch, summary, modelId)`.
 * Nor can `saveWith` (its views are of the worker's memory): `await t.save()`.
 * `free()` releases it at once; otherwise it is freed when the proxy is
 * collected. A message (append, edit, regenerate, apply, fromLinear) crosses as
 * its JSON, so it is stored as on the page; before, it crossed by structured
 * clone (a class with toJSON stored as its fields, a URL refused). It has
 * SessionTree's methods and getters (`version`, `activeBranch`: Promises) and
 * no other name; before, any name was a remote call, so `version` was a
 * function and `JSON.stringify` called a `toJSON`. `subscribe(listener)`
 * keeps the listener on the page and resolves to its unsubscribe function
 * once the worker watches the tree; each change's event is heard before the
 * call that made it resolves (it failed before: a function cannot be cloned).
 */
export type AsyncSessionTree = Async<Omit<SessionTree, "summarizeBranchWith" | "saveWith" | typeof Symbol.dispose>>;

/** The static side: SessionTree.load, loadFrom (a Blob or File is read in the worker), fromLinear, fromRows, fileFromRows (refused by the worker before), import, importAll, importEach, mergeJSON, deltaParts. */
export interface AsyncSessionTreeStatics {
  /** `options.keepDuplicateKeys` as for SessionTree.load. */
  load(json: string | ArrayBuffer | ArrayBufferView, options?: Parameters<typeof SessionTree.load>[1]): Promise<AsyncSessionTree>;
  /** A stream (a Response's body) is transferred to the worker: it is the worker's after the call. Both failed before (they cannot be cloned). */
  loadFrom(source: ArrayBuffer | ArrayBufferView | Blob | ReadableStream<Uint8Array> | Response, options?: LoadFromOptions): Promise<AsyncSessionTree>;
  fromLinear(messages: { role: string; [k: string]: unknown }[], atMs?: number): Promise<AsyncSessionTree>;
  fromRows(rows: Parameters<typeof SessionTree.fromRows>[0]): Promise<AsyncSessionTree>;
  fileFromRows(rows: Parameters<typeof SessionTree.fileFromRows>[0]): Promise<string>;
  import(text: string | ArrayBuffer | ArrayBufferView, format?: string): Promise<{ tree: AsyncSessionTree; report: ReturnType<typeof SessionTree.import>["report"] }>;
  /** One entry per conversation of the file, its tree held by the worker. */
  importAll(text: string | ArrayBuffer | ArrayBufferView, format?: string): Promise<{ title: string; tree: AsyncSessionTree; report: ImportReport }[]>;
  /**
   * SessionTree.importEach in the worker: `for await (const c of st.SessionTree.importEach(file))`.
   * A Blob or File is read in the worker (the page never holds its bytes);
   * each step is a request, so the worker holds the file and the conversation
   * asked for (free each tree once done with it). Errors, its arguments'
   * too, come at the first step; `break` gives the rest up.
   */
  importEach(source: string | ArrayBuffer | ArrayBufferView | Blob, format?: string, options?: { files?: false }): AsyncGenerator<{ title: string; tree: AsyncSessionTree; report: ImportReport }, void, undefined>;
  /** `{ files: true }`: each conversation's .tree.json bytes move to the page (no tree in the worker, one message a conversation): `SessionTree.load(file)` there. */
  importEach(source: string | ArrayBuffer | ArrayBufferView | Blob, format: string, options: { files: true }): AsyncGenerator<{ title: string; file: Uint8Array; report: ImportReport }, void, undefined>;
  mergeJSON(ours: string | ArrayBuffer | ArrayBufferView, theirs: string | ArrayBuffer | ArrayBufferView): ReturnType<typeof SessionTree.mergeJSON> extends infer R ? Promise<R> : never;
  deltaParts(file: string | ArrayBuffer | ArrayBufferView, bytes: number): Promise<string[]>;
}

export interface WorkerSessionTree {
  /** The statics; `new st.SessionTree()` throws (a constructor cannot wait for the worker): use newTree. */
  SessionTree: AsyncSessionTreeStatics;
  /** An empty tree, what `new SessionTree()` makes. */
  newTree(): Promise<AsyncSessionTree>;
  /** Loads the interchange module in the worker; a relative URL is read against the page. */
  initInterchange(source?: string | URL): Promise<void>;
  memoryUsage(): Promise<MemoryUsage>;
  /** Stops the worker: every tree in it is gone, pending calls reject. */
  close(): void;
}

/**
 * Starts a module Web Worker (sessiontree.worker.js, beside this file), loads
 * the module in it with init's `source` (a URL or its text, bytes, or
 * `{ full: true }`; default: sessiontree.wasm beside it) and resolves to the
 * worker's API. A relative URL is read against the page, as init() reads it
 * (it was read against the worker's script before). `options.worker`: a
 * Worker you started on sessiontree.worker.js. When the module fails to load,
 * connect rejects and stops the worker it started (one you passed is yours);
 * before, it left it running.
 */
export function connect(source?: string | URL | ArrayBuffer | ArrayBufferView | InitOptions, options?: { worker?: Worker }): Promise<WorkerSessionTree>;

/**
 * The steps of an importEach read ahead of their use, so that the worker reads
 * on while the page stores what it has: up to `options.bytes` (default 32 MiB)
 * of the conversations' files with `{ files: true }`; steps without a file are
 * read one ahead. Errors come at the step where they were read. `most` is the
 * most steps held read ahead at once; `return()` (a `break`) gives the rest up
 * and frees a tree read ahead.
 *
 *   for await (const c of readAhead(st.SessionTree.importEach(file, "auto", { files: true })))
 *     await store.create(SessionTree.load(c.file), { title: c.title });
 */
export function readAhead<T>(steps: AsyncIterator<T, void, undefined>, options?: { bytes?: number }): AsyncIterableIterator<T> & { readonly most: number };
