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

/** The tree message a ThreadMessage is stored as. See assistant-ui.d.ts. */
export function fromThreadMessage(m) {
  if (!isObject(m)) fail(`a ThreadMessage must be an object, got ${m === null ? "null" : typeof m}`);
  if (!ROLES.has(m.role)) fail(`"role" of ThreadMessage ${JSON.stringify(m.id)} must be "system", "user" or "assistant", got ${JSON.stringify(m.role)}`);
  if (!Array.isArray(m.content)) fail(`"content" of ThreadMessage ${JSON.stringify(m.id)} must be an array of parts`);
  const out = { role: m.role, content: m.content };
  for (const k of Object.keys(m)) if (k !== "id" && k !== "createdAt" && !(k in out)) out[k] = m[k];
  return JSON.parse(JSON.stringify(out)); // what the tree stores: JSON, no Date or undefined
}

const emptyMetadata = () => ({ unstable_state: null, unstable_annotations: [], unstable_data: [], steps: [], custom: {} });

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
  const out = { id: node.id, role, content: parts(msg), createdAt: new Date(node.createdAtMs), metadata: emptyMetadata() };
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

/** A ThreadHistoryAdapter on tree `t`. See assistant-ui.d.ts. */
export function historyAdapter(t) {
  if (!(t instanceof SessionTree)) fail(`"tree" must be a SessionTree`);
  const ids = new Map(); // assistant-ui's id of a message appended here → its node
  const node = (id) => ids.get(id) ?? id;
  return {
    async load() {
      return toRepository(t);
    },
    async append(item) {
      if (!isObject(item)) fail(`an appended item must be { message, parentId }`);
      const { message, parentId } = item;
      const stored = fromThreadMessage(message);
      const at = message.createdAt instanceof Date && !Number.isNaN(message.createdAt.getTime()) ? message.createdAt.getTime() : undefined;
      if (ids.has(message.id) || t.node(message.id)) return; // stored already
      const parent = parentId === null || parentId === undefined ? null : node(parentId);
      if (parent !== null && !t.node(parent)) throw new SessionTreeError("not_found", `the parent ${JSON.stringify(parentId)} of message ${JSON.stringify(message.id)} is not in the tree`);
      let id;
      if (t.stats().nodes === 0) id = t.append(stored, at);
      else {
        const path = t.activePath();
        const kids = parent === null ? null : t.children(parent);
        if (parent === path[path.length - 1]) id = t.append(stored, at);
        else if (parent === null) id = t.edit(path[0], stored, at); // another first message: a sibling root
        else if (kids.length > 0) id = t.edit(kids[kids.length - 1], stored, at); // an edit or a reload: a new sibling
        else id = t.apply([{ op: "checkout", node: parent }, { op: "append", message: stored }], at)[1];
      }
      ids.set(message.id, id);
    },
  };
}
