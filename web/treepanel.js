// The tree view's panel: when the whole tree is laid out anew and when an append
// at the active leaf only grows its box (renderTree), a click on a box, and
// the panel's bar. The canvas itself is treeview.js.
import { $ } from "./dom.js";
import { TreeView, MAX_BOXES } from "./treeview.js";
import { TREE_OPEN_KEY, state, renderHeader } from "./app.js";
import { reveal } from "./chat.js";
import { checkout } from "./actions.js";

export function renderTree() {
  if (!state.treeOpen) return;
  const t = state.cur?.tree;
  if (!state.treeView) state.treeView = new TreeView($("treepane"), { onPick: (id) => pickFromTree(id), locate: boxNodeOf });
  const view = state.treeView;
  if (!t) {
    view.setNodes({ nodes: [], more: false }, 0, { active: () => [], leaf: null });
    state.treeSig = "";
    state.treePrev = null;
    return;
  }
  const t0 = performance.now();
  const branches = t.branches();
  // Which boxes are on the active path, asked of the module (t.onPath), and
  // the path's last node: never the path's ids (200,000 of them in a huge chat).
  const active = { active: (ids) => t.onPath(ids), leaf: t.pathWindow(-1).ids[0] ?? null };
  // The layout depends on the nodes, labels and where branches end; a checkout
  // or switch changes none of them, so it only moves the highlight.
  const sig = `${state.cur.meta.id}|${state.version}|${view.compact}|${branches.map((b) => `${b.name}\u0000${b.leaf}`).join("\u0001")}`;
  // What an append at the active leaf leaves as it was: every other branch's
  // end, the conversation, the view's mode.
  const name = t.activeBranch;
  const others = `${state.cur.meta.id}|${view.compact}|${name}|${branches.filter((b) => b.name !== name).map((b) => `${b.name}\u0000${b.leaf}`).join("\u0001")}`;
  const prev = state.treePrev;
  if (sig !== state.treeSig) {
    const node = active.leaf && prev && prev.others === others && state.version === prev.version + 1 && active.leaf !== prev.leaf ? t.node(active.leaf) : null;
    if (node && node.parent === prev.leaf && view.extendRun(prev.leaf, active.leaf, name, node.label)) {
      // An append at the leaf: its run box grows by one, nothing moves.
      view.setActive(active);
    } else {
      // The nodes without their messages (t.subtree), never the whole file.
      const t1 = performance.now();
      const read = t.subtree(null, { runs: view.compact, limit: MAX_BOXES });
      state.timings.treeRead = performance.now() - t1;
      view.setNodes(read, branches.length, active);
      state.timings.treeLayout = performance.now() - t0;
    }
    state.treeSig = sig;
    state.treePrev = { others, version: state.version, leaf: active.leaf };
    state.timings.treeUpdate = performance.now() - t0;
  } else {
    view.setActive(active);
  }
}

/** The node that starts or ends the tree view's box holding id: id's nearest such ancestor (a run's inner node is in no map). */
function boxNodeOf(id, boxOf) {
  const t = state.cur?.tree;
  for (let at = id, steps = 0; at && t && steps < 1e7; steps++) {
    if (boxOf.has(at)) return at;
    at = t.node(at)?.parent ?? null;
  }
  return null;
}

function pickFromTree(id) {
  const t0 = performance.now();
  checkout(id, "treeCheckout");
  reveal(id);
  state.timings.treeClick = performance.now() - t0;
}

/** The tree view's toggle and its bar (fit, the active leaf, zoom, compact). */
export function wireTree() {
  $("btn-tree").onclick = () => {
    state.treeOpen = !state.treeOpen;
    localStorage.setItem(TREE_OPEN_KEY, state.treeOpen ? "1" : "0");
    renderHeader();
    renderTree();
  };
  $("tree-fit").onclick = () => state.treeView?.fit();
  $("tree-active").onclick = () => {
    const v = state.treeView;
    const box = v?.leaf ? v.boxOf.get(v.leaf) : null;
    if (box) v.centerOn(box);
  };
  $("tree-in").onclick = () => state.treeView?.zoom(1.25);
  $("tree-out").onclick = () => state.treeView?.zoom(0.8);
  $("tree-compact").onchange = (e) => {
    state.treeView?.setCompact(e.target.checked);
    renderTree();
  };
}
