// The merge workload of issue 7 in the JS API: t.merge of two copies of one
// conversation (10k nodes by default) about 100 operations apart (50 on each
// side: appends, rewinds, labels, a summary). Works in Node and in a browser
// page, with either flavour: the lean module with the interchange helper
// (initInterchange: save both, merge in the helper, load the result back), or
// the full module (init({ full: true }): merge in place). Prints nothing; run.mjs
// runs each flavour in a worker thread of its own (merge-worker.mjs) and in a
// Chromium page of its own.
const msg = (i, who) => ({ role: i % 2 ? "assistant" : "user", content: `${who} message ${i}: the quick brown fox jumps over the lazy dog` });

/** Two copies of a conversation of size (≥ 1000) messages, each with 50 operations of its own. */
export function twoCopies(SessionTree, size = 10000) {
  const base = SessionTree.fromLinear(Array.from({ length: size }, (_, i) => msg(i, "base")), 1);
  const path = base.activePath();
  const sides = ["a", "b"].map((who, s) => {
    const t = base.clone();
    let at = 1000 + s;
    for (let i = 0; i < 50; i++) {
      at += 10;
      if (i % 10 === 3) t.rewind(path[size - 1000 + 17 * i + s], at);
      else if (i % 10 === 7) t.label(path[(size / 100) * i + s], `${who} label ${i}`, at);
      else if (i === 25) t.summarizeBranch("main", `${who}'s summary`, undefined, at);
      else t.append(msg(i, who), at);
    }
    return t;
  });
  base.free();
  return sides;
}

/** Times ours.merge(theirs) on a fresh clone of ours, reps times; returns the times in ms. */
export function timeMerge(SessionTree, reps, size = 10000) {
  const [a, b] = twoCopies(SessionTree, size);
  const times = [];
  for (let r = 0; r < reps; r++) {
    const t = a.clone();
    t.linearProjection(); // the cache a chat client holds
    const t0 = performance.now();
    const report = t.merge(b);
    times.push(performance.now() - t0);
    if (report.nodesAdded.length === 0) throw new Error("the merge added nothing");
    t.free();
  }
  a.free();
  b.free();
  return times;
}

/** timeMerge at each size after warm-up rounds: [{ size, median, best }] in ms. */
export function mergeRows(SessionTree, reps, warmup, sizes = [1000, 10000]) {
  return sizes.map((size) => {
    timeMerge(SessionTree, warmup, size);
    const ms = timeMerge(SessionTree, reps, size).sort((x, y) => x - y);
    return { size, median: ms[ms.length >> 1], best: ms[0] };
  });
}

/** Prints the merge table: rows of each flavour, lean (with the helper) and full, side by side. */
export function printMergeTable(title, lean, full) {
  console.log(`\n${title}`);
  console.log("| copies of | lean + interchange helper: median | best | full module, in place: median | best | lean / full |");
  console.log("|---|---:|---:|---:|---:|---:|");
  lean.forEach((l, i) => {
    const f = full[i];
    console.log(`| ${l.size / 1000}k nodes | ${l.median.toFixed(1)} ms | ${l.best.toFixed(1)} ms | ${f.median.toFixed(1)} ms | ${f.best.toFixed(1)} ms | ${(l.median / f.median).toFixed(1)}× |`);
  });
}
