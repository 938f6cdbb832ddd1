// A 20,000-message chat (about 14 MB of .tree.json) end to end in headless
// Chromium, with a model endpoint (the local mock): import, send, ‹ › switch,
// reload, a send while it opens, two tabs. Prints how long each
// takes (measured, never asserted) and asserts that nothing is lost.
//   node web/test/huge.mjs   (after make web-dist; web/.bin/serve serves web/dist)
import fs from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import assert from "node:assert/strict";
import { repo, serveDist, launchChromium, openPage } from "./start.mjs";
import { startMock } from "./mock.mjs";

const shots = path.join(repo, "web/test/screenshots");
const N = 20000;

/** The chat: N messages of about 560 characters, with a fork 8 messages before the leaf. */
async function hugeChat() {
  const { init, SessionTree } = await import(pathToFileURL(path.join(repo, "web/dist/sessiontree.js")).href);
  await init();
  const filler = "The tree keeps every branch of the conversation, and this sentence pads the message to a realistic size. ".repeat(5);
  const messages = [];
  for (let i = 0; i < N; i++) {
    messages.push({ role: i % 2 ? "assistant" : "user", content: `${i % 2 ? "Answer" : "Question"} ${i}: ${filler}` });
  }
  const t = SessionTree.fromLinear(messages, 1_700_000_000_000);
  const forkAt = t.activePath()[N - 8]; // a user message
  t.edit(forkAt, { role: "user", content: "The other version of a late question" }, 1_800_000_000_000);
  t.append({ role: "assistant", content: "The other version's answer" }, 1_800_000_000_001);
  t.switchBranch("main");
  const json = t.save();
  const nodes = t.stats().nodes;
  t.free();
  return { json, nodes, forkIndex: N - 8 };
}

const { server, base } = await serveDist();

const chrome = await launchChromium("huge", { viewport: { width: 1280, height: 900 } });
const browser = chrome.browser;
// Replies come from a model endpoint, as a user with one configured meets it:
// the local mock of OpenAI chat completions (mock.mjs), streamed.
const mock = await startMock();
await browser.addInitScript((url) => {
  if (location.protocol === "http:") localStorage.setItem("sessiontree-demo.settings", JSON.stringify({ mode: "endpoint", api: "openai-chat", url, key: "sk-test", model: "mock-gpt", budget: 32000, timeout: 60 }));
}, `${mock.url}/openai/v1`);
const errors = [];
const ms = (x) => `${Math.round(x)} ms`;

const open = () => openPage(browser, base, errors, 60000);

// In the page: send text, and time until it shows (painted) and until it is stored.
const timedSend = (page, text) => page.evaluate(async (text) => {
  const frame = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
  const shows = () => [...document.querySelectorAll("#messages .msg-body")].some((e) => e.textContent === text);
  const t0 = performance.now();
  document.getElementById("input").value = text;
  document.getElementById("composer").requestSubmit();
  const sync = performance.now() - t0;
  while (!shows()) await frame();
  await frame();
  const shown = performance.now() - t0;
  await window.sessiontreeDemo.saved();
  const stored = performance.now() - t0;
  const rows = window.sessiontreeDemo.timings.rowsWritten;
  const parts = Object.fromEntries(["send", "renderChat", "renderBranches", "renderTree", "takeChanges"].map((k) => [k, Math.round(window.sessiontreeDemo.timings[k])]));
  while (document.querySelector(".typing")) await frame();
  await window.sessiontreeDemo.saved();
  return { sync, shown, stored, rows, parts };
}, text);

// In the page: click the ‹ or › of the message at path index i and time until painted.
const timedSwitch = (page, i, dir) => page.evaluate(async ({ i, dir }) => {
  const t0 = performance.now();
  document.querySelector(`#messages [data-index="${i}"] [data-action="${dir}"]`).click();
  await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
  return performance.now() - t0;
}, { i, dir });

const texts = (page) => page.evaluate(() => [...document.querySelectorAll("#messages .msg-body")].map((e) => e.textContent));
const nodes = (page) => page.evaluate(() => window.sessiontreeDemo.tree.stats().nodes);
const has = (page, all) => page.evaluate((all) => {
  const file = window.sessiontreeDemo.tree.save();
  return all.filter((s) => !file.includes(s));
}, all);

