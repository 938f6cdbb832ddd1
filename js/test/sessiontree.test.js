// The JS API of SPEC §5. This one file runs under `node --test` and, unchanged,
// in headless Chromium (browser.mjs); see harness.js.
import { test, assert, isNode, mainSource } from "./harness.js";
import { init, SessionTree, SessionTreeError } from "../sessiontree.js";

// Before init, on purpose: the first call must say what is missing. In the
// browser page every file is imported in name order: this file is the first,
// tree-interchange.test.js (checks before initInterchange) the first after it to
// load the interchange module; the others are tree-*.test.js sorting after it.
let beforeInit;
try { new SessionTree(); } catch (e) { beforeInit = e; }
await init(mainSource);

const user = (content) => ({ role: "user", content });
const bot = (content) => ({ role: "assistant", content });

test("a call before init throws a sentence saying so", () => {
  assert.ok(beforeInit instanceof SessionTreeError, "not a SessionTreeError");
  assert.ok(/not initialized.*init\(\)/.test(beforeInit.message), beforeInit.message);
});

// In Node, a package whose modules were never built (make build) says so,
// where it said "ENOENT: no such file or directory" (a fresh process: the
// first module loaded stays).
test("init of a module that is not there says to build it", { skip: !isNode }, async () => {
  const { execFileSync } = await import("node:child_process");
  const script = `import(${JSON.stringify(new URL("../sessiontree.js", import.meta.url).href)}).then((m) => m.init("/no/such/dir/sessiontree.wasm")).then(() => console.log("loaded"), (e) => console.log(JSON.stringify([e.code, e.message])))`;
  const [code, message] = JSON.parse(execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" }));
  assert.equal(code, "not_found");
  assert.ok(/there is no \/no\/such\/dir\/sessiontree\.wasm.*make build/.test(message), message);
});

test("a second init is a no-op", async () => {
  await init();
  await init(new Uint8Array([1, 2, 3])); // ignored: already initialized
  assert.equal(new SessionTree().activeBranch, "main");
});

test("the SPEC §5 walkthrough works as written", async () => {
  const t = new SessionTree();
  const id = t.append({ role: "user", content: "hi" });
  assert.equal(t.rewind(id), null, "rewinding to the leaf is a no-op");
  assert.equal(t.branch(id, "idea"), "idea");
  t.switchBranch("main");
  t.label(id, "start");
  assert.equal(t.node(id).label, "start");
  t.clearLabel(id);
  assert.equal(t.node(id).label, null);
  assert.deepEqual(t.linearProjection(), [{ role: "user", content: "hi" }]);
  assert.deepEqual(t.linearProjectionOf("idea"), [{ role: "user", content: "hi" }]);
  assert.deepEqual(t.activePath(), [id]);
  assert.deepEqual(t.pathOf("idea"), [id]);
  const n = t.node(id);
  assert.deepEqual(Object.keys(n), ["id", "parent", "children", "message", "label", "createdAtMs"]);
  assert.equal(n.parent, null);
  assert.ok(Number.isSafeInteger(n.createdAtMs));
  assert.deepEqual(t.branches().map((b) => b.name), ["idea", "main"]);
  assert.deepEqual(Object.keys(t.branches()[0]), ["name", "leaf", "summary", "createdAtMs"]);
  assert.equal(t.activeBranch, "main");
  assert.equal(t.hasBranches(), true);
  t.summarizeBranch("idea", "text", "model-x", 5);
  assert.deepEqual(t.branches()[0].summary, { summary: "text", nodeId: id, branch: "idea", modelId: "model-x", createdAtMs: 5 });
  const s = await t.summarizeBranchWith("idea", async (text) => `about: ${text}`);
  assert.equal(s.summary, "about: user: hi");
  assert.equal(t.renderBranchText("idea"), "user: hi");
  const splice = t.spliceForLinearExport();
  assert.deepEqual(splice.messages, [{ role: "user", content: "hi" }]);
  assert.equal(splice.summaries[0].summary, "about: user: hi");
  const r = t.append(bot("hello"));
  assert.deepEqual(t.children(id), [r]);
  assert.deepEqual(t.siblings(r), { siblings: [r], index: 0 });
  const r2 = t.regenerate(r, bot("hello again"), 10);
  assert.deepEqual(t.siblings(r2).siblings.length, 2);
  const e = t.edit(id, user("hi, edited"));
  assert.deepEqual(t.linearProjection(), [user("hi, edited")]);
  assert.equal(t.checkout(r), "main");
  assert.deepEqual(t.activePath(), [id, r]);
  const res = t.apply([{ op: "append", message: bot("batched") }, { op: "rewind", node: id }]);
  assert.equal(res.length, 2);
  assert.equal(typeof res[0], "string");
  assert.ok(/^branch-\d+$/.test(res[1]));
  const saved = t.save();
  assert.equal(typeof saved, "string");
  assert.equal(SessionTree.load(saved).save(), saved);
  assert.ok(e);
  t.free();
});

test("every other method answers: deleteBranch, prune, validate, repair, search, stats, stubSummary, clone, fromLinear", () => {
  const t = SessionTree.fromLinear([user("a"), bot("b")], 7);
  const [a, b] = t.activePath();
  assert.equal(t.node(b).createdAtMs, 7);
  t.branch(a, "side");
  t.switchBranch("main");
  t.deleteBranch("side");
  assert.deepEqual(t.branches().map((x) => x.name), ["main"]);
  t.rewind(a);
  t.append(user("c"));
  t.deleteBranch("branch-1");
  assert.deepEqual(t.prune(), [b]);
  assert.deepEqual(t.validate(), []);
  assert.deepEqual(t.repair(), []);
  assert.deepEqual(t.search("C").map((h) => h.role), ["user"]);
  assert.equal(t.search("a", 1).length, 1);
  assert.deepEqual(t.stats().nodes, 2);
  assert.equal(t.stubSummary("main").summary, "[2 turns, unsummarized]");
  const c = t.clone();
  c.append(bot("only in the clone"));
  assert.equal(t.activePath().length, 2);
  assert.equal(c.activePath().length, 3);
  assert.deepEqual(c.linearProjection()[0], user("a"));
  assert.deepEqual(SessionTree.fromLinear([]).activePath(), [], "zero messages give an empty tree");
});

test("every error code of SPEC §4 reaches JS with .code and a message naming the culprit", () => {
  const t = new SessionTree();
  assert.throws(() => t.rewind("ghost"), "not_found", /ghost/);
  assert.throws(() => t.switchBranch("nowhere"), "branch_not_found", /nowhere/);
  assert.throws(() => t.summarizeBranch("main", "s"), "empty_branch", /main/);
  const a = t.append(user("x"));
  t.branch(a, "dup");
  assert.throws(() => t.branch(a, "dup"), "branch_exists", /dup/);
  assert.throws(() => t.deleteBranch("dup"), "conflict", /dup/);
  assert.throws(() => t.label(a, "x".repeat(5000)), "too_large", new RegExp(a));
  assert.throws(() => t.append({ content: "no role" }), "invalid_input", /role/);
  assert.throws(() => SessionTree.load("{}"), "corrupt");
  assert.throws(() => SessionTree.load('{"format":"sessiontree","version":2}'), "unsupported_version", /version 2/);
  // A file whose branch points at a missing node: projections fail closed.
  const broken = t.save().replace(`"leaf":"${a}"`, '"leaf":"gone"');
  const bad = SessionTree.load(broken);
  assert.throws(() => bad.linearProjectionOf("dup"), "corrupt", /gone/);
  assert.equal(bad.validate()[0].kind, "dangling_leaf");
  assert.ok(bad.repair().length > 0);
  assert.deepEqual(bad.validate(), []);
  const e = assert.throws(() => t.apply([{ op: "append", message: user("ok") }, { op: "rewind", node: "nope" }]), "not_found", /op 1/);
  assert.ok(e instanceof SessionTreeError && e instanceof Error);
  assert.deepEqual(t.activePath(), [a], "apply is all or nothing");
});

test("arguments are checked with precise sentences, never coerced", () => {
  const t = new SessionTree();
  assert.throws(() => t.switchBranch(""), "invalid_input", /"branch" must be a non-empty string/);
  assert.throws(() => t.switchBranch(42), "invalid_input", /"branch"/);
  assert.throws(() => t.append("hi"), "invalid_input", /"message" must be an object/);
  assert.throws(() => t.append([]), "invalid_input", /"message"/);
  assert.throws(() => t.append(user("x"), 1.5), "invalid_input", /"atMs"/);
  assert.throws(() => t.append(user("x"), "now"), "invalid_input", /"atMs"/);
  const cyclic = user("x"); cyclic.self = cyclic;
  assert.throws(() => t.append(cyclic), "invalid_input", /JSON/);
  assert.throws(() => t.append({ role: "user", n: 10n }), "invalid_input", /JSON/);
  assert.throws(() => t.apply("nope"), "invalid_input", /"ops"/);
  assert.throws(() => t.apply([{ op: "fly" }]), "invalid_input", /fly/);
  // An op's arguments are checked as its method's: "" is no name nor model.
  const q = t.append(user("q"));
  assert.throws(() => t.branch(q, ""), "invalid_input", /"name" must be a non-empty string/);
  assert.throws(() => t.apply([{ op: "branch", from: q, name: "" }]), "invalid_input", /"name" must be a non-empty string/);
  assert.throws(() => t.summarizeBranch("main", "s", ""), "invalid_input", /"modelId" must be a non-empty string/);
  assert.throws(() => t.apply([{ op: "summarize", branch: "main", summary: "s", modelId: "" }]), "invalid_input", /"modelId" must be a non-empty string/);
  assert.deepEqual(t.apply([{ op: "branch", from: q, name: null }, { op: "summarize", branch: "main", summary: "s", modelId: null }]), ["branch-1", undefined]);
  assert.equal(t.branch(q, null), "branch-2");
  assert.throws(() => t.search("x", -1), "invalid_input", /"limit"/);
  assert.throws(() => SessionTree.load(42), "invalid_input", /"json"/);
  // new SessionTree(saved) would be an empty tree, the saved one silently lost.
  assert.throws(() => new SessionTree(new SessionTree().save()), "invalid_input", /takes no arguments.*SessionTree\.load/);
  assert.throws(() => new SessionTree([user("x")]), "invalid_input", /SessionTree\.fromLinear/);
  // A misspelt option is refused, as merge's and loadFrom's are, not ignored.
  const file = new SessionTree().save();
  assert.throws(() => SessionTree.load(file, { keepDupKeys: true }), "invalid_input", /load has no option "keepDupKeys" \(it takes keepDuplicateKeys\)/);
  assert.throws(() => SessionTree.load(file, [true]), "invalid_input", /"options" must be an object/);
  assert.equal(SessionTree.load(file, { keepDuplicateKeys: false }).save(), file);
  // So are the other methods' (they were ignored until Dec 5, evening).
  const o = SessionTree.fromLinear([user("q"), { role: "assistant", content: "a" }]);
  const leaf = o.activePath().at(-1);
  for (const [call, re] of [
    [() => o.subtree(null, { depht: 1 }), /subtree has no option "depht" \(it takes depth, limit and runs\)/],
    [() => o.subtreeAround(leaf, { limt: 5 }), /subtreeAround has no option "limt" \(it takes limit\)/],
    [() => o.takeChanges({ limits: 5 }), /takeChanges has no option "limits" \(it takes stored, limit and feed\)/],
    [() => o.takeChanges(5), /"options" must be an object/],
    [() => o.applyChanges(o.takeChanges(), { folow: true }), /applyChanges has no option "folow" \(it takes follow\)/],
    [() => o.export("openai", { reports: true }), /export has no option "reports" \(it takes report\)/],
    [() => o.projectFor("anthropic", { budjet: 10 }), /projectFor has no option "budjet" \(it takes branch, budget, thinking and upTo\)/],
  ]) {
    const v = o.version, saved = o.save();
    assert.throws(call, "invalid_input", re);
    assert.equal(o.version, v);
    assert.equal(o.save(), saved);
  }
  assert.equal(o.subtree(null, { depth: 5, limit: 5, runs: false }).nodes.length, 2);
  assert.deepEqual(o.subtreeAround(leaf, { limit: 5 }), o.subtreeAround(leaf));
  assert.throws(() => SessionTree.fromLinear("x"), "invalid_input", /"messages"/);
});

test("branch names like __proto__ and constructor are ordinary names everywhere", async () => {
  const t = new SessionTree();
  const a = t.append(user("root"));
  const names = ["__proto__", "constructor", "toString", "hasOwnProperty", "🌿 idea", "prototype"];
  for (const name of names) {
    assert.equal(t.branch(a, name), name);
    t.append(user(`on ${name}`));
    t.summarizeBranch(name, `summary of ${name}`);
  }
  t.switchBranch("__proto__");
  assert.equal(t.activeBranch, "__proto__");
  assert.deepEqual(t.linearProjectionOf("constructor")[1], user("on constructor"));
  assert.deepEqual(t.branches().map((b) => b.name).sort(), [...names, "main"].sort());
  t.apply([{ op: "switch", branch: "toString" }, { op: "summarize", branch: "constructor", summary: "s", modelId: "m" }]);
  assert.equal(t.activeBranch, "toString");
  await t.summarizeBranchWith("__proto__", async () => "ok");
  const again = SessionTree.load(t.save());
  assert.equal(again.save(), t.save());
  assert.equal(({}).polluted, undefined);
  assert.equal(Object.prototype.toString.call({}), "[object Object]");
  const msg = JSON.parse('{"role":"user","__proto__":{"polluted":1},"constructor":"c"}');
  const id = t.append(msg);
  assert.deepEqual(Object.keys(t.node(id).message), ["role", "__proto__", "constructor"]);
  assert.equal(({}).polluted, undefined);
  assert.equal(t.linearProjection().at(-1).__proto__.polluted, 1, "an own __proto__ key survives as data");
});

test("unicode and emoji survive; a lone surrogate is rejected clearly", () => {
  const t = new SessionTree();
  const text = "héllo 😀👍🏽 你好 \u{10FFFF} \u2028 \\ud800 \" \n";
  const id = t.append(user(text));
  assert.equal(t.node(id).message.content, text);
  assert.equal(SessionTree.load(t.save()).linearProjection()[0].content, text);
  assert.throws(() => t.append(user("bad \ud800 here")), "invalid_input", /lone surrogate/);
  assert.throws(() => t.append(user("bad \udc00")), "invalid_input", /lone surrogate/);
  assert.throws(() => t.branch(id, "x\ud800"), "invalid_input", /lone surrogate/);
  assert.throws(() => t.label(id, "\udfff"), "invalid_input", /lone surrogate/);
  assert.throws(() => t.apply([{ op: "branch", from: id, name: "\ud800" }]), "invalid_input", /lone surrogate/);
  assert.throws(() => SessionTree.load("\ud800"), "invalid_input", /lone surrogate/);
  assert.equal(t.activePath().length, 1);
});

test("numbers in files keep their exact text through load and save", () => {
  const t = new SessionTree();
  t.append({ role: "user", n: 1 });
  const exact = t.save().replace('"n":1', '"n":1.50e+0,"big":123456789012345678901234567890');
  assert.equal(SessionTree.load(exact).save(), exact);
  assert.equal(SessionTree.load(new TextEncoder().encode(exact)).save(), exact, "bytes load too");
});

test("objects returned to the caller cannot change the tree", () => {
  const t = new SessionTree();
  const m = user("original");
  const id = t.append(m);
  m.content = "mutated after append";
  const n = t.node(id);
  n.message.content = "mutated node";
  n.children.push("x");
  t.branches()[0].name = "hacked";
  const p = t.linearProjection();
  assert.ok(Object.isFrozen(p[0]), "projected messages are frozen");
  try { p[0].content = "x"; } catch { /* strict mode throws */ }
  p.push(user("extra"));
  assert.deepEqual(t.linearProjection(), [user("original")]);
  assert.deepEqual(t.node(id).children, []);
  assert.equal(t.branches()[0].name, "main");
  assert.equal(JSON.parse(t.save()).nodes[id].message.content, "original");
});

test("the async summarizer: success, rejection, hang and a moved branch", async () => {
  const t = new SessionTree();
  const a = t.append(user("one"));
  t.append(bot("two"));
  t.rewind(a); // main ← a; branch-1 keeps [one, two]
  let seen;
  const ok = await t.summarizeBranchWith("branch-1", async (text, { branch, signal }) => {
    seen = { text, branch, aborted: signal.aborted };
    return { summary: "short", modelId: "small-model" };
  }, 42);
  assert.deepEqual(seen, { text: "user: one\nassistant: two", branch: "branch-1", aborted: false });
  assert.equal(ok.modelId, "small-model");
  assert.deepEqual(t.branches()[0].summary, { summary: "short", nodeId: ok.nodeId, branch: "branch-1", modelId: "small-model", createdAtMs: 42 });

  const rejected = await t.summarizeBranchWith("branch-1", async () => { throw new Error("model down"); });
  assert.equal(rejected.summary, "[2 turns, unsummarized]");
  assert.equal(rejected.modelId, null);

  const thrown = await t.summarizeBranchWith("branch-1", () => { throw new Error("sync throw"); });
  assert.equal(thrown.summary, "[2 turns, unsummarized]");

  let aborted = false;
  const hung = t.summarizeBranchWith("branch-1", (text, { signal }) => new Promise(() => {
    signal.addEventListener("abort", () => { aborted = true; });
  }), undefined, { timeoutMs: 30 });
  // The Go side is not blocked while the summarizer hangs.
  t.append(user("meanwhile"));
  assert.equal(t.activePath().length, 2);
  const h = await hung;
  assert.equal(h.summary, "[2 turns, unsummarized]");
  assert.ok(aborted, "the summarizer's signal aborts on timeout");

  const empty = await t.summarizeBranchWith("branch-1", async () => "");
  assert.equal(empty.summary, "[2 turns, unsummarized]");

  // The branch moves while the model runs: nothing is attached.
  const moved = t.summarizeBranchWith("main", async () => { t.append(user("moved")); return "stale"; });
  await assert.rejects(moved, "conflict", /main/);
  await assert.rejects(t.summarizeBranchWith("nope", async () => "x"), "branch_not_found", /nope/);
  await assert.rejects(new SessionTree().summarizeBranchWith("main", async () => "x"), "empty_branch");
  await assert.rejects(t.summarizeBranchWith("main", "not a function"), "invalid_input", /summarizer/);
});

test("a 100k-message tree: build, project, save, load without a stack overflow", () => {
  const msgs = Array.from({ length: 100000 }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: `m${i}` }));
  const t = SessionTree.fromLinear(msgs, 1);
  const path = t.activePath();
  assert.equal(path.length, 100000);
  const p = t.linearProjection();
  assert.equal(p.length, 100000);
  assert.deepEqual(p[99999], msgs[99999]);
  t.rewind(path[50000]);
  t.append(user("fork"));
  assert.equal(t.linearProjection().length, 50002);
  const saved = t.save();
  const u = SessionTree.load(saved);
  assert.equal(u.save(), saved);
  assert.equal(u.linearProjectionOf("branch-1").length, 100000);
  assert.equal(u.stats().depth, 100000);
  assert.equal(u.renderBranchText("main").split("\n").length, 50002);
  assert.equal(u.validate().length, 0);
  t.free();
  u.free();
});

