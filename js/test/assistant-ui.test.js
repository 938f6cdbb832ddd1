// sessiontree/assistant-ui (issue 24): a ThreadHistoryAdapter on the tree,
// judged by assistant-ui's own MessageRepository (pinned in .tools): it imports
// what load() gives and exports the same tree, head and branches. Node and
// Chromium, both flavours.
import { test, assert, mainSource, isNode } from "./harness.js";
import { init, initInterchange, SessionTree } from "../sessiontree.js";
import { historyAdapter, toRepository, fromThreadMessage } from "../assistant-ui.js";
import { toUIMessages, syncChat } from "../ai-sdk.js";
import { MessageRepository, fromThreadMessageLike, validateUIMessages } from "./judges.js";

await init(mainSource);
await initInterchange();

// assistant-ui's LocalThreadRuntimeCore, what useLocalRuntime runs: under Node
// from the pinned package; the browser page's judges bundle holds only the
// MessageRepository, so the runs that drive the runtime itself are Node's.
const LocalThreadRuntimeCore = isNode
  ? (await import(new URL("../../.tools/node_modules/@assistant-ui/core/dist/internal.js", import.meta.url).href)).LocalThreadRuntimeCore
  : null;

// plain: a repository's items as JSON (Dates as ISO strings), for comparing.
const plain = (repo) => JSON.parse(JSON.stringify(repo));

const say = (i) => ({ role: i % 2 ? "assistant" : "user", content: `turn ${i} ünï "q"` });

// randomTree grows a tree with appends, rewinds, edits and regenerations.
function randomTree(seed) {
  let s = seed;
  const rnd = (n) => { s = (s * 1103515245 + 12345) % 2147483648; return s % n; };
  const t = new SessionTree();
  const ids = [];
  for (let i = 0; i < 5 + rnd(30); i++) {
    const k = rnd(10);
    if (k < 5 || ids.length === 0) ids.push(t.append(say(i), 1000 + i));
    else if (k < 7) t.rewind(ids[rnd(ids.length)], 1000 + i);
    else if (k < 9) ids.push(t.edit(ids[rnd(ids.length)], say(i), 1000 + i));
    else ids.push(t.regenerate(ids[rnd(ids.length)], { role: "assistant", content: [{ type: "reasoning", text: "r" }, { type: "text", text: `alt ${i}` }] }, 1000 + i));
  }
  return t;
}

// judge: assistant-ui's MessageRepository takes the tree (what load() gives:
// toRepository(t); a runtime's load() would also tell the adapters of t that
// the runtime knows every node by its own id, so the judges read it directly).
async function judge(t) {
  const loaded = toRepository(t);
  const repo = new MessageRepository();
  repo.import(loaded);
  const back = repo.export();
  assert.deepEqual(plain(back), plain(loaded), "MessageRepository.export() is not what it imported");
  assert.deepEqual(repo.getMessages().map((m) => m.id), t.activePath(), "the head's path is not the active path");
  for (const { message } of loaded.messages) {
    assert.deepEqual(repo.getBranches(message.id), t.siblings(message.id).siblings, `the branch picker of ${message.id}`);
  }
  return { loaded, repo };
}

test("MessageRepository imports what load() gives and exports it back: head = active leaf, branches = siblings (random trees)", async () => {
  for (let seed = 1; seed <= 40; seed++) {
    const t = randomTree(seed);
    try {
      const { loaded } = await judge(t);
      assert.deepEqual(plain(await historyAdapter(t).load()), plain(loaded), `seed ${seed}: load() is toRepository(t)`);
      assert.equal(loaded.messages.length, t.stats().nodes, `seed ${seed}: every node is a message`);
      assert.ok(loaded.messages.every(({ message }) => message.createdAt instanceof Date && Array.isArray(message.content)));
    } finally {
      t.free();
    }
  }
});

test("append stores each message under its parent: a reload and an edit are new siblings, nothing is lost, and load() gives the runtime's tree back", async () => {
  const t = new SessionTree();
  const history = historyAdapter(t);
  const repo = new MessageRepository(); // what the runtime holds
  let n = 0;
  const msg = (role, text) => ({
    id: `aui-${++n}`, role, content: [{ type: "text", text }], createdAt: new Date(1700000000000 + n),
    metadata: { unstable_state: null, unstable_annotations: [], unstable_data: [], steps: [], custom: { n } },
    ...(role === "assistant" ? { status: { type: "complete", reason: "stop" } } : { attachments: [] }),
  });
  const add = async (parentId, m) => { repo.addOrUpdateMessage(parentId, m); await history.append({ parentId, message: m }); };
  const u1 = msg("user", "hi"), a1 = msg("assistant", "hello");
  await add(null, u1); await add(u1.id, a1);
  const a2 = msg("assistant", "hello again"); // reload: another reply to u1
  await add(u1.id, a2);
  const u2 = msg("user", "hi there"); // an edit of u1: another first message
  await add(null, u2);
  const u3 = msg("user", "more"); // continue under a1, on the first branch
  await add(a1.id, u3);
  assert.equal(t.stats().nodes, 5);
  const loaded = await history.load();
  const fresh = new MessageRepository();
  fresh.import(loaded);
  const byNode = new Map(loaded.messages.map(({ message }) => [message.id, message]));
  // The same tree as the runtime's, by content, with the tree's ids.
  const shape = (items, text) => items.map(({ message, parentId }) => [text(message), parentId === null ? null : text(byNode.get(parentId) ?? repo.getMessage(parentId).message)]).sort();
  const text = (m) => m.content[0].text;
  assert.deepEqual(shape(fresh.export().messages, text), shape(repo.export().messages.map(({ message, parentId }) => ({ message, parentId })), (m) => m.content[0].text));
  assert.deepEqual(fresh.getMessages().map(text), ["hi", "hello", "more"], "the head is the last message appended");
  const [first] = loaded.messages;
  assert.equal(fresh.getBranches(first.message.id).length, 2, "u1 and its edit are siblings");
  // A stored ThreadMessage comes back with its own fields.
  const back = fresh.getMessages()[2];
  assert.deepEqual(plain(back), plain({ ...u3, id: back.id }));
  await judge(t);
  // The same message again (a retried write) is stored once.
  await history.append({ parentId: a1.id, message: u3 });
  assert.equal(t.stats().nodes, 5);
  t.free();
});

