// IndexedDB alone, no sessiontree: a send's transaction (get the meta record,
// put 3 rows and the meta record) in a store of N records of ~500 B (a
// 200k-message chat's rows) against one of 100, in headless Chromium; right
// after the N records are written and WAIT ms later. FILL=one writes them in
// one transaction (how the demo stored an import before), else 2,000 records a
// transaction (takeChanges({ limit })). Reported, not asserted:
//   node web/bench/idb-send.mjs                (after make web-dist)
//   FILL=one N=200000 WAIT=15000 node web/bench/idb-send.mjs
import { serveDist, launchChromium, openPage } from "../test/start.mjs";
const { server, base } = await serveDist();
const chrome = await launchChromium("idbprobe");
const errors = [];
try {
  const page = await openPage(chrome.browser, base, errors, 600000);
  for (const n of [100, Number(process.env.N ?? 200000), 100]) {
    const r = await page.evaluate(async ([n, WAIT, ONE]) => {
      const req = (r) => new Promise((res, rej) => { r.onsuccess = () => res(r.result); r.onerror = () => rej(r.error); });
      const done = (tx) => new Promise((res, rej) => { tx.oncomplete = res; tx.onerror = () => rej(tx.error); });
      const name = `probe-${n}-${Math.random()}`;
      const o = indexedDB.open(name, 1);
      o.onupgradeneeded = () => { o.result.createObjectStore("meta", { keyPath: "id" }); o.result.createObjectStore("rows"); };
      const db = await req(o);
      const pad = "The tree keeps every branch of the conversation; this sentence pads a message. ".repeat(4);
      const f0 = performance.now();
      const PART = ONE ? n : 2000;
      for (let i = 0; i < n; i += PART) {
        const tx = db.transaction(["meta", "rows"], "readwrite");
        const rows = tx.objectStore("rows");
        for (let j = i; j < Math.min(n, i + PART); j++) rows.put(`{"id":"n${j}","parent":"n${j - 1}","children":["n${j + 1}"],"message":{"role":"user","content":"${pad}"},"created_at_ms":1}`, ["c", "n", `n${j}`.padStart(12, "0")]);
        tx.objectStore("meta").put({ id: "c", rev: 1 });
        await done(tx);
      }
      const fill = performance.now() - f0;
      const sends = async (from) => { const times = [];
      for (let k = from; k < from + 15; k++) {
        const t0 = performance.now();
        const tx = db.transaction(["meta", "rows"], "readwrite");
        const g = tx.objectStore("meta").get("c");
        g.onsuccess = () => {
          const rows = tx.objectStore("rows");
          rows.put(`{"id":"x${k}","message":{"role":"user","content":"bench send ${k}"}}`, ["c", "n", `x${k}`]);
          rows.put(`{"id":"n${n - 1}","children":["x${k}"]}`, ["c", "n", `n${n - 1}`.padStart(12, "0")]);
          rows.put(`{"name":"main","leaf":"x${k}"}`, ["c", "b", "main"]);
          tx.objectStore("meta").put({ id: "c", rev: 2 + k });
        };
        await done(tx);
        times.push(performance.now() - t0);
        await new Promise((r) => setTimeout(r, 50));
      }
      const s = [...times].sort((a, b) => a - b);
      return { median: +s[7].toFixed(1), max: +s[14].toFixed(1) }; };
      const right = await sends(0);
      await new Promise((r) => setTimeout(r, WAIT));
      const later = await sends(100);
      db.close();
      indexedDB.deleteDatabase(name);
      return { n, fill: Math.round(fill), one: ONE, rightAfterFill: right, later };
    }, [n, Number(process.env.WAIT ?? 20000), process.env.FILL === "one"]);
    console.log(JSON.stringify(r));
  }
} finally {
  await chrome.close();
  server.kill();
}