test("big and small inputs alternate without touching the module's memory", () => {
  const big = SessionTree.fromLinear(Array.from({ length: 30000 }, (_, i) => user(`message ${i} ${"x".repeat(100)}`)), 1);
  const text = big.save(); // several MB: the big-input path
  const t = new SessionTree();
  for (let i = 0; i < 5; i++) {
    const u = SessionTree.load(text);
    t.append(user(`small ${i}`));
    assert.equal(u.save(), text);
    u.free();
    t.append(user("😀".repeat(200000))); // a big string argument that is not a file
  }
  assert.equal(t.activePath().length, 10);
  assert.equal(t.linearProjection()[8].content, "small 4");
  big.free();
});

test("opening a message whose branch name was deleted never moves main or brings a deleted name back", () => {
  const t = new SessionTree();
  const q = t.append(user("q"), 1);
  const a = t.append(bot("a"), 2);
  const f = t.append(user("f"), 3);
  assert.equal(t.rewind(a, 4), "branch-1");
  t.deleteBranch("branch-1", 5);
  const mainLeaf = t.pathOf("main").at(-1);
  assert.equal(t.open(f, 6), "branch-2", "a fresh name of its own, never the deleted branch-1");
  assert.equal(t.activeBranch, "branch-2");
  assert.deepEqual(t.activePath(), [q, a, f]);
  assert.equal(t.pathOf("main").at(-1), mainLeaf, "main stays where it was");
  assert.ok(!t.branches().some((b) => b.name === "branch-1"));
  t.switchBranch("main");
  assert.equal(t.open(q), "main", "a message on the active path stays there");
  assert.deepEqual(t.apply([{ op: "open", node: f }]), ["branch-2"]);
  // checkout keeps SPEC's rule (the active branch moves), but never revives a deleted name either.
  t.switchBranch("main");
  t.deleteBranch("branch-2");
  t.checkout(f);
  assert.deepEqual(t.branches().map((b) => b.name).sort(), ["branch-3", "main"]);
  assert.throws(() => t.open("nope"), "not_found");
  t.free();
});

