// sessiontree/node: what sessiontree does better with Node's own APIs. It
// imports node:fs, so it is its own entry point: pages, workers and bundles
// that never import it never see it.
import fs from "node:fs";
import { SessionTree, SessionTreeError } from "./sessiontree.js";

/**
 * Loads the .tree.json file at path, read straight into the module's memory
 * (SessionTree.loadWith and fs.readSync): no copy of the file in JavaScript
 * memory, and about half the new memory and time of
 * SessionTree.load(fs.readFileSync(path)). Options as SessionTree.load's. A
 * file that cannot be opened or read throws Node's error (its code: ENOENT,
 * EACCES, EISDIR…), with nothing loaded.
 */
export function loadFile(path, options) {
  const fd = fs.openSync(path, "r");
  try {
    const size = fs.fstatSync(fd).size;
    return SessionTree.loadWith(size, (bytes) => {
      for (let at = 0; at < bytes.length;) {
        const n = fs.readSync(fd, bytes, at, bytes.length - at, at);
        if (n === 0) throw new SessionTreeError("invalid_input", `${path} ended after ${at} of its ${size} bytes (was it cut while being read?)`);
        at += n;
      }
    }, options);
  } finally {
    fs.closeSync(fd);
  }
}
