// tsc --noEmit: sessiontree/idb and sessiontree/react used as an app would (types only).
import { init, SessionTree, SessionTreeError } from "../sessiontree.js";
import { openStore, PACK_ROWS, type Conversation, type ConversationMeta } from "../idb.js";

export async function usage(file: File): Promise<number> {
  await init();
  const store = await openStore({ name: "chats", loadMerge: async () => {} });
  const gone: ConversationMeta[] = await store.removeInterrupted({ olderThanMs: 60000 });
  const off = store.subscribe((list) => list.map((m) => m.title));
  let conv: Conversation | null = await store.open(store.conversations[0]?.id ?? "none", {
    onTail: (tail) => void tail.nodes.map((n) => n.siblings?.length),
    sliceMs: 20,
    autosave: true,
  });
  conv ??= await store.create(new SessionTree(), { title: "New chat" });
  conv.tree.append({ role: "user", content: "hi" });
  const release = conv.hold();
  release();
  const unsub = conv.subscribe((e) => {
    if (e.kind === "merged") void e.report.conflicts.length;
    if (e.kind === "reloaded") void e.previous;
  });
  const { rev, rows } = await conv.save();
  await store.update(conv.id, { title: "Renamed" });
  const { conversations, problems } = await store.importFile(file, { format: "auto", tailCount: 60, onTail: (tail, meta) => void [tail.activeBranch, meta.id, meta.title] });
  for (const c of conversations) await c.conversation.close();
  const closed = await store.importFile(file, { open: false, worker: true });
  const titles: string[] = closed.conversations.map((c) => c.meta.title);
  const none: null[] = closed.conversations.map((c) => c.conversation);
  const keep = titles.length > 1;
  const either = await store.importFile(file, { open: keep });
  // @ts-expect-error: open is known at run time only, so a conversation may be null
  await either.conversations[0].conversation.close();
  await either.conversations[0].conversation?.close();
  const hits = await store.search("hi", { except: conv.id, limit: 5 });
  unsub();
  off();
  await conv.close();
  await store.delete(conv.id);
  await store.close();
  return rev + rows + gone.length + titles.length + none.length + problems.length + hits.length + PACK_ROWS + store.stats.merges;
}

import { useConversations, useTree, useActivePath, useSiblings, useBranches } from "../react.js";
import type { ConversationStore } from "../idb.js";

export function hooks(store: ConversationStore, id: string | null): string {
  const list = useConversations(store);
  const { tree, loading, error } = useTree(store, id, { sliceMs: 20 });
  const w = useActivePath(tree, { start: -50, count: 50 });
  const s = useSiblings(tree, w?.ids[0]);
  const b = useBranches(tree);
  if (s.siblings.length > 1) s.select(0);
  return `${list.length} ${loading} ${error?.message} ${w?.length} ${w?.messages[0]?.role} ${b?.active} ${b?.branches.length}`;
}

// open() rejects with a SessionTreeError whose `file` is the stored
// .tree.json text (idb.d.ts), for the user to keep: reading it failed to
// compile until an outside pass (Dec 7), the type had no `file`.
export async function keepWhatWasStored(id: string, download: (text: string) => void): Promise<void> {
  const store = await openStore({ name: "my-chats" });
  try {
    await store.open(id);
  } catch (e) {
    if (e instanceof SessionTreeError && e.file) download(e.file);
  }
}
