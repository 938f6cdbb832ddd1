// A user's whole data export (one claude.ai conversations.json of many chats:
// an empty one, retries, unicode titles) imported through the page
// in headless Chromium: every chat listed once, the sidebar drawn once rather
// than once per chat, the import's toast counting every conversation's
// messages and problems, not the first's, the file read in a worker, an open
// rebuilding only the rows that changed, and a second import of it (or of a
// newer export) merged into the chats already listed, in the file's order.
// Each step fails without its fix.
//   node web/test/exports.mjs   (after make web-dist)
import assert from "node:assert/strict";
import { serveDist, launchChromium, openPage, step } from "./start.mjs";

const N = 120;

/**
 * A claude.ai export of n chats: chat 5 empty, every 10th with a retried
 * reply; another prefix makes other chats ("B Chat 0", its uuids B…).
 */
function claudeExport({ newer = false, prefix = "", n: count = N } = {}) {
  const convs = [];
  let messages = 0;
  let branches = 0;
  for (let c = 0; c < count; c++) {
    const msgs = [];
    let parent = "00000000-0000-4000-8000-000000000000";
    const n = c === 5 ? 0 : 2 + (c % 7);
    for (let k = 0; k < n; k++) {
      const uuid = `${prefix}m-${c}-${k}`;
      const text = `${k % 2 ? "Answer" : "Question"} ${k} of chat ${c}`;
      msgs.push({ uuid, text, content: [{ type: "text", text }], sender: k % 2 ? "assistant" : "human", created_at: `2026-05-02T09:${String(k).padStart(2, "0")}:00.000000Z`, parent_message_uuid: parent });
      parent = uuid;
    }
    if (newer && c === 7) {
      // The newer export: chat 7 went on by one reply.
      msgs.push({ uuid: "m-7-later", text: "A later answer", content: [{ type: "text", text: "A later answer" }], sender: "assistant", created_at: "2026-05-03T09:00:00.000000Z", parent_message_uuid: parent });
      parent = "m-7-later";
    }
    if (c % 10 === 1) msgs.push({ uuid: `${prefix}m-${c}-retry`, text: "A retry", content: [{ type: "text", text: "A retry" }], sender: "assistant", created_at: "2026-05-02T10:00:00.000000Z", parent_message_uuid: msgs[0].uuid });
    convs.push({ uuid: `${prefix}c-${c}`, name: `${prefix ? `${prefix} ` : ""}Chat ${c} \u2014 caf\u00e9 \u{1f9ea}`, created_at: "2026-05-02T09:00:00.000000Z", updated_at: "2026-05-02T10:00:00.000000Z", chat_messages: msgs, current_leaf_message_uuid: parent });
    messages += msgs.length;
    branches += msgs.length ? (c % 10 === 1 ? 2 : 1) : 0;
  }
  return { text: JSON.stringify(convs), messages, branches };
}

