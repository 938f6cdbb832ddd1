// What one push of live() (js/sync.js) costs beside a store that takes the
// tree's row feed (sessiontree/idb): a 5.9 MB conversation, 20 pushes of one
// new message each, whole (deltas: false) and by the sync feed (the default).
// The worker is a stand-in in this process (its merge or delta counts in the
// push's time); the bytes are the request bodies. Node only.
//   node js/bench/livepush.mjs     (make bench-js runs it)
import { init, SessionTree } from "../sessiontree.js";
import { live } from "../sync.js";

await init();
const t = SessionTree.fromLinear(Array.from({ length: 5000 }, (_, i) =>
  ({ role: i % 2 ? "assistant" : "user", content: `turn ${i} ` + "x".repeat(1000) })), 1);
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
console.log(`live() beside a store, ${(t.save().length / 1e6).toFixed(1)} MB conversation, 20 pushes of one message each:`);
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
