// sessiontree/ai-sdk (issue 24): UIMessage ↔ tree messages, and useChat's
// messages kept in the tree with nothing lost. Judged by the `ai` package's
// own validateUIMessages (pinned in .tools). Node and Chromium, both flavours.
import { test, assert, mainSource } from "./harness.js";
import { init, initInterchange, SessionTree } from "../sessiontree.js";
import { fromUIMessage, toUIMessages, syncChat } from "../ai-sdk.js";
import { validateUIMessages } from "./judges.js";

await init(mainSource);
await initInterchange();

// Every part a UIMessage has, as useChat holds them after a finished stream.
const user = (id, text) => ({ id, role: "user", parts: [{ type: "text", text }] });
const chat = () => [
  { id: "s1", role: "system", parts: [{ type: "text", text: "be brief" }] },
  { id: "u1", role: "user", metadata: { at: 1 }, parts: [{ type: "text", text: "weather in Oslo? ünï \"q\"" }, { type: "file", mediaType: "image/png", filename: "a.png", url: "data:image/png;base64,AA==" }] },
  {
    id: "a1", role: "assistant", metadata: { model: "m", usage: { in: 3 } }, parts: [
      { type: "step-start" },
      { type: "reasoning", text: "look it up", state: "done", providerMetadata: { anthropic: { signature: "sig" } } },
      { type: "tool-weather", toolCallId: "c1", state: "output-available", input: { city: "Oslo" }, output: { t: 3 } },
      { type: "dynamic-tool", toolName: "search", toolCallId: "c2", state: "output-error", input: { q: "x" }, errorText: "down" },
      { type: "tool-ask", toolCallId: "c3", state: "output-denied", input: {}, approval: { id: "p1", approved: false, reason: "no" } },
      { type: "source-url", sourceId: "s", url: "https://example.org/w", title: "W" },
      { type: "source-document", sourceId: "d", mediaType: "application/pdf", title: "D" },
      { type: "data-weather", id: "w1", data: { t: 3 } },
      { type: "step-start" },
      { type: "text", text: "3 °C", state: "done" },
    ],
  },
];

// withIds: the UIMessages with the ids the tree gave them.
const withIds = (msgs, ids) => msgs.map((m, i) => ({ ...m, id: ids[i] }));

async function valid(messages) {
  const out = await validateUIMessages({ messages });
  assert.equal(out.length, messages.length);
}

test("a chat's UIMessages go into the tree and come back the same, ids = node ids, and validate", async () => {
  const t = new SessionTree();
  const msgs = chat();
  const r = syncChat(t, msgs, { atMs: 1 });
  assert.ok(r.changed);
  assert.equal(r.added.length, 3);
  assert.deepEqual(r.added, t.activePath());
  assert.deepEqual(r.messages, withIds(msgs, r.added));
  assert.deepEqual(toUIMessages(t), r.messages);
  await valid(r.messages);
  // Stored as the UIMessage without its id; core/chat reads its parts.
  assert.deepEqual(t.node(r.added[0]).message, { role: "system", parts: [{ type: "text", text: "be brief" }] });
  assert.equal(t.search("Oslo").length, 1);
  const { request } = t.projectFor("openai-chat");
  const sent = JSON.stringify(request.messages);
  assert.ok(sent.includes('"weather"') && sent.includes('"tool_call_id":"c1"') && sent.includes("3 °C"), sent);
  t.free();
});

test("the same messages again change nothing; the handed-back copies are not the tree's frozen ones", () => {
  const t = new SessionTree();
  const { messages } = syncChat(t, chat(), { atMs: 1 });
  const v = t.version;
  const again = syncChat(t, messages, { atMs: 2 });
  assert.equal(again.changed, false);
  assert.equal(t.version, v);
  assert.deepEqual(again.messages, messages);
  messages[2].parts[2].state = "output-available"; // useChat may change what it holds
  assert.ok(!Object.isFrozen(messages[2].parts[2]));
  t.free();
});