test("1,000 bad inputs in a row, then normal use", () => {
  const t = new SessionTree();
  const a = t.append(user("keep"));
  const junk = [undefined, null, "", 0, -1, NaN, {}, [], "\ud800", "x".repeat(300), "\u0000", () => 1, Symbol("s"),
    { role: 1 }, { role: "user", content: 10n }, "{", "[{]", '{"format":"sessiontree","version":1}', new Uint8Array([0xff, 0xfe]),
    // No string form: String() of either throws, and an error's sentence must not.
    Object.create(null), { toString() { throw new Error("no string"); } }];
  const calls = [
    (x) => t.append(x), (x) => t.rewind(x), (x) => t.branch(x, x), (x) => t.switchBranch(x), (x) => t.label(a, x),
    (x) => t.clearLabel(x), (x) => t.checkout(x), (x) => t.open(x), (x) => t.edit(x, x), (x) => t.regenerate(a, x), (x) => t.deleteBranch(x),
    (x) => t.apply(x), (x) => t.apply([x]), (x) => t.apply([{ op: "append", message: x }]), (x) => t.linearProjectionOf(x),
    (x) => t.pathOf(x), (x) => t.children(x), (x) => t.siblings(x), (x) => t.summarizeBranch(x, x), (x) => t.renderBranchText(x),
    (x) => t.stubSummary(x), (x) => t.search(x, x), (x) => SessionTree.load(x), (x) => SessionTree.fromLinear(x),
    (x) => SessionTree.fromLinear([x]), (x) => t.append(user("x"), x), (x) => t.label(x, "l"),
    (x) => t.pathWindow(x), (x) => t.pathWindow(0, x), (x) => t.subtree(null, { depth: x }), (x) => t.subtree(x, { limit: x }),
    (x) => t.subtreeAround(a, { limit: x }), (x) => t.takeChanges({ feed: x }), (x) => t.takeChanges({ limit: x }),
    (x) => t.recentBranches(x), (x) => t.switchers(x), (x) => t.onPath([x]), (x) => t.applyChanges(x),
  ];
  let n = 0;
  for (let i = 0; n < 1000; i++) {
    const x = junk[i % junk.length];
    const f = calls[(i * 7) % calls.length];
    try {
      f(x);
    } catch (e) {
      assert.ok(e instanceof SessionTreeError, `call ${i} threw ${e}`);
      n++;
    }
  }
  assert.equal(t.node(a).message.content, "keep");
  const b = t.append(user("still works"));
  assert.deepEqual(t.linearProjection().map((m) => m.content).slice(-1), ["still works"]);
  assert.equal(t.node(b).parent !== undefined, true);
  assert.equal(SessionTree.load(t.save()).save(), t.save());
});

