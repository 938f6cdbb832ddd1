// Where replies come from: the built-in demo assistant (offline, deterministic:
// the same conversation gives the same reply) or an OpenAI-compatible
// /chat/completions endpoint the user configured (settings kept in localStorage).

/** The model id recorded on the demo assistant's messages. */
export const DEMO_MODEL = "demo-assistant";

const SETTINGS_KEY = "sessiontree-demo.settings";

/** The assistant settings: { mode: "demo" | "endpoint", api: "openai-chat" | "anthropic", url, key, model, budget (tokens), timeout (s) }. */
export function loadSettings() {
  try {
    const s = JSON.parse(localStorage.getItem(SETTINGS_KEY) ?? "null");
    if (s && typeof s === "object") {
      return {
        mode: s.mode === "endpoint" ? "endpoint" : "demo", api: s.api === "anthropic" ? "anthropic" : "openai-chat",
        url: String(s.url ?? ""), key: String(s.key ?? ""), model: String(s.model ?? ""),
        budget: Number(s.budget) || 32000, timeout: Number(s.timeout) || 60,
      };
    }
  } catch {
    // A damaged settings entry is replaced by the defaults below; the user sees them in the dialog.
  }
  return { mode: "demo", api: "openai-chat", url: "", key: "", model: "", budget: 32000, timeout: 60 };
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

// ---- model endpoints: OpenAI-compatible chat completions and Anthropic Messages ----
//
// Replies stream (SSE, read with the platform's streams: fetch's body through a
// TextDecoderStream, split into events at blank lines); a server that answers
// JSON instead is read whole. A request that fails quickly before any text
// (unreachable, HTTP 5xx or 429 within QUICK_MS) is retried twice; one that
// failed slowly (nothing within the timeout, a gateway's late 504) is not: the
// user would wait the whole time again, unasked. Text already painted is never
// thrown away: Stop, a timeout or a broken stream keep it as a reply marked
// incomplete.

// A failure this soon after the request (or half the timeout, if less) is retried by itself.
const QUICK_MS = 5000;
// A server's Retry-After (a 429, a 503) up to this long is waited for (Stop ends
// the wait); a longer one is not retried by itself: the error says when to try.
const RETRY_AFTER_MAX_MS = 10_000;

/** The APIs a configured endpoint may speak (t.projectFor's names). */
export const APIS = [
  { value: "openai-chat", label: "OpenAI-compatible chat completions", hint: "POST {URL}/chat/completions (OpenAI, Ollama, vLLM, llama.cpp, LM Studio, OpenRouter…)" },
  { value: "anthropic", label: "Anthropic Messages", hint: "POST {URL}/messages with x-api-key (https://api.anthropic.com/v1)" },
];

/** The /chat/completions or /messages URL for the configured base URL (or the full URL as given). */
export function completionsURL(url, api = "openai-chat") {
  const u = url.trim().replace(/\/+$/, "");
  if (api === "anthropic") return /\/messages$/.test(u) ? u : `${u}/messages`;
  return /\/chat\/completions$/.test(u) ? u : `${u}/chat/completions`;
}

function modelsURL(url, api) {
  return completionsURL(url, api).replace(/\/(chat\/completions|messages)$/, "/models");
}

function headersFor(settings) {
  const key = settings.key.trim();
  const h = { "content-type": "application/json" };
  if (settings.api === "anthropic") {
    h["anthropic-version"] = "2023-06-01";
    h["anthropic-dangerous-direct-browser-access"] = "true";
    if (key) h["x-api-key"] = key;
  } else if (key) h.authorization = `Bearer ${key}`;
  return h;
}

/** An error whose message a user can act on; `retry`: worth trying again as is. */
export class EndpointError extends Error {
  constructor(message, retry = false, retryAfterMs = undefined) {
    super(message);
    this.retry = retry;
    this.retryAfterMs = retryAfterMs; // the server's Retry-After, when it gave one
  }
}

/** The wait a response's Retry-After asks for (seconds or an HTTP date), in ms, or undefined. */
function retryAfterOf(res) {
  const v = res.headers.get("retry-after");
  if (!v) return undefined;
  const ms = /^\d+$/.test(v.trim()) ? Number(v) * 1000 : Date.parse(v) - Date.now();
  return Number.isFinite(ms) ? Math.max(0, ms) : undefined;
}

/** Resolves after ms, or at once when signal aborts. */
function pause(ms, signal) {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => { clearTimeout(timer); resolve(); }, { once: true });
  });
}