test("an AI SDK UIMessage and a plain message load as ThreadMessages assistant-ui takes", async () => {
  const t = new SessionTree();
  t.append({ role: "user", content: "plain" }, 1);
  t.append({ role: "assistant", parts: [{ type: "reasoning", text: "so" }, { type: "tool-get", toolCallId: "c", state: "output-available", input: { a: 1 }, output: 2 }, { type: "text", text: "two" }] }, 2);
  const { repo } = await judge(t);
  const [u, a] = repo.getMessages();
  assert.deepEqual(u.content, [{ type: "text", text: "plain" }]);
  assert.deepEqual(a.content, [{ type: "reasoning", text: "so" }, { type: "tool-call", toolCallId: "c", toolName: "get", args: { a: 1 }, argsText: '{"a":1}', result: 2 }, { type: "text", text: "two" }]);
  assert.deepEqual(toRepository(new SessionTree()), { headId: null, messages: [] });
  // What assistant-ui's own loader (fromThreadMessageLike) takes too: it
  // refuses metadata.steps on a message that is not the assistant's.
  t.append({ role: "system", content: "be brief" }, 3);
  for (const { message } of toRepository(t).messages) {
    const back = fromThreadMessageLike(message, message.id, { type: "complete", reason: "unknown" });
    assert.equal(back.role, message.role);
  }
  t.free();
});

test("a 👍 on an AI SDK reply (a UIMessage on the tree) keeps what the reply held on the active path: its reasoning's signature (sent to Anthropic again), sources, data parts and metadata", async () => {
  const t = new SessionTree();
  t.append({ role: "user", parts: [{ type: "text", text: "sources?" }, { type: "data-ctx", data: { page: 2 } }] }, 1);
  t.append({ role: "assistant", metadata: { model: "m" }, parts: [
    { type: "step-start" },
    { type: "reasoning", text: "think", providerMetadata: { anthropic: { signature: "SIG" } } },
    { type: "source-url", sourceId: "s1", url: "https://example.org/e", title: "E" },
    { type: "source-document", sourceId: "s2", mediaType: "application/pdf", title: "D", filename: "d.pdf" },
    { type: "data-weather", id: "w", data: { t: 3 } },
    { type: "text", text: "see E" },
  ] }, 2);
  const { loaded } = await judge(t);
  const [u, a] = loaded.messages.map((i) => i.message);
  assert.deepEqual(u.content, [{ type: "text", text: "sources?" }, { type: "data", name: "ctx", data: { page: 2 } }]);
  assert.deepEqual(a.content, [
    { type: "reasoning", text: "think", providerMetadata: { anthropic: { signature: "SIG" } } },
    { type: "source", sourceType: "url", id: "s1", url: "https://example.org/e", title: "E" },
    { type: "source", sourceType: "document", id: "s2", title: "D", mediaType: "application/pdf", filename: "d.pdf" },
    { type: "data", name: "weather", data: { t: 3 }, id: "w" },
    { type: "text", text: "see E" },
  ]);
  assert.deepEqual(a.metadata.custom, { model: "m" });
  for (const m of [u, a]) assert.deepEqual(fromThreadMessageLike(m, m.id, { type: "complete", reason: "unknown" }).content, m.content);
  // Go's assistant-ui export writes the sources and data parts alike.
  const [gu, ga] = JSON.parse(t.export("assistant-ui")).messages.map((i) => i.message);
  const kept = (m) => m.content.filter((p) => p.type === "source" || p.type === "data");
  assert.deepEqual(gu.content, u.content);
  assert.deepEqual(kept(ga), kept(a));
  // The runtime's update with the feedback: the newer version on the active path holds it all.
  await historyAdapter(t).update({ parentId: u.id, message: { ...a, metadata: { ...a.metadata, submittedFeedback: { type: "positive" } } } });
  const now = t.node(t.activePath().at(-1)).message;
  assert.ok(t.activePath().at(-1) !== a.id, "a newer version");
  assert.deepEqual(now.content, plain(a.content));
  assert.deepEqual(now.metadata.custom, { model: "m" });
  t.append({ role: "user", content: "more" }, 3);
  assert.ok(JSON.stringify(t.projectFor("anthropic").request).includes('"signature":"SIG"'), "the thinking's signature is not sent to Anthropic again");
  t.free();
});

test("a tree of other shapes (OpenAI tool calls, Anthropic blocks) loads through Go's assistant-ui export: parts assistant-ui takes, a call with its result; a 👍 on a call keeps it on the active path and in the next request", async () => {
  const t = SessionTree.fromLinear([
    { role: "user", content: "weather?" },
    { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "get", arguments: '{"city":"Oslo"}' } }] },
    { role: "tool", tool_call_id: "c1", content: "3C" },
    { role: "assistant", content: [{ type: "thinking", thinking: "hm", signature: "S" }, { type: "tool_use", id: "c2", name: "more", input: {} }] },
    { role: "user", content: [{ type: "tool_result", tool_use_id: "c2", content: "done" }] },
    { role: "assistant", content: "It is 3C." },
  ], 1);
  const { loaded } = await judge(t);
  const content = loaded.messages.map((i) => i.message.content);
  assert.deepEqual(content[1], [{ type: "tool-call", toolCallId: "c1", toolName: "get", args: { city: "Oslo" }, argsText: '{"city":"Oslo"}' }]);
  assert.deepEqual(content[3], [{ type: "reasoning", text: "hm" }, { type: "tool-call", toolCallId: "c2", toolName: "more", args: {}, argsText: "{}" }]);
  for (const { message } of loaded.messages) {
    assert.ok(message.createdAt instanceof Date);
    fromThreadMessageLike(message, message.id, { type: "complete", reason: "unknown" }); // throws on a part it does not take
  }
  const call = loaded.messages[1].message;
  await historyAdapter(t).update({ parentId: loaded.messages[0].message.id, message: { ...call, metadata: { ...call.metadata, submittedFeedback: { type: "negative" } } } });
  const request = t.projectFor("openai-chat").request.messages;
  assert.deepEqual(request.slice(0, 3), [
    { role: "user", content: "weather?" },
    { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "get", arguments: '{"city":"Oslo"}' } }] },
    { role: "tool", tool_call_id: "c1", content: "3C" },
  ]);
  assert.equal(t.node(t.activePath()[1]).message.metadata.submittedFeedback.type, "negative");
  t.free();
});

