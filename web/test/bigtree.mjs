// A deterministic 10,000-message conversation with a few hundred branches,
// built through the public JS API (the module the page serves).
//   node web/test/bigtree.mjs out.tree.json [nodes]
import { writeFile } from "node:fs/promises";

/** The tree's .tree.json text and a few node ids worth visiting (deep leaves, a labelled node). */
export async function bigTree(modulePath, total = 10000) {
  const { init, SessionTree } = await import(modulePath);
  await init();
  let seed = 42;
  const rand = () => {
    seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
    return seed / 2 ** 32;
  };
  const topics = ["forks", "lisbon", "haiku", "compilers", "gardens", "trains", "tides", "maps"];
  const t = new SessionTree();
  const ids = [];
  let at = 1_700_000_000_000;
  const add = () => {
    const n = ids.length;
    const role = n % 2 === 0 ? "user" : "assistant";
    const topic = topics[Math.floor(rand() * topics.length)];
    const id = t.append({ role, content: `${role === "user" ? "Question" : "Answer"} ${n} about ${topic}${n % 997 === 0 ? ` needle-${n}` : ""}` }, at++);
    ids.push(id);
    return id;
  };
  for (let i = 0; i < 60; i++) add();
  let branches = 0;
  while (ids.length < total) {
    const from = ids[Math.floor(ids.length * Math.sqrt(rand()))];
    t.branch(from, `topic-${++branches}`, at++);
    const run = 1 + Math.floor(rand() * 40);
    for (let i = 0; i < run && ids.length < total; i++) add();
  }
  t.label(ids[5000], "halfway");
  t.switchBranch("main");
  const leaves = t.branches().filter((b) => b.leaf).map((b) => b.leaf);
  const visit = [leaves[Math.floor(leaves.length / 3)], ids[5000], leaves[leaves.length - 2], leaves[7], ids[9999]];
  const json = t.save();
  const stats = t.stats();
  t.free();
  return { json, visit, stats };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { json, stats } = await bigTree(new URL("../dist/sessiontree.js", import.meta.url).href, Number(process.argv[3] ?? 10000));
  await writeFile(process.argv[2], json);
  console.log(stats);
}
