// sessiontree/node: what sessiontree does better with Node's own APIs. It
// imports node:fs, so it is its own entry point: pages, workers and bundles
// that never import it never see it.
import fs from "node:fs";
import path from "node:path";
import { SessionTree, SessionTreeError } from "./sessiontree.js";

/**
 * Loads the .tree.json file at `file`, read straight into the module's memory
 * (SessionTree.loadWith and fs.readSync): no copy of the file in JavaScript
 * memory, and about half the new memory and time of
 * SessionTree.load(fs.readFileSync(file)). Options as SessionTree.load's. A
 * file that cannot be opened or read throws Node's error (its code: ENOENT,
 * EACCES, EISDIR…), with nothing loaded.
 */
export function loadFile(file, options) {
  const fd = fs.openSync(file, "r");
  try {
    const size = fs.fstatSync(fd).size;
    return SessionTree.loadWith(size, (bytes) => {
      for (let at = 0; at < bytes.length;) {
        const n = fs.readSync(fd, bytes, at, bytes.length - at, at);
        if (n === 0) throw new SessionTreeError("invalid_input", `${file} ended after ${at} of its ${size} bytes (was it cut while being read?)`);
        at += n;
      }
    }, options);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Saves tree to the file at file: the bytes of tree.save(), written straight
 * from the module's memory (SessionTree.saveWith and fs.writeSync), with no
 * string of the file in JavaScript memory. A regular file (or none) is
 * replaced whole or not at all: the bytes go to a new file beside it, which
 * is then renamed over it, so a save that fails or is cut short (the disk
 * full, the process killed) leaves the old file as it was. (Renamed, not
 * synced to the disk: a power cut may still take the last save.) Anything
 * else (a device, a pipe) is written in place. Returns the bytes written; a
 * file that cannot be written throws Node's error (its code: ENOENT,
 * EACCES, ENOSPC…).
 */
export function saveFile(tree, file) {
  let regular = true;
  try {
    regular = fs.statSync(file).isFile();
  } catch (e) {
    if (e.code !== "ENOENT") throw e;
  }
  const to = regular ? path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${++saves}.tmp`) : file;
  const fd = fs.openSync(to, regular ? "wx" : "w");
  let open = true;
  try {
    const n = tree.saveWith((bytes) => {
      for (let at = 0; at < bytes.length;) at += fs.writeSync(fd, bytes, at, bytes.length - at);
    });
    open = false;
    fs.closeSync(fd);
    if (regular) fs.renameSync(to, file);
    return n;
  } catch (e) {
    if (open) fs.closeSync(fd);
    if (regular) fs.rmSync(to, { force: true });
    throw e;
  }
}

let saves = 0; // numbers saveFile's files beside the target
