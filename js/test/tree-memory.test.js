// Memory across loads (issue 16): a freed tree's memory is reused by the next
// load of the same size, also beside a large live tree (the page's own
// conversation). Runs under node --test and in Chromium, either flavour.
import { test, assert, mainSource } from "./harness.js";
import { init, memoryUsage, SessionTree } from "../sessiontree.js";

await init(mainSource);

test("free() then a second load of the same file beside a large live tree: the module does not grow", () => {
  const say = (i) => ({ role: i % 2 ? "assistant" : "user", content: `message ${i}: ` + "an ordinary chat reply, ".repeat(8) });
  const live = SessionTree.fromLinear(Array.from({ length: 100000 }, (_, i) => say(i)), 1);
  const bytes = new TextEncoder().encode(live.save()); // the live tree's own file, as a page reopens it
  const a = SessionTree.load(bytes);
  a.free();
  const before = memoryUsage().main;
  const b = SessionTree.load(bytes);
  assert.equal(b.pathLength(), 100000);
  b.free();
  const grown = memoryUsage().main - before;
  assert.equal(grown, 0, `the module grew by ${(grown / 1e6).toFixed(1)} MB on a load of a ${(bytes.length / 1e6).toFixed(1)} MB file after a free of the same`);
  live.free();
});
