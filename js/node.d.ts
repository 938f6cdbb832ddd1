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

/**
 * Saves `tree` to the file at `file`: the bytes of `tree.save()`, written
 * straight from the module's memory (`SessionTree.saveWith` and
 * `fs.writeSync`), with no string of the file in JavaScript memory. A regular
 * file (or none) is replaced whole or not at all: the bytes go to a new file
 * beside it, which is then renamed over it, so a save that fails or is cut
 * short leaves the old file as it was (renamed, not synced to the disk).
 * Anything else (a device, a pipe) is written in place. Returns the bytes
 * written; a file that cannot be written throws Node's error (`ENOENT`,
 * `EACCES`, `ENOSPC`…).
 */
export function saveFile(tree: SessionTree, file: string): number;