test("apply writes every op's bytes exactly, whatever their UTF-8 size, and its results line up with the ops", () => {
  const t = new SessionTree();
  const texts = ["plain", "é".repeat(500), "漢字".repeat(400), "😀".repeat(300), "a\nb \"q\" \\ \u0001", ""];
  const ops = [];
  texts.forEach((text, i) => {
    ops.push({ op: "append", message: user(text), at: 100 + i });
    ops.push({ op: "append", message: bot(text) });
  });
  const res = t.apply(ops, 7);
  assert.equal(res.length, ops.length);
  assert.deepEqual(t.activePath(), res, "one id per append, in order");
  assert.deepEqual(t.linearProjection(), ops.map((o) => o.message));
  assert.equal(t.node(res[2]).createdAtMs, 101, "an op's own time");
  assert.equal(t.node(res[3]).createdAtMs, 7, "the batch's time");
  const mixed = t.apply([
    { op: "label", node: res[0], label: "first 😀" },
    { op: "rewind", node: res[0] },
    { op: "rewind", node: res[0] },
    { op: "append", message: user("ü".repeat(2000)) },
    { op: "branch", from: res[1], name: "side" },
  ]);
  assert.equal(mixed[0], undefined);
  assert.equal(typeof mixed[1], "string");
  assert.equal(mixed[2], null, "rewinding to the leaf is a no-op");
  assert.equal(typeof mixed[3], "string");
  assert.equal(mixed[4], "side");
  assert.deepEqual(t.apply([]), []);
  assert.equal(t.node(res[0]).label, "first 😀");
  assert.deepEqual(t.linearProjectionOf(mixed[1]), ops.map((o) => o.message), "the kept branch");
  t.append(user("after"), 9); // the input buffer is sound after a big batch
  assert.deepEqual(t.linearProjection().map((m) => m.content), [texts[0], texts[0], "after"], "on the new branch");
});

