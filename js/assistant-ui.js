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
// parts of another shape. A UIMessage part assistant-ui has a part for keeps
// what that part holds (a reasoning's providerMetadata, Anthropic's
// signature, a source, a data part): a runtime's update of the message (a
// feedback) stores what it was given.
function parts(msg) {
  const c = msg.content;
  if (typeof c === "string") return c === "" && msg.role === "assistant" ? [] : [{ type: "text", text: c }];
  if (Array.isArray(c)) return structuredClone(c.filter((p) => isObject(p) && typeof p.type === "string"));
  if (!Array.isArray(msg.parts)) return [];
  const out = [];
  for (const p of structuredClone(msg.parts)) {
    if (!isObject(p)) continue;
    const meta = isObject(p.providerMetadata) ? { providerMetadata: p.providerMetadata } : {};
    if (p.type === "text" || p.type === "reasoning") out.push({ type: p.type, text: String(p.text ?? ""), ...meta });
    else if (p.type === "source-url" && msg.role === "assistant") {
      out.push({ type: "source", sourceType: "url", id: String(p.sourceId ?? ""), url: String(p.url ?? ""), ...(typeof p.title === "string" ? { title: p.title } : {}), ...meta });
    } else if (p.type === "source-document" && msg.role === "assistant") {
      out.push({ type: "source", sourceType: "document", id: String(p.sourceId ?? ""), title: String(p.title ?? ""), mediaType: String(p.mediaType ?? ""), ...(typeof p.filename === "string" ? { filename: p.filename } : {}), ...meta });
    } else if (String(p.type).startsWith("data-") && msg.role !== "system") {
      out.push({ type: "data", name: p.type.slice(5), data: p.data ?? null, ...(typeof p.id === "string" ? { id: p.id } : {}) });
    } else if (p.type === "file") {
      const file = String(p.mediaType).startsWith("image/") ? { type: "image", image: p.url } : { type: "file", data: p.url, mimeType: p.mediaType };
      if (typeof p.filename === "string") file.filename = p.filename;
      out.push(file);
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
  if (Array.isArray(msg.parts) && isObject(msg.metadata)) out.metadata.custom = structuredClone(msg.metadata); // a UIMessage's
  if (Array.isArray(msg.content)) {
    // A stored ThreadMessage: its own fields as they were.
    for (const k of Object.keys(msg)) if (k !== "role" && k !== "content") out[k] = structuredClone(msg[k]);
  }
  return out;
}

// The part types of a ThreadMessage (@assistant-ui/core's types/message.ts).
const AUI_PARTS = new Set(["text", "reasoning", "tool-call", "source", "file", "image", "data", "generative-ui", "audio"]);

// ownShape: a message this module maps without Go: a stored ThreadMessage
// (content of assistant-ui's parts), an AI SDK UIMessage, or a plain
// {role, content} text message of one of the three roles. (Go's
// assistantui.Own; Open WebUI's reasoning blocks in a reply's text are Go's.)
function ownShape(msg) {
  if (!ROLES.has(msg.role)) return false;
  if (Array.isArray(msg.parts)) return !("content" in msg);
  if (Array.isArray(msg.content)) return msg.content.every((p) => isObject(p) && AUI_PARTS.has(p.type) && (p.type !== "image" || typeof p.image === "string"));
  return typeof msg.content === "string" && Object.keys(msg).length === 2 &&
    !(msg.role === "assistant" && msg.content.includes('<details type="'));
}

/** The tree as assistant-ui's ExportedMessageRepository. See assistant-ui.d.ts. */
export function toRepository(t) {
  if (!(t instanceof SessionTree)) fail(`"tree" must be a SessionTree`);
  if (t.stats().nodes === 0) return { headId: null, messages: [] };
  const path = t.activePath();
  const messages = [];
  for (const { id } of t.subtree(null).nodes) {
    const n = t.node(id);
    if (!ownShape(n.message)) return converted(t);
    messages.push({ message: toThreadMessage(n), parentId: n.parent });
  }
  return { headId: path[path.length - 1], messages };
}

// converted is the Go conversion ("assistant-ui" export) of the tree: a
// message of another shape (OpenAI tool calls and their results, Anthropic
// blocks, another tool's records) as the ThreadMessage assistant-ui holds,
// a call with its result.
function converted(t) {
  const file = JSON.parse(t.export("assistant-ui"));
  const messages = file.messages.map(({ message: { sessiontree, ...message }, parentId }) => ({ message: { ...message, createdAt: new Date(message.createdAt) }, parentId }));
  return { headId: file.headId, messages };
}

// What the adapters of one tree (or one conversation) know of its runtime's
// ids, kept with the tree rather than with one adapter: useLocalRuntime is
// handed a new adapter on every render, and a message stored through the last
// one is the parent of the next. A conversation's outlives a reload that
// replaces its tree (the nodes keep their ids); an entry is used only while
// the tree holds its node.
const runtimeIds = new WeakMap();

// treeOf gives the tree a history works on: the tree given, or a
// conversation's current one (an object whose "tree" is a SessionTree, as a
// sessiontree/idb Conversation, whose tree a reload replaces).
function treeOf(source) {
  if (source instanceof SessionTree) return () => source;
  if (!isObject(source) || !(source.tree instanceof SessionTree)) fail(`"tree" must be a SessionTree, or a conversation whose "tree" is one`);
  return () => {
    const t = source.tree;
    if (!(t instanceof SessionTree)) fail(`the conversation's "tree" must be a SessionTree, got ${named(t)}`);
    return t;
  };
}

// placement keeps assistant-ui's messages in the tree: `put` stores one
// under its parent (an append after the active leaf, an edit or a reload as a
// new sibling), `revise` stores a changed message as its newer version,
// `remove` leaves messages out of the active path. `ids` maps the runtime's id
// of a message to the node that holds it now: an id the runtime made, or the
// id of a node whose message moved (to a newer version, or a copy). `under`
// maps a node whose message moved or was left out to the node its children
// are under in the runtime's tree now (the message's new node, or its
// parent); it lasts until the next load, as the moved nodes' ids do (a
// runtime loaded then knows every node by its own id). Nothing is ever
// removed from the tree: an older version and a message left out stay on a
// branch.
function placement(source, tree) {
  let kept = runtimeIds.get(source);
  if (kept === undefined) runtimeIds.set(source, (kept = { ids: new Map(), under: new Map() }));
  const { ids, under } = kept;
  // nodeOf gives the node of the runtime's message `id`. A node below one in
  // `under`, off the path a move copied (an alternative the runtime keeps
  // under a message it changed or left out), is copied to where the runtime
  // has it as it is reached, so the tree's path is the one the runtime shows.
  const nodeOf = (t, id) => {
    let node = ids.get(id);
    if (node === undefined || !t.node(node)) node = t.node(id) ? id : undefined;
    if (node === undefined || under.size === 0) return node;
    if (t.onPath([node])[0] && !t.onPath([...under.keys()]).includes(true)) return node;
    const below = []; // the nodes from the child of the first one in `under` down to node
    for (let k = node; k !== null; k = t.node(k).parent) {
      if (under.has(k)) return below.length === 0 ? ids.get(k) ?? node : copyUnder(t, under.get(k), below);
      below.unshift(k);
    }
    return node;
  };
  const parentOf = (t, id, parentId) => {
    if (parentId === null || parentId === undefined) return null;
    const parent = nodeOf(t, parentId);
    if (parent === undefined) throw new SessionTreeError("not_found", `the parent ${JSON.stringify(parentId)} of message ${JSON.stringify(id)} is not in the tree`);
    return parent;
  };
  // follow records that each node of the map moved to its value: the
  // runtime's ids follow it, and its children are under the new one.
  function follow(to) {
    for (const [runtimeId, n] of ids) if (to.has(n)) ids.set(runtimeId, to.get(n));
    for (const [k, n] of under) if (to.has(n)) under.set(k, to.get(n));
    for (const [k, copy] of to) {
      if (!ids.has(k)) ids.set(k, copy);
      under.set(k, copy);
    }
  }
  // copies gives the append ops of the nodes' copies, each message with its time.
  const copies = (t, nodes) => nodes.map((k) => {
    const n = t.node(k);
    return { op: "append", message: n.message, at: n.createdAtMs };
  });
  // carry applies `first`, an edit or a regenerate that puts a new node in
  // place of `stands` on the active path, and copies the nodes of `rest`
  // after it, in one apply. Returns the new node.
  function carry(t, first, stands, rest, at) {
    const made = t.apply([first, ...copies(t, rest)], at);
    follow(new Map([stands, ...rest].map((k, j) => [k, made[j]])));
    return made[0];
  }
  // copyUnder copies the path `nodes` under node `at` (the active path then
  // ends at the last copy), in one apply. Returns the last copy.
  function copyUnder(t, at, nodes) {
    const kids = t.children(at);
    const ops = copies(t, nodes);
    if (kids.length > 0) ops[0] = { op: "edit", node: kids[kids.length - 1], message: ops[0].message, at: ops[0].at };
    else ops.unshift({ op: "checkout", node: at });
    const made = t.apply(ops).slice(kids.length > 0 ? 0 : 1);
    follow(new Map(nodes.map((k, j) => [k, made[j]])));
    return made[made.length - 1];
  }
  function put(id, parentId, stored, at) {
    const t = tree();
    if (nodeOf(t, id) !== undefined) return; // stored already
    const parent = parentOf(t, id, parentId);
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
    const t = tree();
    const node = nodeOf(t, id);
    if (node === undefined) return put(id, parentId, stored, at); // an upsert
    if (JSON.stringify(t.node(node).message) === JSON.stringify(stored)) return;
    // A newer version (a feedback, a tool result): a sibling on a fresh active
    // branch, what followed the old one on the path copied after it, so the
    // conversation the runtime shows stays whole; the old one and what
    // followed it are kept on their branch. A message off the active path
    // (the branch picker moved, open not called yet) has its path opened first.
    if (!t.onPath([node])[0]) t.open(node);
    const path = t.activePath();
    const first = { op: stored.role === "assistant" ? "regenerate" : "edit", node, message: stored };
    ids.set(id, carry(t, first, node, path.slice(path.indexOf(node) + 1), at));
  }
  function remove(list) {
    const t = tree();
    for (const id of list) {
      const node = nodeOf(t, id);
      if (node === undefined || !t.onPath([node])[0]) continue; // gone already, or off the path
      const path = t.activePath();
      const i = path.indexOf(node);
      const after = path.slice(i + 1);
      if (i === 0 && after.length === 0) continue; // the only message: a tree keeps it
      if (i > 0) under.set(node, path[i - 1]); // its other children: under its parent, as the runtime has them
      if (after.length === 0) {
        // The last: the path goes where the runtime's head goes, to the
        // branch of its parent's last other child the runtime has (not one
        // whose message moved), or back to the parent.
        const others = t.children(path[i - 1]).filter((k) => k !== node && !under.has(k));
        if (others.length > 0) t.open(others[others.length - 1]);
        else t.rewind(path[i - 1]);
      } else {
        // The path without it: the messages after it copied under its
        // parent, as a new sibling on a fresh branch.
        carry(t, { op: "edit", node, message: t.node(after[0]).message }, after[0], after.slice(1));
      }
    }
  }
  function open(id) {
    const t = tree();
    const node = nodeOf(t, id);
    if (node === undefined) return null; // not stored yet (a reply still streaming)
    const path = t.activePath();
    return path[path.length - 1] === node ? t.activeBranch : t.open(node);
  }
  // loaded: a runtime loaded the tree and knows each node by its own id now.
  function loaded() {
    for (const k of under.keys()) ids.delete(k);
    under.clear();
    return tree();
  }
  return { put, revise, remove, open, loaded };
}

const timeOf = (m) => (m?.createdAt instanceof Date && !Number.isNaN(m.createdAt.getTime()) ? m.createdAt.getTime() : undefined);

function checkItem(item) {
  if (!isObject(item) || !isObject(item.message)) fail(`an item must be { message, parentId }`);
  return item;
}

// uiMessageContent: what a format of the AI SDK's UIMessage is given to
// decode for a node stored in another shape, as Go's "ai-sdk" export
// (toUIMessages) gives it: a text as a text part; a ThreadMessage's text and
// reasoning parts as theirs, an image or a file as a file part and a tool
// call as a tool part, in order.
// A user's or system message with none has one empty text part, as
// toUIMessages gives (validateUIMessages wants a part).
function uiMessageContent(msg) {
  if (Array.isArray(msg.parts)) return msg;
  const role = ROLES.has(msg.role) ? msg.role : "assistant";
  const parts = [];
  if (typeof msg.content === "string" && msg.content !== "") parts.push({ type: "text", text: msg.content });
  if (Array.isArray(msg.content)) {
    for (const p of msg.content) {
      const part = isObject(p) ? uiPart(p) : null;
      if (part !== null) parts.push(part);
    }
  }
  if (parts.length === 0 && role !== "assistant") parts.push({ type: "text", text: "" });
  return { role, parts };
}

// An image URL's media type, as Go's export names it: a data URL's own, else
// by the file's extension, else "image/*".
const IMAGE_TYPES = { png: "image/png", jpg: "image/jpeg", jpeg: "image/jpeg", gif: "image/gif", webp: "image/webp" };
const imageType = (url) => /^data:([^;,]+)/i.exec(url)?.[1] ?? IMAGE_TYPES[/\.([a-z]+)(?:[?#]|$)/i.exec(url)?.[1].toLowerCase()] ?? "image/*";

// toolPart: the UIMessage tool part of a ThreadMessage's tool-call, as Go's
// export writes it: its args as the input (else its argsText's JSON), its
// result, when it has one, as the output or the error, a text (JSON when it
// is not a string).
function toolPart(p) {
  let input = p.args;
  if (!isObject(input)) {
    const text = typeof p.argsText === "string" ? p.argsText : "";
    try {
      input = text.trim() === "" ? {} : JSON.parse(text);
    } catch {
      input = { input: text };
    }
  }
  const name = typeof p.toolName === "string" ? p.toolName : "";
  const part = name === "" ? { type: "dynamic-tool", toolName: "tool" } : { type: `tool-${name}` };
  part.toolCallId = typeof p.toolCallId === "string" ? p.toolCallId : "";
  if (p.result === undefined) return Object.assign(part, { state: "input-available", input: structuredClone(input) });
  const text = p.result === null ? "" : typeof p.result === "string" ? p.result : JSON.stringify(p.result);
  if (p.isError === true) return Object.assign(part, { state: "output-error", input: structuredClone(input), errorText: text });
  return Object.assign(part, { state: "output-available", input: structuredClone(input), output: text });
}

// uiPart: the UIMessage part of a ThreadMessage part, null for one it has none for.
function uiPart(p) {
  if ((p.type === "text" || p.type === "reasoning") && typeof p.text === "string") return { type: p.type, text: p.text };
  if (p.type === "tool-call") return toolPart(p);
  let file = null;
  if (p.type === "image" && typeof p.image === "string") file = { type: "file", mediaType: imageType(p.image), url: p.image };
  else if (p.type === "file" && typeof p.data === "string") {
    // data is a URL, or base64 (assistant-ui's FileMessagePart).
    const mediaType = typeof p.mimeType === "string" && p.mimeType !== "" ? p.mimeType : /^data:([^;,]+)/i.exec(p.data)?.[1] ?? "application/octet-stream";
    file = { type: "file", mediaType, url: /^(data|https?):/i.test(p.data) ? p.data : `data:${mediaType};base64,${p.data}` };
  }
  if (file !== null && typeof p.filename === "string") file.filename = p.filename;
  return file;
}

// formatted is the GenericThreadHistoryAdapter withFormat returns.
function formatted(place, format) {
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
      const t = place.loaded();
      if (t.stats().nodes === 0) return { headId: null, messages: [] };
      const path = t.activePath();
      const nodes = t.subtree(null).nodes.map(({ id }) => t.node(id));
      // A node of another shape (OpenAI tool calls and their results,
      // Anthropic blocks, Open WebUI's reasoning in a reply's text) is Go's
      // conversion of it, as toRepository gives it: a node each, a tool call
      // and a result as tool parts.
      const own = (m) => Array.isArray(m.parts) || ownShape(m);
      const other = aiSDK && !nodes.every((n) => own(n.message)) ? new Map(converted(t).messages.map(({ message }) => [message.id, message])) : null;
      const messages = nodes.map((n) => {
        const m = other !== null && !own(n.message) ? other.get(n.id) : null;
        const content = !aiSDK ? structuredClone(n.message) : m ? uiMessageContent({ role: m.role, content: m.content }) : uiMessageContent(n.message);
        return format.decode({ id: n.id, parent_id: n.parent, format: format.format, content });
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

/** A ThreadHistoryAdapter on a tree, or a conversation's. See assistant-ui.d.ts. */
export function historyAdapter(source) {
  const place = placement(source, treeOf(source));
  return {
    async load() {
      return toRepository(place.loaded());
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
      return formatted(place, formatAdapter);
    },
    open(messageId) {
      if (typeof messageId !== "string" || messageId === "") fail(`"messageId" must be a non-empty string`);
      return place.open(messageId);
    },
  };
}
