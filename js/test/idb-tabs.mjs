// sessiontree/idb, two tabs of one conversation at random (headless Chromium,
// public API only): seeded runs of appends, rewinds, edits, regenerates,
// labels, branch switches and deletions in either tab, holds (a reply
// streaming in), saves, closes and reopens, page reloads (the journal), waits
// and both tabs at once. At the end, with every write done: every message
// either tab wrote is in both tabs and in a fresh open of the store, the two
// tabs and the fresh open hold the same tree, both are sound, and no page said
// a warning or an error (a journal that did not apply, a failed write).
// Its first runs lost messages in 4 of 6 seeds: a close during a write that had
// to merge first freed the tree under it, and a page that went away during a
// merge's write journaled without what the merge had taken along.
//   node js/test/idb-tabs.mjs   (after make build)
//   IDB_TABS_SEEDS=1,2,3 IDB_TABS_STEPS=300 for a longer look
import assert from "node:assert/strict";
import { serveJS, launch } from "./chromium.mjs";
import { rng } from "./rng.js";

const SEEDS = (process.env.IDB_TABS_SEEDS ?? "1,4,6,8").split(",").map(Number);
const STEPS = Number(process.env.IDB_TABS_STEPS ?? 150);
// IDB_TABS_PRUNE=1 adds deletions of a branch with its messages (prune) to the
// kinds. It found (Dec 5, about one run in twenty-five of seed 9) a message
// lost: a page going away during a merge's write journaled every row of its
// tree, and the next page put that tree back over the other tab's write (see
// docs/store.md). IDB_TABS_TRACE=1 (implied) keeps each tab's events, acts and
// journals, and prints them for a lost message.
const PRUNE = process.env.IDB_TABS_PRUNE === "1";
const TRACE = PRUNE || process.env.IDB_TABS_TRACE === "1";
// IDB_TABS_NAMED=1 also requires every message to be on a branch at the end
// (but those only a deleted branch named, by the user's choice): kept in the
// tree on no branch, a message is gone from the user's view and a prune
// removes it. Its first runs (Dec 5) found two tabs minting the same
// "branch-N" for different lines, one tab's deletion of its branch-N taking
// the other's too in the merge: fixed in core (a deletion takes the deleting
// copy's branch instance only). Then (seed 7, ~1 run in 3): a tab deletes a
// branch while the other appends to it, and the merge took the append's name
// too: fixed in core (a tombstone records the leaf the deletion saw, and an
// append below it keeps the name). Seeds 1-8 pass with it (3 runs, Dec 5), so
// it is on; with prunes (IDB_TABS_PRUNE=1) too since Dec 5, evening: before,
// a copy that pruned a deleted leaf before it synced forgot which leaf its
// deletion saw, and its deletion took a racing append's name again (now the
// deletion keeps the leaf and the path above it, core/prune.go,
// keepDeletedPaths). IDB_TABS_NAMED=0 turns it off.
const NAMED = (process.env.IDB_TABS_NAMED ?? "1") === "1";
const { server, base } = await serveJS();
const chrome = await launch("idb-tabs");
const errors = [];

