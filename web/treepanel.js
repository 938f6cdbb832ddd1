// The tree view's panel: what to read and lay out again after a change
// (renderTree), a click on a box, and the panel's bar. The canvas itself is
// treeview.js.
//
// A huge tree is laid out around the active message: at most view.limit boxes
// (t.subtreeAround), so opening the view costs the same at 200k messages as at
// 2k; "More" widens it. Between renders the panel keeps what the tree said
// changed (t.subscribe: node ids and branch names), so a change costs what
// it touched: an append at the leaf grows its box, a new label rewrites one
// box, a switch inside the laid-out boxes only moves the highlight; anything
// else reads the window again. No render reads every branch.
import { $, remember } from "./dom.js";
import { TreeView, MAX_BOXES } from "./treeview.js";
import { TREE_OPEN_KEY, state, renderHeader } from "./app.js";
import { reveal } from "./chat.js";
import { checkout } from "./actions.js";

export function renderTree() {
  if (!state.treeOpen) {
    forgetTree(); // closed: nothing to keep in step
    return;
  }
  const t = state.cur?.tree;
  if (!state.treeView) state.treeView = new TreeView($("treepane"), { onPick: (id) => pickFromTree(id), locate: boxNodeOf });
  const view = state.treeView;
  if (!t) {
    forgetTree();
    view.setNodes({ nodes: [], more: false, above: 0 }, 0, { active: () => [], leaf: null });
    return;
  }
  const t0 = performance.now();
  let seen = state.treeSeen;
  if (seen?.tree !== t) {
    forgetTree();
    seen = state.treeSeen = watchTree(t);
  }
  const changed = seen.changed;
  seen.changed = { all: false, nodes: new Set(), branches: new Set() };
  // Which boxes are on the active path, asked of the module (t.onPath), and
  // the path's last node: never the path's ids (200,000 of them in a huge chat).
  const active = { active: (ids) => t.onPath(ids), leaf: t.pathWindow(-1).ids[0] ?? null };
  const how = seen.laid && !changed.all && seen.compact === view.compact && seen.limit === view.limit ? update(t, view, seen, changed, active) : "layout";
  if (how === "layout") {
    const t1 = performance.now();
    // The nodes without their messages, never the whole file; in compact
    // mode at most view.limit boxes around the active message.
    const read = view.compact && active.leaf
      ? t.subtreeAround(active.leaf, { limit: view.limit })
      : { above: 0, ...t.subtree(null, { runs: view.compact, limit: MAX_BOXES }) };
    state.timings.treeRead = performance.now() - t1;
    view.setNodes(read, t.branchCount(), active);
    state.timings.treeLayout = performance.now() - t0;
    Object.assign(seen, { laid: true, compact: view.compact, limit: view.limit });
  }
  seen.leaf = active.leaf;
  state.timings.treeHow = how;
  state.timings.treeUpdate = performance.now() - t0;
}

/**
 * Brings the laid-out boxes in step with what changed since the last render,
 * when that is a case a box's own change covers, and says how: "active" (only
 * the highlight moved), "append" (the leaf's box grew), "words" (boxes'
 * labels rewritten in place), or "layout" (read and lay out again).
 */
function update(t, view, seen, changed, active) {
  const { nodes, branches } = changed;
  const endsBox = (leaf, name) => {
    const box = leaf ? view.boxOf.get(leaf) : null;
    return box?.last === leaf && (name === undefined || (box.names?.includes(name) ?? false));
  };
  if (nodes.size === 0 && branches.size <= 16) {
    // A switch or checkout (it marks the branch used), a summary: the
    // highlight only, if the new leaf is laid out and each branch named
    // still ends where its box says (else one was made, moved or deleted).
    for (const name of branches) {
      let leaf;
      try {
        leaf = t.pathWindow(-1, undefined, name).ids[0];
      } catch {
        return "layout"; // deleted
      }
      if (!endsBox(leaf, name)) return "layout";
    }
    if (active.leaf && !endsBox(active.leaf)) return "layout";
    view.setActive(active);
    return "active";
  }
  const name = t.activeBranch;
  const prev = seen.leaf;
  if (active.leaf && prev && active.leaf !== prev && nodes.size === 2 && nodes.has(prev) && nodes.has(active.leaf) && [...branches].every((b) => b === name)) {
    // An append at the leaf: its run box grows by one, nothing moves.
    const node = t.node(active.leaf);
    if (node?.parent === prev && view.extendRun(prev, active.leaf, name, node.label)) {
      view.setActive(active);
      return "append";
    }
    return "layout";
  }
  if (branches.size === 0 && nodes.size <= 16 && [...nodes].every((id) => view.boxOf.get(id)?.id === id)) {
    // Labels on messages that start a box: each box read alone; if every
    // one still starts and ends where it did, only its words change.
    const read = [...nodes].map((id) => t.subtree(id, { runs: true, depth: 0 }).nodes[0]);
    if (view.patchWords(read)) {
      view.setActive(active);
      return "words";
    }
  }
  return "layout";
}

/** Starts keeping what t says changed (its ids and names), for the next render. */
function watchTree(t) {
  const seen = { tree: t, laid: false, changed: { all: false, nodes: new Set(), branches: new Set() } };
  seen.off = t.subscribe((e) => {
    const c = seen.changed;
    if (e.all || c.all || c.nodes.size + e.nodes.length > 64) {
      c.all = true; // a big change is laid out anew: no need to keep its ids
      return;
    }
    for (const id of e.nodes) c.nodes.add(id);
    for (const b of e.branches) c.branches.add(b);
  });
  return seen;
}

/** Stops watching the tree the view was laid out from: the next render lays it out anew. */
export function forgetTree() {
  try {
    state.treeSeen?.off();
  } catch {
    // a freed tree has no listeners left to drop
  }
  state.treeSeen = null;
}

/**
 * The node that starts or ends the tree view's box holding id: id's nearest
 * such ancestor (a run's inner node is in no map), or null. A node above
 * the laid-out boxes is given up on after as many steps as they hold messages.
 */
function boxNodeOf(id, boxOf) {
  const t = state.cur?.tree;
  const bound = (state.treeView?.nodeCount ?? 0) + 1;
  for (let at = id, steps = 0; at && t && steps <= bound; steps++) {
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

/** The tree view's toggle and its bar (fit, the active leaf, zoom, compact, more). */
export function wireTree() {
  $("btn-tree").onclick = () => {
    state.treeOpen = !state.treeOpen;
    remember(TREE_OPEN_KEY, state.treeOpen ? "1" : "0");
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
  $("tree-more").onclick = () => {
    state.treeView?.widen();
    renderTree();
  };
}
