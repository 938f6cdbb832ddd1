// Two tabs on the same conversation, end to end in headless Chromium: edits made
// in both at once converge (BroadcastChannel + merge), and edits made while a tab
// was closed are there when it opens again (IndexedDB holds the merged tree).
//   node web/test/tabsync.mjs   (after make web-dist; web/.bin/serve serves web/dist)
import assert from "node:assert/strict";
import { serveDist, launchChromium, openPage } from "./start.mjs";
import { startMock } from "./mock.mjs";


const { server, base } = await serveDist();

const chrome = await launchChromium("tabs");
const browser = chrome.browser;
const errors = [];

const open = () => openPage(browser, base, errors);

const send = async (page, text) => {
  await page.fill("#input", text);
  await page.press("#input", "Enter");
  await page.waitForFunction(() => !document.querySelector(".typing"));
};
const save = (page) => page.evaluate(() => window.sessiontreeDemo.tree.save());
// Whether the page started the interchange module (merge), which loads on the first merge needed.
const loadedMerge = (page) => page.evaluate(async () => (await import("./sessiontree.js")).memoryUsage().interchange > 0);
const state = (page) => page.evaluate((w) => ({ stats: window.sessiontreeDemo.store.stats, missing: w.filter((s) => !window.sessiontreeDemo.tree.save().includes(s)), stored: window.sessiontreeDemo.timings.rowsWritten }), []);
async function converged(a, b, want) {
  const wait = (p) => p.waitForFunction((w) => w.every((s) => window.sessiontreeDemo.tree.save().includes(s)), want, { timeout: 15000 })
    .catch(async (e) => {
      const inStore = await p.evaluate(async () => {
        const id = localStorage.getItem("sessiontree-demo.current");
        const r = await window.sessiontreeDemo.store.rows(id);
        return { rev: r.rev, text: r.nodes.map((n) => n.row).join("\n") };
      });
      console.error("not converged:", p === a ? "tab a" : "tab b", JSON.stringify(await state(a)), JSON.stringify(await state(b)), await p.evaluate((w) => w.filter((s) => !window.sessiontreeDemo.tree.save().includes(s)), want), "stored rev", inStore.rev, "in store:", want.filter((s) => inStore.text.includes(s)));
      throw e;
    });
  await wait(a);
  await wait(b);
  await a.evaluate(() => window.sessiontreeDemo.saved());
  await b.evaluate(() => window.sessiontreeDemo.saved());
  // Both settle on the same tree; each tab stays on the branch its user was on.
  const same = (page) => page.evaluate(() => {
    const f = JSON.parse(window.sessiontreeDemo.tree.save());
    delete f.active_branch;
    for (const b of Object.values(f.branches)) delete b.used; // which branch was used last: each tab's own
    return JSON.stringify(f);
  });
  await a.waitForFunction(async (other) => {
    const f = JSON.parse(window.sessiontreeDemo.tree.save());
    delete f.active_branch;
    for (const b of Object.values(f.branches)) delete b.used;
    return JSON.stringify(f) === other;
  }, await same(b), { timeout: 15000 }).catch(async () => assert.equal(await same(a), await same(b), "the two tabs did not converge"));
}

