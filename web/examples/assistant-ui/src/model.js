// assistant-ui's ChatModelAdapter on the OpenAI-compatible endpoint: the
// thread's path as { role, content } messages, the reply streamed as it comes.
import { streamChat } from "../../shared/openai-stream.js";

const text = (m) => m.content.filter((p) => p.type === "text").map((p) => p.text).join("");

export const model = {
  async *run({ messages, abortSignal }) {
    let reply = "";
    for await (const delta of streamChat(messages.map((m) => ({ role: m.role, content: text(m) })), abortSignal)) {
      reply += delta;
      yield { content: [{ type: "text", text: reply }] };
    }
  },
};
