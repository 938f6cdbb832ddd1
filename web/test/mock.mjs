// A local mock of an OpenAI-compatible chat completions server and of
// Anthropic's Messages API, on a free loopback port: /openai/v1/… and
// /anthropic/v1/…, GET …/models lists two models. What the last user turn says
// in brackets picks the answer: [stream] (the default) streams REPLY a token at
// a time; [slow] streams slower; [quiet] goes quiet after six tokens and never
// ends; [fail500] always answers HTTP 500; [flaky] answers 503 once for that
// text, [flakyN] N times, then answers; [busy30] always answers 429 with
// Retry-After: 30; [busy1] answers 429 with Retry-After: 1 once for that text, then answers; [hang] never answers; [summary] answers
// "A mocked summary."; [cut] closes the connection after four tokens (no end
// marker); [length] ends after four tokens at the token limit (finish_reason
// "length", stop_reason "max_tokens"); [miderr] reports an error in the
// stream after four tokens, then ends. A request without "stream": true is answered whole.
import http from "node:http";

export const REPLY = "# Plan\n\nHere is **bold** text, a [link](https://example.com) and a list:\n\n- one\n- two\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```python\nprint(\"hi\")\n```\nText after the fence.";
const tokens = (text) => text.match(/\S+\s*|\s+/g);

/**
 * Starts the mock; resolves to { url, requests, close }: requests holds every
 * POST as { api, body, headers, at } (at: Date.now() when it came).
 */
export async function startMock() {
  const requests = [];
  const failures = new Map(); // text → failures answered so far ([flakyN])
  const server = http.createServer((req, res) => handle(req, res).catch((e) => {
    console.error(`mock: ${e.stack}`);
    res.destroy();
  }));
  async function handle(req, res) {
    const cors = {
      "access-control-allow-origin": "*",
      "access-control-allow-headers": "content-type, authorization, x-api-key, anthropic-version, anthropic-dangerous-direct-browser-access",
      "access-control-allow-methods": "GET, POST, OPTIONS",
      "access-control-expose-headers": "retry-after",
    };
    if (req.method === "OPTIONS") return res.writeHead(204, cors).end();
    const api = req.url.startsWith("/anthropic/") ? "anthropic" : "openai";
    if (req.method === "GET" && req.url.endsWith("/models")) {
      return res.writeHead(200, { ...cors, "content-type": "application/json" }).end(JSON.stringify({ data: [{ id: `${api}-model-a` }, { id: `${api}-model-b` }] }));
    }
    let raw = "";
    for await (const c of req) raw += c;
    const body = JSON.parse(raw);
    requests.push({ api, body, headers: req.headers, at: Date.now() });
    const last = body.messages.at(-1);
    const said = typeof last.content === "string" ? last.content : last.content.map((p) => p.text ?? "").join("");
    const mode = [...said.matchAll(/\[(\w+)\]/g)].at(-1)?.[1] ?? "stream"; // the last turn's (Anthropic merges unanswered user turns)
    if (mode === "fail500") return res.writeHead(500, { ...cors, "content-type": "application/json" }).end(JSON.stringify({ error: { message: "the mock is down" } }));
    const flaky = mode.match(/^flaky(\d*)$/);
    if (flaky && (failures.get(said) ?? 0) < Number(flaky[1] || 1)) {
      failures.set(said, (failures.get(said) ?? 0) + 1);
      return res.writeHead(503, { ...cors, "content-type": "application/json" }).end(JSON.stringify({ error: { message: "overloaded, try again" } }));
    }
    if (mode === "busy30") return res.writeHead(429, { ...cors, "retry-after": "30", "content-type": "application/json" }).end(JSON.stringify({ error: { message: "rate limited" } }));
    if (mode === "busy1" && !failures.get(said)) {
      failures.set(said, 1);
      return res.writeHead(429, { ...cors, "retry-after": "1", "content-type": "application/json" }).end(JSON.stringify({ error: { message: "rate limited" } }));
    }
    if (mode === "hang") return; // never answers
    if (mode === "html500") return res.writeHead(500, { ...cors, "content-type": "text/html" }).end("<!doctype html><html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1><script>alert(1)</script>" + "x".repeat(400) + "</body></html>");
    if (mode === "garbage" || mode === "empty") {
      // An event stream that is not the API's (data lines that are not JSON), or one with no text at all.
      res.writeHead(200, { ...cors, "content-type": "text/event-stream" });
      if (mode === "garbage") res.write("data: {not json\n\ndata: hello there\n\n");
      return res.end("data: [DONE]\n\n");
    }
    const text = mode === "summary" ? "A mocked summary." : REPLY;
    const model = `${api}-mock`;
    if (!body.stream) {
      const out = api === "anthropic"
        ? { id: "msg_1", type: "message", role: "assistant", model, content: [{ type: "text", text }], stop_reason: "end_turn" }
        : { id: "c1", object: "chat.completion", model, choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }] };
      return res.writeHead(200, { ...cors, "content-type": "application/json" }).end(JSON.stringify(out));
    }
    res.writeHead(200, { ...cors, "content-type": "text/event-stream", "cache-control": "no-cache" });
    const send = (event, data) => res.write(api === "anthropic" ? `event: ${event}\ndata: ${JSON.stringify(data)}\n\n` : `data: ${JSON.stringify(data)}\n\n`);
    if (api === "anthropic") {
      send("message_start", { type: "message_start", message: { id: "msg_1", type: "message", role: "assistant", model, content: [] } });
      send("content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } });
    }
    const delay = mode === "slow" || mode === "quiet" ? 150 : 40;
    let i = 0;
    for (const tok of tokens(text)) {
      if (res.destroyed) return;
      if (api === "anthropic") send("content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: tok } });
      else send("chunk", { id: "c1", object: "chat.completion.chunk", model, choices: [{ index: 0, delta: { content: tok }, finish_reason: null }] });
      await new Promise((r) => setTimeout(r, delay));
      if (mode === "quiet" && ++i === 6) return; // goes quiet mid-stream, never ends
      if (mode === "cut" && ++i === 4) return res.end();
      if (mode === "length" && ++i === 4) break;
      if (mode === "miderr" && ++i === 4) {
        const error = { type: "overloaded_error", message: "the mock broke mid-stream" };
        if (api === "anthropic") send("error", { type: "error", error });
        else send("error", { error });
        return res.end();
      }
    }
    const stop = mode === "length" ? (api === "anthropic" ? "max_tokens" : "length") : (api === "anthropic" ? "end_turn" : "stop");
    if (api === "anthropic") {
      send("content_block_stop", { type: "content_block_stop", index: 0 });
      send("message_delta", { type: "message_delta", delta: { stop_reason: stop }, usage: { output_tokens: 10 } });
      send("message_stop", { type: "message_stop" });
    } else {
      send("chunk", { id: "c1", object: "chat.completion.chunk", model, choices: [{ index: 0, delta: {}, finish_reason: stop }] });
      res.write("data: [DONE]\n\n");
    }
    res.end();
  }
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    requests,
    close() {
      server.close();
      server.closeAllConnections?.();
    },
  };
}