const boot = (page) => page.evaluate(async () => {
  window.st = await import("/sessiontree.js");
  window.idb = await import("/idb.js");
  await window.st.init();
  // One action of the run on this tab's conversation; returns the text of the
  // message it wrote, if it wrote one.
  // A deleted name takes its conflict branches (name~leaf, values of the same register) along.
  const namedOnlyBy = (t, name) => {
    const others = new Set(t.branches().filter((b) => b.name !== name && !b.name.startsWith(`${name}~`)).flatMap((b) => t.pathOf(b.name)));
    return t.pathOf(name).filter((id) => !others.has(id)).map((id) => t.node(id).message.content);
  };
  window.act = async (a) => {
    const c = window.conv;
    const t = c.tree; // read each time: a reload of the conversation replaces it
    const path = t.activePath();
    const at = (list) => list[Math.floor(a.r * list.length)];
    const msg = (role) => ({ role, content: a.text });
    switch (a.kind) {
      case "append": t.append(msg(path.length % 2 ? "assistant" : "user")); return a.text;
      case "rewind": if (!path.length) return null; t.rewind(at(path)); t.append(msg("user")); return a.text;
      case "edit": if (!path.length) return null; t.edit(at(path), msg("user")); return a.text;
      case "regenerate": if (!path.length) return null; t.regenerate(at(path), msg("assistant")); return a.text;
      case "label": if (path.length) t.label(at(path), a.text); return null;
      case "switch": t.switchBranch(at(t.branches()).name); return null;
      case "delete": {
        // The messages only the deleted branch named are on no branch now, by the user's choice.
        const names = t.branches().map((b) => b.name).filter((n) => n !== "main" && n !== t.activeBranch);
        if (!names.length) return null;
        const name = at(names);
        const unnamed = namedOnlyBy(t, name);
        const along = t.pathOf(name).map((id) => t.node(id).message.content);
        t.deleteBranch(name);
        return { unnamed, along };
      }
      case "prune": {
        // A branch deleted with its messages (the demo's "delete with its
        // messages"): what the prune removed is not lost.
        const names = t.branches().map((b) => b.name).filter((n) => n !== "main" && n !== t.activeBranch);
        let unnamed = [], along = [];
        if (names.length) {
          const name = at(names);
          unnamed = namedOnlyBy(t, name);
          along = t.pathOf(name).map((id) => t.node(id).message.content);
          t.deleteBranch(name);
        }
        const text = new Map(t.subtree(null).nodes.map((n) => [n.id, t.node(n.id).message.content]));
        return { pruned: t.prune().map((id) => text.get(id)), unnamed, along };
      }
      case "hold": window.release ??= c.hold(); return null;
      case "release": window.release?.(); window.release = null; return null;
      case "save": await c.save(); return null;
      case "reopen": {
        window.release?.();
        window.release = null;
        await c.close();
        window.conv = await window.store.open(c.id);
        window.traced?.(window.conv);
        return null;
      }
    }
    throw new Error(`no action ${a.kind}`);
  };
});

const tab = async () => {
  const page = await chrome.browser.newPage();
  page.on("pageerror", (e) => errors.push(`page error: ${e.message}`));
  page.on("console", (m) => (m.type() === "error" || m.type() === "warning") && errors.push(`console ${m.type()}: ${m.text()}`));
  await page.goto(`${base}/test/blank.html`);
  await boot(page);
  return page;
};

const KINDS = [["append", 30], ["rewind", 6], ["edit", 6], ["regenerate", 6], ["label", 5], ["switch", 5], ["delete", 3], ...(PRUNE ? [["prune", 2]] : []), ["hold", 3], ["release", 4], ["save", 6], ["reopen", 2], ["wait", 10], ["both", 8], ["reload", 1]];
const WEIGHT = KINDS.reduce((s, k) => s + k[1], 0);
const pick = (r) => {
  let x = r() * WEIGHT;
  for (const [k, w] of KINDS) if ((x -= w) < 0) return k;
  return "append";
};

// The tree as both tabs must agree on it: not each tab's own place.
const shared = (text) => {
  const f = JSON.parse(text);
  delete f.active_branch;
  for (const b of Object.values(f.branches)) delete b.used;
  return JSON.stringify(f);
};

