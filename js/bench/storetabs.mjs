// sessiontree/idb: an import of STORE_TAB_CHATS (2,000) one-message chats
// (store.importFile of a conversations.json, { open: false }) in headless
// Chromium, alone and then with a second tab of the same store open, in one
// run (part of make bench-js). Prints each import's time, and what the second
// tab heard and listed, and its long tasks.
//   node js/bench/storetabs.mjs
import { serveJS, launch, storeTab } from "../test/chromium.mjs";

const N = Number(process.env.STORE_TAB_CHATS ?? 2000);
const { server, base } = await serveJS();
const chrome = await launch("storetabs");
const errors = [];
const tab = () => storeTab(chrome.browser, base, errors);

async function importIn(page, name) {
  return page.evaluate(async ([N, name]) => {
    await window.st.initInterchange();
    const store = await window.idb.openStore({ name, loadMerge: () => window.st.initInterchange() });
    const conv = (i) => ({
      id: `c${i}`, title: `Chat ${i}`, current_node: `m${i}`,
      mapping: { [`m${i}`]: { id: `m${i}`, parent: null, children: [], message: { id: `m${i}`, author: { role: "user" }, content: { content_type: "text", parts: [`hello ${i}`] } } } },
    });
    const t0 = performance.now();
    await store.importFile(new Blob([JSON.stringify(Array.from({ length: N }, (_, i) => conv(i)))]), { open: false });
    const took = performance.now() - t0;
    await store.close();
    return took;
  }, [N, name]);
}

try {
  const a = await tab();
  const alone = await importIn(a, "alone");
  const b = await tab();
  await b.evaluate(async () => {
    window.other = await window.idb.openStore({ name: "beside" });
    window.busy = 0;
    window.heard = 0;
    new PerformanceObserver((l) => { for (const e of l.getEntries()) window.busy += e.duration; }).observe({ type: "longtask" });
    window.other.subscribe(() => window.heard++);
  });
  const beside = await importIn(a, "beside");
  await b.waitForFunction((N) => window.other.conversations.length === N, N, { timeout: 60000 });
  const seen = await b.evaluate(() => ({ listed: window.other.conversations.length, heard: window.heard, longTasks: Math.round(window.busy) }));
  console.log(`== sessiontree/idb: an import of ${N} chats in headless Chromium, alone and with a second tab of the store open`);
  console.log(`alone ${Math.round(alone)} ms; with a second tab ${Math.round(beside)} ms (${(beside / alone).toFixed(2)}×); the second tab listed ${seen.listed}, heard ${seen.heard} changes, long tasks ${seen.longTasks} ms in all`);
  if (errors.length) throw new Error(errors.join("; "));
} finally {
  await chrome.close();
  server.close?.();
}
process.exit(0);