// shown: a ThreadMessage's text (a part without one by its type) and its feedback.
const shown = (m) => m.content.map((p) => p.text ?? p.type).join("") + (m.metadata?.submittedFeedback ? ` [${m.metadata.submittedFeedback.type}]` : "");

// A runtime's side of the history: assistant-ui's MessageRepository changed
// the way LocalRuntime changes it, and the same change through the adapter.
// fresh: every call through an adapter of its own, as a runtime holds when
// its component gives it historyAdapter(t) inline on every render.
function runtimeAndTree({ fresh = false } = {}) {
  const t = new SessionTree();
  const kept = historyAdapter(t);
  const adapter = () => (fresh ? historyAdapter(t) : kept);
  const history = {
    load: () => adapter().load(),
    append: (item) => adapter().append(item),
    update: (item) => adapter().update(item),
    delete: (items) => adapter().delete(items),
    open: (id) => adapter().open(id),
  };
  const repo = new MessageRepository();
  let n = 0;
  const msg = (role, text, extra = {}) => ({
    id: `aui-${++n}`, role, content: [{ type: "text", text }], createdAt: new Date(1700000000000 + n),
    metadata: { unstable_state: null, unstable_annotations: [], unstable_data: [], steps: [], custom: {} },
    ...(role === "assistant" ? { status: { type: "complete", reason: "stop" } } : { attachments: [] }),
    ...extra,
  });
  const add = async (parentId, m) => { repo.addOrUpdateMessage(parentId, m); await history.append({ parentId, message: m }); return m; };
  // The texts of the head's path, the runtime's and the tree's (through a
  // fresh repository), with the feedback given on each.
  const texts = (r) => r.getMessages().map(shown);
  const agree = async () => {
    const fresh = new MessageRepository();
    fresh.import(toRepository(t));
    assert.deepEqual(texts(fresh), texts(repo), `the tree's active path is what the runtime shows: ${JSON.stringify(texts(fresh))}, the runtime's ${JSON.stringify(texts(repo))}`);
    await judge(t);
    return fresh;
  };
  return { t, history, repo, msg, add, texts, agree };
}

test("update: a changed message is its newer version (a sibling, the old kept), the runtime's id follows it; unchanged or new (upsert) as append", async () => {
  const { t, history, repo, msg, add, agree } = runtimeAndTree();
  const u = await add(null, msg("user", "weather?"));
  const call = { type: "tool-call", toolCallId: "c1", toolName: "weather", args: { city: "Oslo" }, argsText: '{"city":"Oslo"}' };
  const a = await add(u.id, msg("assistant", "", { content: [call], status: { type: "requires-action", reason: "tool-calls" } }));
  assert.equal(t.stats().nodes, 2);
  // The tool's result comes: LocalRuntime rewrites the message and calls update.
  const done = { ...a, content: [{ ...call, result: { t: 3 } }, { type: "text", text: "3 degrees" }], status: { type: "complete", reason: "stop" } };
  repo.addOrUpdateMessage(u.id, done);
  await history.update({ parentId: u.id, message: done });
  assert.equal(t.stats().nodes, 3, "the paused version is kept");
  const fresh = await agree();
  const head = fresh.getMessages()[1];
  assert.deepEqual(head.content.map((p) => p.type), ["tool-call", "text"]);
  assert.equal(fresh.getBranches(head.id).length, 2, "after a reload ‹ 2/2 ›: the paused version and the finished one");
  // The same message again: nothing; a follow-up under the runtime's id goes under the new version.
  await history.update({ parentId: u.id, message: done });
  assert.equal(t.stats().nodes, 3);
  await add(a.id, msg("user", "thanks"));
  await agree();
  assert.equal(t.node(t.activePath()[2]).parent, t.activePath()[1]);
  // An update of a message the history never got (its append failed): stored, as append does.
  const late = msg("assistant", "late");
  const last = t.activePath().at(-1);
  repo.addOrUpdateMessage(repo.getMessages().at(-1).id, late);
  await history.update({ parentId: repo.getMessages().at(-2).id, message: late });
  assert.equal(t.node(t.activePath().at(-1)).parent, last);
  await agree();
  t.free();
});

test("delete: the message leaves the active path as it leaves assistant-ui's repository (its children move up), nothing is lost; a missing one is a success", async () => {
  const { t, history, repo, msg, add, agree } = runtimeAndTree();
  const u1 = await add(null, msg("user", "one"));
  const a1 = await add(u1.id, msg("assistant", "two"));
  const u2 = await add(a1.id, msg("user", "three"));
  const a2 = await add(u2.id, msg("assistant", "four"));
  const item = (m) => ({ parentId: repo.getMessage(m.id).parentId, message: m });
  // The middle: what followed it is under its parent now.
  let items = [item(a1)];
  repo.deleteMessage(a1.id);
  await history.delete(items);
  await agree();
  assert.equal(t.search("two").length, 1, "the deleted message is kept on its branch");
  // The runtime's ids name the copies: appending under a2 continues the new path.
  await add(a2.id, msg("assistant", "five"));
  await agree();
  // The last message: the path stops before it.
  const five = repo.getMessages().at(-1);
  items = [item(five)];
  repo.deleteMessage(five.id);
  await history.delete(items);
  await agree();
  // Deleted twice (the runtime may send it again), or never stored: nothing to do.
  const nodes = t.stats().nodes;
  await history.delete(items);
  await history.delete([{ parentId: null, message: msg("user", "never stored") }]);

  assert.equal(t.stats().nodes, nodes);
  await assert.rejects(history.delete("no"), "invalid_input", /"items" must be an array/);
  t.free();
});

