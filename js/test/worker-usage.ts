// tsc checks that sessiontree/worker's declarations read as a page would use them.
import { connect, readAhead, type AsyncSessionTree } from "../worker.js";

async function page(file: Blob) {
  const st = await connect({ full: true });
  const t: AsyncSessionTree = await st.SessionTree.loadFrom(file, { sliceMs: 30 });
  const { ids, messages } = await t.pathWindow(-50);
  const { nodes, more }: { nodes: { id: string; childCount: number }[]; more: boolean } = await t.subtree(undefined, { limit: 1000 });
  void nodes; void more;
  const id: string = await t.append({ role: "user", content: "hi" });
  const name: string = await t.activeBranch;
  const saved: string = await t.save();
  const ahead = readAhead(st.SessionTree.importEach(file, "auto", { files: true }), { bytes: 8 << 20 });
  for await (const c of ahead) {
    const bytes: Uint8Array = c.file;
    void [bytes, c.title, c.report.format];
  }
  const most: number = ahead.most;
  void most;
  await t.free();
  const chats: { title: string; tree: AsyncSessionTree }[] = await st.SessionTree.importAll(await file.text(), "auto");
  const kept: AsyncSessionTree = await st.SessionTree.load(await chats[0].tree.save(), { keepDuplicateKeys: true });
  await kept.free();
  st.close();
  return [ids, messages, id, name, saved];
}
void page;
