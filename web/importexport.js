// Import (the button or a file dropped on the page; every format, a multi-chat
// file as one conversation per chat, a .tree.json checked in a worker and stored
// in parts) and export to each format.
import { SessionTree } from "./sessiontree.js";
import { newestFirst } from "./idb.js";
import { $, el, openForm, toast, showError, clearError, describe } from "./dom.js";
import { connect, readAhead } from "./worker.js";
import { hasFormats, state, loadInterchange } from "./app.js";
import { write, mayLeave, LOAD_SLICE_MS, createConversation, openConversation, openCreated, previewImport, importDone, importFailed, heldForTests, listFirst, takeStoreList, renderSaveState } from "./conversations.js";
import { WINDOW } from "./chat.js";
import { renderConversations } from "./sidebar.js";
import { change } from "./actions.js";
import { warmMarkdown } from "./markdown.js";

const FORMATS = [
  { value: "tree.json", label: ".tree.json", hint: "sessiontree's own file: every branch, label and summary", ext: ".tree.json" },
  { value: "chatgpt", label: "ChatGPT", hint: "conversations.json (mapping, current_node)", ext: ".chatgpt.json" },
  { value: "claudeai", label: "claude.ai", hint: "conversations.json (chat_messages, edits and retries)", ext: ".claudeai.json" },
  { value: "openwebui", label: "Open WebUI", hint: "chat JSON (history.messages)", ext: ".openwebui.json" },
  { value: "librechat", label: "LibreChat", hint: "export JSON", ext: ".librechat.json" },
  { value: "claudecode", label: "Claude Code", hint: "session JSONL", ext: ".claudecode.jsonl" },
  { value: "pi", label: "pi", hint: "session JSONL v3", ext: ".pi.jsonl" },
  { value: "codex", label: "Codex", hint: "rollout JSONL (active branch)", ext: ".codex.jsonl" },
  { value: "sillytavern", label: "SillyTavern", hint: "chat JSONL (swipes)", ext: ".sillytavern.jsonl" },
  { value: "ai-sdk", label: "AI SDK UIMessage[]", hint: "the active branch as useChat's messages", ext: ".uimessages.json" },
  { value: "assistant-ui", label: "assistant-ui", hint: "ExportedMessageRepository (every branch, the head)", ext: ".assistant-ui.json" },
  { value: "openai", label: "OpenAI messages", hint: "the active branch as a messages array", ext: ".openai.json" },
  { value: "markdown", label: "Markdown", hint: "readable; other branches as summaries", ext: ".md" },
];

