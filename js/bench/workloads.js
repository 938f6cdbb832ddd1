// The benchmark workloads of issue 3, run on sessiontree and on the plain-JS
// peer in the same run. Works in Node and in a browser page.
const msg = (i) => ({ role: i % 2 ? "assistant" : "user", content: `message number ${i}: the quick brown fox jumps over the lazy dog` });
const linear = (n) => Array.from({ length: n }, (_, i) => msg(i));

function time(fn) {
  const t0 = performance.now();
  fn();
  return performance.now() - t0;
}

// Each workload: setup (untimed) returns state; run(state) is timed.
export const workloads = [
  {
    name: "10k appends, one call each", kind: "single",
    setup: (T) => ({ t: new T(), msgs: linear(10000) }),
    run: ({ t, msgs }) => { for (let i = 0; i < msgs.length; i++) t.append(msgs[i], i); },
  },
  {
    name: "10k appends in one apply", kind: "bulk",
    setup: (T) => ({ t: new T(), ops: linear(10000).map((message, i) => ({ op: "append", message, at: i })) }),
    run: ({ t, ops }) => { t.apply(ops); },
  },
  {
    name: "regenerate (rewind+append) 1k× at depth 1k", kind: "single",
    // A round takes a few ms, so the machine's noise is large against it:
    // five times the rounds (both sides) for a steadier median.
    roundsScale: 5,
    setup: (T) => {
      const t = T.fromLinear(linear(1000), 1);
      const path = t.pathOf("main");
      return { t, at: path[998], msgs: linear(1000) };
    },
    run: ({ t, at, msgs }) => { for (let i = 0; i < 1000; i++) { t.rewind(at, i); t.append(msgs[i], i); } },
  },
  {
    name: "projection of a 10k path ×50", kind: "bulk",
    setup: (T) => ({ t: T.fromLinear(linear(10000), 1) }),
    run: ({ t }) => { let n = 0; for (let i = 0; i < 50; i++) n += t.linearProjection().length; if (n !== 500000) throw new Error("bad projection"); },
  },
  {
    name: "save + load of a 100k-node tree", kind: "bulk",
    setup: (T) => ({ T, t: T.fromLinear(linear(100000), 1) }),
    run: ({ T, t }) => { const u = T.load(t.save()); u.free(); },
  },
];

const median = (a) => {
  const s = [...a].sort((x, y) => x - y);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/**
 * Runs every workload (or those whose name contains `only`) on both trees:
 * `warmup` untimed rounds each (the JIT tiers up, both heaps reach their
 * working size), then `reps` timed rounds, alternating which side goes first.
 * Each round gets a fresh tree from the untimed setup. Returns, per workload,
 * the median and the best time of each side.
 */
export function runWorkloads(SessionTree, PlainTree, reps = 9, only = "", warmup = 3) {
  const rows = [];
  for (const w of workloads) {
    if (only && !w.name.includes(only)) continue;
    const ours = [], peer = [];
    const once = (T, into) => {
      const s = w.setup(T);
      const ms = time(() => w.run(s));
      s.t.free();
      into?.push(ms);
    };
    for (let r = 0; r < warmup; r++) {
      once(SessionTree);
      once(PlainTree);
    }
    const rounds = reps * (w.roundsScale ?? 1);
    for (let r = 0; r < rounds; r++) {
      if (r % 2 === 0) {
        once(SessionTree, ours);
        once(PlainTree, peer);
      } else {
        once(PlainTree, peer);
        once(SessionTree, ours);
      }
    }
    rows.push({
      name: w.name, kind: w.kind,
      ours: median(ours), peer: median(peer),
      oursBest: Math.min(...ours), peerBest: Math.min(...peer),
    });
  }
  return rows;
}
