// Import and export (SPEC §7) through the second module, sessiontree-interchange.wasm,
// and what every call that needs it says before it is loaded (merge's own tests
// are in tree-merge.test.js, which sorts after this file).
// This one file runs under `node --test` and, unchanged, in headless Chromium
// (browser.mjs), in one page after sessiontree.test.js (which checks the calls
// before init, so this file sorts after it); see harness.js.
import { test, assert, isNode, full, mainSource } from "./harness.js";
import { init, initInterchange, SessionTree, SessionTreeError } from "../sessiontree.js";

await init(mainSource);
// Before initInterchange, on purpose: import, export and merge must say what is
// missing, and a failed merge must leave the tree as it was.
const early = SessionTree.fromLinear([{ role: "user", content: "early" }], 1);
const earlySaved = early.save();
const other = early.clone();
other.append({ role: "assistant", content: "from the other copy" }, 2);
const before = [];
for (const call of [() => SessionTree.import("[]", "openai"), () => early.export("markdown"),
  () => early.merge(other), () => early.merge(other.save()), () => SessionTree.mergeJSON(earlySaved, other.save()),
  () => SessionTree.deltaParts(earlySaved, 1000)]) {
  try { call(); } catch (e) { before.push(e); }
}
const savedAfterFailedMerge = early.save();
await initInterchange();

const user = (content) => ({ role: "user", content });
const bot = (content) => ({ role: "assistant", content });

// One of the next two applies to each flavour; the other is not registered.
if (!full) test("import, export and merge before initInterchange throw a sentence saying to await initInterchange()", () => {
  assert.equal(before.length, 6, "every call threw");
  for (const e of before) {
    assert.ok(e instanceof SessionTreeError, "not a SessionTreeError");
    assert.equal(e.code, "invalid_input");
    assert.ok(/await initInterchange\(\)/.test(e.message), e.message);
  }
  assert.ok(/^t\.merge needs the interchange module/.test(before[2].message), before[2].message);
  assert.equal(savedAfterFailedMerge, earlySaved, "the refused merge left the tree as it was");
  assert.ok(early.export("markdown").includes("early"), "the same tree exports once the module is loaded");
  assert.deepEqual(early.merge(other).nodesAdded, [other.activePath()[1]], "and merges");
});

if (full) test("with the full module, import, export and merge work with no initInterchange, which is then a no-op", async () => {
  assert.equal(before.length, 0, `threw: ${before.map((e) => e.message).join("; ")}`);
  assert.deepEqual(early.linearProjection().map((m) => m.content), ["early", "from the other copy"], "merged in place");
  assert.equal(early.save(), other.save());
  await initInterchange(new Uint8Array([1, 2, 3])); // not a module: resolves only because nothing is loaded
});

// methodsOf starts a module's Go program in a fresh Node process and returns
// its call table's names (the bridge's call 0).
async function methodsOf(file) {
  const { execFileSync } = await import("node:child_process");
  const src = `import fs from "node:fs"; import ${JSON.stringify(new URL("../wasm_exec.js", import.meta.url).href)};
    const go = new Go(); const { instance } = await WebAssembly.instantiate(fs.readFileSync(new URL(${JSON.stringify(new URL(file, import.meta.url).href)})), go.importObject);
    go.run(instance); const e = instance.exports; const n = e.st_call(0, 0, 0, 0);
    console.log(new TextDecoder().decode(new Uint8Array(e.mem.buffer, e.st_out(), n))); process.exit(0);`;
  return execFileSync(process.execPath, ["--input-type=module", "-e", src]).toString().trim().split("\n");
}

test("the lean module has no merge, import or export; the full one has them after every lean method, in the same order", { skip: !isNode }, async () => {
  if (!isNode) return;
  const lean = await methodsOf("../sessiontree.wasm");
  const fullNames = await methodsOf("../sessiontree-interchange.wasm");
  for (const name of ["merge", "mergeTree", "import", "importTree", "export", "exportTree"]) {
    assert.ok(!lean.includes(name), `the lean module has ${name}`);
    assert.ok(fullNames.includes(name), `the full module lacks ${name}`);
  }
  assert.ok(lean.includes("replace") && lean.includes("applyOps"), lean.join(" "));
  assert.deepEqual(fullNames.slice(0, lean.length), lean, "a lean call keeps its number in the full module");
});