test("apply with ops whose toJSON calls into trees, a batch of short then long texts, a failed batch", () => {
  const t = new SessionTree();
  const other = new SessionTree();
  // Each op's toJSON appends to another tree (and batches into it): those
  // calls use the module's input buffer while this batch's texts are made.
  const sneaky = (i) => ({ role: "user", content: `s${i}`, extra: { toJSON() { other.append(user(`o${i}`)); other.apply([{ op: "append", message: user(`p${i}`) }]); return i; } } });
  const ops = [];
  for (let i = 0; i < 300; i++) ops.push({ op: "append", message: i % 3 ? user(`m${i}`) : sneaky(i) });
  const res = t.apply(ops, 5);
  assert.equal(res.length, 300);
  assert.deepEqual(t.linearProjection().map((m) => m.content), ops.map((o) => o.message.content));
  assert.equal(t.linearProjection()[0].extra, 0, "toJSON's value stored");
  assert.deepEqual(other.linearProjection().map((m) => m.content), Array.from({ length: 100 }, (_, k) => [`o${3 * k}`, `p${3 * k}`]).flat());
  // Short ops first, then long ones (a writer that sized its buffer from the
  // first ones must grow it, keeping what it wrote).
  const grow = [];
  for (let i = 0; i < 50; i++) grow.push({ op: "append", message: user(`${i}`) });
  for (let i = 0; i < 50; i++) grow.push({ op: "append", message: user("漢".repeat(5000 + i)), at: i });
  const big = new SessionTree();
  assert.deepEqual(big.activePath(), []);
  const ids = big.apply(grow, 1);
  assert.deepEqual(big.activePath(), ids);
  assert.deepEqual(big.linearProjection(), grow.map((o) => o.message));
  assert.equal(big.node(ids[99]).createdAtMs, 49);
  // A batch whose op cannot be written leaves the tree as it was, and the next works.
  const before = big.save();
  assert.throws(() => big.apply([{ op: "append", message: user("x") }, { op: "append", message: { role: "user", bad: { toJSON() { throw new Error("no"); } } } }]), "invalid_input", /cannot be written as JSON/);
  assert.equal(big.save(), before);
  assert.equal(big.apply([{ op: "append", message: user("y") }]).length, 1);
  for (const x of [t, other, big]) x.free();
});

