// The corpus judged by the real readers of two formats (issue 23): every file
// of ../shared/interop and ../shared/interop-new that imports, exported to
// assistant-ui and to the AI SDK through the interchange module, and each
// export read by the library it is for, at the versions pinned in .tools:
//
// - assistant-ui (@assistant-ui/core): every message is already the
//   ThreadMessage fromThreadMessageLike makes of it (what its LocalRuntime
//   imports from a history adapter without converting), and MessageRepository
//   imports the file (createdAt revived as a Date) with the head and every
//   message it was given;
// - the AI SDK (`ai`): validateUIMessages accepts the UIMessage[] and
//   convertToModelMessages (what useChat sends) reads it.
//
// Run by make test-corpus (node --test js/test/corpus-judges.mjs), never by
// make test-js: it needs the shared folder (SESSIONTREE_SHARED, or ../shared
// beside the repository) and fails without it, as every corpus check does.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { init, initInterchange, SessionTree } from "../sessiontree.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.join(here, "..", "..");
const tools = (p) => new URL(`file://${path.join(repo, ".tools", "node_modules", p)}`).href;
const { validateUIMessages, convertToModelMessages } = await import(tools("ai/dist/index.mjs"));
const { MessageRepository, fromThreadMessageLike } = await import(tools("@assistant-ui/core/dist/internal.js"));

await init();
await initInterchange();

const shared = process.env.SESSIONTREE_SHARED || path.join(repo, "..", "shared");

// corpusFiles lists the data files of interop/* and interop-new/*, by path.
function corpusFiles() {
  const out = [];
  for (const top of ["interop", "interop-new"]) {
    const dir = path.join(shared, top);
    for (const folder of fs.readdirSync(dir, { withFileTypes: true })) {
      if (!folder.isDirectory()) continue;
      for (const f of fs.readdirSync(path.join(dir, folder.name))) {
        if (/\.jsonl?$/.test(f)) out.push(path.join(dir, folder.name, f));
      }
    }
  }
  return out.sort();
}

// importable: every corpus file auto reads, with its tree; only files of
// interop/foreign (other tools' formats) may be refused.
function importable() {
  const files = corpusFiles();
  assert.ok(files.length >= 40, `${files.length} corpus files under ${shared}`);
  const out = [];
  for (const file of files) {
    const name = path.relative(shared, file);
    try {
      out.push({ name, tree: SessionTree.import(fs.readFileSync(file, "utf8"), "auto").tree });
    } catch (e) {
      assert.ok(name.startsWith(`interop${path.sep}foreign${path.sep}`), `${name} is refused: ${e.message}`);
    }
  }
  return out;
}

const trees = importable();

// What fromThreadMessageLike keeps of a message: it drops an assistant's empty
// text and reasoning parts (a message written without them is the same).
const blank = (p) => (p.type === "text" || p.type === "reasoning") && !p.text?.trim() && !p.unstable_summary?.trim();
const kept = (m) => JSON.parse(JSON.stringify({
  id: m.id, role: m.role, content: m.role === "assistant" ? m.content.filter((p) => !blank(p)) : m.content,
  status: m.status, metadata: m.metadata, attachments: m.attachments,
}));

test("every importable corpus file's assistant-ui export is what assistant-ui's runtime loads: ThreadMessages as fromThreadMessageLike makes them, imported whole by MessageRepository at the active leaf", () => {
  let messages = 0;
  for (const { name, tree } of trees) {
    const file = JSON.parse(tree.export("assistant-ui"));
    const path_ = tree.activePath();
    assert.equal(file.headId, path_.at(-1) ?? null, `${name}: the head is the active leaf`);
    const ids = new Set();
    for (const { message } of file.messages) {
      assert.ok(!ids.has(message.id), `${name}: message id ${message.id} twice`);
      ids.add(message.id);
      assert.ok(typeof message.createdAt === "string" && !Number.isNaN(Date.parse(message.createdAt)), `${name}: ${message.id}: createdAt ${message.createdAt}`);
      let made;
      try {
        made = fromThreadMessageLike(message, message.id, { type: "complete", reason: "unknown" });
      } catch (e) {
        assert.fail(`${name}: ${message.id}: fromThreadMessageLike refuses it: ${e.message}`);
      }
      assert.deepEqual(kept(message), kept(made), `${name}: ${message.id} is not the ThreadMessage fromThreadMessageLike makes of it`);
      messages++;
    }
    assert.equal(file.messages.length, tree.stats().nodes, `${name}: every node is a message`);
    const r = new MessageRepository();
    r.import({ headId: file.headId, messages: file.messages.map(({ message, parentId }) => ({ message: { ...message, createdAt: new Date(message.createdAt) }, parentId })) });
    assert.equal(r.export().messages.length, file.messages.length, `${name}: MessageRepository keeps every message`);
    assert.deepEqual(r.getMessages().map((m) => m.id), path_, `${name}: the head's path is the active path`);
  }
  console.log(`assistant-ui: ${trees.length}/${trees.length} files accepted (${messages} messages)`);
});

test("every importable corpus file's ai-sdk export passes the AI SDK's validateUIMessages and convertToModelMessages", async () => {
  for (const { name, tree } of trees) {
    const messages = JSON.parse(tree.export("ai-sdk"));
    await validateUIMessages({ messages }).catch((e) => assert.fail(`${name}: validateUIMessages: ${e.message}`));
    await Promise.resolve(convertToModelMessages(messages)).catch((e) => assert.fail(`${name}: convertToModelMessages: ${e.message}`));
    const onPath = new Set(tree.activePath());
    assert.ok(messages.every((m) => onPath.has(m.id)), `${name}: every UIMessage is a node of the active path`);
  }
  console.log(`ai-sdk: ${trees.length}/${trees.length} files accepted`);
});