function looksLikeTreeFile(bytes) {
  const head = new TextDecoder().decode(bytes.subarray(0, 64));
  return /^\s*\{\s*"format"\s*:\s*"sessiontree"/.test(head);
}

// IMPORT_WRITES is how many conversations of an import may wait for their
// writes before the next is read.
const IMPORT_WRITES = 16;
// BIG_FILE is the size of a conversation's file from which the page loads it in slices.
const BIG_FILE = 4 << 20;

// What an import made while a reply streams adds to its toast.
const LISTED = ": it is in the list, not opened while the reply is on its way.";
// … and one that ended after the user went on in their chat.
const LISTED_LATER = ": the conversations are in the list, the first on top (not opened: you went on in this chat meanwhile).";

// Imports run one at a time, in every tab of the demo (a Web Lock where the
// browser has them): one started while another still stored its
// conversations did not see them, and listed the same chats twice (and two
// files' chats interleaved). Each starts from the store's list as it is then.
const IMPORT_LOCK = "sessiontree-demo-import";
let imports = Promise.resolve();
let importsWaiting = 0;

// INTERRUPTED_KEY (sessionStorage: this tab, kept over a reload) names the
// file of an import of another tool's export while it is under way: a reload
// midway keeps the conversations stored by then, and the next start says so.
export const INTERRUPTED_KEY = "sessiontree-demo.importing";

/** Imports file (in turn: after an import under way here or in another tab). */
export function importFile(file, format = "auto") {
  if (state.importing || importsWaiting > 0) toast(`\u201c${file.name}\u201d is imported once the import under way is stored.`);
  importsWaiting++;
  const run = async () => {
    importsWaiting--;
    try {
      await state.store.list(); // what another tab stored meanwhile
      takeStoreList();
    } catch {
      // the list as this tab has it
    }
    try {
      await importNow(file, format);
    } finally {
      await state.writes.catch(() => {}); // stored before the next import reads the list
    }
  };
  const locked = async () => {
    if (!navigator.locks?.request) return run();
    // Held by another tab: said, then waited for.
    const now = await navigator.locks.request(IMPORT_LOCK, { ifAvailable: true }, async (lock) => (lock ? (await run(), true) : false));
    if (now) return;
    toast(`\u201c${file.name}\u201d is imported once the import under way in another tab is stored.`);
    await navigator.locks.request(IMPORT_LOCK, run);
  };
  const p = imports.then(locked);
  imports = p.catch(() => {});
  return p;
}

async function importNow(file, format = "auto") {
  if (state.unsaved && !(await mayLeave())) return; // an import opens what it reads in place of the open chat
  // Where the user is: an import that ends after they moved on (another
  // chat, a message sent, a draft typed) lists what it read, not opens it.
  const where = { cur: state.cur, version: state.cur?.tree?.version, draft: $("input").value };
  const stayed = () => state.cur === where.cur && state.cur?.tree?.version === where.version && $("input").value === where.draft;
  const t0 = performance.now();
  let got = []; // [{ title, tree, note }]: a .tree.json read on the page
  let reader = null; // the worker that reads another tool's file
  let each = null; // its conversations, a step each (importEach)
  let ahead = []; // the first two: whether the file holds more than one decides their names
  try {
    const head = new Uint8Array(await file.slice(0, 64).arrayBuffer());
    const isTree = (format === "auto" && looksLikeTreeFile(head)) || format === "sessiontree" || !hasFormats;
    if (isTree && state.store.persistent) {
      // sessiontree/idb's import: checked in a worker of its own, stopped once
      // it has answered (only one module holds a huge tree at a time), loaded
      // here in slices, then its rows written a part at a time while the
      // conversation is shown and usable.
      const l0 = performance.now();
      // The file's last messages first (its head and last megabytes), while
      // the worker checks it and the page loads it: painted read-only, the
      // composer taking a send that waits for the tree, as a reload's open.
      setTimeout(warmMarkdown, 0); // its first messages then paint in a short task
      let early = null;
      let result;
      try {
        result = await state.store.importFile(file, {
          format: "sessiontree", sliceMs: LOAD_SLICE_MS, autosave: false, meta: { autoTitle: false },
          tailCount: WINDOW,
          onTail: (tail, meta) => {
            if (state.busy) return; // stored and listed only (below): the chat stays on the reply
            state.timings.importTail = performance.now() - l0;
            early = previewImport(meta, tail);
            return heldForTests();
          },
        });
      } catch (e) {
        if (early) {
          await heldForTests(); // tests: a send can be typed before the failure comes
          await importFailed(early);
        }
        throw e;
      }
      const { conversations, problems, repairs, timings } = result;
      state.timings.importLoad = performance.now() - l0;
      state.timings.importCheck = timings.check;
      state.timings.importRead = timings.load;
      state.timings.checkMemory = timings.checkMemory; // its peak (make bench-huge)
      const conv = conversations[0].conversation;
      const w0 = performance.now();
      write(() => conv.saved()).then(() => {
        state.timings.createWrite = performance.now() - w0;
        state.timings.feedParts = conv.timings.parts;
      });
      let listed = false;
      if (early) await importDone(early, conv);
      else if (state.busy) {
        listFirst(conv.meta); // stored, listed, not opened under the reply
        conv.close();
        renderConversations();
        listed = true;
      } else openCreated(conv.meta, conv, false, { sliced: true });
      state.timings.import = performance.now() - t0;
      const note = problems.length ? ` It had ${problems.length} structural problem${problems.length === 1 ? "" : "s"}; repaired: ${repairs.slice(0, 3).map((p) => p.message).join("; ")}${repairs.length > 3 ? "; \u2026" : ""}.` : "";
      clearError();
      toast(`Imported \u201c${file.name}\u201d${listed ? LISTED : "."}${note}`, note ? "warn" : "info");
      return;
    }
    if (isTree) {
      // A .tree.json is read from the file's bytes, never made a string (loadFrom).
      const l0 = performance.now();
      const tree = await SessionTree.loadFrom(file);
      state.timings.importLoad = performance.now() - l0;
      let note = "";
      const problems = tree.validate();
      if (problems.length) {
        const fixes = tree.repair();
        note = ` It had ${problems.length} structural problem${problems.length === 1 ? "" : "s"}; repaired: ${fixes.slice(0, 3).map((p) => p.message).join("; ")}${fixes.length > 3 ? "; \u2026" : ""}.`;
      }
      got.push({ title: "", tree, note });
    } else {
      // Read in a worker of its own (sessiontree/worker), stopped once every
      // conversation has come across: on the page, importAll was one task as
      // long as the file (3.2 s for a 34 MB claude.ai export, ~35 s for a
      // 345 MB ChatGPT one), the page frozen throughout. The worker is
      // handed the File, not its bytes, and reads one conversation (a chat of
      // a ChatGPT conversations.json) each time the page asks for the next:
      // importAll held every one at once, in the worker and then on the page
      // (+5.7 GB for the browser with a 345 MB export).
      state.importing = { read: 0 };
      sessionStorage.setItem(INTERRUPTED_KEY, file.name);
      renderSaveState();
      reader = await connect(new URL("./sessiontree.wasm", import.meta.url));
      await reader.initInterchange(new URL("./sessiontree-interchange.wasm", import.meta.url));
      // Each conversation's .tree.json moves here; the worker reads on while the
      // page stores them, up to 32 MB of them ahead (readAhead's; one after the
      // other, the 345 MB export took 73 s: the worker waited for the page, and
      // the page for the worker; one ahead, 31 s, the page waiting 12 s for a
      // worker whose whole part is 12 s).
      each = readAhead(reader.SessionTree.importEach(file, format, { files: true }));
      for (let i = 0; i < 2; i++) {
        const step = await each.next(); // the first: a file no format reads fails here
        if (step.done) break;
        ahead.push(step.value);
      }
    }
  } catch (e) {
    reader?.close();
    state.importing = null;
    sessionStorage.removeItem(INTERRUPTED_KEY);
    renderSaveState();
    for (const g of got) g.tree?.free();
    // A file no format could be: said as it is, not offered as one to pick.
    const nothing = file.size === 0 ? "the file is empty" : /\.md$/i.test(file.name) ? "Markdown is a format to export to (readable, other branches as summaries), not one to import" : null;
    if (nothing) {
      showError(`Could not import \u201c${file.name}\u201d: ${nothing}. Nothing was changed.`);
      return;
    }
    // Not JSON, or nothing but whitespace: said as it is (no format reads it).
    const unreadable = e?.code === "invalid_input" && /^the input (is not valid JSON|is empty)/.test(e.message ?? "");
    if (format === "auto" && hasFormats && !unreadable && !looksLikeTreeFile(new Uint8Array(await file.slice(0, 64).arrayBuffer()))) {
      // Detection failed or the file did not read as what it looked like: ask which format it is.
      const v = await openForm({
        title: `Which format is \u201c${file.name}\u201d?`,
        fields: [
          { type: "note", text: `It could not be read as detected: ${describe(e)}` },
          { name: "format", type: "radio", label: "Read it as", value: "chatgpt", options: FORMATS.filter((f) => f.value !== "markdown" && f.value !== "tree.json") },
        ],
        ok: "Import",
      });
      if (v) return importNow(file, v.format);
    }
    showError(`Could not import \u201c${file.name}\u201d: ${describe(e)}. Nothing was changed.`);
    return;
  }
  clearError();
  const base = file.name.replace(/\.(tree\.json|jsonl|json|md)$/i, "") || "Imported";
  const many = got.length > 1 || ahead.length > 1;
  // Said at once (the header's count is hidden on a phone's width).
  if (many) toast(`Importing \u201c${file.name}\u201d: its conversations are listed as they are stored.`);
  const name = (g) => (g.title.trim() !== "" && many ? g.title.trim() : base);
  // The file's first conversation ends on top and open (only listed while a reply
  // is on its way: the chat stays on it); the others are listed, in the file's order.
  let open = !state.busy;
  // A conversation already listed (its first message is a listed one's: the
  // same export imported again, or a newer export of it) is merged into that
  // one rather than listed twice: a newer export's messages join it, what was
  // written here since stays (a move made on both sides keeps both), and the
  // same export imported again changes nothing.
  const byRoot = new Map();
  for (const c of state.convs) if (c.root && !byRoot.has(c.root)) byRoot.set(c.root, c);
  const again = { found: 0, grew: 0, messages: 0 };
  let first = null; // the listed conversation the file's first one went into (merged, or made)
  const at = Date.now(); // the i-th conversation's place in the list: at - i
  let read = 0;
  let placed = 0; // conversations listed or merged into
  let failure = null;
  const place = async (t, g, i, inParts = false) => {
    if (g.report?.nodes === 0) {
      // A chat of the export with no message (claude.ai lists some), or an
      // export with none ([]): said, not listed.
      t.free();
      return;
    }
    placed++;
    const meta = t.pathLength() ? byRoot.get(t.pathWindow(0, 1).ids[0]) : undefined;
    // The open one while a reply streams into it is not merged into: listed on its own.
    if (!meta || (state.busy && state.cur?.meta === meta)) {
      // One conversation is opened as it is made; of many, the first once every one is in.
      // Its time in the list is its last message's (an export's chats all
      // showed the time of the import), its place the file's.
      const last = t.pathLength() ? t.node(t.pathWindow(-1).ids[0])?.createdAtMs ?? 0 : 0;
      const updatedAt = last > 0 && last <= Date.now() ? last : undefined;
      const made = await createConversation(t, name(g), many ? { open: false, list: false, at: at - i, updatedAt: updatedAt ?? at - i, inParts } : { open, updatedAt, inParts });
      if (i === 0 && many) first = made;
      return;
    }
    again.found++;
    try {
      const r = await mergeInto(meta, t);
      if (r) {
        again.grew++;
        again.messages += r.nodesAdded.length;
      }
    } finally {
      t.free();
    }
    if (i === 0) first = meta;
  };
  try {
    if (!each) {
      const g = got[0];
      await place(g.tree, g, 0);
    } else {
      // Timings: ms over the conversations, and the most read ahead at once.
      const spent = (state.timings.importSteps = { wait: 0, load: 0, place: 0, store: 0, ahead: 0 });
      const next = async () => {
        if (ahead.length) return { done: false, value: ahead.shift() };
        const step = await each.next();
        spent.ahead = each.most;
        return step;
      };
      await heldForTests(); // tests: the worker reads on meanwhile
      for (let i = 0; ; i++) {
        let step;
        let t1 = performance.now();
        try {
          step = await next();
        } catch (e) {
          failure = e; // what was read before it stays
          break;
        }
        if (step.done) break;
        const c = step.value;
        spent.wait += performance.now() - t1;
        t1 = performance.now();
        // A large one in slices (a 47 MB chat of 53k messages was a task of ~1 s).
        const big = c.file.length >= BIG_FILE;
        const t = big ? await SessionTree.loadFrom(c.file, { sliceMs: LOAD_SLICE_MS }) : SessionTree.load(c.file);
        const g = { title: c.title, report: c.report, note: noteOf(c.report) };
        got.push(g);
        read++;
        progress(read);
        spent.load += performance.now() - t1;
        t1 = performance.now();
        await place(t, g, i, true); // stored in packs of rows (inParts), whatever its size: a record a message was most of the import
        spent.place += performance.now() - t1;
        // Stored before many more are read: each tree stays in the page's
        // module until its rows are in IndexedDB, which writes slower than
        // the worker reads (a 34 MB export: all read at 4.6 s, stored at 7.5).
        if (state.pending >= IMPORT_WRITES) {
          t1 = performance.now();
          await state.writes.catch(() => {}); // a failure is shown by write()
          spent.store += performance.now() - t1;
        }
      }
    }
  } finally {
    reader?.close();
    state.importing = null;
    sessionStorage.removeItem(INTERRUPTED_KEY);
    renderSaveState();
  }
  // Listed in the file's order (drawn every LIST_EVERY_MS meanwhile: a list
  // redrawn for each of 1,000 chats drew 500,500 rows).
  if (many) state.convs.sort(newestFirst);
  renderConversations();
  // The first one opened, unless the user moved on meanwhile (it would take
  // their chat away under a draft).
  if (many && !stayed()) open = false;
  if (first && open && state.cur?.meta !== first) await openConversation(first.id);
  state.timings.import = performance.now() - t0;
  if (placed === 0) {
    const why = failure ? describe(failure)
      : got.length > 1 ? `none of its ${got.length.toLocaleString("en-US")} conversations has a message${problemsOf(got)}`
      : got.length === 1 && got[0].report ? `it holds no message${problemsOf(got)}`
      : "it holds no conversation";
    showError(`Could not import \u201c${file.name}\u201d: ${why}. Nothing was changed.`);
    return;
  }
  let note = many ? manyNote(got, name) : got[0].note;
  if (again.found) note += againNote(again, got.length);
  if (failure) note += ` Reading the file stopped after ${read.toLocaleString("en-US")} conversation${read === 1 ? "" : "s"}, which are kept: ${describe(failure)}.`;
  toast(`Imported \u201c${file.name}\u201d${open ? "." : state.busy ? LISTED : LISTED_LATER}${note}`, note.includes("problem") || failure ? "warn" : "info");
}

/** The first problems an import's reports name, for a sentence that says why nothing was imported. */
function problemsOf(got) {
  const problems = got.flatMap((g) => g.report?.problems ?? []).map((p) => p.message);
  return problems.length ? ` (${problems.slice(0, 2).join("; ")}${problems.length > 2 ? "; \u2026" : ""})` : "";
}

// While an import reads many conversations, the page lists them and says how
// many it has read, at most every LIST_EVERY_MS (it said nothing for the
// whole of a 45 s import).
const LIST_EVERY_MS = 500;
let listedAt = 0;
function progress(read) {
  state.importing.read = read;
  const now = performance.now();
  if (now - listedAt < LIST_EVERY_MS) return;
  listedAt = now;
  state.convs.sort(newestFirst);
  renderConversations();
  renderSaveState();
}

/** What the toast says of one conversation's import. */
function noteOf(r) {
  let note = ` Read as ${r.format}: ${r.nodes} message${r.nodes === 1 ? "" : "s"}, ${r.branches} branch${r.branches === 1 ? "" : "es"}.`;
  if (r.notCarried.length) note += ` Not carried: ${r.notCarried.join("; ")}.`;
  if (r.problems.length) note += ` ${r.problems.length} problem${r.problems.length === 1 ? "" : "s"}: ${r.problems.slice(0, 2).map((p) => p.message).join("; ")}.`;
  return note;
}

/**
 * Merges tree t into the listed conversation meta: the open one through
 * change() (drawn and saved as any change), another opened from the store,
 * merged, saved and closed. The merge's report when it changed the tree (its
 * version moved), else null (nothing new, or the conversation went meanwhile:
 * deleted in another tab).
 */
async function mergeInto(meta, t) {
  await loadInterchange("merge", { quiet: true }); // merge() is the interchange module's
  const cur = state.cur;
  if (cur?.meta === meta && cur.tree) {
    const v = cur.tree.version;
    const r = change("Import", (tree) => tree.merge(t));
    return r && cur.tree.version !== v ? r : null;
  }
  const conv = await state.store.open(meta.id);
  if (!conv) return null;
  try {
    const v = conv.tree.version;
    const r = conv.tree.merge(t);
    if (conv.tree.version === v) return null;
    meta.updatedAt = Date.now();
    await Promise.all([conv.saved(), state.store.update(meta.id, { updatedAt: meta.updatedAt })]);
    return r;
  } finally {
    await conv.close();
  }
}

/** What the toast says of an import's conversations that were already listed. */
function againNote({ found, grew, messages }, total) {
  const n = (k) => k.toLocaleString("en-US");
  const news = `${n(messages)} new message${messages === 1 ? "" : "s"}`;
  if (total === 1) {
    if (!grew) return " It was already here, as it is: nothing changed.";
    return messages ? ` It was already here: merged into it, ${news}.` : " It was already here: merged into it (no new message: its branches or labels moved).";
  }
  const head = ` ${n(found)} of them ${found === 1 ? "was" : "were"} already here: merged`;
  return grew ? `${head}, ${news} in ${n(grew)} of them.` : `${head}, nothing changed.`;
}

/** What an import of several conversations read, over all of them (each one's note said only the first's counts). */
function manyNote(got, name) {
  const sum = (k) => got.reduce((n, g) => n + g.report[k], 0);
  const plural = (n, one, many) => `${n.toLocaleString("en-US")} ${n === 1 ? one : many}`;
  let note = ` ${plural(got.length, "conversation", "conversations")}, read as ${got[0].report.format}: ${plural(sum("nodes"), "message", "messages")}, ${plural(sum("branches"), "branch", "branches")}.`;
  const empty = got.filter((g) => g.report.nodes === 0).length;
  if (empty) note += ` ${plural(empty, "conversation has", "conversations have")} no message: not listed.`;
  const notCarried = [...new Set(got.flatMap((g) => g.report.notCarried))];
  if (notCarried.length) note += ` Not carried: ${notCarried.join("; ")}.`;
  const problems = got.flatMap((g) => g.report.problems.map((p) => `\u201c${name(g).slice(0, 60)}\u201d: ${p.message}`));
  if (problems.length) note += ` ${plural(problems.length, "problem", "problems")}: ${problems.slice(0, 2).join("; ")}${problems.length > 2 ? "; \u2026" : ""}.`;
  return note;
}

async function exportConversation() {
  const cur = state.cur;
  if (cur?.loading) {
    // Clicked while the conversation opens: exported once it is open.
    toast(`Opening \u201c${cur.meta.title}\u201d: the export follows once it is open.`);
    await cur.opening.catch(() => {}); // a failure to open is shown where it happened
    if (state.cur !== cur) {
      toast(`Export of \u201c${cur.meta.title}\u201d cancelled: another conversation was opened.`, "warn");
      return;
    }
  }
  if (!cur?.tree) {
    if (cur?.raw) download(`${slug(cur.meta.title)}.unreadable.tree.json`, cur.raw);
    return;
  }
  const formats = hasFormats ? FORMATS : FORMATS.slice(0, 1);
  const v = await openForm({
    title: "Export conversation",
    fields: [{ name: "format", type: "radio", label: "Format", value: "tree.json", options: formats }],
    ok: "Download",
  });
  if (!v) return;
  const f = FORMATS.find((x) => x.value === v.format);
  let text;
  try {
    if (f.value !== "tree.json") await loadInterchange();
    text = f.value === "tree.json" ? cur.tree.save() : cur.tree.export(f.value);
  } catch (e) {
    showError(`Export as ${f.label} failed: ${describe(e)}`);
    return;
  }
  download(`${slug(cur.meta.title)}${f.ext}`, text);
}

export function slug(title) {
  return title.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "").slice(0, 40) || "conversation";
}

