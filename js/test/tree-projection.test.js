// Projections of a tree into model API requests (t.projectFor, core/provider)
// through the full module or the interchange helper. Runs under `node --test`
// and, unchanged, in headless Chromium (browser.mjs); see harness.js.
import { test, assert, isNode, full, mainSource } from "./harness.js";
import { init, initInterchange, SessionTree } from "../sessiontree.js";

await init(mainSource);
let before = null;
try {
  SessionTree.fromLinear([{ role: "user", content: "x" }], 1).projectFor("openai-chat");
} catch (e) {
  before = e;
}
await initInterchange();

// A Claude Code session: thinking, two parallel tool calls on two lines,
// their results, a system line no model sees, the answer.
const claude = [
  { role: "user", content: "read both" },
  { role: "assistant", content: [{ type: "thinking", thinking: "two files", signature: "SIG" }, { type: "tool_use", id: "toolu_1", name: "Read", input: { p: "a" } }] },
  { role: "assistant", content: [{ type: "tool_use", id: "toolu_2", name: "Read", input: { p: "b" } }] },
  { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "A" }] },
  { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_2", content: "B" }] },
  { role: "system", content: "", claudecode: { type: "system", subtype: "turn_duration" } },
  { role: "assistant", content: [{ type: "text", text: "A and B." }] },
];

if (isNode && !full) test("projectFor before initInterchange throws a sentence saying to await initInterchange()", () => {
  assert.ok(before, "it threw");
  assert.equal(before.code, "invalid_input");
  assert.ok(/^t\.projectFor needs the interchange module/.test(before.message), before.message);
});

test("projectFor anthropic: system, merged tool_use, tool_result blocks after them, tools defined", () => {
  const t = SessionTree.fromLinear(claude, 1);
  const { request, report } = t.projectFor("anthropic");
  assert.deepEqual(Object.keys(request), ["messages", "tools"]);
  assert.equal(request.messages.length, 4);
  assert.deepEqual(request.messages.map((m) => m.role), ["user", "assistant", "user", "assistant"]);
  assert.deepEqual(request.messages[1].content.map((b) => b.type), ["thinking", "tool_use", "tool_use"]);
  assert.deepEqual(request.messages[2].content.map((b) => b.tool_use_id), ["toolu_1", "toolu_2"]);
  assert.deepEqual(request.tools.map((x) => x.name), ["Read"]);
  assert.equal(report.messages, 7);
  assert.equal(report.sent, 4);
  assert.equal(report.dropped, 1);
  assert.deepEqual(report.orphanCalls, []);
  const bare = t.projectFor("anthropic", { thinking: false });
  assert.deepEqual(bare.request.messages[1].content.map((b) => b.type), ["tool_use", "tool_use"]);
  assert.equal(bare.report.thinking, 1);
  t.free();
});

test("a budgeted request names only the orphan calls it writes as text, not those of the messages it left out", () => {
  const long = "words ".repeat(400);
  const msgs = [{ role: "user", content: "start" }];
  for (let i = 0; i < 40; i++) {
    msgs.push({ role: "assistant", content: [{ type: "tool_use", id: `toolu_${i}`, name: "Bash", input: { c: long } }] }); // no result follows
    msgs.push({ role: "user", content: `question ${i} ${long}` });
  }
  msgs.push({ role: "assistant", content: "done" });
  const t = SessionTree.fromLinear(msgs, 1);
  const all = t.projectFor("openai-chat").report;
  assert.equal(all.orphanCalls.length, 40);
  const { request, report } = t.projectFor("openai-chat", { budget: 4000 });
  assert.ok(report.budgetDropped > 0 && report.orphanCalls.length > 0 && report.orphanCalls.length < 40, JSON.stringify(report));
  const written = JSON.stringify(request).split("[tool call ").length - 1;
  assert.equal(report.orphanCalls.length, written);
  assert.deepEqual(report.orphanCalls, all.orphanCalls.slice(40 - written));
  t.free();
});

test("projectFor openai-chat and openai-responses: tool messages and items pair with their calls", () => {
  const t = SessionTree.fromLinear(claude, 1);
  const chat = t.projectFor("openai-chat").request;
  assert.deepEqual(Object.keys(chat), ["messages"]);
  assert.deepEqual(chat.messages.map((m) => m.role), ["user", "assistant", "tool", "tool", "assistant"]);
  assert.deepEqual(chat.messages[1].tool_calls.map((c) => c.id), ["toolu_1", "toolu_2"]);
  assert.equal(chat.messages[1].tool_calls[0].function.arguments, '{"p":"a"}');
  const res = t.projectFor("openai-responses").request;
  assert.deepEqual(Object.keys(res), ["input"]);
  assert.deepEqual(res.input.map((i) => i.type), ["message", "function_call", "function_call", "function_call_output", "function_call_output", "message"]);
  t.free();
});

