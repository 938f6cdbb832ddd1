// Type-checks the adapters' declarations against the real packages' types
// (tsc --noEmit --strict, make test-js): `ai`'s UIMessage and assistant-ui's
// ThreadHistoryAdapter.
import type { UIMessage } from "ai";
import { SessionTree } from "../sessiontree.js";
import { fromUIMessage, syncChat, toUIMessages, type SyncChatResult } from "../ai-sdk.js";

type Meta = { model?: string };
type MyMessage = UIMessage<Meta>;

export function aiSDK(t: SessionTree, fromChat: MyMessage[]): MyMessage[] {
  const stored = fromUIMessage(fromChat[0]);
  t.append(stored);
  const r: SyncChatResult<MyMessage> = syncChat(t, fromChat, { atMs: Date.now() });
  const added: string[] = r.added;
  const view: MyMessage[] = toUIMessages<MyMessage>(t, { branch: t.activeBranch });
  const plain: UIMessage[] = toUIMessages(t);
  return r.changed && added.length > 0 ? r.messages : view.concat(plain as MyMessage[]);
}

// assistant-ui: the adapter is a ThreadHistoryAdapter; what load() gives
// is what MessageRepository.import takes.
import type { ExportedMessageRepository, ThreadHistoryAdapter, ThreadMessage } from "@assistant-ui/core";
import { fromThreadMessage, historyAdapter, toRepository, toThreadMessage } from "../assistant-ui.js";

export async function assistantUI(t: SessionTree, m: ThreadMessage): Promise<string | null | undefined> {
  const history: ThreadHistoryAdapter = historyAdapter(t);
  const repo: ExportedMessageRepository = await history.load();
  await history.append({ message: m, parentId: repo.messages.at(-1)?.message.id ?? null });
  const again: ThreadMessage = toThreadMessage(t.node(t.activePath()[0])!);
  t.append(fromThreadMessage(again));
  return toRepository(t).headId;
}

// update, delete and withFormat: what useLocalRuntime and useChatRuntime call.
import type { GenericThreadHistoryAdapter, MessageFormatAdapter } from "@assistant-ui/core";

export async function assistantUIFormats(t: SessionTree, m: ThreadMessage, format: MessageFormatAdapter<UIMessage, { role: string; parts: unknown[] }>): Promise<string | null> {
  const history = historyAdapter(t);
  await history.update({ message: m, parentId: null });
  await history.delete([{ message: m, parentId: null }]);
  const generic: GenericThreadHistoryAdapter<UIMessage> = history.withFormat(format);
  const ui = history.withFormat(format);
  const { headId, messages } = await ui.load();
  const first: UIMessage | undefined = messages[0]?.message;
  if (first) {
    await ui.update({ message: first, parentId: null }, first.id);
    await generic.append({ message: first, parentId: null });
    await ui.delete([{ message: first, parentId: null }]);
  }
  return headId;
}

// historyAdapter follows a conversation of sessiontree/idb (its tree a reload replaces).
import type { Conversation } from "../idb.js";

export function assistantUIConversation(conv: Conversation): ThreadHistoryAdapter {
  const follows: { readonly tree: SessionTree } = conv;
  return historyAdapter(follows);
}