test("a projection is the path's messages, whatever the message cache holds (append, apply, edit, clone, prune, load, repair)", () => {
  // The reference: each node's own message, read by id without the cache.
  const expect = (t, branch) => (branch ? t.pathOf(branch) : t.activePath()).map((id) => t.node(id).message);
  const t = new SessionTree();
  const a = t.append(user("a"), 1);
  const b = t.append(bot("b"), 2);
  assert.deepEqual(t.linearProjection(), expect(t));
  t.apply([{ op: "append", message: user("c"), at: 3 }, { op: "append", message: { role: "tool", content: [{ type: "text", text: "d 😀" }] } }]);
  assert.deepEqual(t.linearProjection(), expect(t), "messages that came through apply");
  const first = t.linearProjection();
  assert.ok(t.linearProjection()[0] === first[0], "a message is parsed once and shared");
  const e = t.edit(b, bot("b2"), 5);
  const edited = t.activeBranch;
  assert.deepEqual(t.linearProjection(), [user("a"), bot("b2")]);
  assert.deepEqual(t.activePath(), [a, e]);
  assert.deepEqual(t.linearProjectionOf("main"), expect(t, "main"));
  const c = t.clone();
  c.append(user("only in the clone"), 6);
  t.append(user("only in the original"), 6);
  assert.deepEqual(c.linearProjection(), expect(c));
  assert.deepEqual(t.linearProjection(), expect(t));
  t.switchBranch("main");
  t.deleteBranch(edited);
  assert.equal(t.prune().length, 2, "the edit and the message after it are on no branch");
  assert.deepEqual(t.linearProjection(), expect(t), "after prune");
  t.append(user("after prune"), 7);
  assert.deepEqual(t.linearProjection(), expect(t));
  const u = SessionTree.load(t.save());
  assert.deepEqual(u.linearProjection(), t.linearProjection(), "a loaded tree");
  assert.deepEqual(u.repair(), []);
  assert.deepEqual(u.linearProjection(), expect(u), "after repair");
  assert.deepEqual(c.linearProjectionOf("main"), expect(c, "main"));
  for (const x of [t, c, u]) x.free();
  void a;
});

