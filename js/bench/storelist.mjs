// sessiontree/idb's list with thousands of conversations (part of make bench-js):
// STORE_CHATS (8,000) creates one after another in a store in memory, each a
// one-message chat, timed per thousand. What grows from one thousand to the
// next is what a create costs the list (store.conversations: a copy of it).
//   node js/bench/storelist.mjs
import { init, SessionTree } from "../sessiontree.js";
import { openStore } from "../idb.js";

const N = Number(process.env.STORE_CHATS ?? 8000);
await init();
const store = await openStore({ name: "storelist", memory: true });
let heard = 0;
store.subscribe(() => heard++);
const t0 = performance.now();
let last = t0;
const parts = [];
for (let i = 0; i < N; i++) {
  const t = new SessionTree();
  t.append({ role: "user", content: `hello ${i}` });
  const c = await store.create(t, { title: `chat ${i}`, createdAt: 1e12 + i }, { autosave: false });
  await c.close();
  if (i % 1000 === 999) {
    const now = performance.now();
    parts.push(Math.round(now - last));
    last = now;
  }
}
const total = performance.now() - t0;
console.log(`== sessiontree/idb, ${N} conversations created one after another (a store in memory, Node)`);
console.log(`${Math.round(total)} ms in all; each thousand, ms: ${parts.join(" ")}; the last thousand ÷ the first: ${(parts.at(-1) / parts[0]).toFixed(2)}×; listeners called ${heard} times; listed ${store.conversations.length}`);
await store.close();
