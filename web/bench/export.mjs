// make bench-export: a user's whole ChatGPT data export, imported in headless
// Chromium two ways, in one run: picked in the demo page (its worker reads the
// file, the page stores each chat in IndexedDB), and through the library on a
// blank page (sessiontree/idb's store.importFile(file, { open: false })). Then,
// in the demo: a search of every chat, and a reload with them all listed.
// Prints, for each: the time until every chat is stored, the page's longest
// task (a longtask observer), the worst gap between frames, and the growth of
// the browser's memory (the RSS of its processes, from /proc). Nothing is
// asserted: the tests say what must hold (web/test/exports.mjs, js/test/idb.mjs).
//
// The export is generated here, seeded: EXPORT_CHATS (2,000) chats of a few to a
// few hundred messages, one of EXPORT_BIG (53,000) messages, an edit (two
// branches) in about one chat of ten, words of a small vocabulary in messages
// of 50 to 4,000 characters, spaced as Python's json.dumps writes (~345 MB at
// the defaults; EXPORT_CHATS=200 EXPORT_BIG=5000 for a quick look, ~35 MB).
//   make bench-export
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { serveDist, launchChromium, openPage } from "../test/start.mjs";
import { serveJS, launch } from "../../js/test/chromium.mjs";

const CHATS = Number(process.env.EXPORT_CHATS ?? 2000);
const BIG = Number(process.env.EXPORT_BIG ?? 53000);
const SEARCH = "lisbon tram";

// ---- the export --------------------------------------------------------------