test("syncChat of messages the tree holds already hands back the caller's own array (changed: false): a state set to it stays the same, an effect syncing on status \"ready\" runs once", () => {
  const t = new SessionTree();
  const first = syncChat(t, chat(), { atMs: 1 });
  const again = syncChat(t, first.messages, { atMs: 2 });
  assert.equal(again.changed, false);
  assert.ok(again.messages === first.messages, "a new array for the same messages: a state set to it changes, an effect on it runs again");
  const copy = first.messages.map((m) => structuredClone(m)); // the same messages in another array
  assert.ok(syncChat(t, copy).messages === copy);
  // Changed: a new array, and syncing that one is a no-op again.
  const more = syncChat(t, [...first.messages, user("u9", "more")], { atMs: 3 });
  assert.ok(more.changed);
  assert.ok(syncChat(t, more.messages).messages === more.messages);
  t.free();
});

test("regenerate in useChat becomes t.regenerate: both replies stay, siblings of each other", async () => {
  const t = new SessionTree();
  let { messages } = syncChat(t, [user("x", "hi"), { id: "y", role: "assistant", parts: [{ type: "text", text: "first" }] }], { atMs: 1 });
  const first = messages[1].id;
  // useChat's regenerate(): the last reply goes, a new one streams in with a new id.
  ({ messages } = syncChat(t, [messages[0], { id: "z", role: "assistant", parts: [{ type: "text", text: "second" }] }], { atMs: 2 }));
  const second = messages[1].id;
  assert.ok(second !== first);
  assert.deepEqual(t.siblings(second), { siblings: [first, second], index: 1 });
  assert.deepEqual(messages.map((m) => m.parts[0].text), ["hi", "second"]);
  assert.equal(t.stats().nodes, 3);
  const other = t.branches().find((b) => b.leaf === first);
  assert.ok(other, "the first reply is on no branch");
  assert.deepEqual(toUIMessages(t, { branch: other.name }).map((m) => m.parts[0].text), ["hi", "first"]);
  await valid(messages);
  t.free();
});

test("an edit of a user message (useChat's sendMessage with messageId) becomes t.edit: the old turn and its reply stay on their branch", async () => {
  const t = new SessionTree();
  let { messages } = syncChat(t, [user("a", "q1"), { id: "b", role: "assistant", parts: [{ type: "text", text: "r1" }] },
    user("c", "q2"), { id: "d", role: "assistant", parts: [{ type: "text", text: "r2" }] }], { atMs: 1 });
  const old = messages.map((m) => m.id);
  // Same id, new text, what followed dropped, then a new reply.
  const edited = [messages[0], messages[1], { ...messages[2], parts: [{ type: "text", text: "q2 again" }] }, { id: "e", role: "assistant", parts: [{ type: "text", text: "r2'" }] }];
  ({ messages } = syncChat(t, edited, { atMs: 2 }));
  assert.deepEqual(messages.slice(0, 2).map((m) => m.id), old.slice(0, 2));
  assert.ok(messages[2].id !== old[2]);
  assert.deepEqual(t.siblings(messages[2].id).siblings, [old[2], messages[2].id]);
  assert.equal(t.stats().nodes, 6);
  const kept = t.branches().find((b) => b.leaf === old[3]);
  assert.deepEqual(t.pathOf(kept.name), old);
  await valid(messages);
  t.free();
});

test("messages dropped in useChat move the active branch back (t.rewind); they stay on a branch", () => {
  const t = new SessionTree();
  const { messages } = syncChat(t, chat(), { atMs: 1 });
  const r = syncChat(t, messages.slice(0, 1), { atMs: 2 });
  assert.ok(r.changed);
  assert.deepEqual(r.added, []);
  assert.deepEqual(t.activePath(), [messages[0].id]);
  assert.ok(t.branches().some((b) => b.leaf === messages[2].id));
  t.free();
});

test("a tool result that came later changes the reply in useChat: a new sibling, the waiting call kept", () => {
  const t = new SessionTree();
  const waiting = { id: "a", role: "assistant", parts: [{ type: "tool-f", toolCallId: "c", state: "input-available", input: { n: 1 } }] };
  const { messages } = syncChat(t, [user("u", "go"), waiting], { atMs: 1 });
  const done = structuredClone(messages[1]);
  Object.assign(done.parts[0], { state: "output-available", output: 2 });
  const r = syncChat(t, [messages[0], done], { atMs: 2 });
  assert.equal(r.added.length, 1);
  assert.equal(t.siblings(r.added[0]).siblings.length, 2);
  assert.equal(r.messages[1].parts[0].output, 2);
  t.free();
});