test("open follows assistant-ui's branch picker: the runtime's head becomes the tree's active leaf", async () => {
  const { t, history, repo, msg, add, agree } = runtimeAndTree();
  const u = await add(null, msg("user", "hi"));
  const a = await add(u.id, msg("assistant", "first"));
  const a2 = await add(u.id, msg("assistant", "second")); // a reload: the runtime moves its head there
  repo.switchToBranch(a2.id);
  await agree();
  repo.switchToBranch(a.id); // ‹ in the picker
  const before = t.activeBranch;
  assert.ok(history.open(a.id) !== null);
  assert.ok(t.activeBranch !== before, "the first reply's branch is active");
  await agree();
  const nodes = t.stats().nodes;
  assert.equal(history.open(a.id), t.activeBranch, "the active leaf already: nothing");
  assert.equal(t.stats().nodes, nodes);
  assert.equal(history.open("never stored"), null);
  assert.throws(() => history.open(""), "invalid_input", /"messageId" must be a non-empty string/);
  t.free();
});

// localRuntime: assistant-ui's LocalThreadRuntimeCore (what useLocalRuntime
// runs) with history, its model answering "reply N". send(text) appends the
// user's message after the head and waits for the reply and the history's
// writes; render(history) hands it new options, as useLocalRuntime does on
// every render of its component.
async function localRuntime(history) {
  let n = 0;
  const chatModel = { async run() { return { content: [{ type: "text", text: `reply ${++n}` }] }; } };
  const adapters = (h) => ({ chatModel, history: h, feedback: { submit() {} } });
  const rt = new LocalThreadRuntimeCore({ getModelContext: () => ({}), subscribe: () => () => {} }, { adapters: adapters(history) });
  const errors = [];
  rt.unstable_on("historyWriteError", (e) => errors.push(`${e.operation}: ${e.message}`));
  await rt.__internal_load();
  const settle = () => new Promise((r) => setTimeout(r, 30));
  return {
    rt,
    errors,
    async send(text) {
      await rt.append({ role: "user", content: [{ type: "text", text }], parentId: rt.messages.at(-1)?.id ?? null, sourceId: null, runConfig: {}, attachments: [], metadata: { custom: {} } });
      await settle();
    },
    render(h) {
      rt.__internal_setOptions({ adapters: adapters(h) });
    },
    settle,
    texts: () => rt.messages.map(shown),
  };
}

// treeTexts: the active path as a runtime shows it after a page reload.
const treeTexts = async (t) => {
  const fresh = new MessageRepository();
  fresh.import(toRepository(t));
  return fresh.getMessages().map(shown);
};

test("historyAdapter(t) made anew on every render (inline in useLocalRuntime's options) keeps storing: the runtime's ids are kept with the tree, not with one adapter", async () => {
  const { t, history, repo, msg, add, agree } = runtimeAndTree({ fresh: true });
  const u1 = await add(null, msg("user", "one"));
  const a1 = await add(u1.id, msg("assistant", "two"));
  const u2 = await add(a1.id, msg("user", "three")); // its parent stored by another adapter
  const a2 = await add(u2.id, msg("assistant", "four"));
  await agree();
  assert.equal(t.stats().nodes, 4);
  const again = msg("assistant", "four again"); // a reload, then a delete and a pick, each through yet another adapter
  repo.addOrUpdateMessage(u2.id, again);
  repo.switchToBranch(again.id);
  await history.append({ parentId: u2.id, message: again });
  await agree();
  repo.switchToBranch(a2.id);
  assert.ok(history.open(a2.id) !== null, "a message made this session is found");
  await agree();
  await history.delete([{ parentId: a1.id, message: u2 }]);
  repo.deleteMessage(u2.id);
  await agree();
  await add(a2.id, msg("user", "five"));
  await agree();
  t.free();
  if (!LocalThreadRuntimeCore) return;
  // assistant-ui's runtime itself, its component rendered again between sends.
  const t2 = new SessionTree();
  const r = await localRuntime(historyAdapter(t2));
  await r.send("first question");
  r.render(historyAdapter(t2));
  await r.send("second question");
  r.render(historyAdapter(t2));
  await r.send("third question");
  assert.deepEqual(r.errors, []);
  assert.deepEqual(await treeTexts(t2), r.texts());
  assert.equal(t2.stats().nodes, 6);
  t2.free();
});

test("historyAdapter(conversation) follows the conversation's tree when a reload replaces it (the old one freed): the runtime's messages made before it are still known after", async () => {
  // A sessiontree/idb Conversation as far as the adapter reads it: after a
  // "reloaded" event its tree is another object with the same nodes.
  const conv = { tree: new SessionTree() };
  const reload = () => {
    const old = conv.tree;
    conv.tree = SessionTree.load(old.save());
    old.free();
  };
  const repo = new MessageRepository();
  let n = 0;
  const msg = (role, text) => ({
    id: `aui-${++n}`, role, content: [{ type: "text", text }], createdAt: new Date(1700000000000 + n),
    metadata: { unstable_state: null, unstable_annotations: [], unstable_data: [], steps: [], custom: {} },
    ...(role === "assistant" ? { status: { type: "complete", reason: "stop" } } : { attachments: [] }),
  });
  const add = async (parentId, m) => { repo.addOrUpdateMessage(parentId, m); await historyAdapter(conv).append({ parentId, message: m }); return m; };
  const u1 = await add(null, msg("user", "one"));
  const a1 = await add(u1.id, msg("assistant", "two"));
  reload();
  const u2 = await add(a1.id, msg("user", "three"));
  reload();
  await add(u2.id, msg("assistant", "four"));
  const rated = { ...a1, metadata: { ...a1.metadata, submittedFeedback: { type: "positive" } } };
  repo.addOrUpdateMessage(u1.id, rated);
  await historyAdapter(conv).update({ parentId: u1.id, message: rated });
  assert.deepEqual(await treeTexts(conv.tree), repo.getMessages().map(shown));
  assert.deepEqual(await treeTexts(conv.tree), ["one", "two [positive]", "three", "four"]);
  assert.throws(() => historyAdapter({ tree: "no" }), "invalid_input", /"tree" must be a SessionTree/);
  conv.tree.free();
  if (!LocalThreadRuntimeCore) return;
  // assistant-ui's runtime itself: the component renders again with the reloaded tree.
  conv.tree = new SessionTree();
  const r = await localRuntime(historyAdapter(conv));
  await r.send("first question");
  reload();
  r.render(historyAdapter(conv));
  await r.send("second question");
  assert.deepEqual(r.errors, []);
  assert.deepEqual(await treeTexts(conv.tree), r.texts());
  assert.equal(conv.tree.stats().nodes, 4);
  conv.tree.free();
});