test("init({ full: true }), the full module's bytes, Module or URL: merge, import and export with no initInterchange, in a fresh Node process", { skip: !isNode }, async () => {
  if (!isNode) return;
  const { execFileSync } = await import("node:child_process");
  const mod = new URL("../sessiontree.js", import.meta.url).href;
  const wasm = new URL("../sessiontree-interchange.wasm", import.meta.url);
  for (const how of ["option", "bytes", "module", "url"]) {
    const src = `import fs from "node:fs"; import { init, initInterchange, SessionTree } from ${JSON.stringify(mod)};
      const w = new URL(${JSON.stringify(wasm.href)}); const b = fs.readFileSync(w); const how = ${JSON.stringify(how)};
      await init(how === "bytes" ? b : how === "module" ? new WebAssembly.Module(b) : how === "url" ? w : { full: true });
      await initInterchange(new Uint8Array([1, 2, 3])); // a no-op: the main module is full
      const a = SessionTree.fromLinear([{ role: "user", content: "ok" }], 1); const c = a.clone(); c.append({ role: "user", content: "more" }, 2);
      a.merge(c); console.log(SessionTree.import(a.export("openai")).tree.linearProjection().map((m) => m.content).join(" "),
        JSON.parse(SessionTree.mergeJSON(a.save(), c.save()).report.changed));`;
    assert.equal(execFileSync(process.execPath, ["--input-type=module", "-e", src]).toString().trim(), "ok more false", how);
  }
  for (const [option, want] of [['{ full: "yes" }', /^invalid_input init: the options must be \{ full: true \} or \{ full: false \} \(/], ['{ ful: true }', /^invalid_input init: the options must be \{ full: true \} or \{ full: false \}, not "ful"/]]) {
    const bad = `import { init } from ${JSON.stringify(mod)};
      try { await init(${option}); console.log("loaded"); } catch (e) { console.log(e.code, e.message); }`;
    const got = execFileSync(process.execPath, ["--input-type=module", "-e", bad]).toString();
    assert.ok(want.test(got), `${option}: ${got}`);
  }
});

test("init({ full: false }) and init({}) load the lean module, as init() does", { skip: !isNode }, async () => {
  if (!isNode) return;
  const { execFileSync } = await import("node:child_process");
  const mod = new URL("../sessiontree.js", import.meta.url).href;
  for (const option of ["{ full: false }", "{}"]) {
    const src = `import { init, SessionTree } from ${JSON.stringify(mod)};
      await init(${option});
      const t = SessionTree.fromLinear([{ role: "user", content: "ok" }], 1);
      try { t.export("openai"); console.log("full"); } catch (e) { console.log(t.linearProjection()[0].content, e.code); }`;
    assert.equal(execFileSync(process.execPath, ["--input-type=module", "-e", src]).toString().trim(), "ok invalid_input", option);
  }
});

test("SessionTree.deltaParts gives a file as deltas that, applied in order, give the file again", () => {
  const t = SessionTree.fromLinear([user("q ü"), bot("a 😀")], 1);
  for (let i = 0; i < 30; i++) t.append(i % 2 ? bot(`answer ${i} ${"x".repeat(100)}`) : user(`question ${i}`), 2 + i);
  t.rewind(t.activePath()[3], 40);
  t.append(user("another way"), 41);
  t.label(t.activePath()[1], "start");
  const file = t.save();
  const parts = SessionTree.deltaParts(file, 500);
  assert.ok(parts.length >= 4, `${parts.length} parts`);
  const copy = SessionTree.fromLinear([], 0);
  const seen = new Set();
  for (const p of parts) {
    const d = JSON.parse(p);
    for (const [id, n] of Object.entries(d.nodes)) {
      assert.ok(n.parent === undefined || seen.has(n.parent) || n.parent in d.nodes, `${id} came before its parent`);
      seen.add(id);
    }
    copy.applyChanges(p, { follow: true });
  }
  assert.equal(copy.save(), file);
  assert.deepEqual(SessionTree.deltaParts(new TextEncoder().encode(file), 1e9).length, 1);
  for (const [args, code] of [[[file, 0], "invalid_input"], [[file, "9"], "invalid_input"], [["{", 100], "corrupt"]]) {
    assert.throws(() => SessionTree.deltaParts(...args), code);
  }
  copy.free(); t.free();
});

test("a second initInterchange is a no-op", async () => {
  await initInterchange();
  await initInterchange(new Uint8Array([1, 2, 3])); // ignored: already loaded
  assert.equal(SessionTree.import("[]", "openai").report.nodes, 0);
});

test("import and export through the interchange module keep the tree", () => {
  const t = SessionTree.fromLinear([user("hello"), bot("hi there")], 1);
  const text = t.export("openai");
  const { tree, report } = SessionTree.import(text, "openai");
  assert.equal(report.format, "openai");
  assert.equal(report.nodes, 2);
  assert.deepEqual(tree.linearProjection().map((m) => m.content), ["hello", "hi there"]);
  assert.equal(SessionTree.import(new TextEncoder().encode(text)).tree.activePath().length, 2, "bytes, format auto");
  assert.ok(t.export("markdown").includes("hi there"));
  assert.throws(() => SessionTree.import("not json at all", "chatgpt"), null);
  assert.throws(() => t.export("nope"), "invalid_input", /nope/);
  assert.throws(() => SessionTree.import("[]", "nope"), "invalid_input", /nope/);
  assert.throws(() => SessionTree.import("[]", ""), "invalid_input", /format/);
  assert.throws(() => SessionTree.import(42, "openai"), "invalid_input", /text/);
  tree.free();
  assert.throws(() => tree.export("openai"), "invalid_input", /freed/);
});

test("a whole tree survives export and import in every format that carries one", () => {
  const t = new SessionTree();
  const a = t.append(user("hi ünï 😀"), 1700000000000);
  t.append(bot("first"), 1700000001000);
  t.rewind(a, 1700000002000);
  t.append(bot("second"), 1700000003000);
  t.branch(a, "__proto__", 1700000004000);
  t.append(bot("third"), 1700000005000);
  t.label(a, "start", 1700000006000);
  t.summarizeBranch("branch-1", "the first answer", "model-x", 1700000007000);
  // Every node field but label_at_ms, the merge clock of a label, which no
  // format carries (like each branch's "used" clock; see core/formats).
  const nodes = (x) => JSON.stringify(JSON.parse(x.save()).nodes, (k, v) => (k === "label_at_ms" ? undefined : v));
  for (const format of ["chatgpt", "openwebui", "librechat", "claudecode", "pi", "sessiontree"]) {
    const { tree, report } = SessionTree.import(t.export(format), "auto");
    assert.equal(report.format, format);
    assert.equal(nodes(tree), nodes(t), `${format}: the nodes come back`);
    assert.deepEqual(tree.branches().map((b) => b.name).sort(), t.branches().map((b) => b.name).sort(), `${format}: every branch`);
    assert.equal(tree.activeBranch, t.activeBranch);
    assert.deepEqual(tree.linearProjection(), t.linearProjection());
    tree.free();
  }
});

test("an import's report lists what it could not read, with its line", () => {
  const text = [
    `{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00Z","cwd":"/"}`,
    `{"type":"message","id":"a","parentId":null,"timestamp":"2026-01-01T00:00:01Z","message":{"role":"user","content":"hi"}}`,
    `{"type":"mess`,
  ].join("\n");
  const { tree, report } = SessionTree.import(text, "pi");
  assert.equal(report.nodes, 1);
  assert.equal(report.problems.length, 1);
  assert.equal(report.problems[0].line, 3);
  assert.deepEqual(tree.linearProjection().map((m) => m.content), ["hi"]);
});

test("1,000 bad imports and exports in a row, then normal use", () => {
  let n = 0;
  const t = SessionTree.fromLinear([user("x")], 1);
  const junk = ["", "{", "[", "null", "{\"mapping\":7}", "\n\n{}\n", "[{\"role\":1}]", "\u0000", "{\"format\":\"sessiontree\"}"];
  for (let i = 0; i < 1000; i++) {
    try {
      SessionTree.import(junk[i % junk.length] + "x".repeat(i % 7), ["auto", "chatgpt", "pi", "codex", "openai", "sessiontree"][i % 6]).tree.free();
    } catch (e) {
      if (!(e instanceof SessionTreeError)) throw e;
      n++;
    }
  }
  assert.ok(n > 500, `${n} of 1000 failed cleanly`);
  assert.equal(SessionTree.import(t.export("openai"), "openai").tree.linearProjection()[0].content, "x");
});

// Over the project's fixtures (core/formats/testdata); make test-corpus runs it
// again with SESSIONTREE_SHARED set, adding the shared sample files.
test("a tree imported through the interchange module is byte-identical (save()) to core/formats' native import", { skip: !isNode }, async () => {
  if (!isNode) return;
  const { execFileSync } = await import("node:child_process");
  const fs = await import("node:fs");
  const path = await import("node:path");
  const repo = new URL("../../", import.meta.url).pathname;
  const dirs = [path.join(repo, "core", "formats", "testdata")];
  if (process.env.SESSIONTREE_SHARED) dirs.push(path.join(process.env.SESSIONTREE_SHARED, "testdata"));
  const files = [];
  for (const dir of dirs) {
    for (const e of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
      const f = path.join(e.parentPath ?? e.path, e.name);
      if (e.isFile() && /\.jsonl?$/.test(e.name) && !f.includes(`${path.sep}fuzz${path.sep}`)) files.push(f);
    }
  }
  assert.ok(files.length >= (process.env.SESSIONTREE_SHARED ? 35 : 20), `found ${files.length} files`);
  const native = execFileSync("go", ["run", "./js/test/nativeimport", ...files], { cwd: repo, maxBuffer: 1 << 28 })
    .toString().trim().split("\n").map((l) => JSON.parse(l));
  assert.equal(native.length, files.length);
  for (const want of native) {
    const { tree, report } = SessionTree.import(fs.readFileSync(want.file), "auto");
    assert.equal(report.format, want.format, want.file);
    assert.equal(report.nodes, want.nodes, want.file);
    if (want.format === "openai") {
      // No ids in the format: each import draws fresh ones, so the messages are compared.
      const native = SessionTree.load(want.tree);
      assert.equal(JSON.stringify(tree.linearProjection()), JSON.stringify(native.linearProjection()), want.file);
      native.free();
    } else {
      assert.ok(tree.save() === want.tree, `${path.basename(want.file)}: save() differs from the native import`);
    }
    tree.free();
  }
});

test("initInterchange takes bytes, a WebAssembly.Module or a URL, and loads beside init, in a fresh Node process", { skip: !isNode }, async () => {
  if (!isNode) return;
  const { execFileSync } = await import("node:child_process");
  const mod = new URL("../sessiontree.js", import.meta.url).href;
  const wasm = new URL("../sessiontree-interchange.wasm", import.meta.url);
  for (const how of ["bytes", "module", "url", "default"]) {
    const src = `import fs from "node:fs"; import { init, initInterchange, SessionTree } from ${JSON.stringify(mod)};
      const w = new URL(${JSON.stringify(wasm.href)}); const b = fs.readFileSync(w); const how = ${JSON.stringify(how)};
      await Promise.all([init(), initInterchange(how === "bytes" ? b : how === "module" ? new WebAssembly.Module(b) : how === "url" ? w : undefined)]);
      const t = SessionTree.fromLinear([{ role: "user", content: "ok" }]);
      console.log(SessionTree.import(t.export("openai")).tree.linearProjection()[0].content);`;
    assert.equal(execFileSync(process.execPath, ["--input-type=module", "-e", src]).toString().trim(), "ok", how);
  }
  const bad = `import { init, initInterchange } from ${JSON.stringify(mod)};
    await init();
    try { await initInterchange(new URL("./sessiontree.wasm", ${JSON.stringify(mod)})); } catch (e) { console.log(e.code, e.message); }`;
  assert.ok(/invalid_input initInterchange: .*sessiontree-interchange\.wasm/.test(execFileSync(process.execPath, ["--input-type=module", "-e", bad]).toString()), "the main module is not taken for the interchange module");
});

test("export with { report: true }: the openai export says what it could not carry; other formats give null", () => {
  const t = SessionTree.fromLinear([
    { role: "user", content: "read it" },
    { role: "assistant", content: [{ type: "thinking", thinking: "hm", signature: "S" }, { type: "tool_use", id: "toolu_1", name: "Read", input: {} }] },
    { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "A" }] },
    { role: "assistant", content: [{ type: "text", text: "done" }] },
  ], 1);
  const { text, report } = t.export("openai", { report: true });
  assert.equal(text, t.export("openai"));
  const messages = JSON.parse(text);
  assert.deepEqual(messages.map((m) => m.role), ["user", "assistant", "tool", "assistant"]);
  assert.equal(report.thinking, 1, "the thinking block is said to be left out");
  assert.equal(report.messages, 4);
  const md = t.export("markdown", { report: true });
  assert.equal(md.report, null);
  assert.equal(md.text, t.export("markdown"));
  assert.throws(() => t.export("openai", { report: "yes" }), "invalid_input");
});