test("projectFor keeps the budget, never splits a call from its result, and notes the other branches' summaries", () => {
  const t = new SessionTree();
  let fork = "";
  for (let i = 0; i < 8; i++) {
    const id = t.append({ role: "user", content: `question ${i} ${"q".repeat(400)}` }, i + 1);
    if (i === 1) fork = id;
    t.append({ role: "assistant", content: null, tool_calls: [{ id: `c${i}`, type: "function", function: { name: "f", arguments: "{}" } }] }, i + 1);
    t.append({ role: "tool", tool_call_id: `c${i}`, content: "r".repeat(400) }, i + 1);
  }
  t.branch(fork, "idea", 20);
  t.summarizeBranch("idea", "tried another way", "m", 21);
  t.switchBranch("main");
  const { request, report } = t.projectFor("openai-chat", { budget: 600 });
  assert.ok(report.budgetDropped > 0 && report.tokens <= 600 && !report.overBudget, JSON.stringify(report));
  assert.ok(/idea: tried another way/.test(request.messages[0].content), request.messages[0].content);
  assert.deepEqual(report.summarized, ["idea"], "the report names the summaries that stood in");
  assert.equal(report.unsummarized, 0);
  assert.ok(!/no summary/.test(request.messages[0].content), "the note says nothing of branches without a summary");
  const ids = new Set(request.messages.filter((m) => m.role === "tool").map((m) => m.tool_call_id));
  for (const m of request.messages) for (const c of m.tool_calls ?? []) assert.ok(ids.has(c.id), `call ${c.id} kept without its result`);
  const idea = t.projectFor("anthropic", { branch: "idea" });
  assert.equal(idea.request.messages.length, 3);
  t.free();
});

// What a chat client does: the user's turn, a request, the reply, again and
// again, with forks, summaries and tool calls. The full module answers from
// the live tree, converting only what changed since the last request; the
// lean module hands the helper the saved tree. Each request must be the one
// a fresh copy of the tree (every message converted anew) gives.
test("projectFor as a chat grows is what a fresh copy projects, lean and full alike", () => {
  const t = new SessionTree();
  const apis = ["openai-chat", "openai-responses", "anthropic"];
  let seed = 7;
  const rand = (n) => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n; };
  const path = [];
  for (let i = 0; i < 240; i++) {
    const k = rand(10);
    let msg;
    if (k < 4) msg = { role: "user", content: `turn ${i} ` + "u".repeat(rand(600)) };
    else if (k < 6) msg = { role: "assistant", content: null, tool_calls: [{ id: `c${i}`, type: "function", function: { name: "f", arguments: "{}" } }] };
    else if (k < 7) msg = { role: "tool", tool_call_id: `c${i - 1}`, content: "r".repeat(rand(900)) };
    else if (k < 8) msg = { role: "system", content: `note ${i}` };
    else msg = { role: "assistant", content: `reply ${i} ` + "a".repeat(rand(600)) };
    path.push(t.append(msg, i + 1));
    if (i % 50 === 49) t.rewind(path[path.length - 1 - rand(20)], i + 1); // a fork
    if (i % 70 === 69) t.summarizeBranch(t.branches()[rand(t.branches().length)].name, `summary ${i}`, "m", i + 1);
    if (i % 90 === 89) { // the user goes back to an older line, and drops another
      const names = t.branches().map((b) => b.name).filter((n) => n !== t.activeBranch);
      t.switchBranch(names[rand(names.length)]);
      const rest = t.branches().map((b) => b.name).filter((n) => n !== t.activeBranch);
      if (rest.length > 1) t.deleteBranch(rest[rand(rest.length)], i + 1);
    }
    if (i % 3 === 0) {
      const api = apis[rand(3)];
      const options = [{}, { budget: 300 }, { budget: 2000 }, { budget: 9000, thinking: false }][rand(4)];
      const got = t.projectFor(api, options);
      const copy = SessionTree.load(t.save());
      const want = copy.projectFor(api, options);
      copy.free();
      assert.deepEqual(got, want, `request ${i} (${api}, ${JSON.stringify(options)})`);
    }
  }
  t.free();
});