/**
 * The request body for the configured API from a projection's request fields
 * (t.projectFor) and the conversation's system prompt.
 */
export function requestBody(settings, request, system, stream = true) {
  const model = settings.model.trim();
  if (settings.api === "anthropic") {
    const body = { model, max_tokens: settings.maxTokens || 4096, messages: request.messages ?? [] };
    const sys = [system?.trim(), request.system].filter(Boolean).join("\n\n");
    if (sys) body.system = sys;
    if (request.tools?.length) body.tools = request.tools;
    if (stream) body.stream = true;
    return body;
  }
  const messages = [...(request.messages ?? [])];
  if (system?.trim()) messages.unshift({ role: "system", content: system.trim() });
  const body = { model, messages };
  if (stream) body.stream = true;
  return body;
}

/** The server's error message out of an error body (OpenAI's and Anthropic's shapes), or the text cut. */
function detailOf(text) {
  try {
    const j = JSON.parse(text);
    return j?.error?.message ?? j?.message ?? plainOf(text);
  } catch {
    return plainOf(text);
  }
}

/**
 * A body that is not JSON, as a few words for a message: an HTML page (a
 * proxy's or a server's error page) by its title or first heading, never
 * its markup (until Dec 6, night, 300 characters of it went into the banner
 * and each retry's toast); other text cut at 160 characters.
 */
function plainOf(text) {
  const t = text.trim();
  if (/^<(!doctype|html|head|body|\?xml|[a-z][a-z0-9]*[\s>])/i.test(t)) {
    const title = /<title[^>]*>([^<]*)</i.exec(t)?.[1] ?? /<h1[^>]*>([^<]*)</i.exec(t)?.[1] ?? "";
    const words = title.replace(/\s+/g, " ").trim();
    return words ? `an HTML page, \u201c${words.slice(0, 120)}\u201d` : "an HTML page";
  }
  return t.length > 160 ? `${t.slice(0, 157)}\u2026` : t;
}

// leaving: the page is going away (a reload, a closed tab). A stream it cuts
// is kept marked "interrupted", not "error" (it was not the endpoint's fault).
let leaving = false;
if (typeof addEventListener === "function") {
  addEventListener("pagehide", () => { leaving = true; });
  addEventListener("pageshow", () => { leaving = false; }); // back from the page cache
}

/** Reads SSE events ({ event, data }) from a fetch body. */
async function* sse(body, signal) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buf = "";
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buf += value;
      let cut;
      while ((cut = buf.search(/\r?\n\r?\n/)) >= 0) {
        const block = buf.slice(0, cut);
        buf = buf.slice(cut).replace(/^\r?\n\r?\n/, "");
        let event = "message";
        const data = [];
        for (const line of block.split(/\r?\n/)) {
          if (line.startsWith("event:")) event = line.slice(6).trim();
          else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
        }
        if (data.length) yield { event, data: data.join("\n") };
      }
      if (signal?.aborted) break;
    }
  } finally {
    reader.cancel().catch(() => {});
  }
}

// The end reasons of either API that say the reply is not whole: the model ran
// into its token limit, or the provider's filter stopped it.
const CUT_SHORT = new Set(["length", "content_filter", "max_tokens"]);

/** How an answer ended, from its finish_reason or stop_reason: "done", or the API's reason it is not whole. */
function endOf(reason) {
  return CUT_SHORT.has(reason) ? reason : "done";
}

