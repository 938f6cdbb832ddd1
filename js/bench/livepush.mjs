// What one push of live() (js/sync.js) costs beside a store that takes the
// tree's row feed (sessiontree/idb): two conversations of ~6 MB (below), 20
// pushes of one new message each, whole (deltas: false) and by the sync feed (the default).
// The worker is a stand-in in this process (its merge or delta counts in the
// push's time); the bytes are the request bodies. Node only.
//   node js/bench/livepush.mjs     (make bench-js runs it)
import { init, SessionTree } from "../sessiontree.js";
import { live } from "../sync.js";

await init();
// Two shapes: a plain chat of 5,000 messages of 1 KB, and a tool-heavy agent
// session with forks (1,000 turns of a question, a tool call and a 5 KB tool
// result, every 20th answer regenerated three times).
const plain = SessionTree.fromLinear(Array.from({ length: 5000 }, (_, i) =>
  ({ role: i % 2 ? "assistant" : "user", content: `turn ${i} ` + "x".repeat(1000) })), 1);
const agent = new SessionTree();
for (let i = 0; i < 1000; i++) {
  agent.append({ role: "user", content: `task ${i}` }, 10 * i);
  const call = agent.append({ role: "assistant", content: null, tool_calls: [{ id: `c${i}`, type: "function", function: { name: "grep", arguments: `{"q":"${i}"}` } }] }, 10 * i + 1);
  agent.append({ role: "tool", tool_call_id: `c${i}`, content: "match ".repeat(850) }, 10 * i + 2);
  if (i % 20 === 0) for (let k = 0; k < 3; k++) agent.regenerate(call, { role: "assistant", content: `retry ${k}` }, 10 * i + 3 + k);
}
for (const [shape, t] of [["a plain chat", plain], ["a tool-heavy agent session with forks", agent]]) await measure(shape, t);

async function measure(shape, t) {
  const stored = SessionTree.load(t.save());
  let version = 1;
  t.takeChanges(); // the store's feed: it holds every row
  const sent = [];
  const fetch = async (url, init = {}) => {
    const tag = () => `"${version}-x"`;
    const reply = (status, body) => new Response(body, { status, headers: { "content-type": "application/json", etag: tag() } });
    if (!init.method || init.method === "GET") return reply(200, stored.save());
    sent.push(init.body.length);
    if (url.endsWith("/delta")) stored.applyChanges(init.body);
    else stored.merge(init.body);
    version++;
    return reply(200, JSON.stringify({ etag: tag(), report: {} }));
  };
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  console.log(`live() beside a store, ${shape} of ${(t.save().length / 1e6).toFixed(1)} MB, 20 pushes of one message each:`);
  for (const deltas of [false, true]) {
    const s = live(t, { url: "https://w", token: "k", id: "t", fetch, WebSocket: undefined, pollMs: 3_600_000, deltas });
    await s.push();
    sent.length = 0;
    const times = [];
    for (let i = 0; i < 20; i++) {
      t.append({ role: "user", content: `new ${deltas} ${i}` }, 10_000 + i);
      t.takeChanges(); // the store writes its rows
      const a = performance.now();
      await s.push();
      times.push(performance.now() - a);
    }
    await s.close();
    console.log(`  ${deltas ? "by the sync feed (default)" : "whole (deltas: false)    "}: ${median(sent)} bytes a push (median), ` +
      `p50 ${median(times).toFixed(1)} ms, max ${Math.max(...times).toFixed(1)} ms`);
  }
}
