// sessiontree/ai-sdk: the AI SDK's UIMessage on the tree (issue 24). A
// UIMessage is stored as it is, without its id (a new one gets a fresh node
// id; toUIMessages hands each back under its node's id):
// {role, parts, metadata?}; core/chat reads its parts, so projections,
// search and the other formats understand it. A path of other messages
// (tool calls, provider blocks, another tool's records) is converted in Go, by
// the "ai-sdk" export of the interchange module. See ai-sdk.d.ts.
import { SessionTree, SessionTreeError } from "./sessiontree.js";

const fail = (message) => { throw new SessionTreeError("invalid_input", message); };
const ROLES = new Set(["system", "user", "assistant"]);
const isObject = (v) => typeof v === "object" && v !== null && !Array.isArray(v);
// named shows a caller's value in a sentence: JSON for what JSON writes
// plainly, the type for the rest (a BigInt, an object with no JSON form).
const named = (v) => (v == null || ["string", "number", "boolean"].includes(typeof v) ? String(JSON.stringify(v)) : typeof v);

/** The tree message a UIMessage is stored as: {role, parts, metadata?}. See ai-sdk.d.ts. */
export function fromUIMessage(m) {
  if (!isObject(m)) fail(`a UIMessage must be an object, got ${m === null ? "null" : typeof m}`);
  if (!ROLES.has(m.role)) fail(`"role" of UIMessage ${named(m.id)} must be "system", "user" or "assistant", got ${named(m.role)}`);
  if (!Array.isArray(m.parts)) fail(`"parts" of UIMessage ${named(m.id)} must be an array`);
  const out = { role: m.role, parts: m.parts };
  if (m.metadata !== undefined) out.metadata = m.metadata;
  for (const k of Object.keys(m)) if (!(k in out) && k !== "id" && k !== "metadata") out[k] = m[k];
  return out;
}

// ownShape: a message this module maps without Go: a stored UIMessage, or a
// plain {role, content} text message of one of the three roles.
// (Go's aisdk.Own; Open WebUI's reasoning blocks in a reply's text are Go's.)
function ownShape(msg) {
  if (!ROLES.has(msg.role)) return false;
  if (Array.isArray(msg.parts)) return !("content" in msg);
  return typeof msg.content === "string" && Object.keys(msg).length === 2 &&
    !(msg.role === "assistant" && msg.content.includes('<details type="'));
}

// toUIMessage maps one message of ownShape. The parts are copies: useChat
// may change a message it holds, and the tree's messages are frozen.
function toUIMessage(id, msg) {
  if (Array.isArray(msg.parts)) return { id, ...structuredClone(msg) };
  // An empty text: a user or system UIMessage needs a part (validateUIMessages).
  const parts = msg.content === "" && msg.role === "assistant" ? [] : [{ type: "text", text: msg.content }];
  return { id, role: msg.role, parts };
}

function checkTree(t) {
  if (!(t instanceof SessionTree)) fail(`"tree" must be a SessionTree`);
}

function branchOption(options) {
  if (options === undefined || options === null) return undefined;
  if (!isObject(options)) fail(`"options" must be an object`);
  const { branch } = options;
  if (branch !== undefined && (typeof branch !== "string" || branch === "")) fail(`"branch" must be a non-empty string`);
  return branch;
}

/** A branch's path (default: the active one) as UIMessages. See ai-sdk.d.ts. */
export function toUIMessages(t, options) {
  checkTree(t);
  const branch = branchOption(options);
  if (t.stats().nodes === 0) return [];
  const { ids, messages } = t.pathWindow(0, undefined, branch);
  const out = new Array(ids.length);
  for (let i = 0; i < ids.length; i++) {
    if (!ownShape(messages[i])) return converted(t, branch);
    out[i] = toUIMessage(ids[i], messages[i]);
  }
  return out;
}

// converted is the Go conversion ("ai-sdk" export) of the branch's path.
function converted(t, branch) {
  if (branch === undefined || branch === t.activeBranch) return JSON.parse(t.export("ai-sdk"));
  const c = t.clone();
  try {
    c.switchBranch(branch);
    return JSON.parse(c.export("ai-sdk"));
  } finally {
    c.free();
  }
}

// same: whether UIMessage a (the caller's) stores as b (the tree's) does; a
// that JSON cannot write (a BigInt, a cycle) is invalid_input, as the tree's
// own calls say it.
function same(a, b) {
  let text;
  try {
    text = JSON.stringify(fromUIMessage(a));
  } catch (e) {
    if (e instanceof SessionTreeError) throw e;
    fail(`UIMessage ${named(a.id)} cannot be written as JSON: ${e.message}`);
  }
  return text === JSON.stringify(fromUIMessage(b));
}

/** Brings useChat's messages into the tree, nothing lost. See ai-sdk.d.ts. */
export function syncChat(t, messages, options) {
  checkTree(t);
  if (!Array.isArray(messages)) fail(`"messages" must be an array of UIMessages`);
  if (options !== undefined && options !== null && !isObject(options)) fail(`"options" must be an object`);
  const atMs = options?.atMs;
  if (atMs !== undefined && !Number.isSafeInteger(atMs)) fail(`"atMs" must be an integer (milliseconds), got ${named(atMs)}`);
  const stored = messages.map(fromUIMessage); // every one checked before anything changes
  const view = toUIMessages(t);
  let i = 0;
  while (i < messages.length && i < view.length && messages[i].id === view[i].id && same(messages[i], view[i])) i++;
  // Nothing changed: the caller's own array, so that a state set to it stays
  // the same and an effect on it does not run again. (useChat's setMessages
  // copies what it is given: call it only when `changed`, see ai-sdk.d.ts.)
  if (i === messages.length && i === view.length) return { messages, added: [], changed: false };
  if (messages.length === 0) fail(`"messages" is empty: a tree keeps its messages (start a new SessionTree for a new chat)`);
  const ops = [];
  if (i < view.length) {
    if (i === messages.length) {
      // useChat dropped the messages from view[i] on: the active branch moves
      // back to the one before; they stay on a branch of their own.
      const path = t.activePath();
      ops.push({ op: "rewind", node: path[path.indexOf(view[i].id) - 1] });
    } else {
      // A message changed or replaced: a new sibling on a fresh branch; the
      // old one and what followed it stay on theirs.
      ops.push({ op: messages[i].role === "assistant" ? "regenerate" : "edit", node: view[i].id, message: stored[i] });
      i++;
    }
  }
  for (; i < messages.length; i++) ops.push({ op: "append", message: stored[i] });
  const results = t.apply(ops, atMs);
  const added = results.filter((r, k) => ops[k].op !== "rewind" && typeof r === "string");
  return { messages: toUIMessages(t), added, changed: true };
}
