// Two tabs of the demo page on one conversation, used at random as a user
// would (seeded): send messages, click any action a message or a branch
// shows (edit, regenerate, rewind, branch here, label, the ‹ › switchers,
// summarize, open, delete a name), answer or dismiss the dialog it opens,
// show the tree panel and click in it, search and open a hit, reload a tab. After each step, in that tab: no page
// error, console error or alert; the chat shows the active path (one message
// box a message); every ‹ n/m › reads what the tree answers. At the end both
// tabs hold the same tree, sound, with every message either tab sent.
//   node web/test/monkey.mjs   (after make web-dist)
// MONKEY_SEEDS=1,2 MONKEY_STEPS=60 for a longer look.
import assert from "node:assert/strict";
import { serveDist, launchChromium, openPage } from "./start.mjs";
import { rng } from "../../js/test/rng.js";

const SEEDS = (process.env.MONKEY_SEEDS ?? "1").split(",").map(Number);
const STEPS = Number(process.env.MONKEY_STEPS ?? 40);

const { server, base } = await serveDist();
let failed = false;

// What the tab shows against what its tree answers.
const shown = (page) => page.evaluate(() => {
  const t = window.sessiontreeDemo?.tree;
  if (!t) return ["no tree open"];
  const boxes = [...document.querySelectorAll("#messages article.msg")];
  const path = t.activePath();
  const bad = [];
  if (boxes.length !== path.length) bad.push(`${boxes.length} message boxes for a path of ${path.length}`);
  boxes.forEach((b, i) => {
    if (b.dataset.id && b.dataset.id !== path[i]) bad.push(`box ${i} is ${b.dataset.id}, the path's ${path[i]}`);
    const count = b.querySelector(".switcher .count")?.textContent;
    if (count && path[i]) {
      const s = t.siblings(path[i]);
      if (count !== `${s.index + 1}/${s.siblings.length}`) bad.push(`box ${i} shows ${count}, the tree ${s.index + 1}/${s.siblings.length}`);
    }
  });
  return bad;
});

const idle = (page) => page.waitForFunction(() => window.sessiontreeDemo?.tree && !document.querySelector(".typing"), null, { timeout: 20000 });