let failed = false;
try {
  const t0 = performance.now();
  const one = await open();
  await send(one, "hello from tab one");
  await one.evaluate(() => window.sessiontreeDemo.saved());
  assert.equal(await loadedMerge(one), false, "a tab alone loaded the merge module");
  const two = await open();
  assert.ok((await save(two)).includes("hello from tab one"), "the second tab did not open the same conversation");
  assert.equal(await loadedMerge(two), false, "opening a stored conversation loaded the merge module");
  console.log("ok   a second tab opens the same conversation (the merge module not loaded: nothing to merge yet)");

  await Promise.all([send(one, "typed in tab one"), send(two, "typed in tab two")]);
  await converged(one, two, ["typed in tab one", "typed in tab two"]);
  // A tab whose write found another tab's first merges (and loads the merge
  // module); a tab that got the other's delta before its own change applies it
  // (no merge: they never diverged). One of the two happened.
  const stats = (p) => p.evaluate(() => window.sessiontreeDemo.store.stats);
  const [s1, s2] = [await stats(one), await stats(two)];
  assert.ok(s1.merges + s2.merges + s1.applied + s2.applied > 0, `neither a merge nor a delta: ${JSON.stringify([s1, s2])}`);
  if (s1.merges + s2.merges > 0) assert.ok(await loadedMerge(one) || await loadedMerge(two), "a tab merged without the merge module");
  const both = JSON.parse(await save(one));
  // Readable names (no "main~<leaf>"), and each tab stays on its own work.
  // (A deleted name stays in the file as a tombstone: the live names are the tree's branches().)
  for (const page of [one, two]) {
    for (const name of await page.evaluate(() => window.sessiontreeDemo.tree.branches().map((b) => b.name))) assert.match(name, /^(main|branch-\d+)$/, `a readable branch name: ${name}`);
  }
  const onOwn = async (page, text) => page.evaluate((t) => {
    const tr = window.sessiontreeDemo.tree;
    return tr.pathWindow(-4).messages.some((m) => m.content === t);
  }, text);
  assert.ok(await onOwn(one, "typed in tab one"), "tab one stays on its own message");
  assert.ok(await onOwn(two, "typed in tab two"), "tab two stays on its own message");
  const live = await one.evaluate(() => window.sessiontreeDemo.tree.branches().map((b) => b.name));
  console.log(`ok   edits made in two tabs at once converge (${Object.keys(both.nodes).length} nodes, branches: ${live.join(", ")}, deleted names kept as tombstones: ${Object.keys(both.branches).filter((n) => !live.includes(n)).join(", ") || "none"}; tab one ${JSON.stringify(await stats(one))}, tab two ${JSON.stringify(await stats(two))})`);

  for (let i = 0; i < 3; i++) await Promise.all([send(one, `burst one ${i}`), send(two, `burst two ${i}`)]);
  await converged(one, two, [0, 1, 2].flatMap((i) => [`burst one ${i}`, `burst two ${i}`]));
  console.log("ok   bursts of edits in both tabs converge with nothing lost");

  await two.close();
  await send(one, "written while tab two was closed");
  await one.evaluate(() => window.sessiontreeDemo.saved());
  const again = await open();
  assert.ok((await save(again)).includes("written while tab two was closed"), "the reopened tab misses the edit made while it was closed");
  await send(again, "after reopening");
  await converged(one, again, ["after reopening", "written while tab two was closed", "typed in tab two"]);
  console.log("ok   a tab reopened later has every edit, and keeps syncing");

  // Text typed in an editor stays when another tab's send redraws the message (no longer the last).
  const leaf = again.locator("#messages article.msg").last();
  await leaf.hover();
  await leaf.locator('[data-action="edit"]').click();
  await again.fill("#messages textarea.editor", "a rewrite still being typed");
  await send(one, "sent while the other tab edits");
  await again.waitForFunction(() => window.sessiontreeDemo.tree.save().includes("sent while the other tab edits"), null, { timeout: 15000 });
  await again.waitForFunction(() => document.querySelectorAll("#messages article.msg").length > 0 && !document.querySelector(".typing"));
  assert.equal(await again.locator("#messages textarea.editor").inputValue(), "a rewrite still being typed", "another tab's send threw the editor's text away");
  await again.click("#messages .edit-buttons button.ghost");
  console.log("ok   text typed in an editor stays through another tab's send");

  // Deleted in another tab: the tab that shows it says so, moves on, and never stores it again.
  const third = await open();
  const id = await again.evaluate(() => localStorage.getItem("sessiontree-demo.current"));
  await third.evaluate((id) => window.sessiontreeDemo.store.delete(id), id);
  await again.waitForFunction(() => [...document.querySelectorAll(".toast")].some((t) => t.textContent.includes("was deleted in another tab")), { timeout: 10000 });
  await again.waitForFunction((id) => window.sessiontreeDemo.tree && !window.sessiontreeDemo.tree.save().includes("after reopening"), { timeout: 10000 }, id);
  await new Promise((res) => setTimeout(res, 300));
  assert.equal(await third.evaluate((id) => window.sessiontreeDemo.store.meta(id), id), null, "the deleted conversation was stored again");
  await third.close();
  console.log("ok   a conversation deleted in another tab: the tab showing it says so and opens another; it is not stored again");

  // Deleted in another tab while a reply streams into it: once the reply ends
  // (here: stopped), the chat and the reply are kept as a new conversation, said so.
  const mock = await startMock();
  await one.evaluate((url) => localStorage.setItem("sessiontree-demo.settings", JSON.stringify({ mode: "endpoint", api: "openai-chat", url, key: "", model: "mock", budget: 32000, timeout: 60 })), `${mock.url}/openai/v1`);
  const streaming = await open();
  await streaming.fill("#input", "a reply that goes quiet [quiet]");
  await streaming.press("#input", "Enter");
  // Some of the reply in (its first word), so that the stop below keeps it.
  await streaming.waitForFunction(() => document.querySelector(".typing.streaming")?.textContent.includes("Plan"), null, { timeout: 15000 });
  const gone = await streaming.evaluate(() => localStorage.getItem("sessiontree-demo.current"));
  await one.evaluate((id) => window.sessiontreeDemo.store.delete(id), gone);
  await streaming.waitForFunction(() => [...document.querySelectorAll(".toast")].some((t) => t.textContent.includes("was deleted in another tab")), { timeout: 10000 });
  assert.notEqual(await streaming.textContent("#save-state"), "Saved", "a deleted conversation says Saved");
  await streaming.click("#stop");
  await streaming.waitForFunction(() => [...document.querySelectorAll(".toast")].some((t) => t.textContent.includes("kept here as a new conversation")), { timeout: 10000 });
  await streaming.evaluate(() => window.sessiontreeDemo.saved());
  const kept = await streaming.evaluate(() => localStorage.getItem("sessiontree-demo.current"));
  assert.notEqual(kept, gone);
  // Read by another tab, from storage: the new conversation's write may still be on its way there.
  const stored = () => one.evaluate(async (id) => ((await window.sessiontreeDemo.store.rows(id))?.nodes ?? []).map((n) => n.row).join("\n"), kept);
  let rows = await stored();
  for (let i = 0; i < 50 && !(rows.includes("[quiet]") && rows.includes("Plan")); i++) {
    await new Promise((res) => setTimeout(res, 100));
    rows = await stored();
  }
  assert.ok(rows.includes("[quiet]") && rows.includes("Plan"), `the chat and its reply are stored under the new conversation: ${rows.slice(0, 300)}`);
  await streaming.close();
  mock.close();
  console.log("ok   deleted in another tab while a reply streams: the chat and the reply are kept as a new conversation, said so");
  assert.deepEqual(errors, [], "errors on the pages");
  console.log(`web tab sync: all passed in ${Math.round(performance.now() - t0)} ms`);
} catch (e) {
  failed = true;
  console.error("FAIL", e?.stack ?? e, errors);
} finally {
  await chrome.close();
  server.kill();
}
process.exit(failed ? 1 : 0);
