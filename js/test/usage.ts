// Type-checks the declarations as a user would write against them (tsc --noEmit).
import { init, initInterchange, memoryUsage, settled, SessionTree, SessionTreeError, type Branch, type Op, type Summary, type TreeNode } from "../sessiontree.js";
import { loadFile, saveFile } from "../node.js";

export async function usage(): Promise<string> {
  await init();
  await init(new URL("../sessiontree.wasm", import.meta.url));
  await init({ full: true });
  await initInterchange();
  await Promise.all([init(), initInterchange(new URL("../sessiontree-interchange.wasm", import.meta.url))]);
  using t = new SessionTree();
  const id: string = t.append({ role: "user", content: "hi" });
  const kept: string | null = t.rewind(id, Date.now());
  const name: string = t.branch(id, "idea");
  t.switchBranch("main");
  t.label(id, "start");
  t.clearLabel(id);
  const msgs = t.linearProjectionOf(name);
  const role: string = msgs[0].role;
  const path: string[] = t.pathOf("idea");
  const node: TreeNode | null = t.node(id);
  const branches: Branch[] = t.branches();
  const active: string = t.activeBranch;
  const has: boolean = t.hasBranches();
  t.summarizeBranch("idea", "text", "model-x");
  const s: Summary = await t.summarizeBranchWith("idea", async (text, { signal }) => (signal.aborted ? "" : text.slice(0, 10)), undefined, { timeoutMs: 5000 });
  const splice = t.spliceForLinearExport();
  const sib: { siblings: string[]; index: number } = t.siblings(id);
  const ops: Op[] = [{ op: "append", message: { role: "user", content: "x" } }, { op: "rewind", node: id }];
  const results = t.apply(ops);
  const copy = SessionTree.load(t.save());
  const fromBytes = SessionTree.load(new TextEncoder().encode(copy.save()));
  const saved = new TextEncoder().encode(copy.save());
  const filled: SessionTree = SessionTree.loadWith(saved.length, (bytes: Uint8Array) => bytes.set(saved), { keepDuplicateKeys: false });
  filled.free();
  const fromFile: SessionTree = loadFile("chat.tree.json");
  const written: number = saveFile(fromFile, "chat.tree.json") + fromFile.saveWith((bytes: Uint8Array) => void bytes.length);
  fromFile.free();
  const imported: { tree: SessionTree; report: { nodes: number } } = SessionTree.import(t.export("openai"), "openai");
  const md: string = imported.tree.export("markdown");
  const linear = SessionTree.fromLinear([{ role: "user", content: "a" }], 1);
  const projected = t.projectFor("anthropic", { budget: 1000, branch: "main", thinking: false });
  const body = JSON.stringify({ model: "m", max_tokens: 16, ...projected.request });
  const sent: number = projected.report.sent + t.projectFor("openai-responses").report.orphanCalls.length;
  try {
    t.switchBranch("nope");
  } catch (e) {
    if (e instanceof SessionTreeError && e.code === "branch_not_found") return e.message;
  }
  return [kept, role, path.length, node?.createdAtMs, branches.length, active, has, s.modelId, splice.messages.length,
    sib.index, results.length, fromBytes.stats().nodes, linear.children(id).length, t.validate().length,
    t.search("x", 1).length, t.stubSummary("idea").summary, t.renderBranchText("idea"), t.checkout(id), t.open(id),
    t.edit(id, { role: "user" }), t.regenerate(id, { role: "assistant" }), t.clone().prune().length,
    t.repair().length, md, body, sent].join();
}

// memoryUsage: bytes of each module's memory.
const memory: { main: number; interchange: number } = memoryUsage();
// settled: after a large load, the idle slices of the module's tidy collection.
const tidied: { steps: number } = await settled();
void tidied;
void memory;

// Windows of a path.
declare const tw: SessionTree;
const total: number = tw.pathLength("main");
const screen: { ids: string[]; messages: readonly Readonly<{ role: string }>[] } = tw.pathWindow(-50, undefined, "main");
void total; void screen;
const sub: { nodes: { id: string; parent: string | null; childCount: number; preview: string; branches: string[]; run: number; last: string }[]; more: boolean } = tw.subtree(null, { depth: 2, limit: 500, runs: true });
const around: { nodes: { id: string; last: string; run: number }[]; more: boolean; above: number } = tw.subtreeAround(sub.nodes[0].id, { limit: 1000 });
void sub; void around;

// Rows and streams.
const rows: { all: boolean; nodes: { id: string; row: string | null }[] } = tw.takeChanges();
const again: SessionTree = SessionTree.fromRows({ activeBranch: "main", branches: [], nodes: [] });
const fromBlob: Promise<SessionTree> = SessionTree.loadFrom(new Blob(["{}"]));
const inSlices: Promise<SessionTree> = SessionTree.loadFrom(new Uint8Array(0), { sliceMs: 16 });
again.applyChanges(tw.takeChanges(), { follow: true });
void rows; void again; void fromBlob;
