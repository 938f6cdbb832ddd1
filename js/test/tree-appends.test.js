// A burst of appends beside a large live tree (issue 26): the module's memory
// grows a few times, not every 512 KB (Go's heap arenas), since V8 collects
// the page's whole JS heap at each growth of a module past 64 MB. A count of
// growths, not a timing. Runs under node --test and in Chromium, either flavour.
import { test, assert, mainSource } from "./harness.js";
import { init, memoryUsage, SessionTree } from "../sessiontree.js";

await init(mainSource);

test("10k appends beside a large live tree grow the module's memory in a few steps", () => {
  const say = (i) => ({ role: i % 2 ? "assistant" : "user", content: `message ${i}: ` + "a sentence of an ordinary chat reply, ".repeat(30) });
  const live = SessionTree.fromLinear(Array.from({ length: 30000 }, (_, i) => say(i)), 1);
  const t = new SessionTree();
  let grows = 0;
  let size = memoryUsage().main;
  const start = size;
  for (let i = 0; i < 10000; i++) {
    t.append(say(i), 2);
    const now = memoryUsage().main;
    if (now !== size) grows++;
    size = now;
  }
  assert.equal(t.pathLength(), 10000);
  // Go's heap takes 512 KB at a time: these 13 MB of appends grew it 30 times.
  assert.ok(grows <= 6, `the memory grew ${grows} times (${((size - start) / 1e6).toFixed(1)} MB) over 10k appends`);
  t.free();
  live.free();
});