let failed = false;
try {
  const t0 = performance.now();
  const chat = await hugeChat();
  console.log(`# the chat: ${N} messages on main and a fork 8 before the leaf, ${chat.nodes} nodes, ${(chat.json.length / 1e6).toFixed(1)} MB (built in ${ms(performance.now() - t0)})`);
  await fs.mkdir(shots, { recursive: true });
  const one = await open();

  // The file's last messages show before it is checked and loaded (read
  // from its head and last megabytes), and the composer takes a send
  // meanwhile: shown at once, sent once the tree is there (held back 3 s
  // after the preview here, so that it is surely not there yet).
  await one.evaluate(() => localStorage.setItem("sessiontree-demo.test-hold-open-ms", "3000"));
  const i0 = Date.now();
  await one.setInputFiles("#file", { name: "huge.tree.json", mimeType: "application/json", buffer: Buffer.from(chat.json) });
  await one.waitForFunction(() => document.querySelector("#conv-title").textContent === "huge" && document.querySelectorAll("#messages article.msg").length >= 50 && !document.getElementById("input").disabled);
  const previewed = Date.now() - i0;
  const importing = await one.evaluate(() => {
    const loaded = !!window.sessiontreeDemo.tree;
    const last = [...document.querySelectorAll("#messages .msg-body")].at(-1).textContent;
    document.getElementById("input").value = "sent while the import loads";
    document.getElementById("composer").requestSubmit();
    const shown = [...document.querySelectorAll("#messages article.queued .msg-body")].some((e) => e.textContent === "sent while the import loads");
    return { loaded, last, shown };
  });
  assert.ok(!importing.loaded && importing.shown && importing.last.startsWith("Answer 19999: "), `a send while the import loads: ${JSON.stringify(importing)}`);
  await one.evaluate(() => localStorage.setItem("sessiontree-demo.test-hold-open-ms", "0"));
  await one.waitForFunction(() => window.sessiontreeDemo.tree && !document.querySelector(".typing") && document.querySelectorAll("#messages article.queued").length === 0);
  const imported = Date.now() - i0;
  assert.equal(await nodes(one), chat.nodes + 2, "the send made while it loaded and its reply are in the tree");
  assert.deepEqual(await has(one, ["sent while the import loads"]), []);
  const inPage = await one.evaluate(() => ({ ...window.sessiontreeDemo.timings }));
  console.log(`ok   import: its last messages read from the file ${ms(inPage.importTail)} into the import and painted before the tree was there (${ms(previewed)} wall, the file's upload to the page included), a send taken then and sent once the tree was there`);
  const shown = await one.evaluate(() => document.querySelectorAll("#messages article.msg").length);
  // The chat is usable while the import's records are written: a send now
  // shows at once and is stored after them (the reload below finds it).
  const saving = await one.evaluate(() => document.getElementById("save-state").dataset.state);
  const during = await timedSend(one, "sent while the import is stored");
  const stored = await one.evaluate(async () => { await window.sessiontreeDemo.saved(); return { ...window.sessiontreeDemo.timings }; });
  assert.equal(await nodes(one), chat.nodes + 4);
  console.log(`ok   import: until the tree is there and the send made meanwhile answered ${ms(imported)} (in page: import ${ms(inPage.import)}: read and checked in a worker of its own ${ms(inPage.importCheck)}, loaded on the page ${ms(inPage.importRead)}, the records written by the worker in the background in ${stored.feedParts} parts ${ms(stored.createWrite)}); ${shown} message elements in the page; a send while they were written (${saving}) shown in ${ms(during.shown)}, stored with them`);

  const sends = [];
  for (let k = 0; k < 3; k++) sends.push(await timedSend(one, `sent into the huge chat ${k}`));
  assert.deepEqual(await has(one, sends.map((_, k) => `sent into the huge chat ${k}`)), []);
  for (const s of sends) assert.ok(s.rows <= 4, `a send wrote ${s.rows} records`);
  console.log(`ok   send: until the user's text shows ${sends.map((s) => ms(s.shown)).join(", ")} (main thread in the submit: ${sends.map((s) => ms(s.sync)).join(", ")}); until stored ${sends.map((s) => ms(s.stored)).join(", ")}; records written per change: ${sends.map((s) => s.rows).join(", ")}; parts of the last (ms): ${JSON.stringify(sends.at(-1).parts)}`);
  await one.screenshot({ path: path.join(shots, "huge-20k.png") });

  // ‹ › at the fork: it is among the messages painted (the last 66 of the path).
  const switches = [];
  for (let k = 0; k < 3; k++) {
    switches.push(await timedSwitch(one, chat.forkIndex, "next"));
    assert.ok((await texts(one)).includes("The other version of a late question"));
    switches.push(await timedSwitch(one, chat.forkIndex, "prev"));
    assert.ok((await texts(one)).includes("sent into the huge chat 2"));
  }
  console.log(`ok   ‹ › switch at the fork, until painted: ${switches.map(ms).join(", ")}`);

  // Scrolling up reads more of the path (pathWindow), the page keeps at most a window of it.
  await one.evaluate(async () => {
    const box = document.getElementById("messages");
    for (let k = 0; k < 6; k++) {
      box.scrollTop = 0;
      await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 30)));
    }
  });
  const win = await one.evaluate(() => [...document.querySelectorAll("#messages article.msg")].map((e) => Number(e.dataset.index)));
  assert.ok(win[0] < N - 150 && win.length <= 160, `scrolled up: indexes ${win[0]}..${win.at(-1)}, ${win.length} elements`);
  console.log(`ok   scrolling up shows earlier messages: path indexes ${win[0]}..${win.at(-1)} in the page (${win.length} elements)`);

  await one.evaluate(() => window.sessiontreeDemo.saved());
  const beforeReload = await one.evaluate(() => window.sessiontreeDemo.tree.save());
  // The import's rows were stored packed (sessiontree/idb), but for the path's
  // last 100 nodes, which also get records of their own (an open reads them
  // first), and the sends since, records of their own.
  const layout = await one.evaluate(() => new Promise((resolve, reject) => {
    const o = indexedDB.open("sessiontree-demo");
    o.onerror = () => reject(o.error);
    o.onsuccess = () => {
      const q = o.result.transaction("rows").objectStore("rows").getAllKeys();
      q.onsuccess = () => { o.result.close(); resolve({ packs: q.result.filter((k) => k[1] === "p").length, own: q.result.filter((k) => k[1] === "n").length }); };
    };
  }));
  assert.ok(layout.packs >= Math.floor(chat.nodes / 500) && layout.own >= 100 && layout.own < 200, `the import's rows are not packed: ${JSON.stringify(layout)}`);
  const r0 = Date.now();
  await one.reload();
  // The last messages are painted from their records first (read-only while the rest loads).
  await one.waitForSelector("#messages article.msg");
  const preview = await one.evaluate(() => document.querySelectorAll("#messages article.msg.preview").length);
  await one.screenshot({ path: path.join(shots, "huge-20k-opening.png") });
  await one.waitForSelector("body[data-ready='1']");
  await one.waitForFunction(() => document.querySelectorAll("#messages article.msg").length >= 50);
  const reloadWall = Date.now() - r0;
  const after = await one.evaluate(() => ({ ...window.sessiontreeDemo.timings }));
  let total = chat.nodes + 10;
  assert.equal(await nodes(one), total, "every node is there after a reload");
  assert.ok((await one.evaluate(() => window.sessiontreeDemo.tree.save())) === beforeReload, "the reopened tree is the one stored, byte for byte");
  assert.deepEqual(await has(one, ["sent while the import loads", "sent while the import is stored", "sent into the huge chat 0", "sent into the huge chat 2", "The other version's answer"]), []);
  console.log(`ok   reload: open until the whole conversation is shown ${ms(after.interactive)} from navigation (${ms(reloadWall)} wall; its last messages painted from their records ${ms(after.openPreview)} into the open, the records read and joined in the worker ${ms(after.openRead)}, loaded on the page ${ms(after.openLoad)}; ${preview} read-only messages seen before the tree was there); ${total} nodes, the same tree byte for byte, nothing lost`);

  // Usable while it opens: once the last messages are painted the composer
  // takes a send, shown at once and sent when the tree is there (the load is
  // held back 2 s here, so the tree is surely not there yet).
  const hold = (ms) => one.evaluate((ms) => localStorage.setItem("sessiontree-demo.test-hold-open-ms", String(ms)), ms);
  await hold(2000);
  await one.reload();
  await one.waitForSelector("#messages article.msg.preview");
  await one.waitForFunction(() => !document.getElementById("input").disabled);
  const early = await one.evaluate(() => {
    const loaded = !!window.sessiontreeDemo.tree;
    const t0 = performance.now();
    document.getElementById("input").value = "sent while it opens";
    document.getElementById("composer").requestSubmit();
    const shown = [...document.querySelectorAll("#messages article.queued .msg-body")].some((e) => e.textContent === "sent while it opens");
    return { loaded, shown, ms: performance.now() - t0 };
  });
  assert.ok(!early.loaded && early.shown, `a send while it opens: ${JSON.stringify(early)}`);
  await one.waitForSelector("body[data-ready='1']");
  await one.waitForFunction(() => !document.querySelector(".typing") && document.querySelectorAll("#messages article.queued").length === 0);
  assert.deepEqual(await has(one, ["sent while it opens"]), [], "the send made while it opened is in the tree");
  // Sent while it opens, and the tab closed (here: reloaded) before the tree was there: the next open sends it.
  await one.reload();
  await one.waitForSelector("#messages article.msg.preview");
  await one.waitForFunction(() => !document.getElementById("input").disabled);
  await one.evaluate(() => {
    document.getElementById("input").value = "sent, then the tab closed";
    document.getElementById("composer").requestSubmit();
  });
  await hold(0);
  await one.reload();
  await one.waitForSelector("body[data-ready='1']");
  await one.waitForFunction(() => !document.querySelector(".typing") && window.sessiontreeDemo.tree?.save().includes("sent, then the tab closed"));
  await one.evaluate(() => window.sessiontreeDemo.saved());
  total += 4; // two sends and their replies
  assert.equal(await nodes(one), total, "both sends made while it opened, and their replies, are in the tree");
  console.log(`ok   usable while it opens: a send once the last messages are painted shown in ${ms(early.ms)}, sent when the tree was there; one whose tab closed first sent at the next open`);

  const two = await open();
  assert.equal(await nodes(two), total, "the second tab opens the same conversation");
  const seen = async (page, text) => {
    const s0 = Date.now();
    await page.waitForFunction((t) => [...document.querySelectorAll("#messages .msg-body")].some((e) => e.textContent === t), text, { timeout: 20000 }).catch(async (e) => {
      console.error("not seen:", await page.evaluate((t) => ({ stats: window.sessiontreeDemo.store.stats, has: window.sessiontreeDemo.tree.save().includes(t), vis: document.visibilityState, last: [...document.querySelectorAll("#messages .msg-body")].slice(-3).map((e) => e.textContent.slice(0, 40)), active: window.sessiontreeDemo.tree.activeBranch }), text));
      throw e;
    });
    return Date.now() - s0;
  };
  const a = await timedSend(two, "from tab two");
  const t1 = Date.now();
  const inOne = await seen(one, "from tab two");
  await one.waitForFunction((leaf) => window.sessiontreeDemo.tree.pathWindow(-1).ids[0] === leaf, await two.evaluate(() => window.sessiontreeDemo.tree.pathWindow(-1).ids[0]));
  const caughtUp = Date.now() - t1;
  const b = await timedSend(one, "from tab one");
  const inTwo = await seen(two, "from tab one");
  console.log(`ok   two tabs: a send in one shows in the other (after it is stored) in ${ms(inOne)} and ${ms(inTwo)}, the other tab holds the whole exchange (its reply too) ${ms(caughtUp)} after it was stored; sends there: shown ${ms(a.shown)}, ${ms(b.shown)}, stored ${ms(a.stored)}, ${ms(b.stored)}`);

  const race = await Promise.all([timedSend(one, "race one"), timedSend(two, "race two")]);
  const want = ["race one", "race two", "from tab one", "from tab two", "sent into the huge chat 1"];
  await one.waitForFunction((w) => w.every((s) => window.sessiontreeDemo.tree.save().includes(s)), want);
  await two.waitForFunction((w) => w.every((s) => window.sessiontreeDemo.tree.save().includes(s)), want);
  await one.evaluate(() => window.sessiontreeDemo.saved());
  await two.evaluate(() => window.sessiontreeDemo.saved());
  // Each race send's reply streams in after its text: a tab may get the other
  // tab's reply a moment after its own store settled (CI saw 20021 of 20022
  // once). Both must reach every node; one that never comes fails here.
  for (const page of [one, two]) {
    await page.waitForFunction((n) => window.sessiontreeDemo.tree.stats().nodes >= n, total + 8, { timeout: 20000 }).catch(() => {});
  }
  const n1 = await nodes(one);
  const n2 = await nodes(two);
  assert.equal(n1, total + 8);
  assert.equal(n2, total + 8);
  const stats = [await one.evaluate(() => window.sessiontreeDemo.store.stats), await two.evaluate(() => window.sessiontreeDemo.store.stats)];
  console.log(`ok   two tabs sending at once: both hold all ${n1} nodes (stored in ${ms(race[0].stored)} and ${ms(race[1].stored)}); tab one ${JSON.stringify(stats[0])}, tab two ${JSON.stringify(stats[1])}`);
  await two.close();
  const memory = await one.evaluate(() => ({ heap: performance.memory?.usedJSHeapSize ?? 0 }));
  if (memory.heap) console.log(`# tab one's JS heap: ${(memory.heap / 1e6).toFixed(0)} MB`);
  assert.deepEqual(errors, [], "errors on the pages");
  assert.ok(mock.requests.length >= 8, `the replies did not come from the endpoint: ${mock.requests.length} requests`);
  console.log(`web 20k chat: all passed in ${ms(performance.now() - t0)} (${mock.requests.length} requests to the mock endpoint)`);
} catch (e) {
  failed = true;
  console.error("FAIL", e?.stack ?? e, errors);
} finally {
  await chrome.close();
  server.kill();
  mock.close();
}
process.exit(failed ? 1 : 0);