const { server, base } = await serveDist();
const chrome = await launchChromium("exports", { viewport: { width: 1280, height: 900 } });
const errors = [];
let failed = false;
try {
  const page = await openPage(chrome.browser, base, errors, 60000);
  const file = claudeExport();
  let toastText = "";

  await step(`a claude.ai export of ${N} chats: each listed once, the sidebar drawn once (rows added counted, not N\u00b2/2)`, async () => {
    await page.evaluate(() => {
      window.__rows = 0;
      new MutationObserver((ms) => { for (const m of ms) window.__rows += m.addedNodes.length; }).observe(document.getElementById("conv-list"), { childList: true });
    });
    await page.setInputFiles("#file", { name: "conversations.json", mimeType: "application/json", buffer: Buffer.from(file.text) });
    await page.waitForSelector(".toast >> text=/^Imported/", { timeout: 60000 });
    toastText = await page.locator(".toast", { hasText: "Imported" }).first().textContent();
    await page.evaluate(() => window.sessiontreeDemo.saved());
    assert.equal(await page.locator("#conv-list li.conv").count(), N, "every chat with a message and the blank one the page started with");
    const rows = await page.evaluate(() => window.__rows);
    // Before: the list was drawn again for each chat stored (7,381 rows for 120 chats).
    assert.ok(rows <= 3 * N, `rows added to the sidebar during the import: ${rows}`);
    assert.equal(await page.textContent("#conv-title"), `Chat 0 \u2014 caf\u00e9 \u{1f9ea}`);
    const titles = await page.locator("#conv-list li.conv .conv-open").allTextContents();
    assert.deepEqual(titles.slice(0, 4).map((t) => t.match(/Chat \d+/)?.[0]), ["Chat 0", "Chat 1", "Chat 2", "Chat 3"], "listed in the file's order, its first on top");
    // Each shows its last message's time, not the import's (before: all the same minute of today).
    const times = await page.locator("#conv-list li.conv .conv-time").allTextContents();
    assert.ok(times.slice(0, 4).every((t) => t.startsWith("5/2/26")), JSON.stringify(times.slice(0, 4)));
  });

  await step("the toast counts every conversation's messages and branches and says the empty one is not listed", async () => {
    // Before: "120 conversations. Read as claudeai: 2 messages, 1 branch." (the first chat's).
    assert.ok(toastText.includes(`${N} conversations, read as claudeai: ${file.messages} messages, ${file.branches} branches.`), toastText);
    assert.ok(toastText.includes("1 conversation has no message: not listed."), toastText);
    assert.ok(toastText.includes("1 problem: \u201cChat 5 \u2014 caf\u00e9 \u{1f9ea}\u201d: conversation 6 of 120: "), toastText);
  });

  await step("the report stays up while it is read (a long one past 2.8 s, until its \u00d7)", async () => {
    // Before: every toast went after 2.8 s, an import's report of 120 chats too, kept nowhere.
    const report = page.locator(".toast", { hasText: "120 conversations" });
    await page.waitForTimeout(4000);
    assert.equal(await report.count(), 1, "the report 4 s after the import");
    await report.getByRole("button", { name: "Dismiss" }).click();
    assert.equal(await report.count(), 0, "the report after its \u00d7");
  });

  await step("the file is read in a worker, not on the page: the page's module never ran importAll (its interchange module is not loaded)", async () => {
    // Before: importAll ran on the page, one task as long as the file (3.2 s for 34 MB).
    assert.equal(await page.evaluate(async () => (await import("./sessiontree.js")).memoryUsage().interchange), 0);
  });

  await step("after a reload every chat is still listed", async () => {
    await page.reload();
    await page.waitForSelector("body[data-ready='1']");
    assert.equal(await page.locator("#conv-list li.conv").count(), N);
    const titles = await page.locator("#conv-list li.conv .conv-open").allTextContents();
    assert.deepEqual(titles.slice(0, 4).map((t) => t.match(/Chat \d+/)?.[0]), ["Chat 0", "Chat 1", "Chat 2", "Chat 3"], "the file's order after a reload");
  });

  await step(`opening another of the ${N} chats rebuilds the two rows that changed, not the whole list (rows added counted)`, async () => {
    const rows = await page.evaluate(async () => {
      let added = 0;
      const list = document.getElementById("conv-list");
      const seen = new MutationObserver((ms) => { for (const m of ms) added += m.addedNodes.length; });
      seen.observe(list, { childList: true });
      const target = list.querySelectorAll("li.conv")[3];
      target.querySelector(".conv-open").click();
      while (!list.querySelector(`li.conv.current[data-id="${target.dataset.id}"]`) || !window.sessiontreeDemo.tree) await new Promise((r) => setTimeout(r, 20));
      await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
      seen.disconnect();
      return added;
    });
    // Before: every row built again at each render, 242 rows for this open.
    assert.ok(rows <= 4, `rows added to the sidebar by an open: ${rows}`);
  });

  await step("the same export imported again: merged into the chats already listed, none listed twice, nothing changed", async () => {
    // Before: listed twice (240 chats), said by the toast or not at all.
    await page.setInputFiles("#file", { name: "conversations.json", mimeType: "application/json", buffer: Buffer.from(file.text) });
    await page.waitForFunction(() => [...document.querySelectorAll(".toast")].some((t) => t.textContent.includes("already here")), null, { timeout: 60000 });
    const text = await page.locator(".toast", { hasText: "already here" }).first().textContent();
    assert.ok(text.includes(`${N - 1} of them were already here: merged, nothing changed.`), text);
    await page.evaluate(() => window.sessiontreeDemo.saved());
    assert.equal(await page.locator("#conv-list li.conv").count(), N);
    await page.evaluate(() => { for (const t of document.querySelectorAll(".toast")) t.remove(); });
  });

  await step("a newer export: a chat's new reply joins that chat, nothing is listed twice, and it stays after a reload", async () => {
    const newer = claudeExport({ newer: true });
    await page.setInputFiles("#file", { name: "conversations.json", mimeType: "application/json", buffer: Buffer.from(newer.text) });
    await page.waitForFunction(() => [...document.querySelectorAll(".toast")].some((t) => t.textContent.includes("already here")), null, { timeout: 60000 });
    const text = await page.locator(".toast", { hasText: "already here" }).first().textContent();
    assert.ok(text.includes(`${N - 1} of them were already here: merged, 1 new message in 1 of them.`), text);
    await page.evaluate(() => window.sessiontreeDemo.saved());
    await page.reload();
    await page.waitForSelector("body[data-ready='1']");
    assert.equal(await page.locator("#conv-list li.conv").count(), N);
    await page.locator("#conv-list li.conv", { hasText: "Chat 7 \u2014" }).locator(".conv-open").click();
    await page.waitForFunction(() => document.getElementById("conv-title")?.textContent.startsWith("Chat 7 \u2014") && window.sessiontreeDemo.tree);
    await page.waitForFunction(() => document.getElementById("messages").textContent.includes("A later answer"), null, { timeout: 10000 });
    // A message of another day shows its day, of another year its year
    // (before: "09:00 AM" alone, for a message of May 2).
    const stamps = await page.locator("#messages .msg time").allTextContents();
    const may2 = new Date("2026-05-02T09:00:00Z");
    const day = may2.toLocaleDateString("en-US", new Date().getFullYear() === 2026 ? { month: "short", day: "numeric" } : { year: "numeric", month: "short", day: "numeric" });
    assert.ok(stamps.length > 0 && stamps.every((t) => t.startsWith(day.slice(0, 3))), JSON.stringify(stamps));
  });

  const listed = () => page.locator("#conv-list li.conv").count();
  const clearToasts = (p = page) => p.evaluate(() => { for (const t of document.querySelectorAll(".toast")) t.remove(); });
  const importText = (p, name, text) => p.setInputFiles("#file", { name, mimeType: "application/json", buffer: Buffer.from(text) });
  const toastSaying = (p, re) => p.waitForFunction((src) => [...document.querySelectorAll(".toast")].some((t) => new RegExp(src).test(t.textContent)), re.source, { timeout: 60000 });

  await step("an export picked twice in a row, the second while the first is stored: the second waits for it and merges; none listed twice", async () => {
    // Before: both read the list as it was, and 113 of 119 chats were listed twice.
    await clearToasts();
    const before = await listed();
    const b = claudeExport({ prefix: "B" });
    await importText(page, "b.json", b.text);
    await importText(page, "b.json", b.text);
    await toastSaying(page, /is imported once the import under way is stored/);
    await toastSaying(page, /already here: merged, nothing changed/);
    await page.evaluate(() => window.sessiontreeDemo.saved());
    assert.equal(await listed(), before + N - 1);
  });

  await step("a second tab lists what the first imports, without a reload, and importing it there merges", async () => {
    // Before: the other tab listed what it read at its start until a reload,
    // and its own import of the same file listed every chat twice.
    await clearToasts();
    const other = await page.context().newPage();
    other.on("pageerror", (e) => errors.push(`page error (second tab): ${e.message}`));
    await other.goto(base);
    await other.waitForSelector("body[data-ready='1']");
    const before = await other.locator("#conv-list li.conv").count();
    const c = claudeExport({ prefix: "C", n: 30 });
    await importText(page, "c.json", c.text);
    await toastSaying(page, /^Imported/);
    await page.evaluate(() => window.sessiontreeDemo.saved());
    await other.waitForFunction((want) => document.querySelectorAll("#conv-list li.conv").length === want, before + 29, { timeout: 10000 });
    await importText(other, "c.json", c.text);
    await toastSaying(other, /29 of them were already here: merged, nothing changed/);
    await other.evaluate(() => window.sessiontreeDemo.saved());
    assert.equal(await other.locator("#conv-list li.conv").count(), before + 29);
    await other.close();
  });

  await step("an export with no conversation, or none with a message, is refused in words; nothing is made", async () => {
    // Before: [] made and opened an empty chat, "Imported".
    const before = await listed();
    const title = await page.textContent("#conv-title");
    for (const [name, text, re] of [
      ["empty-list.json", "[]", /it holds no message/],
      ["all-empty.json", JSON.stringify([{ uuid: "e1", name: "x", chat_messages: [] }, { uuid: "e2", name: "y", chat_messages: [] }]), /none of its 2 conversations has a message/],
    ]) {
      await importText(page, name, text);
      await page.waitForFunction((src) => new RegExp(src).test(document.getElementById("banner").textContent), re.source, { timeout: 20000 });
      assert.match(await page.textContent("#banner"), /Nothing was changed\./);
      assert.equal(await listed(), before, name);
      assert.equal(await page.textContent("#conv-title"), title, name);
    }
  });

  await step("an export cut short keeps its whole chats and says it is cut short; a file cut short in its first says so, with no format to pick", async () => {
    // Before: "cannot tell the format of the input", a form to pick one, and
    // nothing of the file kept.
    await clearToasts();
    const before = await listed();
    await importText(page, "cut.json", claudeExport({ prefix: "F", n: 5 }).text.slice(0, -40));
    await toastSaying(page, /Reading the file stopped after 4 conversations, which are kept/);
    assert.match(await page.locator(".toast", { hasText: "stopped after" }).first().textContent(), /the file is cut short/);
    await page.evaluate(() => window.sessiontreeDemo.saved());
    assert.equal(await listed(), before + 4);
    await importText(page, "cut-one.json", JSON.stringify({ title: "x", chat: { history: { currentId: "m", messages: {} } } }).slice(0, -10));
    await page.waitForFunction(() => /not valid JSON/.test(document.getElementById("banner").textContent), null, { timeout: 20000 });
    assert.match(await page.textContent("#banner"), /the file is cut short/);
    assert.equal(await page.locator("dialog[open]").count(), 0, "no format picker");
    assert.equal(await listed(), before + 4);
  });

  await step("while an export is read the page says how many it has read and lists them; a reload midway says what it kept", async () => {
    // Before: "Saving…" alone for the whole import, nothing listed until its
    // end, and after a reload no word that it had stopped.
    await clearToasts();
    const d = claudeExport({ prefix: "D", n: 1500 });
    await importText(page, "d.json", d.text);
    await page.waitForFunction(() => /^Importing\u2026 \d+ read$/.test(document.getElementById("save-state").textContent) && document.querySelectorAll("#conv-list li.conv").length > 0 && [...document.querySelectorAll("#conv-list .conv-open")].some((b) => b.textContent.startsWith("D Chat")), null, { timeout: 60000 });
    await page.reload();
    await page.waitForSelector("body[data-ready='1']");
    await toastSaying(page, /The import of \u201cd\.json\u201d stopped when the page was reloaded/);
    await clearToasts();
    await page.reload();
    await page.waitForSelector("body[data-ready='1']");
    await page.waitForTimeout(300);
    assert.equal(await page.locator(".toast", { hasText: "stopped when the page was reloaded" }).count(), 0, "said once");
  });

  await step("an import that ends after the user went on in their chat lists what it read, and leaves them where they are", async () => {
    // Before: the page opened the export's first chat, under the draft being typed.
    await clearToasts();
    const title = await page.textContent("#conv-title");
    await importText(page, "g.json", claudeExport({ prefix: "G", n: 200 }).text);
    await page.fill("#input", "a draft I am typing");
    await toastSaying(page, /^Imported/);
    assert.match(await page.locator(".toast", { hasText: "Imported" }).first().textContent(), /not opened: you went on in this chat meanwhile/);
    assert.equal(await page.textContent("#conv-title"), title);
    assert.equal(await page.inputValue("#input"), "a draft I am typing");
    await page.fill("#input", "");
  });

  await step("the worker reads chats ahead of the page storing them (up to 32 MB), not one at a time", async () => {
    // Before: one ahead, and the page and the worker waited for each other
    // (a 345 MB export: the page waited 12 s of 31 for a worker whose whole part was 12 s).
    await clearToasts();
    await page.evaluate(() => localStorage.setItem("sessiontree-demo.test-hold-open-ms", "1500"));
    await importText(page, "h.json", claudeExport({ prefix: "H", n: 40 }).text);
    await toastSaying(page, /^Imported/);
    await page.evaluate(() => localStorage.removeItem("sessiontree-demo.test-hold-open-ms"));
    const ahead = await page.evaluate(() => window.sessiontreeDemo.timings.importSteps.ahead);
    assert.ok(ahead >= 30, `the most chats read ahead of the page at once: ${ahead}`);
  });

  await step("a rename and a delete in one tab show in another's list, without a reload", async () => {
    // Before: the other tab's list kept the old title and the deleted chat until a reload.
    const other = await page.context().newPage();
    other.on("pageerror", (e) => errors.push(`page error (second tab): ${e.message}`));
    await other.goto(base);
    await other.waitForSelector("body[data-ready='1']");
    const row = (p, title) => p.locator("#conv-list li.conv", { hasText: title });
    const form = async (values) => {
      await page.waitForSelector("#dialog[open]");
      for (const [name, value] of Object.entries(values)) await page.fill(`#dialog [name="${name}"]`, value);
      await page.locator("#dialog button[type=submit]").click();
      await page.waitForSelector("#dialog:not([open])", { state: "attached" });
    };
    await row(page, "C Chat 3 \u2014").locator('[data-action="rename"]').click();
    await form({ title: "Renamed in the first tab" });
    await row(page, "C Chat 4 \u2014").locator('[data-action="delete"]').click();
    await form({});
    await page.evaluate(() => window.sessiontreeDemo.saved());
    await other.waitForFunction(() => {
      const titles = [...document.querySelectorAll("#conv-list .conv-name")].map((e) => e.textContent);
      return titles.includes("Renamed in the first tab") && !titles.some((t) => t.startsWith("C Chat 4 \u2014") || t.startsWith("C Chat 3 \u2014"));
    }, null, { timeout: 10000 });
    await other.close();
  });

  // Found by an outside pass (Dec 7, evening): a list row's time formatted
  // by an Intl formatter made once threw on a stored time that is no date
  // (Date's toLocaleString said "Invalid Date"), and the page never started.
  // And content-visibility on the rows clipped a focused control's ring.
  await step("a conversation whose stored time is no date is listed (its time blank) and the page starts; a focused row shows its whole ring", async () => {
    const id = await page.evaluate(async () => {
      const store = window.sessiontreeDemo.store;
      const [first] = await store.list();
      await store.update(first.id, { updatedAt: "not a date" });
      return first.id;
    });
    await page.reload();
    await page.waitForSelector("body[data-ready='1']");
    const time = await page.evaluate((id) => document.querySelector(`#conv-list li.conv[data-id="${id}"] .conv-time`)?.textContent, id);
    assert.equal(time, "", "the row of a time that is no date");
    await page.evaluate(async (id) => window.sessiontreeDemo.store.update(id, { updatedAt: Date.now() }), id);
    // A row's open button focused by keyboard: its ring is inside the row (the row clips what is outside it).
    const ring = await page.evaluate(() => {
      const b = document.querySelector("#conv-list li.conv:not(.current) .conv-open");
      b.focus({ focusVisible: true });
      const s = getComputedStyle(b);
      return { offset: parseFloat(s.outlineOffset), width: parseFloat(s.outlineWidth), clips: getComputedStyle(b.closest("li")).contentVisibility };
    });
    assert.ok(ring.clips !== "auto" || ring.offset + ring.width <= 0, `the ring is drawn outside a row that clips it: ${JSON.stringify(ring)}`);
  });

  // Found by an outside pass (Dec 7, evening): on a phone, the drawer opened
  // again came back at its top (the menu focused + New chat, and the focus
  // scrolled to it), however far down the chat just opened was.
  await step("on a phone, the drawer opens again where it was left, the focus on a control in sight (the open chat's row)", async () => {
    await page.setViewportSize({ width: 390, height: 700 });
    await page.click("#menu");
    await page.waitForFunction(() => getComputedStyle(document.getElementById("sidebar")).visibility === "visible");
    await page.evaluate(() => { document.getElementById("sidebar").scrollTop = 1200; });
    const title = await page.evaluate(() => {
      const box = document.getElementById("sidebar").getBoundingClientRect();
      const b = [...document.querySelectorAll("#conv-list li.conv:not(.current) .conv-open")].find((x) => x.getBoundingClientRect().top > box.top + 200);
      return b.querySelector(".conv-name").textContent;
    });
    const marks = await page.evaluate(() => performance.getEntriesByName("open: rendered").length);
    await page.locator("#conv-list li.conv .conv-open", { hasText: title }).click();
    await page.waitForFunction(([t, n]) => document.getElementById("conv-title").textContent === t && performance.getEntriesByName("open: rendered").length > n, [title, marks]);
    const left = await page.evaluate(() => document.getElementById("sidebar").scrollTop);
    assert.ok(left > 600, `the list was scrolled down (${left})`);
    await page.click("#menu");
    await page.waitForFunction(() => getComputedStyle(document.getElementById("sidebar")).visibility === "visible");
    const seen = await page.evaluate(() => {
      const side = document.getElementById("sidebar");
      const box = side.getBoundingClientRect();
      const a = document.activeElement;
      const r = a.getBoundingClientRect();
      return { top: side.scrollTop, inside: side.contains(a), inSight: r.top >= box.top && r.bottom <= box.bottom, current: !!a.closest("li.current") };
    });
    assert.deepEqual(seen, { top: left, inside: true, inSight: true, current: true });
    // Another chat opened by keyboard from the drawer: the focus goes to the
    // composer once it takes input (it was disabled while the chat opened, and
    // the focus was dropped on the page: found by an outside pass, Dec 7, night).
    const next = await page.evaluate(() => document.querySelector("#conv-list li.conv.current").nextElementSibling.dataset.id);
    const before = await page.evaluate(() => performance.getEntriesByName("open: rendered").length);
    await page.focus(`#conv-list li.conv[data-id="${next}"] .conv-open`);
    await page.keyboard.press("Enter");
    await page.waitForFunction((n) => performance.getEntriesByName("open: rendered").length > n && !document.getElementById("input").disabled, before);
    await page.waitForFunction(() => document.activeElement?.id === "input", null, { timeout: 3000 });
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  // Found by an outside pass (Dec 7, evening): a chat deleted by keyboard
  // near the list's end left the focus on the open chat's row, off screen.
  await step("a chat deleted by keyboard at the list's end: the focus goes to the row now last, in sight, not to the open chat's far above", async () => {
    await page.evaluate(() => { const s = document.getElementById("sidebar"); s.scrollTop = s.scrollHeight; });
    const [last, before] = await page.evaluate(() => [...document.querySelectorAll("#conv-list li.conv")].slice(-2).reverse().map((li) => li.dataset.id));
    await page.focus(`#conv-list li.conv[data-id="${last}"] [data-action=delete]`);
    await page.keyboard.press("Enter");
    await page.waitForSelector("#dialog[open]");
    await page.keyboard.press("Tab"); // the question opens on Cancel
    await page.keyboard.press("Enter");
    await page.waitForFunction((id) => !document.querySelector(`#conv-list li.conv[data-id="${id}"]`), last);
    const at = await page.evaluate(() => {
      const a = document.activeElement;
      const box = document.getElementById("sidebar").getBoundingClientRect();
      const r = a.getBoundingClientRect();
      return { row: a.closest("li.conv")?.dataset.id, inSight: r.top >= box.top && r.bottom <= box.bottom };
    });
    assert.deepEqual(at, { row: before, inSight: true });
  });

  assert.deepEqual(errors, [], "errors on the page");
  console.log("web exports: all passed");
} catch (e) {
  failed = true;
  console.error("FAIL", e?.stack ?? e, errors);
} finally {
  await chrome.close();
  server.kill();
}
process.exit(failed ? 1 : 0);
