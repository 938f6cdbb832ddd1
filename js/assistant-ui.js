// sessiontree/assistant-ui: a ThreadHistoryAdapter backed by the tree
// (issue 24). assistant-ui's MessageRepository is a tree of messages with a
// head: load() hands it every node with its parent and the active leaf as the
// head, so its branch picker pages through the tree's siblings; append()
// stores each message under its parent, so an edit or a reload is a new
// sibling and nothing is lost. See assistant-ui.d.ts.
import { SessionTree, SessionTreeError } from "./sessiontree.js";

const fail = (message) => { throw new SessionTreeError("invalid_input", message); };
const isObject = (v) => typeof v === "object" && v !== null && !Array.isArray(v);
const ROLES = new Set(["system", "user", "assistant"]);
// named shows a caller's value in a sentence: JSON for what JSON writes
// plainly, the type for the rest (a BigInt, an object with no JSON form).
const named = (v) => (v == null || ["string", "number", "boolean"].includes(typeof v) ? String(JSON.stringify(v)) : typeof v);

/** The tree message a ThreadMessage is stored as. See assistant-ui.d.ts. */
export function fromThreadMessage(m) {
  if (!isObject(m)) fail(`a ThreadMessage must be an object, got ${m === null ? "null" : typeof m}`);
  if (!ROLES.has(m.role)) fail(`"role" of ThreadMessage ${named(m.id)} must be "system", "user" or "assistant", got ${named(m.role)}`);
  if (!Array.isArray(m.content)) fail(`"content" of ThreadMessage ${named(m.id)} must be an array of parts`);
  const out = { role: m.role, content: m.content };
  for (const k of Object.keys(m)) if (k !== "id" && k !== "createdAt" && !(k in out)) out[k] = m[k];
  let text;
  try {
    text = JSON.stringify(out);
  } catch (e) {
    fail(`ThreadMessage ${named(m.id)} cannot be written as JSON: ${e.message}`);
  }
  return JSON.parse(text); // what the tree stores: JSON, no Date or undefined
}

// assistant-ui refuses steps on a message that is not the assistant's
// (fromThreadMessageLike: "metadata.steps is only supported for assistant messages").
const emptyMetadata = (role) => role === "assistant"
  ? { unstable_state: null, unstable_annotations: [], unstable_data: [], steps: [], custom: {} }
  : { unstable_state: null, unstable_annotations: [], unstable_data: [], custom: {} };

// parts maps a stored message's content to ThreadMessage parts: its own
// (a stored ThreadMessage), a text, an AI SDK UIMessage's parts, or the text
// parts of another shape.
function parts(msg) {
  const c = msg.content;
  if (typeof c === "string") return c === "" && msg.role === "assistant" ? [] : [{ type: "text", text: c }];
  if (Array.isArray(c)) return structuredClone(c.filter((p) => isObject(p) && typeof p.type === "string"));
  if (!Array.isArray(msg.parts)) return [];
  const out = [];
  for (const p of msg.parts) {
    if (!isObject(p)) continue;
    if (p.type === "text" || p.type === "reasoning") out.push({ type: p.type, text: String(p.text ?? "") });
    else if (p.type === "file") {
      out.push(String(p.mediaType).startsWith("image/") ? { type: "image", image: p.url } : { type: "file", data: p.url, mimeType: p.mediaType });
    } else if (p.type === "dynamic-tool" || String(p.type).startsWith("tool-")) {
      const args = isObject(p.input) ? p.input : {};
      const call = { type: "tool-call", toolCallId: p.toolCallId, toolName: p.type === "dynamic-tool" ? p.toolName : p.type.slice(5), args, argsText: JSON.stringify(args) };
      if (p.state === "output-available") call.result = p.output;
      if (p.state === "output-error") Object.assign(call, { result: p.errorText, isError: true });
      out.push(structuredClone(call));
    }
  }
  return out;
}

