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