let failed = false;
try {
  for (const seed of SEEDS) {
    const r = rng(seed);
    const name = `tabs-${seed}`;
    const tabs = [await tab(), await tab()];
    const open = (p, id) => p.evaluate(async ({ id, name, trace }) => {
      window.store ??= await window.idb.openStore({ name });
      window.conv = id ? await window.store.open(id) : await window.store.create(undefined, { title: "shared" });
      window.trace ??= [];
      const c = window.conv;
      if (trace) {
        window.traced = (c) => {
          window.trace.push({ kind: "opened", rev: c.rev, text: c.tree.save() });
          c.subscribe((e) => window.trace.push({ kind: e.kind, rev: c.rev, text: c.closed ? "" : c.tree.save(), report: e.report ? JSON.stringify(e.report) : undefined }));
        };
        window.traced(c);
      }
      await window.conv.saved();
      return window.conv.id;
    }, { id, name, trace: TRACE });
    const id = await open(tabs[0]);
    await open(tabs[1], id);
    const written = [];
    const writtenBy = [[], []]; // each tab's own: never gone from its tree, unless pruned
    const pruned = new Set(); // texts of messages a prune removed (on a deleted branch): gone by the user's choice
    const unnamed = new Set(); // texts of messages only a deleted branch named: on no branch by the user's choice
    // Texts on the line of a branch each tab deleted: a message on two
    // branches, each tab deleting one before it heard of the other's deletion,
    // is on no branch by the users' choices (seed 6 under load, Dec 5).
    const along = [new Set(), new Set()];
    const log = [];
    const one = async (i, step, kind) => {
      const a = { kind, r: r(), text: `m${seed}-${step}-${i}` };
      log.push(`${step}.${i}:${kind}`);
      if (kind === "wait") return new Promise((res) => setTimeout(res, Math.floor(a.r * 40)));
      if (kind === "both" || kind === "reload") return;
      const w = await tabs[i].evaluate(async ({ a, trace }) => {
        const w = await window.act(a);
        if (trace) window.trace.push({ kind: `act ${a.kind} ${a.text}`, rev: window.conv.rev, text: window.conv.tree.save() });
        return w;
      }, { a, trace: TRACE });
      if (w?.pruned) for (const p of w.pruned) pruned.add(p);
      if (w?.along) for (const p of w.along) along[i].add(p);
      if (w?.unnamed) for (const p of w.unnamed) unnamed.add(p);
      else if (w) { written.push(w); writtenBy[i].push(w); }
    };
    for (let step = 0; step < STEPS; step++) {
      const i = r() < 0.5 ? 0 : 1;
      const kind = pick(r);
      if (kind === "both") {
        await Promise.all([one(0, step, pick(r)), one(1, step, pick(r))]);
      } else if (kind === "reload") {
        log.push(`${step}.${i}:reload`);
        await tabs[i].reload(); // pagehide: what is not stored goes to the journal
        await boot(tabs[i]);
        if (TRACE) await tabs[i].evaluate(() => {
          window.trace = [];
          for (let k = 0; k < localStorage.length; k++) {
            const key = localStorage.key(k);
            if (key.startsWith("sessiontree-journal:")) window.trace.push({ kind: "journal " + key, rev: 0, text: localStorage.getItem(key) });
          }
          window.trace.push({ kind: "page reloaded", rev: 0, text: "" });
        });
        await open(tabs[i], id);
      } else {
        await one(i, step, kind);
      }
      assert.deepEqual(errors, [], `seed ${seed}, step ${step}; the last steps: ${log.slice(-12).join(" ")}`);

    }
    // Every write done, then the two tabs agree.
    for (let k = 0; k < 2; k++) {
      for (const p of tabs) await p.evaluate(async () => { window.release?.(); window.release = null; await window.conv.save(); await window.conv.saved(); });
    }
    const trees = () => Promise.all(tabs.map((p) => p.evaluate(() => window.conv.tree.save())));
    let [x, y] = await trees();
    for (let k = 0; k < 50 && shared(x) !== shared(y); k++) {
      await new Promise((res) => setTimeout(res, 100));
      [x, y] = await trees();
    }
    const problems = await Promise.all(tabs.map((p) => p.evaluate(() => window.conv.tree.validate())));
    // Kept is not enough: a message on no branch is gone from the user's view (and a prune removes it).
    const offBranch = (text) => {
      const f = JSON.parse(text);
      const named = new Set();
      for (const b of Object.values(f.branches)) for (let n = b.leaf; n && !named.has(n); n = f.nodes[n]?.parent) named.add(n);
      const off = new Set(Object.entries(f.nodes).filter(([n]) => !named.has(n)).map(([, node]) => node.message?.content));
      const byBoth = (w) => along[0].has(w) && along[1].has(w);
      return written.filter((w) => off.has(w) && !unnamed.has(w) && !byBoth(w) && !pruned.has(w));
    };
    const allLost = [...new Set([...written.filter((w) => !x.includes(`"${w}"`) && !pruned.has(w)), ...written.filter((w) => !y.includes(`"${w}"`) && !pruned.has(w)), ...(NAMED ? [...offBranch(x), ...offBranch(y)] : [])])];
    for (const w of allLost) {
      for (const k of [0, 1]) {
        const tr = await tabs[k].evaluate((w) => (window.trace ?? []).map((e) => {
          let where = "";
          if (e.text.includes(`"${w}"`) && e.text.startsWith("{\"format")) {
            const f = JSON.parse(e.text);
            const n = Object.values(f.nodes).find((x) => x.message?.content === w);
            const id = Object.keys(f.nodes).find((k) => f.nodes[k] === n);
            const on = Object.entries(f.branches).filter(([, b]) => { for (let m = b.leaf; m; m = f.nodes[m]?.parent) if (m === id) return true; return false; }).map(([name]) => name);
            where = ` (node ${id}, parent ${n.parent}, on ${on.join(",") || "no branch"})`;
          }
          return `${e.kind}@${e.rev}:${e.text.includes(`"${w}"`) ? "has" : "-"}${where}${e.report ? " " + e.report : ""}${e.kind.startsWith("journal") ? " " + e.text : ""}`;
        }), w);
        console.error(`# trace of tab ${k + 1} for ${w} (${writtenBy[k].includes(w) ? "its own" : "the other's"}): ${tr.join(" | ")}`);
      }
    }
    const fresh = await tabs[0].evaluate(async ({ id, name }) => {
      const s = await window.idb.openStore({ name });
      const c = await s.open(id);
      const text = c.tree.save();
      await s.close();
      return text;
    }, { id, name });
    const lost = (text) => written.filter((w) => !text.includes(`"${w}"`) && !pruned.has(w));
    const where = `seed ${seed}; its steps: ${log.join(" ")}`;
    const whereLost = (w) => `${w}: tab one ${x.includes(`"${w}"`)}, tab two ${y.includes(`"${w}"`)}, the store ${fresh.includes(`"${w}"`)}`;
    if (lost(x).length + lost(y).length + lost(fresh).length) console.error("# lost:", [...new Set([...lost(x), ...lost(y), ...lost(fresh)])].map(whereLost).join("; "), "pruned:", [...pruned].join(","));
    assert.deepEqual(lost(x), [], `tab one lost messages; ${where}`);
    assert.deepEqual(lost(y), [], `tab two lost messages; ${where}`);
    assert.deepEqual(lost(fresh), [], `the store lost messages; ${where}`);
    if (NAMED) {
      assert.deepEqual(offBranch(x), [], `tab one left messages on no branch; ${where}`);
      assert.deepEqual(offBranch(y), [], `tab two left messages on no branch; ${where}`);
      assert.deepEqual(offBranch(fresh), [], `the store left messages on no branch; ${where}`);
    }
    assert.equal(shared(x), shared(y), `the tabs did not converge; ${where}`);
    assert.equal(shared(fresh), shared(x), `the store does not hold the tabs' tree; ${where}`);
    assert.deepEqual(problems, [[], []], `a tab's tree is not sound; ${where}`);
    const stats = await Promise.all(tabs.map((p) => p.evaluate(() => window.store.stats)));
    const sum = (k) => stats[0][k] + stats[1][k];
    console.log(`ok   seed ${seed}: ${STEPS} steps, ${written.length} messages written, all in both tabs and the store (${pruned.size} pruned with a deleted branch); ${sum("merges")} merges, ${sum("applied")} deltas applied, ${sum("reloads")} reloads, ${sum("replayed")} journals replayed`);
    await tabs[0].evaluate(() => window.store.close());
    for (const p of tabs) await p.close();
  }
  console.log("sessiontree/idb, two tabs at random: all passed");
} catch (e) {
  failed = true;
  console.error("FAIL", e?.stack ?? e);
} finally {
  await chrome.close();
  server.close();
}
process.exit(failed ? 1 : 0);