test("free() and Symbol.dispose release the tree; a freed tree says so", () => {
  const t = new SessionTree();
  t.append(user("x"));
  t.free();
  t.free(); // twice is harmless
  assert.throws(() => t.activePath(), "invalid_input", /freed/);
  let inner;
  {
    const d = new SessionTree();
    inner = d;
    d[Symbol.dispose ?? Symbol.for("Symbol.dispose")]();
  }
  assert.throws(() => inner.save(), "invalid_input", /freed/);
});

test("init takes bytes or a WebAssembly.Module in a fresh Node process", { skip: !isNode }, async () => {
  if (!isNode) return;
  const { execFileSync } = await import("node:child_process");
  const mod = new URL("../sessiontree.js", import.meta.url).href;
  const wasm = new URL("../sessiontree.wasm", import.meta.url);
  for (const how of ["bytes", "module", "url"]) {
    const src = `import fs from "node:fs"; import { init, SessionTree } from ${JSON.stringify(mod)};
      const w = new URL(${JSON.stringify(wasm.href)}); const b = fs.readFileSync(w);
      await init(${JSON.stringify(how)} === "bytes" ? b : ${JSON.stringify(how)} === "module" ? new WebAssembly.Module(b) : w);
      const t = new SessionTree(); t.append({ role: "user", content: "ok" }); console.log(t.linearProjection()[0].content);`;
    assert.equal(execFileSync(process.execPath, ["--input-type=module", "-e", src]).toString().trim(), "ok", how);
  }
});

test("an edit's and a regenerate's two arguments cross whole: short, long, non-ASCII, and a change listener reads the new message", () => {
  const t = new SessionTree();
  t.append(user("q"));
  const a = t.append(bot("a"));
  const seen = [];
  const off = t.subscribe(() => seen.push(t.linearProjection().at(-1).content));
  const short = bot("héllo 😀");
  const long = bot("long é ".repeat(400) + "😀");
  const r1 = t.regenerate(a, short);
  const r2 = t.edit(r1, long);
  const r3 = t.regenerate(r2, bot("x"));
  off();
  assert.deepEqual(seen, [short.content, long.content, "x"]);
  assert.equal(t.node(r1).message.content, short.content);
  assert.equal(t.node(r2).message.content, long.content);
  assert.deepEqual(t.siblings(r3).siblings, t.siblings(a).siblings);
  assert.equal(t.siblings(a).siblings.length, 4);
  assert.throws(() => t.regenerate("no-such-node", short), "not_found", /no-such-node/);
});

