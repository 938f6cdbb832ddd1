import type { SessionTree } from "./sessiontree.js";

/**
 * Loads the .tree.json file at `path`, read straight into the module's memory
 * (`SessionTree.loadWith` and `fs.readSync`): no copy of the file in
 * JavaScript memory, and about half the new memory and time of
 * `SessionTree.load(fs.readFileSync(path))`. Options as `SessionTree.load`'s.
 * A file that cannot be opened or read throws Node's error (its `code`:
 * `ENOENT`, `EACCES`, `EISDIR`…), with nothing loaded.
 */
export function loadFile(path: string, options?: { keepDuplicateKeys?: boolean }): SessionTree;
