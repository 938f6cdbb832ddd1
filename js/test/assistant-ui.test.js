// sessiontree/assistant-ui (issue 24): a ThreadHistoryAdapter on the tree,
// judged by assistant-ui's own MessageRepository (pinned in .tools): it imports
// what load() gives and exports the same tree, head and branches. Node and
// Chromium, both flavours.
import { test, assert, mainSource } from "./harness.js";
import { init, SessionTree } from "../sessiontree.js";
import { historyAdapter, toRepository, fromThreadMessage } from "../assistant-ui.js";
import { MessageRepository } from "./judges.js";

await init(mainSource);

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

async function judge(t) {
  const loaded = await historyAdapter(t).load();
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
  t.free();
});

test("bad input is refused with a sentence", async () => {
  const t = new SessionTree();
  assert.throws(() => historyAdapter({}), "invalid_input", /"tree" must be a SessionTree/);
  assert.throws(() => fromThreadMessage({ id: "m", role: "tool", content: [] }), "invalid_input", /"role" of ThreadMessage "m"/);
  await assert.rejects(historyAdapter(t).append({ parentId: "nope", message: { id: "m", role: "user", content: [] } }), "not_found", /parent "nope"/);
  assert.equal(t.stats().nodes, 0);
  t.free();
});