// A chat resends the same prefix at every turn: the messages of a request
// are frozen objects, and the next request hands back the same objects for
// the messages it keeps (nothing of them written or parsed again), lean and
// full alike; a message the tree's memo does not keep (the budget's note) is
// a new object each time.
test("projectFor hands back the same frozen message objects for what the last request held", () => {
  const t = new SessionTree();
  for (let i = 0; i < 300; i++) t.append({ role: i % 2 ? "assistant" : "user", content: `turn ${i} `.repeat(30) }, i + 1);
  for (const api of ["openai-chat", "openai-responses", "anthropic"]) {
    // Anthropic: its messages' content blocks (the note is the system field there).
    const list = (r) => (api === "openai-chat" ? r.request.messages : api === "anthropic" ? [{ role: "system" }, ...r.request.messages.flatMap((m) => m.content)] : r.request.input);
    const a = t.projectFor(api, { budget: 8000 });
    const b = t.projectFor(api, { budget: 8000 });
    assert.deepEqual(b, a);
    const la = list(a), lb = list(b);
    assert.ok(la.length > 20 && la.length < 300, `the budget kept ${la.length}`);
    assert.ok(Object.isFrozen(lb[5]) && Object.isFrozen(lb.at(-1)), "the messages are frozen");
    if (api !== "anthropic") assert.ok(lb[0] !== la[0] && lb[0].role === "system", "the budget's note is made for each request");
    for (let i = 1; i < la.length - 1; i++) assert.equal(lb[i], la[i], `message ${i} was made again`);
    t.append({ role: "user", content: "one more" }, 1000);
    const c = list(t.projectFor(api, { budget: 8000 }));
    const copy = SessionTree.load(t.save());
    assert.deepEqual(c, list(copy.projectFor(api, { budget: 8000 })), "the reused messages are the request a fresh copy makes");
    copy.free();
    const kept = new Set(lb);
    const reused = c.filter((m) => kept.has(m)).length;
    assert.ok(reused >= c.length - 3, `only ${reused} of ${c.length} messages reused after an append`);
    let refused = null;
    try {
      c[c.length - 1].content = "changed";
    } catch (e) {
      refused = e;
    }
    assert.ok(refused instanceof TypeError, "a message of a request could be changed");
    if (api === "anthropic") assert.ok(Object.isFrozen(c[2]) && !Object.isFrozen(t.projectFor(api, { budget: 8000 }).request.messages[1]), "content blocks frozen, the messages around them new");
  }
  t.free();
});

test("projectFor reads what SessionTree.import reads: a pi session projects for every API", () => {
  const pi = [
    { type: "session", version: 3, id: "s", timestamp: "2026-02-01T00:00:00Z", cwd: "/p" },
    { type: "message", id: "m1", parentId: null, timestamp: "2026-02-01T00:00:01Z", message: { role: "user", content: [{ type: "text", text: "List files" }] } },
    { type: "message", id: "m2", parentId: "m1", timestamp: "2026-02-01T00:00:02Z", message: { role: "assistant", content: [{ type: "toolCall", id: "tc1", name: "exec", arguments: { command: "ls" } }] } },
    { type: "message", id: "m3", parentId: "m2", timestamp: "2026-02-01T00:00:03Z", message: { role: "toolResult", toolCallId: "tc1", toolName: "exec", content: [{ type: "text", text: "a.go" }], isError: false } },
  ].map((l) => JSON.stringify(l)).join("\n");
  const { tree } = SessionTree.import(pi, "pi");
  const a = tree.projectFor("anthropic").request;
  assert.deepEqual(a.messages[1].content, [{ type: "tool_use", id: "tc1", name: "exec", input: { command: "ls" } }]);
  assert.deepEqual(a.messages[2].content, [{ type: "tool_result", tool_use_id: "tc1", content: "a.go" }]);
  const c = tree.projectFor("openai-chat").request;
  assert.deepEqual(c.messages[2], { role: "tool", tool_call_id: "tc1", content: "a.go" });
  assert.ok(!JSON.stringify(c).includes('"pi"'), "import fields are stripped");
  tree.free();
});

test("projectFor refuses an unknown API, a bad budget and an unknown branch with sentences", () => {
  const t = SessionTree.fromLinear([{ role: "user", content: "x" }], 1);
  assert.throws(() => t.projectFor("gemini"), "invalid_input", /"api" must be "openai-chat", "openai-responses" or "anthropic"/);
  assert.throws(() => t.projectFor("anthropic", { budget: -1 }), "invalid_input", /"budget" must be a whole number/);
  assert.throws(() => t.projectFor("anthropic", { budget: 1.5 }), "invalid_input", /"budget"/);
  assert.throws(() => t.projectFor("anthropic", { branch: "" }), "invalid_input", /"branch" must be a non-empty string/);
  assert.throws(() => t.projectFor("anthropic", { thinking: "no" }), "invalid_input", /"thinking" must be true or false/);
  assert.throws(() => t.projectFor("anthropic", { branch: "nope" }), "branch_not_found");
  t.free();
});

test("projectFor with upTo is the request of a copy rewound there (regenerate) and refuses a node off the path", () => {
  const t = new SessionTree();
  const ids = [];
  for (let i = 0; i < 60; i++) ids.push(t.append({ role: i % 2 ? "assistant" : "user", content: `turn ${i} `.repeat(20) }, i + 1));
  for (const budget of [undefined, 300, 5000]) {
    for (const at of [0, 10, 31, 58, 59]) {
      const copy = t.clone();
      if (at !== 59) copy.rewind(ids[at], 100);
      const want = copy.projectFor("openai-chat", { budget });
      copy.free();
      const got = t.projectFor("openai-chat", { budget, upTo: ids[at] });
      assert.deepEqual(got.request, want.request, `up to ${at}, budget ${budget}`);
      assert.equal(got.report.budgetDropped, want.report.budgetDropped);
    }
  }
  t.rewind(ids[10], 200);
  const other = t.append({ role: "assistant", content: "another way" }, 201);
  t.switchBranch(t.branches().find((b) => b.name !== t.activeBranch).name); // the old line
  assert.throws(() => t.projectFor("openai-chat", { upTo: other }), "invalid_input");
  assert.throws(() => t.projectFor("openai-chat", { upTo: 5 }), "invalid_input");
});