// SPEC §2 and §5: a JS caller may leave out any time argument, and the time
// recorded is then Date.now(). Each method's recorded time is read back where
// the API shows it: a node's, a branch's or a summary's createdAtMs.
test("an omitted time is Date.now() for every method that records one", async () => {
  const now = (what, call, read) => {
    const lo = Date.now();
    const out = call();
    const hi = Date.now();
    const at = read(out);
    assert.ok(Number.isSafeInteger(at) && at >= lo && at <= hi, `${what}: recorded ${at}, not a time from ${lo} to ${hi}`);
    return out;
  };
  const made = (t, name) => t.branches().find((b) => b.name === name).createdAtMs;
  const f = now("fromLinear", () => SessionTree.fromLinear([user("q"), bot("a")]), (t) => t.node(t.activePath()[1]).createdAtMs);
  f.free();
  const t = new SessionTree();
  const q = now("append", () => t.append(user("q")), (id) => t.node(id).createdAtMs);
  const a = t.append(bot("a"), 5);
  now("rewind", () => t.rewind(q), (kept) => made(t, kept));
  now("branch", () => t.branch(q), (name) => made(t, name));
  const e = now("edit", () => t.edit(q, user("q2")), (id) => t.node(id).createdAtMs);
  assert.equal(made(t, t.activeBranch), t.node(e).createdAtMs, "the edit's branch is made at the edit's time");
  const r = now("regenerate", () => t.regenerate(a, bot("a2")), (id) => t.node(id).createdAtMs);
  t.switchBranch("main");
  t.append(bot("a3"), 6);
  t.deleteBranch(t.branches().find((b) => b.leaf === r).name);
  // r is on no branch now: checkout moves main to it and keeps main's old leaf.
  const names = new Set(t.branches().map((b) => b.name));
  now("checkout (the old leaf kept)", () => t.checkout(r), () => made(t, t.branches().find((b) => !names.has(b.name)).name));
  assert.equal(t.activePath().at(-1), r);
  now("summarizeBranch", () => t.summarizeBranch("main", "s"), () => t.branches().find((b) => b.name === "main").summary.createdAtMs);
  await (async () => {
    const lo = Date.now();
    const s = await t.summarizeBranchWith("main", async () => "about it");
    const hi = Date.now();
    assert.ok(s.createdAtMs >= lo && s.createdAtMs <= hi, `summarizeBranchWith: recorded ${s.createdAtMs}`);
    assert.equal(t.branches().find((b) => b.name === "main").summary.createdAtMs, s.createdAtMs);
  })();
  now("apply without a time", () => t.apply([{ op: "append", message: user("x") }, { op: "branch", from: q }]),
    ([id, name]) => Math.min(t.node(id).createdAtMs, made(t, name)));
  t.free();
});

// SPEC §5: node(id) is the node's plain object, or null for an id that names
// no node (a lookup, not an error); the reads that need the node throw
// not_found naming it.
test("node() of an unknown id is null, and children(), siblings() of one throw not_found naming it", () => {
  const t = SessionTree.fromLinear([user("q")], 1);
  assert.equal(t.node("no such node"), null);
  assert.throws(() => t.children("no such node"), "not_found", /"no such node"/);
  assert.throws(() => t.siblings("no such node"), "not_found", /"no such node"/);
  assert.throws(() => t.node(""), "invalid_input", /"node" must be a non-empty string/);
  t.free();
});

// SPEC §5: failures throw with a code, arguments are checked and never coerced.
// summarizeBranchWith's options are { timeoutMs, modelId }: a misspelt one
// (which left the 30 s default in place), a modelId that is not a string (which
// made every answer of the summarizer give way to the stub) or options that are
// not an object reject with invalid_input before the summarizer is called.
test("summarizeBranchWith refuses options it does not have and a modelId that is not a string", async () => {
  const t = SessionTree.fromLinear([user("q"), bot("a")], 1);
  let calls = 0;
  const fn = async () => { calls++; return "about it"; };
  const refused = async (options, pattern) => {
    try {
      await t.summarizeBranchWith("main", fn, undefined, options);
    } catch (e) {
      assert.ok(e instanceof SessionTreeError && e.code === "invalid_input" && pattern.test(e.message), `${JSON.stringify(options)}: ${e.code} ${e.message}`);
      return;
    }
    assert.ok(false, `${JSON.stringify(options)} was taken`);
  };
  await refused({ timeout: 5 }, /summarizeBranchWith has no option "timeout" \(it takes timeoutMs and modelId\)/);
  await refused({ modelId: 5 }, /"modelId" must be a non-empty string/);
  await refused({ modelId: "" }, /"modelId" must be a non-empty string/);
  await refused(5, /"options" must be an object/);
  await refused([], /"options" must be an object/);
  assert.equal(calls, 0, "the summarizer was called for refused options");
  assert.equal(t.branches()[0].summary, null);
  const s = await t.summarizeBranchWith("main", fn, 7, { modelId: "small", timeoutMs: 1000 });
  assert.deepEqual([s.summary, s.modelId, s.createdAtMs], ["about it", "small", 7]);
  assert.equal((await t.summarizeBranchWith("main", fn, 8, { modelId: null, timeoutMs: undefined })).modelId, null);
  t.free();
});