/** The text of a whole (non-streamed) answer, either API. */
function wholeText(api, data) {
  if (api === "anthropic") {
    if (!Array.isArray(data?.content)) throw new EndpointError("the answer has no content");
    return data.content.filter((p) => p?.type === "text").map((p) => p.text).join("");
  }
  const m = data?.choices?.[0]?.message;
  if (!m || (typeof m.content !== "string" && !Array.isArray(m.tool_calls) && m.content !== null)) throw new EndpointError("the answer has no choices[0].message.content");
  return m.content ?? "";
}

/**
 * One request, streamed: calls onText(textSoFar) as tokens arrive. Resolves to
 * { text, model, incomplete, reason }. Stop (signal) or the idle timeout after
 * some text resolve with what came, incomplete; before any text they reject.
 */
async function once(settings, body, { signal, onText, timeoutMs }) {
  const url = completionsURL(settings.url, settings.api);
  const idle = new AbortController();
  let timer = 0;
  let timedOut = false;
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => { timedOut = true; idle.abort(); }, timeoutMs);
  };
  const both = AbortSignal.any([signal, idle.signal].filter(Boolean));
  let text = "";
  let model = settings.model.trim();
  let finish = null; // the stream's finish_reason (OpenAI) or stop_reason (Anthropic), once it says
  const end = (reason) => ({ text, model, incomplete: reason !== "done", reason });
  arm();
  try {
    let res;
    try {
      res = await fetch(url, { method: "POST", headers: headersFor(settings), body: JSON.stringify(body), signal: both });
    } catch (e) {
      if (signal?.aborted) throw new EndpointError("the request was stopped");
      if (timedOut) throw new EndpointError(`${url} sent nothing within ${Math.round(timeoutMs / 1000)} s`, true);
      throw new EndpointError(`could not reach ${url} (${e.message}). Check the URL, the network, and that the server allows requests from this page (CORS).`, true);
    }
    arm();
    if (!res.ok) {
      const detail = detailOf(await res.text().catch(() => ""));
      const after = retryAfterOf(res);
      const said = `${url} answered HTTP ${res.status}${detail ? `: ${detail}` : ""}`;
      if (after > RETRY_AFTER_MAX_MS) {
        const at = new Date(Date.now() + after).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" });
        throw new EndpointError(`${said}. The server asks to wait ${Math.round(after / 1000)} s: try again after ${at}`);
      }
      throw new EndpointError(said, res.status >= 500 || res.status === 429, after);
    }
    const type = res.headers.get("content-type") ?? "";
    if (!type.includes("text/event-stream")) {
      const raw = await res.text();
      let data;
      try {
        data = JSON.parse(raw);
      } catch {
        throw new EndpointError(`${url} answered something that is neither JSON nor an event stream: ${plainOf(raw)}`);
      }
      text = wholeText(settings.api, data);
      if (typeof data.model === "string" && data.model) model = data.model;
      onText?.(text);
      return end(endOf(settings.api === "anthropic" ? data.stop_reason : data.choices[0].finish_reason));
    }
    // A data line that is not JSON: kept to say what came when nothing else
    // did (an SSE comment starts with ":" and never gets here).
    let unread = null;
    // No text at all, and no reason the model gave: not a reply. Before Dec 6
    // (night) it was stored as an empty reply, "(no text)", with no word of
    // what went wrong.
    const nothing = () => new EndpointError(unread === null
      ? `${url} ended its stream without any text`
      : `${url} sent an event stream that is not ${settings.api === "anthropic" ? "Anthropic's" : "OpenAI's"}: \u201c${unread.slice(0, 80)}\u201d`, true);
    try {
      for await (const { event, data } of sse(res.body, both)) {
        arm();
        if (data === "[DONE]") {
          if (!text && !finish) throw nothing();
          return end(endOf(finish));
        }
        let j;
        try {
          j = JSON.parse(data);
        } catch {
          unread ??= data;
          continue;
        }
        if (typeof j.model === "string" && j.model) model = j.model;
        if (j.type === "error" || event === "error" || (j.error && !j.choices)) {
          const msg = j.error?.message ?? "the stream reported an error";
          if (text) return { ...end("error"), error: `${url} reported: ${msg}` };
          throw new EndpointError(`${url} reported: ${msg}`, true);
        }
        if (settings.api === "anthropic") {
          if (j.type === "message_start" && j.message?.model) model = j.message.model;
          if (j.type === "content_block_delta" && j.delta?.type === "text_delta") text += j.delta.text;
          if (j.type === "message_delta" && j.delta?.stop_reason) finish = j.delta.stop_reason;
          if (j.type === "message_stop") return end(endOf(finish));
        } else {
          const d = j.choices?.[0]?.delta;
          if (typeof d?.content === "string") text += d.content;
          if (j.choices?.[0]?.finish_reason) finish = j.choices[0].finish_reason;
        }
        onText?.(text);
      }
    } catch (e) {
      if (e instanceof EndpointError) throw e;
      if (!both.aborted) {
        if (text && leaving) return end("interrupted");
        if (text) return { ...end("error"), error: `the stream broke (${e.message})` };
        throw new EndpointError(`${url}: the stream broke (${e.message})`, true);
      }
    }
    if (signal?.aborted) {
      if (text) return end("stopped");
      throw new EndpointError("the request was stopped");
    }
    if (timedOut) {
      if (text) return end("timeout");
      throw new EndpointError(`${url} sent nothing within ${Math.round(timeoutMs / 1000)} s`, true);
    }
    // The stream ended without its end marker ([DONE], message_stop): what came
    // is kept, marked, unless the model had said how it ended (a server that
    // sends no [DONE] after its finish_reason).
    if (finish) return end(endOf(finish));
    if (!text) throw nothing();
    return end(leaving ? "interrupted" : "cut");
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The endpoint's reply to a request body (requestBody), streamed into
 * onText(textSoFar), retried twice when it failed quickly before any text,
 * after the server's Retry-After when it gives one of at most RETRY_AFTER_MAX_MS
 * (a timeout is never retried: one wait of the timeout, then the error). Resolves to
 * a message to append ({ role, content, model } and `incomplete: true` with
 * `stop_reason` when it was cut short); onBroken(text) gets the error the
 * server reported in the stream (or the stream's) that cut it short.
 */
export async function endpointReply(settings, body, signal, { onText, onRetry, onBroken } = {}) {
  const timeoutMs = Math.max(1, Number(settings.timeout) || 60) * 1000;
  for (let attempt = 0; ; attempt++) {
    const t0 = Date.now();
    try {
      const got = await once(settings, body, { signal, onText, timeoutMs });
      const m = { role: "assistant", content: got.text, model: got.model };
      if (got.incomplete) {
        m.incomplete = true;
        m.stop_reason = got.reason;
      }
      if (got.error) onBroken?.(got.error);
      return m;
    } catch (e) {
      const quick = Date.now() - t0 < Math.min(QUICK_MS, timeoutMs / 2);
      if (!(e instanceof EndpointError) || !e.retry || !quick || attempt >= 2 || signal?.aborted) throw e;
      const wait = e.retryAfterMs ?? 400 * 2 ** attempt;
      onRetry?.(attempt + 1, e, wait);
      await pause(wait, signal);
      if (signal?.aborted) throw new EndpointError("the request was stopped");
    }
  }
}

/** The model ids the endpoint lists (GET {URL}/models), or [] when it lists none. */
export async function listModels(settings, signal) {
  const res = await fetch(modelsURL(settings.url, settings.api), { headers: headersFor(settings), signal });
  if (!res.ok) throw new EndpointError(`${modelsURL(settings.url, settings.api)} answered HTTP ${res.status}`);
  const data = await res.json();
  return (Array.isArray(data?.data) ? data.data : []).map((m) => m?.id).filter((id) => typeof id === "string");
}

/** A summarizer for t.summarizeBranchWith that asks the configured model (not streamed). */
export function endpointSummarizer(settings) {
  return async (text, { signal }) => {
    const body = requestBody(settings, { messages: [{ role: "user", content: text }] }, "Summarize this branch of a chat in one or two short sentences. Answer with the summary only.", false);
    const got = await once(settings, body, { signal, timeoutMs: 30000 });
    return { summary: got.text.trim(), modelId: got.model };
  };
}