test("random useChat sessions: the tree follows useChat, never loses a node, and every path validates", async () => {
  for (let seed = 1; seed <= 25; seed++) {
    let s = seed;
    const rnd = (n) => { s = (s * 1103515245 + 12345) % 2147483648; return s % n; };
    const t = new SessionTree();
    let msgs = [];
    let nodes = 0, k = 0;
    try {
      for (let step = 0; step < 30; step++) {
        const next = msgs.slice();
        const op = rnd(4);
        const say = (role) => ({ id: `m${k++}`, role, parts: role === "assistant" && rnd(3) === 0
          ? [{ type: "step-start" }, { type: `tool-t${rnd(3)}`, toolCallId: `c${k}`, state: "output-available", input: { k }, output: `o${k}` }, { type: "text", text: `r${k}` }]
          : [{ type: "text", text: `${role} ${k}` }] });
        if (op === 0 || next.length < 2) next.push(say("user"), say("assistant"));
        else if (op === 1) next.splice(next.length - 1, 1, say("assistant")); // regenerate
        else if (op === 2) { // edit a user message and reply again
          const at = 2 * rnd(next.length >> 1);
          next.splice(at, next.length - at, { ...next[at], parts: [{ type: "text", text: `edit ${k++}` }] }, say("assistant"));
        } else next.splice(Math.max(1, next.length - 2)); // dropped
        const r = syncChat(t, next, { atMs: step });
        const view = toUIMessages(t);
        assert.deepEqual(view, r.messages);
        assert.deepEqual(view.map(fromUIMessage), next.map(fromUIMessage), `seed ${seed} step ${step}: the path is not what useChat shows`);
        assert.ok(t.stats().nodes >= nodes, `seed ${seed}: a node was lost`);
        nodes = t.stats().nodes;
        assert.deepEqual(t.validate(), []);
        await valid(view);
        msgs = r.messages;
      }
    } finally {
      t.free();
    }
  }
});

test("a path of other shapes (OpenAI tool calls, Anthropic blocks) converts in Go: calls meet their results, and it validates", async () => {
  const t = SessionTree.fromLinear([
    { role: "system", content: "" },
    { role: "user", content: [{ type: "text", text: "look" }, { type: "image_url", image_url: { url: "https://x/y.png" } }] },
    { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "get", arguments: "{\"a\":1}" } }] },
    { role: "tool", tool_call_id: "c1", content: "42" },
    { role: "assistant", content: [{ type: "thinking", thinking: "so", signature: "s" }, { type: "text", text: "it is 42" }, { type: "tool_use", id: "c2", name: "more", input: {} }] },
    { role: "user", content: [{ type: "tool_result", tool_use_id: "c2", content: "done", is_error: true }] },
    { role: "assistant", content: "" },
  ], 1);
  const ids = t.activePath();
  const view = toUIMessages(t);
  await valid(view);
  assert.deepEqual(view.map((m) => m.id), [ids[0], ids[1], ids[2], ids[4], ids[6]], "a results-only message is folded into its call");
  assert.deepEqual(view[0].parts, [{ type: "text", text: "" }]);
  assert.deepEqual(view[1].parts[1], { type: "file", mediaType: "image/png", url: "https://x/y.png" });
  assert.deepEqual(view[2].parts, [{ type: "tool-get", toolCallId: "c1", state: "output-available", input: { a: 1 }, output: "42" }]);
  assert.deepEqual(view[3].parts, [{ type: "reasoning", text: "so" }, { type: "text", text: "it is 42" },
    { type: "tool-more", toolCallId: "c2", state: "output-error", input: {}, errorText: "done" }]);
  assert.deepEqual(view[4].parts, []);
  // syncChat on such a path: it recognises its own view and appends after.
  const r = syncChat(t, [...view, user("n", "next")], { atMs: 2 });
  assert.deepEqual(r.added.length, 1);
  assert.equal(t.node(r.added[0]).parent, ids[6]);
  t.free();
});

