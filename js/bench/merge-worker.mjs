// One flavour's merge timings in a Node worker thread, which loads its own copy
// of sessiontree.js and so its own main module: workerData { flavour: "lean" |
// "full", reps, warmup }; posts mergeRows (merge.js) back.
import { parentPort, workerData } from "node:worker_threads";
import { init, initInterchange, SessionTree } from "../sessiontree.js";
import { mergeRows } from "./merge.js";

const { flavour, reps, warmup } = workerData;
await init(flavour === "full" ? { full: true } : undefined);
await initInterchange(); // the helper for lean; a no-op for full
parentPort.postMessage(mergeRows(SessionTree, reps, warmup));
