// The workload of make bench-project (js/bench/project.mjs): a chat of n
// messages grown with the public API, then requests as a chat client makes
// them: the user's turn appended, t.projectFor with a budget, the reply
// appended. Runs in Node and in a page alike. Asserts nothing.

// text is ~size characters of words, different for each i.
function text(i, size) {
  const words = ["the", "quick", "brown", "fox", "jumps", "over", "lazy", "dog", "while", "model", "reads", "tokens"];
  let s = `${i}:`;
  for (let k = 0; s.length < size; k++) s += " " + words[(i * 7 + k * 13) % words.length];
  return s;
}

// The shapes: a chat of ~500-character turns, and an agent session (a
// request, an assistant's two tool calls, their results, a reply).
export const shapes = {
  chat: (i) => ({ role: i % 2 ? "assistant" : "user", content: text(i, 500) }),
  agent: (i) => {
    const call = (k) => `call_${i - k}`;
    switch (i % 5) {
      case 0: return { role: "user", content: text(i, 200) };
      case 1: return { role: "assistant", content: null, tool_calls: [0, 1].map((k) => ({ id: `call_${i}_${k}`, type: "function", function: { name: k ? "grep" : "read", arguments: JSON.stringify({ path: text(i + k, 80) }) } })) };
      case 2: return { role: "tool", tool_call_id: `${call(1)}_0`, content: text(i, 500) };
      case 3: return { role: "tool", tool_call_id: `${call(2)}_1`, content: text(i, 500) };
      default: return { role: "assistant", content: text(i, 500) };
    }
  },
};

// build grows a tree of n messages of shape, forking every 2,000 messages:
// back 1,000 messages, the old line kept on a branch of its own.
export function build(SessionTree, shape, n) {
  const t = new SessionTree();
  const path = [];
  const make = shapes[shape];
  let i = 0;
  while (i < n) {
    const ops = [];
    for (; i < n && ops.length < 1000; i++) ops.push({ op: "append", message: make(i), at: 1 + i });
    path.push(...t.apply(ops));
    if (i % 2000 === 0 && i < n) {
      path.length -= 1000;
      t.rewind(path[path.length - 1], 1 + i);
    }
  }
  return t;
}

const median = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];

// measure times the first request after the tree was built, then rounds of
// (user's turn, request, reply), with a budget and, when unbudgeted, without,
// after warm untimed rounds (the module's heap grows to its collector's
// target over the first requests after a large build).
// pause, when given, is awaited after the first request: the seconds a model
// takes to answer it, in which the module tidies what that request left (the
// lean module's first request hands the tree to its helper).
export async function measure(t, shape, { rounds = 15, warm = rounds, budget = 32000, unbudgeted = false, pause = null } = {}) {
  const make = shapes[shape];
  let n = 1e9;
  let t0 = performance.now();
  let r = t.projectFor("openai-chat", { budget });
  const first = performance.now() - t0;
  if (pause) await pause();
  const times = [], plain = [];
  for (let k = -warm; k < rounds; k++) {
    t.append({ role: "user", content: text(n++, 500) });
    t0 = performance.now();
    r = t.projectFor("openai-chat", { budget });
    if (k >= 0) times.push(performance.now() - t0);
    if (unbudgeted && k >= 0) {
      t0 = performance.now();
      t.projectFor("openai-chat");
      plain.push(performance.now() - t0);
    }
    t.append(make(5 * 1e8 + 4 + 5 * k)); // an assistant's reply of the shape
  }
  return { first, budgeted: median(times), best: Math.min(...times), unbudgeted: unbudgeted ? median(plain) : null, sent: r.report.sent, left: r.report.budgetDropped };
}