/** The ThreadMessage of node `id`. See assistant-ui.d.ts. */
export function toThreadMessage(node) {
  const msg = node.message;
  const role = ROLES.has(msg.role) ? msg.role : msg.role === "tool" ? "assistant" : "user";
  const out = { id: node.id, role, content: parts(msg), createdAt: new Date(node.createdAtMs), metadata: emptyMetadata(role) };
  if (role === "assistant") out.status = { type: "complete", reason: "unknown" };
  if (role === "user") out.attachments = [];
  if (Array.isArray(msg.content)) {
    // A stored ThreadMessage: its own fields as they were.
    for (const k of Object.keys(msg)) if (k !== "role" && k !== "content") out[k] = structuredClone(msg[k]);
  }
  return out;
}

/** The tree as assistant-ui's ExportedMessageRepository. See assistant-ui.d.ts. */
export function toRepository(t) {
  if (!(t instanceof SessionTree)) fail(`"tree" must be a SessionTree`);
  if (t.stats().nodes === 0) return { headId: null, messages: [] };
  const path = t.activePath();
  const messages = t.subtree(null).nodes.map(({ id }) => {
    const n = t.node(id);
    return { message: toThreadMessage(n), parentId: n.parent };
  });
  return { headId: path[path.length - 1], messages };
}

// placement keeps assistant-ui's messages in the tree: `put` stores one
// under its parent (an append after the active leaf, an edit or a reload as a
// new sibling), `revise` stores a changed message as its newer version,
// `remove` leaves messages out of the active path. `ids` maps the runtime's id
// of a message to the node that holds it now. Nothing is ever removed from the
// tree: an older version and a message left out stay on a branch.
function placement(t) {
  const ids = new Map();
  const nodeOf = (id) => ids.get(id) ?? (t.node(id) ? id : undefined);
  const parentOf = (id, parentId) => {
    if (parentId === null || parentId === undefined) return null;
    const parent = nodeOf(parentId);
    if (parent === undefined) throw new SessionTreeError("not_found", `the parent ${JSON.stringify(parentId)} of message ${JSON.stringify(id)} is not in the tree`);
    return parent;
  };
  function put(id, parentId, stored, at) {
    if (nodeOf(id) !== undefined) return; // stored already
    const parent = parentOf(id, parentId);
    let node;
    if (t.stats().nodes === 0) node = t.append(stored, at);
    else {
      const path = t.activePath();
      if (parent === path[path.length - 1]) node = t.append(stored, at);
      else if (parent === null) node = t.edit(path[0], stored, at); // another first message: a sibling root
      else {
        const kids = t.children(parent);
        if (kids.length > 0) node = t.edit(kids[kids.length - 1], stored, at); // an edit or a reload: a new sibling
        else node = t.apply([{ op: "checkout", node: parent }, { op: "append", message: stored }], at)[1];
      }
    }
    ids.set(id, node);
  }
  function revise(id, parentId, stored, at) {
    const node = nodeOf(id);
    if (node === undefined) return put(id, parentId, stored, at); // an upsert
    const old = t.node(node);
    if (JSON.stringify(old.message) === JSON.stringify(stored)) return;
    // A newer version: a sibling on a fresh active branch, the old one kept on its own.
    ids.set(id, stored.role === "assistant" ? t.regenerate(node, stored, at) : t.edit(node, stored, at));
  }
  function remove(list) {
    for (const id of list) {
      const node = nodeOf(id);
      if (node === undefined || !t.onPath([node])[0]) continue; // gone already, or off the path
      const path = t.activePath();
      const i = path.indexOf(node);
      const after = path.slice(i + 1);
      if (after.length === 0) {
        if (i > 0) t.rewind(path[i - 1]);
        continue; // the only message: a tree keeps it
      }
      // The path without it: the messages after it copied under its parent,
      // as a new sibling on a fresh branch; the runtime's ids follow the copies.
      const ops = [{ op: "edit", node, message: t.node(after[0]).message }];
      for (const k of after.slice(1)) ops.push({ op: "append", message: t.node(k).message });
      const made = t.apply(ops);
      const copies = new Map(after.map((k, j) => [k, made[j]]));
      for (const [runtimeId, n] of ids) if (copies.has(n)) ids.set(runtimeId, copies.get(n));
      for (const [k, copy] of copies) if (!ids.has(k)) ids.set(k, copy);
    }
  }
  function open(id) {
    const node = nodeOf(id);
    if (node === undefined) return null; // not stored yet (a reply still streaming)
    const path = t.activePath();
    return path[path.length - 1] === node ? t.activeBranch : t.open(node);
  }
  return { put, revise, remove, open };
}

