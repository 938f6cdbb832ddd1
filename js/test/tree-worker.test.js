// sessiontree/worker (js/worker.js): the same API in a Web Worker, every
// method a Promise. Web Workers are a page's: these tests run in Chromium
// (browser.mjs) and register nothing under Node.
import { test, assert, isNode, full, mainSource } from "./harness.js";

if (!isNode) {
  const { connect } = await import("../worker.js");
  const st = await connect(full ? { full: true } : undefined);
  const say = (i) => ({ role: i % 2 ? "assistant" : "user", content: `turn ${i} ✨` });

  test("worker: a tree made, edited, read and saved in the worker answers as on the page", async () => {
    const t = await st.SessionTree.fromLinear([say(0), say(1)], 1);
    const id = await t.append(say(2), 2);
    assert.equal(await t.activeBranch, "main");
    assert.deepEqual(await t.linearProjection(), [say(0), say(1), say(2)]);
    assert.equal((await t.node(id)).message.content, "turn 2 ✨");
    const file = await t.save();
    const u = await st.SessionTree.load(file);
    assert.equal(await u.save(), file);
    assert.deepEqual((await u.pathWindow(-1)).messages, [say(2)]);
    await t.free();
    await u.free();
  });

  test("worker: a File or Blob is read in the worker, and errors keep their code", async () => {
    const t = await st.newTree();
    await t.append(say(0), 1);
    const blob = new Blob([await t.save()]);
    const u = await st.SessionTree.loadFrom(blob);
    assert.equal(await u.pathLength(), 1);
    await assert.rejects(u.switchBranch("nope"), "branch_not_found");
    await assert.rejects(st.SessionTree.load("{"), "corrupt");
    assert.equal(u.noSuchMethod, undefined, "a name SessionTree has not is undefined, as on the page");
    await u.free();
    await assert.rejects(u.save(), "invalid_input", /freed/);
    assert.ok((await st.memoryUsage()).main > 0);
  });

  test("worker: after close(), a call fails with a code at once instead of waiting forever", async () => {
    const other = await connect(full ? { full: true } : undefined);
    const t = await other.SessionTree.fromLinear([say(0)], 1);
    other.close();
    await assert.rejects(other.memoryUsage(), "invalid_input", /closed/);
    await assert.rejects(t.save(), "invalid_input", /closed/);
  });

  test("worker: a load in slices (loadFrom's sliceMs) lets the worker answer other calls meanwhile", async () => {
    const t = await st.SessionTree.fromLinear(Array.from({ length: 20000 }, (_, i) => say(i)), 1);
    const file = await t.save();
    const other = await st.newTree();
    let loaded = false;
    const loading = st.SessionTree.loadFrom(new TextEncoder().encode(file), { sliceMs: 0 }).then((u) => { loaded = true; return u; });
    await other.append(say(0), 1);
    const answered = !loaded;
    const u = await loading;
    assert.ok(answered, "a call on another tree waited for a 20,000-message load in slices to end");
    assert.equal(await u.save(), file);
    for (const x of [t, u, other]) await x.free();
  });

  test("worker: open and merge's options cross as on the page", async () => {
    const t = await st.SessionTree.fromLinear([say(0), say(1), say(2)], 1);
    const [q, a, f] = await t.activePath();
    assert.equal(await t.rewind(a, 2), "branch-1");
    await t.deleteBranch("branch-1", 3);
    assert.equal(await t.open(f, 4), "branch-2", "a fresh name, never the deleted one");
    assert.equal((await t.pathOf("main")).at(-1), a, "main stays where it was");
    await st.initInterchange();
    const mine = await st.SessionTree.fromLinear([say(0)], 1);
    const theirs = await mine.clone();
    const x = await mine.append(say(1), 10);
    await theirs.append(say(3), 20);
    const report = await mine.merge(theirs, { freshNames: true, keepPlace: true });
    assert.equal(report.conflicts[0].keptAs, "branch-1");
    assert.equal((await mine.activePath()).at(-1), x);
    assert.ok(q);
    for (const u of [t, mine, theirs]) await u.free();
  });

  // The proxy once took any object with a numeric $tree field (or a tree
  // field holding one) for a tree: a message so shaped came back with a proxy
  // in it (whose collection freed that number's tree), and an append of one
  // failed or used another tree as the message.
  test("worker: a message with a tree or $tree field of its own crosses as it is, and frees nothing", async () => {
    const kept = await st.SessionTree.fromLinear([say(0)], 1);
    const m = { role: "user", content: "x", tree: { $tree: kept.handle } };
    const t = await st.SessionTree.fromLinear([m], 1);
    assert.deepEqual(await t.linearProjection(), [m]);
    const n = { role: "user", content: "y", $tree: kept.handle };
    const id = await t.append(n, 2);
    assert.deepEqual((await t.node(id)).message, n);
    assert.deepEqual(await t.linearProjection(), [m, n]);
    assert.deepEqual(await kept.linearProjection(), [say(0)]);
    await st.initInterchange();
    const [{ tree }] = await st.SessionTree.importAll(JSON.stringify([{ role: "user", content: "z" }]), "openai");
    assert.equal((await tree.linearProjection())[0].content, "z", "a tree in a list of results still crosses as a tree");
    for (const x of [kept, t, tree]) await x.free();
  });

  // A whole data export is read in the worker a conversation a step: the page
  // hands it the File, never its bytes, and the worker holds one at a time.
  test("worker: importEach reads a Blob in the worker, a conversation a step, and break gives the rest up", async () => {
    await st.initInterchange();
    const conv = (i) => ({
      id: `c${i}`, title: `Chat ${i}`, current_node: `m${i}`,
      mapping: { [`m${i}`]: { id: `m${i}`, parent: null, children: [], message: { id: `m${i}`, author: { role: "user" }, content: { content_type: "text", parts: [`hi ${i}`] } } } },
    });
    const file = new Blob([JSON.stringify([0, 1, 2, 3].map(conv))]);
    const titles = [];
    for await (const c of st.SessionTree.importEach(file)) {
      titles.push(c.title);
      assert.equal((await c.tree.linearProjection())[0].content, `hi ${titles.length - 1}`);
      assert.equal(c.report.format, "chatgpt");
      await c.tree.free();
    }
    assert.deepEqual(titles, ["Chat 0", "Chat 1", "Chat 2", "Chat 3"]);
    for await (const c of st.SessionTree.importEach(file, "chatgpt")) {
      await c.tree.free();
      break;
    }
    // { files: true }: the bytes move to the page, one message a conversation.
    const files = [];
    for await (const c of st.SessionTree.importEach(file, "auto", { files: true })) files.push(c);
    assert.deepEqual(files.map((c) => c.title), titles);
    assert.ok(files.every((c) => c.file instanceof Uint8Array && c.tree === undefined));
    assert.ok(new TextDecoder().decode(files[2].file).includes(`"hi 2"`));
    const it = st.SessionTree.importEach(new Blob(["{\"version\":4}"]));
    await assert.rejects(it.next(), "invalid_input", /cannot tell the format/);
    assert.deepEqual(await it.next(), { value: undefined, done: true });
    await assert.rejects(st.SessionTree.importEach(42).next(), "invalid_input", /"text" must be/);
  });

  // A Blob larger than what is read whole (2 MiB) is read a piece at a time
  // in the worker (FileReaderSync): its module grows by a piece, a
  // conversation and the garbage between two collections, not by the file
  // (copied in whole, by the file and more), and a cut one keeps its whole chats.
  test("worker: importEach of an 18 MB Blob reads it a piece at a time", async () => {
    await st.initInterchange();
    const text = "lorem ipsum dolor ".repeat(1000);
    const convs = [];
    for (let i = 0; i < 1000; i++) {
      convs.push({ id: `c${i}`, title: `Chat ${i}`, current_node: `m${i}`, mapping: { [`m${i}`]: { id: `m${i}`, parent: null, children: [], message: { id: `m${i}`, author: { role: "user" }, content: { content_type: "text", parts: [`${text}${i}`] } } } } });
    }
    const json = JSON.stringify(convs);
    const mem = async () => { const m = await st.memoryUsage(); return m.interchange || m.main; };
    const before = await mem();
    const titles = [];
    for await (const c of st.SessionTree.importEach(new Blob([json]), "auto", { files: true })) titles.push(c.title);
    assert.deepEqual(titles, convs.map((c) => c.title));
    const grew = (await mem()) - before;
    assert.ok(grew < json.length, `the worker's module grew by ${grew} bytes for a file of ${json.length}`);
    const cut = new Blob([json.slice(0, json.indexOf('"Chat 999"'))]);
    let n = 0;
    await assert.rejects((async () => { for await (const c of st.SessionTree.importEach(cut, "auto", { files: true })) n++; })(), "invalid_input", /after its 999 whole conversations.*cut short/);
    assert.equal(n, 999);
  });

  // Every name once became a remote call: `version` was a function, not a
  // Promise of the number; JSON.stringify's probe of toJSON rejected with no
  // handler ("toJSON is not a SessionTree method"); new st.SessionTree() made
  // an empty object.
  test("worker: a proxy has SessionTree's methods and getters and nothing else", async () => {
    const t = await st.SessionTree.fromLinear([say(0)], 1);
    const before = await t.version;
    assert.equal(typeof before, "number");
    await t.append(say(1), 2);
    assert.ok((await t.version) > before, "the version grows with a change");
    assert.equal(t.toJSON, undefined);
    assert.equal(t.then, undefined, "a proxy is no thenable");
    assert.equal(JSON.stringify({ t }), `{"t":{"handle":${t.handle}}}`);
    assert.equal(st.SessionTree.nope, undefined);
    assert.throws(() => new st.SessionTree(), "invalid_input", /newTree/);
    await new Promise((r) => setTimeout(r, 50)); // an unhandled rejection would show as a page error
    await t.free();
  });

  // The worker once allowed a list of statics that left fileFromRows out.
  test("worker: every static of SessionTree crosses, fileFromRows too", async () => {
    const { init, SessionTree: PageTree } = await import("../sessiontree.js");
    await init(mainSource);
    const rows = PageTree.fromLinear([say(0), say(1)], 1).takeChanges();
    assert.equal(await st.SessionTree.fileFromRows(rows), PageTree.fileFromRows(rows));
  });

  // A relative URL was read in the worker, against the worker's script
  // (here /sessiontree.worker.js), not against the page as init() reads it.
  test("worker: a relative URL given to connect or initInterchange is read against the page", async () => {
    const was = location.href;
    history.replaceState(null, "", "/test/page.html");
    try {
      await assert.rejects(connect("sessiontree.wasm"), "not_found", /\/test\/sessiontree\.wasm/);
      const other = await connect("../sessiontree.wasm");
      await assert.rejects(other.initInterchange("sessiontree-interchange.wasm"), "not_found", /\/test\/sessiontree-interchange\.wasm/);
      other.close();
    } finally {
      history.replaceState(null, "", was);
    }
  });

  // A connect whose module failed to load left its worker running.
  test("worker: a failed connect stops the worker it started", async () => {
    const started = [];
    const PageWorker = globalThis.Worker;
    globalThis.Worker = class extends PageWorker {
      constructor(...args) {
        super(...args);
        started.push(this);
      }
      terminate() {
        this.stopped = true;
        super.terminate();
      }
    };
    try {
      await assert.rejects(connect(new URL("/no-such.wasm", location.href)), "not_found");
    } finally {
      globalThis.Worker = PageWorker;
    }
    assert.equal(started.length, 1);
    assert.ok(started[0].stopped, "the worker connect started still runs");
  });

  // Messages crossed by structured clone: a class with toJSON was stored as
  // its fields, and a URL or an own toJSON was refused ("could not be cloned").
  test("worker: a message is stored as its JSON, as the page stores it (toJSON, a URL)", async () => {
    const { init, SessionTree: PageTree } = await import("../sessiontree.js");
    await init(mainSource);
    class Money {
      constructor(cents) { this.cents = cents; }
      toJSON() { return `$${(this.cents / 100).toFixed(2)}`; }
    }
    const ms = [
      { role: "user", content: "pay", price: new Money(150) },
      { role: "user", content: "see", link: new URL("https://example.com/a") },
      { role: "user", content: { toJSON: () => "hi" } },
    ];
    const p = PageTree.fromLinear(ms, 1);
    const w = await st.SessionTree.fromLinear(ms, 1);
    assert.deepEqual(await w.linearProjection(), p.linearProjection());
    const id = await w.append(ms[0], 2);
    const edited = await w.edit(id, ms[1], 3);
    const regenerated = await w.regenerate(edited, ms[2], 4);
    const [applied] = await w.apply([{ op: "append", message: ms[0] }], 5);
    for (const [node, m] of [[id, ms[0]], [edited, ms[1]], [regenerated, ms[2]], [applied, ms[0]]]) {
      assert.deepEqual((await w.node(node)).message, JSON.parse(JSON.stringify(m)));
    }
    await assert.rejects(w.append({ role: "user", content: "\ud800" }, 6), "invalid_input", /lone surrogate/);
    p.free();
    await w.free();
  });

  // worker.d.ts took a ReadableStream or a Response, and both failed: a
  // stream cannot be cloned, and a Response neither.
  test("worker: loadFrom takes a ReadableStream and a Response, as on the page", async () => {
    const t = await st.SessionTree.fromLinear([say(0), say(1)], 1);
    const file = await t.save();
    const a = await st.SessionTree.loadFrom(new Blob([file]).stream());
    assert.equal(await a.save(), file);
    const b = await st.SessionTree.loadFrom(new Response(file), { sliceMs: 5 });
    assert.equal(await b.save(), file);
    await assert.rejects(st.SessionTree.loadFrom(new Response("gone", { status: 404 })), "not_found", /HTTP 404/);
    const { SessionTree: PageTree } = await import("../sessiontree.js");
    const empty = await PageTree.loadFrom(new Response(null)).catch((e) => e);
    await assert.rejects(st.SessionTree.loadFrom(new Response(null)), empty.code, /./);
    for (const x of [t, a, b]) await x.free();
  });

  // A listener is a function, which cannot be cloned: subscribe failed.
  test("worker: subscribe hears each change before the call that made it resolves; unsubscribe stops it", async () => {
    const { init, SessionTree: PageTree } = await import("../sessiontree.js");
    await init(mainSource);
    const p = PageTree.fromLinear([say(0)], 1);
    const w = await st.SessionTree.fromLinear([say(0)], 1);
    const onPage = [], inWorker = [], second = [];
    p.subscribe((e) => onPage.push(e));
    const stop = await w.subscribe((e) => inWorker.push(e));
    const stopSecond = await w.subscribe((e) => second.push(e));
    p.append(say(1), 2);
    await w.append(say(1), 2);
    assert.equal(inWorker.length, 1, "heard before append resolved");
    const shape = (e) => ({ ...e, nodes: e.nodes.length, branches: e.branches.length });
    assert.deepEqual(shape(inWorker[0]), shape(onPage[0]));
    stopSecond();
    await w.label((await w.activePath())[0], "L", 3);
    assert.equal(inWorker.length, 2);
    assert.equal(second.length, 1, "an unsubscribed listener hears nothing more");
    stop();
    await w.append(say(2), 4);
    assert.equal(inWorker.length, 2, "no listener left, no event");
    await assert.rejects(w.subscribe("nope"), "invalid_input", /listener/);
    p.free();
    await w.free();
    await assert.rejects(w.subscribe(() => {}), "invalid_input", /freed/);
  });

  // A seeded run of calls, ordinary and hostile, each made on a tree on the
  // page and on its proxy in the worker: each answers the same (the result,
  // or the error's code), and every 20 calls both hold the same tree. Each
  // module makes its own node ids: the page's are mapped to the worker's as
  // results name them. Found by it: a function, a symbol or a Proxy among the
  // arguments failed with a DOMException (DataCloneError, whose code is the
  // number 25), not invalid_input.
  test("worker: a random run of calls, ordinary and hostile, answers as the page's tree does", async () => {
    const { init, SessionTree: PageTree, SessionTreeError } = await import("../sessiontree.js");
    await init(mainSource);
    const ID = /^[0-9a-z]{16}$/;
    for (const seed of [1, 2, 3]) {
      let s = seed;
      const rnd = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
      const pick = (a) => a[Math.floor(rnd() * a.length)];
      const junk = () => pick([undefined, null, 0, -1, 1.5, NaN, "", "x", "main", "__proto__", "\ud800", "a\nb", {}, [], { role: 5 },
        Symbol("s"), 10n, () => 1, new Proxy({}, {}), Object.create(null), { role: "user", content: "\ud83d" }]);
      let at = 1;
      const msg = () => pick([{ role: "user", content: `q ${at}` }, { role: "assistant", content: [{ type: "text", text: `a ${at}` }] }, { role: "user", content: "é 😀" }]);
      const p = new PageTree();
      const w = await st.newTree();
      const ids = new Map(); // the page's node id → the worker's
      // learn walks two results of the same call side by side and maps the ids.
      const learn = (a, b) => {
        if (typeof a === "string" && typeof b === "string" && ID.test(a) && ID.test(b) && a !== b) ids.set(a, b);
        else if (a && b && typeof a === "object" && typeof b === "object") for (const k of Object.keys(a)) learn(a[k], b[k]);
      };
      const there = (x) => (typeof x === "string" ? ids.get(x) ?? x : Array.isArray(x) ? x.map(there) : x && typeof x === "object" && Object.getPrototypeOf(x) === Object.prototype ? Object.fromEntries(Object.entries(x).map(([k, v]) => [k, there(v)])) : x);
      const text = (v) => JSON.stringify(v, (k, x) => (typeof x === "bigint" ? String(x) : x));
      const outcome = async (f) => {
        try {
          return { ok: true, value: await f() };
        } catch (e) {
          assert.ok(e instanceof SessionTreeError || e?.name === "SessionTreeError" || /^getter$/.test(e?.message), `seed ${seed}: threw ${e?.name}: ${e?.message}`);
          assert.ok(typeof e.code === "string" || e.message === "getter", `seed ${seed}: a code that is not a string: ${e.code}`);
          return { ok: false, code: e.code };
        }
      };
      // The tree as both hold it, in the worker's ids, with no order of its own.
      const canon = (file) => {
        const f = JSON.parse(file.replace(/"([0-9a-z]{16})"/g, (all, x) => JSON.stringify(ids.get(x) ?? x)));
        const sorted = (v) => (Array.isArray(v) ? v.map(sorted).sort() : v && typeof v === "object" ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sorted(v[k])])) : v);
        return JSON.stringify(sorted(f));
      };
      for (let step = 0; step < 300; step++) {
        const known = p.subtree(null, { limit: 200 }).nodes.map((n) => n.id);
        const names = p.branches().map((b) => b.name);
        const id = () => (rnd() < 0.85 && known.length ? pick(known) : junk());
        const br = () => (rnd() < 0.85 ? pick(names) : junk());
        const m = () => (rnd() < 0.8 ? msg() : junk());
        const time = () => (rnd() < 0.9 ? at++ : pick([1, 0, -5, NaN, "x", 10n]));
        const [name, args] = pick([
          ["append", [m(), time()]], ["append", [m(), time()]], ["rewind", [id(), time()]],
          ["branch", [id(), rnd() < 0.5 ? undefined : pick(["b1", "b2", junk()]), time()]], ["switchBranch", [br()]],
          ["label", [id(), rnd() < 0.8 ? `L${at % 3}` : junk(), time()]], ["clearLabel", [id(), time()]], ["open", [id(), time()]],
          ["edit", [id(), m(), time()]], ["regenerate", [id(), m(), time()]], ["deleteBranch", [br(), time()]],
          ["apply", [rnd() < 0.6 ? [{ op: "append", message: m() }, { op: pick(["rewind", "label", "nope"]), node: id(), label: "x" }] : junk(), time()]],
          ["pathWindow", [pick([0, -3, 2, 1e9, junk()]), pick([undefined, 2, junk()])]], ["siblings", [id()]], ["node", [id()]],
          ["search", [rnd() < 0.8 ? "q" : junk()]], ["linearProjectionOf", [br()]], ["validate", []], ["stats", []],
        ]);
        const a = await outcome(() => p[name](...args));
        const b = await outcome(() => w[name](...args.map(there)));
        const where = `seed ${seed} step ${step}: ${name}(${args.map((x) => typeof x).join(", ")})`;
        assert.equal(b.ok, a.ok, `${where}: ${text(a)} on the page, ${text(b)} in the worker`);
        if (a.ok) {
          learn(a.value, b.value);
          assert.equal(text(there(a.value)), text(b.value), where);
        } else {
          assert.equal(b.code, a.code, where);
        }
        if (step % 20 === 19) assert.equal(canon(await w.save()), canon(p.save()), `seed ${seed} step ${step}: the two trees differ`);
      }
      p.free();
      await w.free();
    }
  });
}