test("the JS mapping and Go's ai-sdk export agree, and an import of the export gives the path back with its ids", async () => {
  const t = new SessionTree();
  syncChat(t, chat(), { atMs: 1 });
  t.append({ role: "user", content: "plain" }, 2);
  t.append({ role: "assistant", content: "" }, 3);
  const js = toUIMessages(t);
  assert.deepEqual(JSON.parse(t.export("ai-sdk")), js);
  await valid(js);
  const { tree, report } = SessionTree.import(JSON.stringify(js), "ai-sdk");
  assert.equal(report.format, "ai-sdk");
  assert.deepEqual(toUIMessages(tree), js);
  assert.deepEqual(tree.activePath(), t.activePath());
  assert.equal(SessionTree.import(JSON.stringify(js), "auto").report.format, "ai-sdk");
  tree.free();
  t.free();
});

test("a text's spaces and newlines at its ends are kept, whichever mapping a path takes", () => {
  // A path of plain messages maps in JS; one message of another shape (an
  // OpenAI tool call) sends the whole path through Go's export, which trimmed
  // every text until Dec 6 (night): syncChat then took the copy useChat held for a
  // changed message and forked it.
  const t = new SessionTree();
  const texts = ["  two spaces both ends  \n", "\n\nindented\n  code\n\n", " "];
  for (const [i, text] of texts.entries()) t.append({ role: i % 2 ? "assistant" : "user", content: text }, i + 1);
  const held = toUIMessages(t);
  assert.deepEqual(held.map((m) => m.parts[0].text), texts);
  t.append({ role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "{}" } }] }, 9);
  const now = toUIMessages(t);
  assert.deepEqual(now.slice(0, 3).map((m) => m.parts[0].text), texts);
  const nodes = t.stats().nodes;
  const r = syncChat(t, [...held, ...now.slice(3)], { atMs: 10 });
  assert.equal(r.changed, false, "a message held as it was handed out was taken for a change");
  assert.equal(t.stats().nodes, nodes);
  assert.deepEqual(t.branches().map((b) => b.name), ["main"]);
  t.free();
});

test("bad input is refused with a sentence before anything changes", () => {
  const t = new SessionTree();
  assert.throws(() => fromUIMessage({ id: "x", role: "tool", parts: [] }), "invalid_input", /"role" of UIMessage "x" must be "system", "user" or "assistant"/);
  assert.throws(() => fromUIMessage({ id: "x", role: "user" }), "invalid_input", /"parts" of UIMessage "x" must be an array/);
  assert.throws(() => toUIMessages({}), "invalid_input", /"tree" must be a SessionTree/);
  assert.throws(() => toUIMessages(t, { branch: "" }), "invalid_input", /"branch" must be a non-empty string/);
  assert.throws(() => syncChat(t, [user("a", "x"), { id: "b", role: "user" }]), "invalid_input", /"parts"/);
  assert.equal(t.stats().nodes, 0, "a refused sync changed the tree");
  assert.deepEqual(toUIMessages(t), []);
  assert.throws(() => syncChat(t, "x"), "invalid_input", /"messages" must be an array/);
  // What JSON cannot write (a BigInt, a cycle), in a message or in an id of a
  // refused one: invalid_input, never JSON.stringify's TypeError.
  const cyclic = { type: "data-x", data: {} };
  cyclic.data.self = cyclic;
  syncChat(t, [user("a", "first")]);
  const before = t.save();
  const a = toUIMessages(t)[0].id;
  for (const parts of [[{ type: "data-n", data: 10n }], [cyclic]]) {
    assert.throws(() => syncChat(t, [toUIMessages(t)[0], { id: "b", role: "user", parts }]), "invalid_input", /cannot be written as JSON/);
    assert.throws(() => syncChat(t, [{ id: a, role: "user", parts }]), "invalid_input", new RegExp(`UIMessage "${a}" cannot be written as JSON`));
    assert.equal(t.save(), before, "a refused sync changed the tree");
  }
  assert.throws(() => fromUIMessage({ id: 10n, role: "tool", parts: [] }), "invalid_input", /"role" of UIMessage bigint must be/);
  t.free();
});