const timeOf = (m) => (m?.createdAt instanceof Date && !Number.isNaN(m.createdAt.getTime()) ? m.createdAt.getTime() : undefined);

function checkItem(item) {
  if (!isObject(item) || !isObject(item.message)) fail(`an item must be { message, parentId }`);
  return item;
}

// uiMessageContent: what a format of the AI SDK's UIMessage is given to
// decode for a node stored in another shape: the text of its content.
function uiMessageContent(msg) {
  if (Array.isArray(msg.parts)) return msg;
  const text = typeof msg.content === "string" ? msg.content
    : Array.isArray(msg.content) ? msg.content.filter((p) => isObject(p) && p.type === "text").map((p) => p.text).join("") : "";
  return { role: ROLES.has(msg.role) ? msg.role : "assistant", parts: text === "" ? [] : [{ type: "text", text }] };
}

// formatted is the GenericThreadHistoryAdapter withFormat returns.
function formatted(t, place, format) {
  if (!isObject(format) || typeof format.format !== "string" || typeof format.encode !== "function" || typeof format.decode !== "function" || typeof format.getId !== "function") {
    fail(`"formatAdapter" must be { format, encode, decode, getId }`);
  }
  const aiSDK = format.format.startsWith("ai-sdk/");
  const encode = (item) => {
    const stored = format.encode(checkItem(item));
    if (!isObject(stored) || !ROLES.has(stored.role)) fail(`the ${format.format} encoding of message ${JSON.stringify(format.getId(item.message))} must be an object with a "role" of "system", "user" or "assistant"`);
    return JSON.parse(JSON.stringify(stored));
  };
  return {
    async load() {
      if (t.stats().nodes === 0) return { headId: null, messages: [] };
      const path = t.activePath();
      const messages = t.subtree(null).nodes.map(({ id }) => {
        const n = t.node(id);
        const content = aiSDK ? uiMessageContent(n.message) : structuredClone(n.message);
        return format.decode({ id, parent_id: n.parent, format: format.format, content });
      });
      return { headId: path[path.length - 1], messages };
    },
    async append(item) {
      place.put(format.getId(checkItem(item).message), item.parentId, encode(item), timeOf(item.message));
    },
    async update(item) {
      place.revise(format.getId(checkItem(item).message), item.parentId, encode(item), timeOf(item.message));
    },
    async delete(items) {
      if (!Array.isArray(items)) fail(`"items" must be an array of { message, parentId }`);
      place.remove(items.map((item) => format.getId(checkItem(item).message)));
    },
  };
}

/** A ThreadHistoryAdapter on tree `t`. See assistant-ui.d.ts. */
export function historyAdapter(t) {
  if (!(t instanceof SessionTree)) fail(`"tree" must be a SessionTree`);
  const place = placement(t);
  return {
    async load() {
      return toRepository(t);
    },
    async append(item) {
      const { message, parentId } = checkItem(item);
      place.put(message.id, parentId, fromThreadMessage(message), timeOf(message));
    },
    async update(item) {
      const { message, parentId } = checkItem(item);
      place.revise(message.id, parentId, fromThreadMessage(message), timeOf(message));
    },
    async delete(items) {
      if (!Array.isArray(items)) fail(`"items" must be an array of { message, parentId }`);
      place.remove(items.map((item) => checkItem(item).message.id));
    },
    withFormat(formatAdapter) {
      return formatted(t, place, formatAdapter);
    },
    open(messageId) {
      if (typeof messageId !== "string" || messageId === "") fail(`"messageId" must be a non-empty string`);
      return place.open(messageId);
    },
  };
}
