// Where replies come from: the built-in demo assistant (offline, deterministic:
// the same conversation gives the same reply) or an OpenAI-compatible
// /chat/completions endpoint the user configured (settings kept in localStorage).

/** The model id recorded on the demo assistant's messages. */
export const DEMO_MODEL = "demo-assistant";

const SETTINGS_KEY = "sessiontree-demo.settings";

/** The assistant settings: { mode: "demo" | "endpoint", url, key, model }. */
export function loadSettings() {
  try {
    const s = JSON.parse(localStorage.getItem(SETTINGS_KEY) ?? "null");
    if (s && typeof s === "object") {
      return { mode: s.mode === "endpoint" ? "endpoint" : "demo", url: String(s.url ?? ""), key: String(s.key ?? ""), model: String(s.model ?? "") };
    }
  } catch {
    // A damaged settings entry is replaced by the defaults below; the user sees them in the dialog.
  }
  return { mode: "demo", url: "", key: "", model: "" };
}

export function saveSettings(s) {
  localStorage.setItem(SETTINGS_KEY, JSON.stringify(s));
}

/** Whether replies come from a configured endpoint. */
export function usesEndpoint(s) {
  return s.mode === "endpoint" && s.url.trim() !== "" && s.model.trim() !== "";
}

/** The text of a message: its string content, its text parts, its tool calls. */
export function messageText(m) {
  const parts = [];
  if (typeof m.content === "string") parts.push(m.content);
  else if (Array.isArray(m.content)) {
    for (const p of m.content) {
      if (p && typeof p === "object" && typeof p.text === "string") parts.push(p.text);
      else if (p && typeof p === "object" && typeof p.type === "string") parts.push(`[${p.type}]`);
    }
  }
  if (Array.isArray(m.tool_calls)) {
    for (const c of m.tool_calls) {
      const f = c?.function ?? {};
      parts.push(`[tool_call ${f.name ?? "?"}(${typeof f.arguments === "string" ? f.arguments : ""})]`);
    }
  }
  return parts.join("\n");
}

// ---- the demo assistant -------------------------------------------------------

const OPENERS = [
  "Here is one way to look at it",
  "Let me take that step by step",
  "Short answer first",
  "Another angle on the same question",
  "A different take",
  "Thinking out loud",
];

const TIPS = [
  "Regenerate this reply to see another variant; the arrows ‹ › under it switch between them.",
  "Rewind to any earlier message and write something else: the later messages stay on a branch of their own.",
  "Edit one of your messages and resend it: the old version and its replies stay one click away.",
  "Open the tree view to see every branch of this conversation at once.",
  "Label a message to find it again in the tree, or name a branch with \u201cBranch here\u201d.",
  "Search looks through every branch, not only the one you are on.",
];

function hash(s) {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 16777619);
  }
  return h >>> 0;
}

/**
 * The demo assistant's reply to messages (the branch so far, ending with the
 * user's turn). variant picks among alternatives: regenerate passes the number
 * of replies already there, so each regeneration differs, deterministically.
 */
export function demoReply(messages, variant = 0) {
  const last = [...messages].reverse().find((m) => m.role === "user");
  const text = last ? messageText(last).trim() : "";
  const words = text === "" ? 0 : text.split(/\s+/).length;
  const turns = (messages.turnsBefore ?? 0) + messages.filter((m) => m.role === "user").length;
  const h = hash(text) + variant * 7;
  const quote = text.length > 80 ? text.slice(0, 77) + "\u2026" : text;
  const opener = OPENERS[h % OPENERS.length];
  const tip = TIPS[(h + turns) % TIPS.length];
  const shape = text.endsWith("?")
    ? "You asked a question, and I am only a demo, so I cannot answer it for real."
    : `That is ${words} word${words === 1 ? "" : "s"}; I would build on it if I were a real model.`;
  const body = `${opener}: you wrote \u201c${quote}\u201d. ${shape}\n\nThis is turn ${turns} of this branch${variant ? `, reply variant ${variant + 1}` : ""}. ${tip}`;
  return { role: "assistant", content: body, model: DEMO_MODEL };
}

// ---- an OpenAI-compatible endpoint ----------------------------------------------

/** The /chat/completions URL for the configured base URL (or the full URL as given). */
export function completionsURL(url) {
  const u = url.trim().replace(/\/+$/, "");
  return /\/chat\/completions$/.test(u) ? u : `${u}/chat/completions`;
}

/** An error whose message a user can act on. */
export class EndpointError extends Error {}

async function complete(settings, messages, signal) {
  const url = completionsURL(settings.url);
  const headers = { "content-type": "application/json" };
  if (settings.key.trim() !== "") headers.authorization = `Bearer ${settings.key.trim()}`;
  let res;
  try {
    res = await fetch(url, {
      method: "POST",
      headers,
      body: JSON.stringify({ model: settings.model.trim(), messages }),
      signal,
    });
  } catch (e) {
    if (signal?.aborted) throw new EndpointError("the request was stopped");
    throw new EndpointError(`could not reach ${url} (${e.message}). Check the URL, the network, and that the server allows requests from this page (CORS).`);
  }
  const body = await res.text().catch(() => "");
  if (!res.ok) {
    let detail = body.slice(0, 300);
    try {
      detail = JSON.parse(body)?.error?.message ?? detail;
    } catch {
      // Not JSON: the raw text (cut) is the best detail there is.
    }
    throw new EndpointError(`${url} answered HTTP ${res.status}${detail ? `: ${detail}` : ""}`);
  }
  let data;
  try {
    data = JSON.parse(body);
  } catch {
    throw new EndpointError(`${url} answered something that is not JSON: ${body.slice(0, 120)}`);
  }
  const m = data?.choices?.[0]?.message;
  if (!m || (typeof m.content !== "string" && !Array.isArray(m.tool_calls))) {
    throw new EndpointError(`${url} answered JSON without choices[0].message.content`);
  }
  return { text: m.content ?? "", model: typeof data.model === "string" && data.model ? data.model : settings.model.trim() };
}

/** Only the fields a chat model reads, so the tree's own fields never reach the endpoint. */
function forModel(messages) {
  return messages.map((m) => {
    const o = { role: m.role, content: m.content ?? "" };
    for (const k of ["name", "tool_calls", "tool_call_id"]) if (m[k] !== undefined) o[k] = m[k];
    return o;
  });
}

/** The endpoint's reply to messages, as a message to append. */
export async function endpointReply(settings, messages, signal) {
  const { text, model } = await complete(settings, forModel(messages), signal);
  return { role: "assistant", content: text, model };
}

/** A summarizer for t.summarizeBranchWith that asks the configured model. */
export function endpointSummarizer(settings) {
  return async (text, { signal }) => {
    const { text: summary, model } = await complete(settings, [
      { role: "system", content: "Summarize this branch of a chat in one or two short sentences. Answer with the summary only." },
      { role: "user", content: text },
    ], signal);
    return { summary: summary.trim(), modelId: model };
  };
}