for (const seed of SEEDS) {
  const r = rng(seed);
  const pick = (xs) => xs[Math.floor(r() * xs.length)];
  const chrome = await launchChromium(`monkey-${seed}`);
  const errors = [];
  const sent = [];
  const log = [];
  try {
    const tabs = [await openPage(chrome.browser, base, errors)];
    await tabs[0].fill("#input", `seed ${seed} first`);
    await tabs[0].press("#input", "Enter");
    sent.push(`seed ${seed} first`);
    await idle(tabs[0]);
    await tabs[0].evaluate(() => window.sessiontreeDemo.saved());
    tabs.push(await openPage(chrome.browser, base, errors));
    for (const p of tabs) p.on("dialog", (d) => { errors.push(`a dialog: ${d.message()}`); d.dismiss().catch(() => {}); });
    for (let step = 0; step < STEPS; step++) {
      const ti = r() < 0.6 ? 0 : 1;
      const page = tabs[ti];
      const x = r();
      let what;
      if (x < 0.3) {
        const text = `s${seed} t${ti} #${step} ${pick(["hello", "what next?", "a **bold** word", "é 😀", "<b>not html</b>"])}`;
        await page.fill("#input", text);
        await page.press("#input", "Enter");
        sent.push(text);
        what = "send";
      } else if (x < 0.8) {
        // Any action a message or a branch shows, enabled and in view.
        const buttons = page.locator("#messages [data-action]:not([disabled]), #branch-list [data-action]:not([disabled]), #branch-list .branch-open");
        const n = await buttons.count();
        if (n === 0) { what = "nothing to click"; } else {
          const b = buttons.nth(Math.floor(r() * n));
          const action = (await b.getAttribute("data-action")) ?? "open-branch";
          what = `click ${action}`;
          if (action === "copy" || action === "delete-branch") { what += " (skipped)"; } else {
            await b.scrollIntoViewIfNeeded().catch(() => {});
            const box = await b.locator("xpath=ancestor::article[1]").count();
            if (box) await b.locator("xpath=ancestor::article[1]").hover().catch(() => {});
            await b.click({ timeout: 3000 }).catch((e) => { what += ` (not clickable: ${e.message.split("\n")[0]})`; });
            // A dialog, or an edit in place.
            await page.waitForTimeout(50);
            if (await page.locator("#dialog[open]").count()) {
              for (const f of await page.locator("#dialog[open] input[type=text], #dialog[open] input:not([type]), #dialog[open] textarea").all()) {
                if (await f.isEditable().catch(() => false)) await f.fill(`m${seed}-${step} ${pick(["idea", "later", "x"])}`);
              }
              if (r() < 0.8) {
                await page.locator("#dialog[open] button[type=submit]").click();
                what += " + submit";
              } else {
                await page.keyboard.press("Escape");
                what += " + dismiss";
              }
              await page.waitForTimeout(50);
              if (await page.locator("#dialog[open]").count()) { await page.keyboard.press("Escape"); what += " (refused, dismissed)"; }
            }
            const save = page.locator('#messages [data-action="save-edit"]');
            if (await save.count()) {
              const text = `s${seed} t${ti} #${step} edited`;
              await page.locator("#messages textarea").first().fill(text);
              await save.first().click();
              sent.push(text);
              what += " + save";
            }
          }
        }
      } else if (x < 0.84) {
        // The tree panel: shown or hidden, or a click somewhere on its canvas (a node opens).
        const canvas = page.locator(".tree-canvas");
        if (r() < 0.4 || !(await canvas.isVisible().catch(() => false))) {
          await page.click("#btn-tree");
          what = "tree panel";
        } else {
          const b = await canvas.boundingBox();
          await page.mouse.click(b.x + r() * b.width, b.y + r() * b.height);
          what = "click in the tree";
        }
      } else if (x < 0.9) {
        await page.fill("#search", pick(["hello", "next", "edited", "seed"]));
        const hit = page.locator("#search-results .hit");
        await hit.first().waitFor({ timeout: 2000 }).catch(() => {});
        if (await hit.count()) { await hit.nth(Math.floor(r() * (await hit.count()))).click(); what = "search + open a hit"; } else what = "search, no hit";
        await page.fill("#search", "");
      } else if (x < 0.94) {
        await page.reload();
        what = "reload";
      } else {
        await page.waitForTimeout(200);
        what = "wait";
      }
      log.push(`${step}.${ti}:${what}`);
      await idle(page);
      // The view catches up with a change (its own, or the other tab's) in a frame or two.
      let bad = await shown(page);
      for (const until = performance.now() + 5000; bad.length && performance.now() < until;) {
        await page.waitForTimeout(100);
        await idle(page);
        bad = await shown(page);
      }
      assert.deepEqual(bad, [], `seed ${seed}, step ${step} in tab ${ti}; the last steps: ${log.slice(-8).join(" | ")}`);
      assert.deepEqual(errors, [], `seed ${seed}, step ${step} in tab ${ti}: errors; the last steps: ${log.slice(-8).join(" | ")}`);
    }
    // Both tabs hold one tree with every message either sent.
    for (const p of tabs) await idle(p);
    const text = (p) => p.evaluate(() => window.sessiontreeDemo.tree.save());
    for (const p of tabs) {
      await p.waitForFunction((want) => want.every((s) => window.sessiontreeDemo.tree.save().includes(JSON.stringify(s).slice(1, -1))), sent, { timeout: 15000 })
        .catch(async () => {
          const have = await text(p);
          assert.fail(`seed ${seed}: a tab misses ${JSON.stringify(sent.filter((s) => !have.includes(JSON.stringify(s).slice(1, -1))))}; steps: ${log.join(" | ")}`);
        });
      assert.deepEqual(await p.evaluate(() => window.sessiontreeDemo.tree.validate()), [], `seed ${seed}: a tab's tree is not sound`);
    }
    const same = (p) => p.evaluate(() => {
      const f = JSON.parse(window.sessiontreeDemo.tree.save());
      delete f.active_branch;
      for (const b of Object.values(f.branches)) delete b.used;
      return JSON.stringify(f);
    });
    await tabs[0].waitForFunction(async (other) => {
      await window.sessiontreeDemo.saved();
      const f = JSON.parse(window.sessiontreeDemo.tree.save());
      delete f.active_branch;
      for (const b of Object.values(f.branches)) delete b.used;
      return JSON.stringify(f) === other;
    }, await same(tabs[1]), { timeout: 15000 }).catch(async () => assert.equal(await same(tabs[0]), await same(tabs[1]), `seed ${seed}: the two tabs did not converge`));
    assert.deepEqual(errors, [], "errors on the pages");
    const nodes = Object.keys(JSON.parse(await text(tabs[0])).nodes).length;
    console.log(`ok   seed ${seed}: ${STEPS} steps in two tabs, ${sent.length} messages sent, ${nodes} nodes; both tabs hold the same tree, every message in it`);
  } catch (e) {
    failed = true;
    console.error("FAIL", e?.stack ?? e, errors, log.join(" | "));
  } finally {
    await chrome.close();
  }
  if (failed) break;
}
server.kill();
if (!failed) console.log("the demo at random in two tabs: all passed");
process.exit(failed ? 1 : 0);