test("update of an earlier message (a feedback, a tool result later turns follow) keeps the conversation whole: what followed it on the path follows its new version, and the next send continues there", async () => {
  const { t, history, repo, msg, add, agree, texts } = runtimeAndTree();
  const u1 = await add(null, msg("user", "one"));
  const a1 = await add(u1.id, msg("assistant", "two"));
  const u2 = await add(a1.id, msg("user", "three"));
  const a2 = await add(u2.id, msg("assistant", "four"));
  const again = msg("assistant", "four again"); // a reload: ‹ 2/2 › under "three"
  repo.addOrUpdateMessage(u2.id, again);
  await history.append({ parentId: u2.id, message: again });
  repo.switchToBranch(a2.id); // back to the first in the picker
  history.open(a2.id);
  // 👍 on the first reply, as LocalRuntime's submitFeedback rewrites it.
  const rated = { ...a1, metadata: { ...a1.metadata, submittedFeedback: { type: "positive" } } };
  repo.addOrUpdateMessage(u1.id, rated);
  await history.update({ parentId: u1.id, message: rated });
  const fresh = await agree();
  assert.deepEqual(texts(fresh), ["one", "two [positive]", "three", "four"], "after a page reload");
  assert.equal(t.stats().nodes, 5 + 3, "the version before the feedback and what followed it stay on their branch");
  assert.equal(fresh.getBranches(fresh.getMessages()[1].id).length, 2);
  // The reload kept below it, picked in the runtime: copied under the new version as it is reached.
  repo.switchToBranch(again.id);
  history.open(again.id);
  await agree();
  assert.deepEqual(texts(repo), ["one", "two [positive]", "three", "four again"]);
  await add(again.id, msg("user", "five"));
  await agree();
  assert.deepEqual(texts(repo), ["one", "two [positive]", "three", "four again", "five"]);
  // A message off the tree's active path (the runtime's picker moved, open
  // not called yet): its path is opened, then the same.
  repo.switchToBranch(a2.id);
  const down = { ...a2, metadata: { ...a2.metadata, submittedFeedback: { type: "negative" } } };
  repo.addOrUpdateMessage(u2.id, down);
  await history.update({ parentId: u2.id, message: down });
  await agree();
  assert.deepEqual(texts(repo), ["one", "two [positive]", "three", "four [negative]"]);
  t.free();
  if (!LocalThreadRuntimeCore) return;
  // assistant-ui's runtime itself: 👍 on the first of two replies, then a send.
  const t2 = new SessionTree();
  const r = await localRuntime(historyAdapter(t2));
  await r.send("first question");
  await r.send("second question");
  r.rt.submitFeedback({ messageId: r.rt.messages[1].id, type: "positive" });
  await r.settle();
  assert.deepEqual(await treeTexts(t2), ["first question", "reply 1 [positive]", "second question", "reply 2"]);
  await r.send("third question");
  assert.deepEqual(r.errors, []);
  assert.deepEqual(await treeTexts(t2), r.texts());
  assert.equal(r.texts().length, 6);
  t2.free();
});

// The AI SDK v6 format as assistant-ui's AI SDK runtime registers it (the
// message without its id stored; decoded with the entry's id).
const aiSDKFormat = {
  format: "ai-sdk/v6",
  encode: ({ message: { id, ...rest } }) => rest,
  decode: (stored) => ({ parentId: stored.parent_id, message: { id: stored.id, ...stored.content } }),
  getId: (message) => message.id,
};

test("withFormat (useChatRuntime's ai-sdk/v6): UIMessages stored as sessiontree/ai-sdk stores them; load gives UIMessages validateUIMessages accepts, the head's path toUIMessages(t)", async () => {
  const t = new SessionTree();
  t.append({ role: "system", content: "be brief" }, 1); // a message of another shape, loaded as text
  const h = historyAdapter(t).withFormat(aiSDKFormat);
  const root = t.activePath()[0];
  const u = { id: "u1", role: "user", parts: [{ type: "text", text: "hi" }] };
  const a = { id: "a1", role: "assistant", parts: [{ type: "reasoning", text: "so", state: "done" }, { type: "text", text: "hello", state: "done" }] };
  await h.append({ parentId: root, message: u });
  await h.append({ parentId: "u1", message: a });
  const a2 = { id: "a2", role: "assistant", parts: [{ type: "text", text: "hello again" }] }; // a regenerate
  await h.append({ parentId: "u1", message: a2 });
  const tool = { id: "a2", role: "assistant", parts: [{ type: "text", text: "hello again" }, { type: "tool-get", toolCallId: "c", state: "output-available", input: { a: 1 }, output: 2 }] };
  await h.update({ parentId: "u1", message: tool }, "a2");
  const loaded = await h.load();
  assert.equal(loaded.messages.length, t.stats().nodes);
  await validateUIMessages({ messages: loaded.messages.map((i) => i.message) });
  const byId = new Map(loaded.messages.map((i) => [i.message.id, i]));
  const head = [];
  for (let id = loaded.headId; id !== null; id = byId.get(id).parentId) head.unshift(byId.get(id).message);
  assert.deepEqual(head, toUIMessages(t), "the head's path is sessiontree/ai-sdk's view of the active path");
  assert.deepEqual(head.map((m) => m.parts.at(-1).type), ["text", "text", "tool-get"]);
  assert.deepEqual(head[0].parts, [{ type: "text", text: "be brief" }]);
  // Deleting the reply (the runtime loaded the tree above: it has every
  // version): the path goes where assistant-ui's head goes, to the last other one.
  const runtime = new MessageRepository();
  runtime.import(toRepository(t));
  runtime.deleteMessage(loaded.headId);
  await h.delete([{ parentId: "u1", message: tool }]);
  assert.deepEqual(t.activePath(), runtime.getMessages().map((m) => m.id));
  assert.deepEqual(t.pathWindow(0).messages.map((m) => m.parts?.at(-1).text ?? m.content), ["be brief", "hi", "hello again"]);
  assert.throws(() => historyAdapter(t).withFormat({ format: "x" }), "invalid_input", /"formatAdapter" must be/);
  await assert.rejects(historyAdapter(t).withFormat({ ...aiSDKFormat, encode: () => ({ parts: [] }) }).append({ parentId: null, message: u }), "invalid_input", /must be an object with a "role"/);
  t.free();
});

