// sessiontree/react with the real React 19 and react-dom (pinned in .tools), in
// headless Chromium: a page bundled by Vite (js/test/react-page.js) renders a
// conversation list, a chat (useTree: open and close with the component) with a
// 3-message window of the active path, a ‹ n/m › switcher and the branches, each
// counting its renders; the tree is changed and only the components whose
// slice changed render again.
//   node js/test/react.mjs   (after make build)
import assert from "node:assert/strict";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { root, serveJS, launch } from "./chromium.mjs";

const { build } = await import(pathToFileURL(path.join(root, "..", ".tools", "node_modules", "vite", "dist", "node", "index.js")).href);
const out = await fs.mkdtemp(path.join(os.tmpdir(), "st-react-"));
const t0 = performance.now();
await build({
  configFile: false,
  logLevel: "warn",
  root: path.join(root, "test"),
  // React and the AI SDK's useChat from .tools (peer dependencies: the package
  // never bundles them); ../ai-sdk.js's ./sessiontree.js is the served module.
  resolve: {
    alias: [
      { find: /^(react|react-dom|@ai-sdk\/react)(\/.*)?$/, replacement: path.join(root, "..", ".tools", "node_modules", "$1$2") },
      { find: /^\.\/sessiontree\.js$/, replacement: "/sessiontree.js" },
    ],
  },
  build: {
    outDir: out,
    emptyOutDir: true,
    minify: false,
    lib: { entry: path.join(root, "test", "react-page.js"), formats: ["es"], fileName: () => "react-page.js" },
    rollupOptions: {
      external: ["/sessiontree.js", "/idb.js"],
      // zod (under the AI SDK) has comments Rollup cannot place: said, and nothing else.
      onwarn: (w, warn) => void (w.code === "INVALID_ANNOTATION" || warn(w)),
    },
  },
  define: { "process.env.NODE_ENV": JSON.stringify("production") },
});
const bundle = await fs.readFile(path.join(out, "react-page.js"), "utf8");
await fs.rm(out, { recursive: true, force: true });
console.log(`# bundled with Vite in ${Math.round(performance.now() - t0)} ms (${Math.round(bundle.length / 1024)} KB)`);