export function download(name, text) {
  const url = URL.createObjectURL(new Blob([text], { type: "application/json" }));
  const a = el("a", { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

/** Import (the button, the file picker, a file dropped anywhere on the page) and Export. */
export function wireImportExport() {
  $("btn-export").onclick = exportConversation;
  $("btn-import").onclick = () => $("file").click();
  $("file").accept = hasFormats ? ".json,.jsonl,application/json" : ".json,application/json";
  $("file").onchange = async () => {
    const f = $("file").files[0];
    $("file").value = "";
    if (f) await importFile(f);
  };
  // Drag and drop a file anywhere on the page to import it.
  let depth = 0;
  const overlay = $("drop");
  const hasFiles = (e) => [...(e.dataTransfer?.types ?? [])].includes("Files");
  window.addEventListener("dragenter", (e) => {
    if (!hasFiles(e)) return;
    depth++;
    overlay.hidden = false;
  });
  window.addEventListener("dragleave", () => {
    if (--depth <= 0) {
      depth = 0;
      overlay.hidden = true;
    }
  });
  window.addEventListener("dragover", (e) => {
    if (hasFiles(e)) e.preventDefault();
  });
  window.addEventListener("drop", (e) => {
    e.preventDefault();
    depth = 0;
    overlay.hidden = true;
    const f = e.dataTransfer?.files?.[0];
    if (f) importFile(f);
  });
}