function rng(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const WORDS = "the a of to and in is it that for on with as was at by this be from or have an they which one you were her all she there would their we him been has when who will more no if out so said what up its about into than them can only other new some could time these two may then do first any my now such like our over man me even most made after also did many before must through back years where much your way well down should because each just those people how too little state good very make world still own see men work long get here between both life being under never day same another know while last might us great old year off come since against go came right used take three lisbon tram".split(" ");

// py writes v as Python's json.dumps does by default: ", " and ": ".
function py(v) {
  if (v === null || typeof v !== "object") return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(py).join(", ")}]`;
  return `{${Object.entries(v).map(([k, x]) => `${JSON.stringify(k)}: ${py(x)}`).join(", ")}}`;
}

/** Writes the export to file; returns { chats, messages, bytes } as the import should count them. */
function generate(file) {
  const random = rng(20261207);
  const pick = (n) => Math.floor(random() * n);
  const text = () => {
    const n = 50 + Math.floor(random() ** 2 * 3950);
    let s = "";
    while (s.length < n) s += WORDS[pick(WORDS.length)] + (random() < 0.08 ? ". " : " ");
    return s.trim();
  };
  const fd = fs.openSync(file, "w");
  let messages = 0;
  let withMessages = 0;
  const bigAt = Math.floor(CHATS / 3);
  fs.writeSync(fd, "[");
  for (let c = 0; c < CHATS; c++) {
    const turns = c === bigAt ? BIG / 2 : 1 + Math.floor(random() ** 3 * 150);
    const t0 = 1.6e9 + c * 3600;
    const root = "client-created-root";
    const mapping = { [root]: { id: root, message: null, parent: null, children: [] } };
    let at = 0;
    const node = (parent, role, body) => {
      const id = `c${c}-m${at++}`;
      const time = t0 + at;
      mapping[id] = {
        id,
        message: { id, author: { role, name: null, metadata: {} }, create_time: time, update_time: null, content: { content_type: "text", parts: [body] }, status: "finished_successfully", end_turn: role === "assistant" ? true : null, weight: 1.0, metadata: {}, recipient: "all", channel: null },
        parent,
        children: [],
      };
      mapping[parent].children.push(id);
      messages++;
      return id;
    };
    let leaf = root;
    const edited = random() < 0.1 ? pick(turns) : -1;
    for (let i = 0; i < turns; i++) {
      const ask = node(leaf, "user", text());
      if (i === edited) {
        // an edit of that question, answered, then the conversation goes on from the first
        const again = node(leaf, "user", text());
        node(again, "assistant", text());
      }
      leaf = node(ask, "assistant", text());
    }
    withMessages++;
    const chat = { title: `Chat ${c}: ${WORDS[pick(WORDS.length)]} ${WORDS[pick(WORDS.length)]}`, create_time: t0, update_time: t0 + at, mapping, moderation_results: [], current_node: leaf, plugin_ids: null, conversation_id: `conv-${c}`, conversation_template_id: null, gizmo_id: null, is_archived: false, safe_urls: [], id: `conv-${c}` };
    fs.writeSync(fd, (c ? ", " : "") + py(chat));
  }
  fs.writeSync(fd, "]");
  fs.closeSync(fd);
  return { chats: withMessages, messages, bytes: fs.statSync(file).size };
}

// ---- measuring -----------------------------------------------------------------

// The RSS of one Chromium (its processes, found by the profile folder's name in their command line).
function rss(tag) {
  let sum = 0;
  for (const d of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      if (!fs.readFileSync(`/proc/${d}/cmdline`, "utf8").includes(tag)) continue;
      sum += +(fs.readFileSync(`/proc/${d}/status`, "utf8").match(/VmRSS:\s+(\d+)/)?.[1] ?? 0) * 1024;
    } catch {
      // gone meanwhile
    }
  }
  return sum;
}

// Long tasks and frames, from page load: window.__bench.
const observe = () => {
  window.__bench = { tasks: [], gap: 0, frames: 0 };
  try {
    new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__bench.tasks.push(e.duration); }).observe({ type: "longtask", buffered: true });
  } catch {
    // no longtask entries in this browser
  }
  let last = performance.now();
  const tick = (t) => {
    window.__bench.gap = Math.max(window.__bench.gap, t - last);
    window.__bench.frames++;
    last = t;
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
};
const reset = () => { window.__bench.tasks = []; window.__bench.gap = 0; };
const taken = () => ({ longest: Math.max(0, ...window.__bench.tasks), tasks: window.__bench.tasks.filter((d) => d > 50).length, gap: window.__bench.gap });

async function whileSampling(tag, fn) {
  const before = rss(tag);
  let peak = before;
  const timer = setInterval(() => { peak = Math.max(peak, rss(tag)); }, 200);
  try {
    const value = await fn();
    return { ...value, rss: Math.max(peak, rss(tag)) - before };
  } finally {
    clearInterval(timer);
  }
}

async function demo(file, errors) {
  const { server, base } = await serveDist();
  const chrome = await launchChromium("bench-export-demo");
  try {
    await chrome.browser.addInitScript(observe);
    await chrome.browser.addInitScript(() => {
      window.__toasts = [];
      document.addEventListener("DOMContentLoaded", () => {
        new MutationObserver((ms) => { for (const m of ms) for (const n of m.addedNodes) if (n.classList?.contains("toast")) window.__toasts.push(n.textContent); }).observe(document.getElementById("toasts"), { childList: true });
      });
    });
    const page = await openPage(chrome.browser, base, errors, 30 * 60 * 1000);
    const out = { before: await page.evaluate(async () => (await window.sessiontreeDemo.store.list()).length) }; // the first visit's chat
    out.import = await whileSampling("st-web-bench-export-demo", async () => {
      await page.evaluate(reset);
      const t0 = Date.now();
      await page.setInputFiles("#file", file);
      await page.waitForFunction(() => window.__toasts.some((t) => /^Imported|Could not/.test(t)), null, { timeout: 30 * 60 * 1000, polling: 250 });
      await page.evaluate(() => window.sessiontreeDemo.saved());
      const ms = Date.now() - t0;
      const toast = await page.evaluate(() => window.__toasts.find((t) => /^Imported|Could not/.test(t)));
      const counts = toast.match(/([\d,]+) conversations, read as chatgpt: ([\d,]+) messages/);
      return { ms, ...(await page.evaluate(taken)), chats: counts ? Number(counts[1].replace(/,/g, "")) : NaN, messages: counts ? Number(counts[2].replace(/,/g, "")) : NaN, toast };
    });
    out.search = await page.evaluate(async (query) => {
      window.__bench.tasks = [];
      window.__bench.gap = 0;
      const box = document.getElementById("search");
      const t0 = performance.now();
      box.value = query;
      box.dispatchEvent(new Event("input"));
      // The open chat's hits, then every other chat's ("… in other conversations").
      while (document.querySelectorAll("#search-results .search-count").length < 2) await new Promise((r) => setTimeout(r, 10));
      const ms = performance.now() - t0;
      const hits = document.querySelectorAll("#search-results .hit").length;
      box.value = "";
      box.dispatchEvent(new Event("input"));
      return { ms, hits, longest: Math.max(0, ...window.__bench.tasks), gap: window.__bench.gap };
    }, SEARCH);
    const r0 = Date.now();
    await page.reload();
    await page.waitForSelector("body[data-ready='1']");
    const listed = await page.evaluate(async () => (await window.sessiontreeDemo.store.list()).length);
    await page.waitForTimeout(1500); // the rows built after the first task, the chat's messages
    out.reload = { ms: Date.now() - r0, listed, ...(await page.evaluate(taken)) };
    return out;
  } finally {
    await chrome.close();
    server.kill();
  }
}

async function library(file, errors) {
  const { server, base } = await serveJS();
  const chrome = await launch("bench-export-library");
  try {
    const page = await chrome.browser.newPage();
    page.on("pageerror", (e) => errors.push(`library page: ${e.message}`));
    await page.goto(`${base}/test/blank.html`);
    await page.evaluate(observe);
    await page.evaluate(async () => {
      window.st = await import("/sessiontree.js");
      window.idb = await import("/idb.js");
      await window.st.init();
      document.body.innerHTML = "<input type=file id=file>";
    });
    await page.setInputFiles("#file", file);
    return await whileSampling("st-js-bench-export-library", () => page.evaluate(async () => {
      window.__bench.tasks = [];
      window.__bench.gap = 0;
      const store = await window.idb.openStore({ name: "bench-export" });
      const t0 = performance.now();
      const got = await store.importFile(document.getElementById("file").files[0], { open: false });
      const ms = performance.now() - t0;
      const chats = got.conversations.length;
      const modules = window.st.memoryUsage();
      await store.close();
      return { ms, chats, modules: modules.main + modules.interchange, longest: Math.max(0, ...window.__bench.tasks), tasks: window.__bench.tasks.filter((d) => d > 50).length, gap: window.__bench.gap };
    }));
  } finally {
    await chrome.close();
    server.close();
  }
}

// ---- the run -------------------------------------------------------------------

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sessiontree-export-"));
const file = path.join(dir, "conversations.json");
const errors = [];
const load = () => os.loadavg().map((x) => x.toFixed(2)).join(" ");
try {
  const g0 = Date.now();
  const made = generate(file);
  console.log(`A ChatGPT export of ${(made.bytes / 1e6).toFixed(0)} MB: ${made.chats.toLocaleString("en-US")} chats, ${made.messages.toLocaleString("en-US")} messages, one chat of ${BIG.toLocaleString("en-US")} (made in ${((Date.now() - g0) / 1000).toFixed(1)} s; load average ${load()})`);
  const d = await demo(file, errors);
  const l = await library(file, errors);
  console.log(`load average after: ${load()}`);
  const s = (ms) => `${(ms / 1000).toFixed(1)} s`;
  const task = (r) => (r.longest > 50 ? `${Math.round(r.longest)} ms (${r.tasks} over 50 ms)` : "none over 50 ms");
  const mb = (b) => `${Math.round(b / 1e6)} MB`;
  console.log("");
  console.log("| step | took | longest task | worst gap between frames | browser's memory grew by |");
  console.log("|---|---:|---|---:|---:|");
  console.log(`| the demo: the file picked, until every chat is stored | ${s(d.import.ms)} | ${task(d.import)} | ${Math.round(d.import.gap)} ms | ${mb(d.import.rss)} |`);
  console.log(`| the library: \`store.importFile(file, { open: false })\` on a page | ${s(l.ms)} | ${task(l)} | ${Math.round(l.gap)} ms | ${mb(l.rss)} (the page's modules ${mb(l.modules)}) |`);
  console.log(`| the demo: a search of every chat ("${SEARCH}", ${d.search.hits} hits shown) | ${Math.round(d.search.ms)} ms | ${d.search.longest > 50 ? `${Math.round(d.search.longest)} ms` : "none over 50 ms"} | ${Math.round(d.search.gap)} ms | |`);
  console.log(`| the demo: a reload with ${d.reload.listed.toLocaleString("en-US")} chats listed, until ready + 1.5 s | ${s(d.reload.ms)} | ${task(d.reload)} | | |`);
  console.log("");
  const checks = [
    [d.import.chats === made.chats && d.import.messages === made.messages, `the demo stored ${d.import.chats} chats and ${d.import.messages} messages of ${made.chats} and ${made.messages}: ${d.import.toast}`],
    [l.chats === made.chats, `the library stored ${l.chats} chats of ${made.chats}`],
    [d.reload.listed === made.chats + d.before, `${d.reload.listed} listed after the reload, of ${made.chats} and ${d.before} before`],
    [errors.length === 0, `page errors: ${errors.slice(0, 5).join("; ")}`],
  ];
  for (const [ok, what] of checks) if (!ok) throw new Error(what);
  console.log("Every chat and message stored both ways, and listed after the reload.");
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