test("withFormat (ai-sdk/v6): a message with no text loads as parts validateUIMessages accepts: an image as a file part, an empty message as one empty text part, as toUIMessages gives", async () => {
  const t = new SessionTree();
  const history = historyAdapter(t);
  const thread = (id, role, content) => ({ id, role, content, createdAt: new Date(1700000000000), metadata: { custom: {} }, ...(role === "user" ? { attachments: [] } : { status: { type: "complete", reason: "stop" } }) });
  await history.append({ parentId: null, message: thread("u1", "user", [{ type: "image", image: "data:image/png;base64,AAAA" }]) });
  await history.append({ parentId: "u1", message: thread("a1", "assistant", [{ type: "text", text: "a cat" }]) });
  await history.append({ parentId: "a1", message: thread("u2", "user", []) });
  await history.append({ parentId: "u2", message: thread("a2", "assistant", [{ type: "reasoning", text: "hm" }, { type: "text", text: "and?" }]) });
  await history.append({ parentId: "a2", message: thread("u3", "user", [{ type: "text", text: "this " }, { type: "image", image: "https://example.org/dog.JPG?size=2" }, { type: "text", text: "one" }]) });
  const load = async () => {
    const loaded = await history.withFormat(aiSDKFormat).load();
    await validateUIMessages({ messages: loaded.messages.map((i) => i.message) });
    return loaded.messages.map((i) => i.message);
  };
  const messages = await load();
  assert.deepEqual(messages, toUIMessages(t), "the adapter's mapping and Go's ai-sdk export agree");
  assert.deepEqual(messages.map((m) => m.parts), [
    [{ type: "file", mediaType: "image/png", url: "data:image/png;base64,AAAA" }],
    [{ type: "text", text: "a cat" }],
    [{ type: "text", text: "" }],
    [{ type: "reasoning", text: "hm" }, { type: "text", text: "and?" }],
    [{ type: "text", text: "this " }, { type: "file", mediaType: "image/jpeg", url: "https://example.org/dog.JPG?size=2" }, { type: "text", text: "one" }],
  ]);
  // A file part (base64 or a URL) is a file part too.
  await history.append({ parentId: "u3", message: thread("a3", "assistant", []) });
  await history.append({ parentId: "a3", message: thread("u4", "user", [{ type: "file", data: "JVBERi0=", mimeType: "application/pdf", filename: "a.pdf" }, { type: "file", data: "https://example.org/b.pdf", mimeType: "application/pdf" }]) });
  const more = (await load()).slice(-2);
  assert.deepEqual(more.map((m) => m.parts), [
    [],
    [{ type: "file", mediaType: "application/pdf", url: "data:application/pdf;base64,JVBERi0=", filename: "a.pdf" }, { type: "file", mediaType: "application/pdf", url: "https://example.org/b.pdf" }],
  ]);
  assert.deepEqual(await load(), toUIMessages(t), "Go's ai-sdk export keeps the files too");
  t.free();
});

test("withFormat (ai-sdk/v6): a ThreadMessage's tool calls load as tool parts, with their results, as toUIMessages gives them, and validate", async () => {
  const t = new SessionTree();
  const history = historyAdapter(t);
  const meta = { unstable_state: null, unstable_annotations: [], unstable_data: [], steps: [], custom: {} };
  await history.append({ parentId: null, message: { id: "u1", role: "user", content: [{ type: "text", text: "weather?" }], createdAt: new Date(1), attachments: [], metadata: { custom: {} } } });
  await history.append({ parentId: "u1", message: { id: "a1", role: "assistant", createdAt: new Date(2), status: { type: "complete", reason: "stop" }, metadata: meta, content: [
    { type: "tool-call", toolCallId: "c1", toolName: "weather", args: { city: "Oslo" }, argsText: '{"city":"Oslo"}', result: { t: 3 } },
    { type: "tool-call", toolCallId: "c2", toolName: "search", args: { q: "x" }, argsText: '{"q":"x"}', result: "down", isError: true },
    { type: "tool-call", toolCallId: "c3", toolName: "", args: {}, argsText: "{}", result: "ok" },
    { type: "tool-call", toolCallId: "c4", toolName: "ask", args: null, argsText: "not json" },
    { type: "text", text: "3 °C" },
  ] } });
  const loaded = await history.withFormat(aiSDKFormat).load();
  const messages = loaded.messages.map((i) => i.message);
  await validateUIMessages({ messages });
  assert.deepEqual(messages, toUIMessages(t), "the adapter's mapping and Go's ai-sdk export agree");
  assert.deepEqual(messages[1].parts, [
    { type: "tool-weather", toolCallId: "c1", state: "output-available", input: { city: "Oslo" }, output: '{"t":3}' },
    { type: "tool-search", toolCallId: "c2", state: "output-error", input: { q: "x" }, errorText: "down" },
    { type: "dynamic-tool", toolName: "tool", toolCallId: "c3", state: "output-available", input: {}, output: "ok" },
    { type: "tool-ask", toolCallId: "c4", state: "input-available", input: { input: "not json" } },
    { type: "text", text: "3 °C" },
  ]);
  t.free();
});

