// What both example apps send to the model: an OpenAI-compatible chat
// completions request, streamed; yields the reply's text a delta at a time.
// The endpoint is the page's ?api= (the tests start a local mock there), or
// /openai/v1 on the page's own origin.

/** The endpoint's base URL. */
export const modelURL = () => new URLSearchParams(location.search).get("api") ?? `${location.origin}/openai/v1`;

/** Streams the reply to messages ({ role, content: string }[]) as text deltas. */
export async function* streamChat(messages, signal) {
  const res = await fetch(`${modelURL()}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer sk-example" },
    body: JSON.stringify({ model: "example", stream: true, messages }),
    signal,
  });
  if (!res.ok) throw new Error(`the model answered HTTP ${res.status}`);
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buf = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buf += value;
    for (let i = buf.indexOf("\n\n"); i >= 0; i = buf.indexOf("\n\n")) {
      const event = buf.slice(0, i);
      buf = buf.slice(i + 2);
      const data = event.split("\n").filter((l) => l.startsWith("data: ")).map((l) => l.slice(6)).join("");
      if (!data || data === "[DONE]") continue;
      const delta = JSON.parse(data).choices?.[0]?.delta?.content;
      if (delta) yield delta;
    }
  }
}
