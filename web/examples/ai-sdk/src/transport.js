// A ChatTransport for useChat that runs in the page: the UIMessages as
// { role, content } for the OpenAI-compatible endpoint, its streamed text
// as the AI SDK's UI message chunks.
import { streamChat } from "../../shared/openai-stream.js";

const text = (m) => m.parts.filter((p) => p.type === "text").map((p) => p.text).join("");

export const transport = {
  async sendMessages({ messages, abortSignal }) {
    const deltas = streamChat(messages.map((m) => ({ role: m.role, content: text(m) })), abortSignal);
    return new ReadableStream({
      async start(out) {
        try {
          out.enqueue({ type: "start" });
          out.enqueue({ type: "text-start", id: "t" });
          for await (const delta of deltas) out.enqueue({ type: "text-delta", id: "t", delta });
          out.enqueue({ type: "text-end", id: "t" });
          out.enqueue({ type: "finish" });
          out.close();
        } catch (e) {
          out.error(e);
        }
      },
    });
  },
  async reconnectToStream() {
    return null;
  },
};