test("withFormat (ai-sdk/v6) on a tree of OpenAI's or Anthropic's messages (an import): a node each, as toRepository gives it, its tool call and its result as tool parts; a 👍 keeps the call", async () => {
  const openai = SessionTree.fromLinear([
    { role: "system", content: "be brief" },
    { role: "user", content: "weather?" },
    { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "weather", arguments: '{"city":"Oslo"}' } }] },
    { role: "tool", tool_call_id: "c1", content: "3 °C" },
    { role: "assistant", content: "3 °C in Oslo" },
  ]);
  const anthropic = SessionTree.fromLinear([
    { role: "user", content: [{ type: "text", text: "weather?" }] },
    { role: "assistant", content: [{ type: "thinking", thinking: "look it up", signature: "s" }, { type: "tool_use", id: "c1", name: "weather", input: { city: "Oslo" } }] },
    { role: "user", content: [{ type: "tool_result", tool_use_id: "c1", content: "3 °C" }] },
    { role: "assistant", content: [{ type: "text", text: "3 °C in Oslo" }] },
  ]);
  for (const [name, t] of [["openai", openai], ["anthropic", anthropic]]) {
    const h = historyAdapter(t).withFormat(aiSDKFormat);
    const loaded = await h.load();
    const messages = loaded.messages.map((i) => i.message);
    await validateUIMessages({ messages });
    const path = t.activePath();
    assert.equal(loaded.headId, path.at(-1), name);
    assert.deepEqual(loaded.messages.map((i) => [i.message.id, i.parentId]), path.map((id, k) => [id, k === 0 ? null : path[k - 1]]), `${name}: a message a node`);
    const parts = messages.flatMap((m) => m.parts).filter((p) => p.type === "tool-weather");
    assert.deepEqual(parts.map((p) => [p.toolCallId, p.state, p.output ?? null]), [["c1", "input-available", null], ["c1", "output-available", "3 °C"]], `${name}: the call and its result, as tool parts (before: the call left out, the result an assistant's text)`);
    assert.deepEqual(parts[0].input, { city: "Oslo" }, name);
    // A 👍 on the call stores the runtime's message as its newer version:
    // the call is in it (before, a message without parts went in).
    const k = messages.findIndex((m) => m.parts.includes(parts[0]));
    await h.update({ parentId: loaded.messages[k].parentId, message: { ...messages[k], metadata: { feedback: "positive" } } });
    const again = (await h.load()).messages.map((i) => i.message);
    await validateUIMessages({ messages: again });
    const call = again.find((m) => m.metadata?.feedback === "positive");
    assert.deepEqual(call.parts.find((p) => p.type === "tool-weather")?.input, { city: "Oslo" }, `${name}: the 👍 kept the call`);
    t.free();
  }
});

test("a UIMessage's file that is not an image (a PDF) loads as assistant-ui's file part with its filename, from load() and Go's assistant-ui export alike, and assistant-ui takes it", async () => {
  const t = new SessionTree();
  const pdf = { type: "file", mediaType: "application/pdf", filename: "a.pdf", url: "data:application/pdf;base64,JVBERi0=" };
  t.append({ role: "user", parts: [{ type: "text", text: "read" }, pdf] }, 1);
  t.append({ role: "assistant", parts: [{ type: "text", text: "ok" }, { ...pdf, filename: undefined, url: "https://example.org/b.pdf" }] }, 2);
  const { loaded } = await judge(t);
  const want = [
    [{ type: "text", text: "read" }, { type: "file", data: pdf.url, mimeType: "application/pdf", filename: "a.pdf" }],
    [{ type: "text", text: "ok" }, { type: "file", data: "https://example.org/b.pdf", mimeType: "application/pdf" }],
  ];
  assert.deepEqual(loaded.messages.map((i) => i.message.content), want);
  const data = JSON.parse(t.export("assistant-ui"));
  assert.deepEqual(data.messages.map((i) => i.message.content), want);
  const repo = new MessageRepository();
  repo.import(data);
  for (const m of repo.getMessages()) assert.equal(fromThreadMessageLike(m, m.id, { type: "complete", reason: "unknown" }).content.at(-1).type, "file");
  t.free();
});

test("a text's spaces and newlines at its ends are kept where a tree of other shapes goes through Go's export (they were trimmed until Dec 6 (night))", () => {
  const t = new SessionTree();
  t.append({ role: "user", content: "  two spaces both ends  \n" }, 1);
  t.append({ role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "{}" } }] }, 2);
  const { messages } = toRepository(t);
  assert.deepEqual(messages[0].message.content, [{ type: "text", text: "  two spaces both ends  \n" }]);
  t.free();
});

test("a UIMessage's tool output is the call's result as it was (a number, an object), whichever mapping a path takes (Go's gave its JSON text until Dec 6, night)", () => {
  const t = new SessionTree();
  syncChat(t, [{ id: "u", role: "user", parts: [{ type: "text", text: "q" }] }, {
    id: "a", role: "assistant", parts: [
      { type: "tool-n", toolCallId: "c1", state: "output-available", input: {}, output: 3 },
      { type: "tool-o", toolCallId: "c2", state: "output-available", input: { city: "Oslo" }, output: { t: 3, s: "x" } },
      { type: "tool-s", toolCallId: "c3", state: "output-available", input: {}, output: "text" },
      { type: "tool-e", toolCallId: "c4", state: "output-error", input: {}, errorText: "down" },
    ],
  }], { atMs: 1 });
  const js = toRepository(t).messages[1].message.content;
  assert.deepEqual(js.map((p) => p.result), [3, { t: 3, s: "x" }, "text", "down"]);
  t.append({ role: "assistant", content: null, tool_calls: [{ id: "c9", type: "function", function: { name: "f", arguments: "{}" } }] }, 2);
  const go = toRepository(t).messages[1].message.content;
  assert.deepEqual(go.map((p) => p.result), js.map((p) => p.result));
  t.free();
});