const { server, base } = await serveJS({
  "/test/react.html": `<!doctype html><meta charset=utf-8><div id=root></div><script type=module src="/test/react-page.bundle.js"></script>`,
  "/test/react-page.bundle.js": bundle,
});
const chrome = await launch("react");
const errors = [];
let failed = false;
const step = async (name, fn) => {
  const s = performance.now();
  await fn();
  console.log(`ok   ${name} (${Math.round(performance.now() - s)} ms)`);
};
try {
  const page = await chrome.browser.newPage();
  page.on("pageerror", (e) => errors.push(`page error: ${e.message}`));
  page.on("console", (m) => m.type() === "error" && errors.push(`console: ${m.text()}`));
  await page.goto(`${base}/test/react.html`);
  await page.waitForFunction(() => typeof window.start === "function");
  const { ids } = await page.evaluate(() => window.start());
  const settle = () => page.evaluate(() => new Promise((r) => setTimeout(r, 50)));
  const counts = () => page.evaluate(() => ({ ...window.renders }));
  const text = (sel) => page.textContent(sel);
  const delta = (a, b) => Object.fromEntries(Object.keys(b).map((k) => [k, b[k] - a[k]]));

  await step("useTree opens the conversation (StrictMode: opened twice, one conversation); useConversations lists it", async () => {
    await page.waitForSelector("#path li");
    assert.equal(await text("#list"), "ten");
    assert.deepEqual(await page.$$eval("#path li", (els) => els.map((e) => e.textContent)), ["m7", "m8", "m9"]);
    assert.equal(await page.getAttribute("#path", "data-length"), "10");
    assert.equal(await page.getAttribute("#path", "data-start"), "7");
    assert.equal(await text("#siblings"), "1/1");
    assert.equal(await text("#branches"), "main: main");
  });

  await step("a change outside the window (a label on the first message) renders nothing again", async () => {
    await settle();
    const before = await counts();
    await page.evaluate((id) => window.conversation.tree.label(id, "start"), ids[0]);
    await settle();
    assert.deepEqual(delta(before, await counts()), { list: 0, chat: 0, path: 0, siblings: 0, branches: 0 });
  });

  await step("a label inside the window renders the path alone", async () => {
    const before = await counts();
    await page.evaluate((id) => window.conversation.tree.label(id, "here"), ids[9]);
    await settle();
    const d = delta(before, await counts());
    assert.ok(d.path >= 1 && d.siblings === 0 && d.branches === 0 && d.chat === 0 && d.list === 0, JSON.stringify(d));
  });

  await step("an append moves the window and the branch's leaf: the path and the branches render, the switcher does not", async () => {
    const before = await counts();
    await page.evaluate(() => window.conversation.tree.append({ role: "user", content: "m10" }));
    await page.waitForFunction(() => document.querySelector("#path li:last-child")?.textContent === "m10");
    await settle();
    const d = delta(before, await counts());
    assert.ok(d.path >= 1 && d.branches >= 1 && d.siblings === 0 && d.chat === 0, JSON.stringify(d));
    assert.deepEqual(await page.$$eval("#path li", (els) => els.map((e) => e.textContent)), ["m8", "m9", "m10"]);
  });

  await step("an edit at the switcher's node: ‹ 1/2 › and the new branch; select(0) goes back with its own continuation", async () => {
    await page.evaluate((id) => window.conversation.tree.edit(id, { role: "user", content: "m8 again" }), ids[8]);
    await page.waitForFunction(() => document.querySelector("#siblings")?.textContent === "1/2" && document.querySelector("#path li:last-child")?.textContent === "m8 again");
    assert.match(await text("#branches"), /^branch-1: .*main/);
    await settle();
    const before = await counts();
    await page.evaluate(() => window.select(0));
    await page.waitForFunction(() => document.querySelector("#path li:last-child")?.textContent === "m10");
    await settle();
    const d = delta(before, await counts());
    assert.ok(d.path >= 1 && d.branches >= 1 && d.siblings === 0 && d.chat === 0, JSON.stringify(d));
    assert.equal(await text("#siblings"), "1/2");
    assert.deepEqual(await page.$$eval("#path li", (els) => els.map((e) => e.textContent)), ["m8", "m9", "m10"]);
  });

  await step("the list follows the store: a conversation created elsewhere renders the list alone", async () => {
    await settle();
    const before = await counts();
    await page.evaluate(async () => { const c = await window.store.create(undefined, { title: "eleven" }); await c.close(); });
    await page.waitForFunction(() => document.querySelector("#list").textContent.includes("eleven"));
    await settle();
    const d = delta(before, await counts());
    assert.ok(d.list >= 1 && d.path === 0 && d.branches === 0 && d.siblings === 0, JSON.stringify(d));
  });

  await step("unmounted, the conversation is written and closed; opened again, everything is there", async () => {
    const id = await page.evaluate(() => { window.kept = window.conversation; const id = window.kept.id; window.show(null); return id; });
    await page.waitForFunction(() => window.kept.closed && !document.querySelector("#chat"));
    const saved = await page.evaluate(async (id) => {
      await window.store.saved();
      const c = await window.store.open(id);
      const s = c.tree.save();
      await c.close();
      return [s.includes("m8 again"), s.includes('"here"'), s.includes("m10")];
    }, id);
    assert.deepEqual(saved, [true, true, true]);
  });
  await step("a label made after the path first rendered and before it subscribed (a layout effect at mount) is rendered", async () => {
    await page.evaluate((at) => {
      window.labelAtMount = { id: at, label: "at mount" };
      window.show({ id: window.kept.id, at });
    }, ids[9]);
    await page.waitForSelector("#path li");
    await settle();
    assert.equal(await page.evaluate(() => window.labelAtMount), null, "the layout effect did not run");
    assert.equal(await page.getAttribute(`#path li[data-id="${ids[9]}"]`, "data-label"), "at mount");
  });
  await step("another tab's write too large for a delta: the conversation reloads, the hooks follow the new tree, nothing reads the freed one", async () => {
    await page.evaluate(async () => {
      const id = window.conversation.id;
      const other = await window.openStore({ name: "react" }); // another tab's store: its writes come over the BroadcastChannel
      const c = await other.open(id);
      c.tree.apply(Array.from({ length: 2100 }, (_, i) => ({ op: "append", message: { role: i % 2 ? "assistant" : "user", content: `bulk ${i}` } })));
      await c.saved();
      await other.close();
    });
    await page.waitForFunction(() => document.querySelector("#path li:last-child")?.textContent === "bulk 2099", null, { timeout: 10000 });
    await settle();
    assert.equal(await page.getAttribute("#path", "data-length"), "2111"); // main's 11 and the 2,100
    assert.equal(await page.evaluate(() => window.store.stats.reloads), 1, "the conversation was not reloaded (a delta was applied)");
  });
  await step("a change a listener subscribed before the hooks makes in reply to an event (a label inside the window for one outside it) is rendered", async () => {
    await page.evaluate(() => window.startNested());
    await page.waitForSelector("#nested .rpath", { state: "attached" });
    const labels = () => page.evaluate(() => JSON.parse(document.querySelector("#nested .rpath").dataset.json).labels);
    assert.deepEqual(await labels(), ["", "", ""]);
    await page.evaluate(() => window.nTree.label(window.nIds[0], "pinned"));
    await settle();
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0))));
    assert.equal(await page.evaluate(() => window.nTree.node(window.nIds[5]).label), "pinned too");
    assert.deepEqual(await labels(), ["", "", "pinned too"], "the window shows the leaf without the label the listener gave it");
    await page.evaluate(() => window.nStop());
  });
  await step("useTree under <Activity>: hidden, the conversation closes; shown again, it is loading until it is open again, never a closed conversation", async () => {
    await page.evaluate(() => window.startActivity());
    await page.waitForFunction(() => document.querySelector("#activity")?.textContent.endsWith("messages"));
    await page.evaluate(() => window.activityMode("hidden"));
    await page.waitForFunction(() => window.activityConv.closed);
    await settle();
    await page.evaluate(() => { window.activityLog.length = 0; window.activityMode("visible"); });
    await page.waitForFunction(() => document.querySelector("#activity")?.textContent.endsWith("messages"));
    const log = await page.evaluate(() => window.activityLog);
    assert.ok(log.every((r) => r.closed !== true), `a render was given a closed conversation: ${JSON.stringify(log)}`);
    assert.ok(log.every((r) => r.tree || r.loading), `a render had no tree and was not loading: ${JSON.stringify(log)}`);
    await page.evaluate(() => window.activityStop());
  });
  await step("useChat (@ai-sdk/react) kept in the tree from an effect on status \"ready\" as sessiontree/ai-sdk documents it (setMessages when r.changed): the reply is stored, useChat's ids become the tree's, nothing renders in a loop; a switcher (useSiblings) at each message, useChat's own ids too", async () => {
    await page.evaluate(() => window.startAIChat());
    await page.waitForSelector("#aichat li", { state: "attached" });
    const idle = async () => {
      await settle();
      const before = await page.evaluate(() => window.aiRenders);
      await settle();
      await settle();
      assert.equal(await page.evaluate(() => window.aiRenders), before, "useChat's component renders again and again with nothing to do");
    };
    await idle();
    await page.evaluate(() => window.aiSend("hi"));
    await page.waitForFunction(() => document.querySelector("#aichat li:last-child")?.firstChild?.textContent === "re: hi" && document.querySelector("#aichat").dataset.status === "ready");
    await idle();
    const { shown, path: treePath } = await page.evaluate(() => ({ shown: [...document.querySelectorAll("#aichat li")].map((li) => li.dataset.id), path: window.aiTree.activePath() }));
    assert.deepEqual(shown, treePath);
    assert.equal(treePath.length, 4);
    // A switcher at each message (useSiblings): none while useChat's own ids
    // were shown, ‹ 1/1 › once they are the tree's.
    assert.deepEqual(await page.$$eval("#aichat .switch", (els) => els.map((e) => e.textContent)), ["1/1", "1/1", "1/1", "1/1"]);
    await page.evaluate(() => window.aiStop());
  });
  // Seeded random runs: appends, edits, regenerates, rewinds, opens, labels,
  // branch switches, deletions and prunes, alone, several in one task, in the
  // layout effect of a window as it mounts, or beside an unmount; after each,
  // every window of the path, every switcher in it and the branch list show
  // what the tree answers directly (REACT_RANDOM_SEEDS, REACT_RANDOM_STEPS).
  const seeds = (process.env.REACT_RANDOM_SEEDS ?? "1,2,3").split(",").map(Number);
  const steps = Number(process.env.REACT_RANDOM_STEPS ?? 150);
  for (const seed of seeds) {
    await step(`at random, seed ${seed}: every window, switcher and branch list shows what the tree answers`, async () => {
      const r = await page.evaluate(async ([seed, steps]) => {
        await window.startRandom(8);
        try {
          return await window.rRun(seed, steps);
        } finally {
          window.rStop();
        }
      }, [seed, steps]);
      assert.equal(r.step, steps, `seed ${seed}, step ${r.step} (${r.log?.join(" ")}): shown ≠ expected${r.atMountPending ? " (the mount's op did not run)" : ""}\n${JSON.stringify(r.shown)}\n${JSON.stringify(r.expected)}`);
      console.log(`#    ${r.messages} messages, ${r.nodes} nodes kept, ${r.branches} branches, ${r.windows} windows at the end`);
    });
  }
  // The same over a store's conversation (useTree) that another tab's store
  // changes too: one row or a few (a delta applied in place, or a merge when
  // both changed), or 2,100 (a reload: the hooks follow the new tree).
  const storeSeeds = (process.env.REACT_STORE_SEEDS ?? "1,2").split(",").map(Number);
  const tally = { reloads: 0, inPlace: 0 };
  for (const seed of storeSeeds) {
    await step(`at random over a store, another tab writing too, seed ${seed}: every window, switcher and branch list shows what the conversation's tree answers`, async () => {
      const r = await page.evaluate(async ([seed, steps]) => {
        const other = await window.startStoreRandom(8, `react-random-${seed}`);
        try {
          const out = await window.rRun(seed, steps, other);
          return { ...out, stats: { ...window.sStore.stats } };
        } finally {
          await window.rStop();
        }
      }, [seed, steps]);
      assert.equal(r.step, steps, `seed ${seed}, step ${r.step} (${r.log?.join(" ")}): shown ≠ expected${r.atMountPending ? " (the mount's op did not run)" : ""}\n${JSON.stringify(r.shown)}\n${JSON.stringify(r.expected)}`);
      console.log(`#    ${r.messages} messages, ${r.nodes} nodes, ${r.branches} branches, ${r.windows} windows at the end; this tab's store: ${JSON.stringify(r.stats)}`);
      tally.reloads += r.stats.reloads;
      tally.inPlace += r.stats.applied + r.stats.merges;
    });
  }
  assert.ok(tally.reloads > 0 && tally.inPlace > 0, `the runs over a store never reloaded or never took a change in place: ${JSON.stringify(tally)}`);
  assert.deepEqual(errors, [], "errors on the page");
  console.log("sessiontree/react: all passed");
} catch (e) {
  failed = true;
  console.error("FAIL", e?.stack ?? e, errors);
} finally {
  await chrome.close();
  server.close();
}
process.exit(failed ? 1 : 0);