test("bad input is refused with a sentence", async () => {
  const t = new SessionTree();
  assert.throws(() => historyAdapter({}), "invalid_input", /"tree" must be a SessionTree/);
  assert.throws(() => fromThreadMessage({ id: "m", role: "tool", content: [] }), "invalid_input", /"role" of ThreadMessage "m"/);
  await assert.rejects(historyAdapter(t).append({ parentId: "nope", message: { id: "m", role: "user", content: [] } }), "not_found", /parent "nope"/);
  // What JSON cannot write: invalid_input, never JSON.stringify's TypeError.
  const cyclic = { type: "text", text: "x" };
  cyclic.self = cyclic;
  assert.throws(() => fromThreadMessage({ id: "m", role: "user", content: [cyclic] }), "invalid_input", /ThreadMessage "m" cannot be written as JSON/);
  assert.throws(() => fromThreadMessage({ id: "m", role: "user", content: [{ type: "text", text: "x" }], metadata: { n: 1n } }), "invalid_input");
  assert.throws(() => fromThreadMessage({ id: 1n, role: "tool", content: [] }), "invalid_input", /"role" of ThreadMessage bigint/);
  assert.equal(t.stats().nodes, 0);
  t.free();
});

test("the assistant-ui export format (Go, t.export): MessageRepository imports it and exports it back, head = active leaf; SessionTree.import gives the tree back", async () => {
  for (let seed = 1; seed <= 25; seed++) {
    const t = randomTree(seed);
    const file = t.export("assistant-ui");
    const data = JSON.parse(file);
    const repo = new MessageRepository();
    repo.import(data);
    const back = plain(repo.export());
    assert.deepEqual(back.headId, data.headId, `seed ${seed}: head`);
    assert.deepEqual(back.messages, data.messages.map(({ message, parentId }) => ({ message, parentId })), `seed ${seed}: MessageRepository.export() is not what it imported`);
    assert.deepEqual(repo.getMessages().map((m) => m.id), t.activePath(), `seed ${seed}: the head's path is not the active path`);
    const { tree } = SessionTree.import(file, "auto");
    assert.equal(tree.save().replace(/,"used":\d+|,"moved_at_ms":\d+/g, ""), t.save().replace(/,"used":\d+|,"moved_at_ms":\d+/g, ""), `seed ${seed}: import(export(t)) != t`);
  }
});

test("random runtime sessions: the tree follows assistant-ui's repository through the adapter (sends, tool results, reloads, edits, branch picks, deletes, feedback; even seeds a new adapter for every call)", async () => {
  for (const seed of (globalThis.process?.env?.AUI_SEEDS ?? "1,2,3,4,5,6").split(",").map(Number)) {
    const { t, history, repo, msg, add, agree } = runtimeAndTree({ fresh: seed % 2 === 0 });
    let s = seed;
    const rnd = (n) => { s = (s * 1103515245 + 12345) % 2147483648; return s % n; };
    const pick = (xs) => xs[rnd(xs.length)];
    const log = [];
    // A sibling of m under its parent, made the head as LocalRuntime's reload
    // and edit do (its branch picker then shows it).
    const sibling = async (m, next) => {
      const parentId = repo.getMessage(m.id).parentId;
      repo.addOrUpdateMessage(parentId, next);
      repo.switchToBranch(next.id);
      await history.append({ parentId, message: next });
    };
    await add(null, msg("user", `s${seed} hello`));
    await add(repo.headId, msg("assistant", "hi"));
    for (let step = 0; step < 60; step++) {
      const path = repo.getMessages();
      const k = rnd(11);
      let what;
      if (k < 3) {
        await add(repo.headId, msg("user", `q${step}`));
        if (rnd(3) === 0) {
          // A tool call waits for its result; the result comes as an update.
          const call = { type: "tool-call", toolCallId: `c${step}`, toolName: "calc", args: { n: step }, argsText: `{"n":${step}}` };
          const a = await add(repo.headId, msg("assistant", "", { content: [call], status: { type: "requires-action", reason: "tool-calls" } }));
          const done = { ...a, content: [{ ...call, result: { v: step } }, { type: "text", text: `r${step}` }], status: { type: "complete", reason: "stop" } };
          const parentId = repo.getMessage(a.id).parentId;
          repo.addOrUpdateMessage(parentId, done);
          await history.update({ parentId, message: done });
          what = "send + tool result";
        } else {
          await add(repo.headId, msg("assistant", `a${step}`));
          what = "send";
        }
      } else if (k < 5) {
        const as = path.filter((m) => m.role === "assistant");
        if (!as.length) continue;
        await sibling(pick(as), msg("assistant", `again ${step}`));
        what = "reload";
      } else if (k < 7) {
        const us = path.filter((m) => m.role === "user");
        if (!us.length) continue;
        await sibling(pick(us), msg("user", `edited ${step}`));
        await add(repo.headId, msg("assistant", `for the edit ${step}`));
        what = "edit";
      } else if (k < 9) {
        const forks = path.filter((m) => repo.getBranches(m.id).length > 1);
        if (!forks.length) continue;
        const m = pick(forks);
        const other = pick(repo.getBranches(m.id).filter((id) => id !== m.id));
        repo.switchToBranch(other);
        history.open(repo.headId);
        what = "branch pick";
      } else if (k < 10) {
        if (path.length < 3) continue;
        const i = 1 + rnd(path.length - 1);
        const items = [{ parentId: path[i - 1].id, message: path[i] }];
        await history.delete(items);
        repo.deleteMessage(path[i].id);
        what = "delete";
      } else {
        // A 👍 or 👎 on a reply anywhere on the path, as submitFeedback gives it.
        const as = path.filter((m) => m.role === "assistant");
        if (!as.length) continue;
        const m = pick(as);
        const rated = { ...m, metadata: { ...m.metadata, submittedFeedback: { type: rnd(2) ? "positive" : "negative" } } };
        const parentId = repo.getMessage(m.id).parentId;
        repo.addOrUpdateMessage(parentId, rated);
        await history.update({ parentId, message: rated });
        what = "feedback";
      }
      log.push(`${step}:${what}`);
      try {
        await agree();
      } catch (e) {
        e.message = `seed ${seed}, step ${step} (${log.slice(-6).join(" ")}): ${e.message}`;
        throw e;
      }
    }
    t.free();
  }
});
