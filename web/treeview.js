// The tree view: the conversation's nodes on a canvas, laid out by
// d3-hierarchy. It reads the tree through t.subtreeAround (ids, roles,
// previews, labels and branch ends, never the messages; the module folds
// linear runs, one child after another with no label or branch end, into one
// box with a count): the whole tree up to WINDOW_BOXES boxes, else that many
// around the active message. It draws only the boxes inside the viewport, so
// 10,000 nodes pan and zoom smoothly, a 200k-message chat without forks is
// one box, and one forking every 50 messages (8,000 boxes) lays out 500.
import { hierarchy, tree as tidyTree } from "./vendor/d3-hierarchy.mjs";
import { plainText } from "./markdown.js";

const W = 176; // box width
const H = 42; // box height
const GAP_X = 18;
const GAP_Y = 40; // room for branch names under a box
const MIN_K = 0.002;
const MAX_K = 2.5;

const ROLE = { user: "You", assistant: "Assistant", system: "System", tool: "Tool" };

/** The most boxes one layout reads (t.subtree's limit); a bigger tree shows its first ones and says so. */
export const MAX_BOXES = 50000;

/**
 * The boxes laid out around the active message at first (t.subtreeAround's
 * limit): a tree with more (a 200k-message chat forking every 50 messages has
 * 8,000) shows the part around the active message, and "More" widens it.
 */
export const WINDOW_BOXES = 500;

/**
 * The boxes for the entries of t.subtree(null, { runs }): each entry a box
 * (a run of messages without a fork, label or branch end when read in runs),
 * as a d3 hierarchy's data. boxOf maps a box's first and last node to it.
 */
function buildBoxes(entries) {
  const top = { children: [], top: true };
  const boxOf = new Map();
  let count = 0;
  for (const e of entries) {
    const parentBox = (e.parent !== null && boxOf.get(e.parent)) || top;
    const box = { id: e.id, last: e.last, run: e.run, childCount: e.childCount, children: [], parent: parentBox.top ? null : parentBox, ...boxWords(e) };
    parentBox.children.push(box);
    boxOf.set(e.id, box);
    boxOf.set(e.last, box);
    count += e.run;
  }
  return { top, boxOf, count };
}

/** What a box says of entry e: its role, text, label and the branches ending there. */
function boxWords(e) {
  // As words, not Markdown: a box and its tooltip showed "# Plan … **bold**".
  return { role: e.role || "?", text: (e.preview && plainText(e.preview)) || "(no text)", label: e.label, names: e.branches.length ? e.branches : undefined };
}

/**
 * A canvas view of the whole tree. onPick(nodeId) is called for a clicked box
 * (its deepest node); locate(nodeId) names the box node of a node inside a
 * run (the first of its ancestors that starts or ends a box), or null.
 */
export class TreeView {
  constructor(root, { onPick, locate }) {
    this.root = root;
    this.onPick = onPick;
    this.locate = locate;
    this.canvas = root.querySelector("canvas");
    this.tip = root.querySelector(".tree-tip");
    this.info = root.querySelector(".tree-info");
    this.ctx = this.canvas.getContext("2d");
    this.boxes = [];
    this.boxOf = new Map();
    this.active = new Set();
    this.leaf = null;
    this.k = 1;
    this.tx = 0;
    this.ty = 0;
    this.frame = 0;
    this.compact = true;
    this.limit = WINDOW_BOXES;
    this.above = 0;
    this.placed = false;
    this.#wire();
    new ResizeObserver(() => this.#resize()).observe(this.canvas);
  }

  /**
   * Lays the tree out again (after the structure changed): read is
   * t.subtreeAround(leaf, { limit }) or t.subtree(null, { runs, limit:
   * MAX_BOXES }) (the nodes without their messages; above: the nodes above
   * its top), branchCount the number of branches.
   */
  setNodes(read, branchCount, active) {
    this.reads = (this.reads ?? 0) + 1;
    this.above = read.above ?? 0;
    this.branchCount = branchCount;
    const t0 = performance.now();
    // The boxes' places depend only on which nodes start and end them, under
    // which box, with how many children: when none of that changed (a label
    // on a message that is a box of its own, a label's new words, a branch
    // made or moved at a box's last message), the boxes keep their places
    // and the view stays where it is; only their words change.
    const shape = read.nodes.map((e) => `${e.id}\u0000${e.last}\u0000${e.parent}\u0000${e.run}\u0000${e.childCount}`).join("\u0001") + (read.more ? "+" : "");
    if (this.boxes.length && shape === this.shape) {
      for (const e of read.nodes) Object.assign(this.boxOf.get(e.id), boxWords(e));
      this.more = read.more;
      this.patched = (this.patched ?? 0) + 1;
      this.layoutMs = performance.now() - t0;
      this.#describe(branchCount);
      this.setActive(active);
      return;
    }
    const { top, boxOf, count } = buildBoxes(read.nodes);
    const root = hierarchy(top, (b) => (b.children.length ? b.children : null));
    tidyTree().nodeSize([W + GAP_X, H + GAP_Y]).separation((a, b) => (a.parent === b.parent ? 1 : 1.2))(root);
    const boxes = [];
    root.each((d) => {
      if (d.data.top) return;
      d.data.x = d.x;
      d.data.y = (d.depth - 1) * (H + GAP_Y);
      boxes.push(d.data);
    });
    this.boxes = boxes;
    this.boxOf = boxOf;
    this.nodeCount = count;
    this.layoutMs = performance.now() - t0;
    this.shape = shape;
    this.placed = false; // a new layout: center on the active message again
    this.setActive(active);
    this.more = read.more;
    this.#describe(branchCount);
  }

  /**
   * Rewrites the words of the boxes the entries start (t.subtree(id, { runs:
   * true, depth: 0 }) of a box's first node, after a label): true if each
   * still starts and ends where it did, with as many children, and still
   * starts a box (labelled, or under a box that ends in a fork, a label or a
   * branch end: a cleared label may join it to the box above); otherwise it
   * changes nothing and returns false (setNodes lays the tree out then).
   */
  patchWords(entries) {
    const boxes = entries.map((e) => e && this.boxOf.get(e.id));
    const starts = (e, p) => e.label || (p ? p.childCount !== 1 || p.names || (p.run === 1 && p.label) : e.parent === null);
    if (!entries.every((e, i) => e && boxes[i]?.id === e.id && boxes[i].last === e.last && boxes[i].run === e.run && boxes[i].childCount === e.childCount && starts(e, boxes[i].parent))) return false;
    entries.forEach((e, i) => Object.assign(boxes[i], boxWords(e)));
    this.shape = null; // the boxes no longer match the last read
    this.patched = (this.patched ?? 0) + 1;
    this.redraw();
    return true;
  }

  /** Lays out four times as many boxes around the active message at the next render (up to MAX_BOXES). */
  widen() {
    this.limit = Math.min(MAX_BOXES, this.limit * 4);
  }

  /** Whether the boxes are part of the tree (the rest is above them or cut at the limit). */
  get partial() {
    return this.above > 0 || this.more;
  }

  /** The bar's count of messages, branches and boxes, and its "More" button. */
  #describe(branches) {
    const count = this.nodeCount, boxes = this.boxes.length;
    this.info.textContent = `${count.toLocaleString("en")} messages${this.partial ? " shown" : ""} \u00b7 ${branches.toLocaleString("en")} branch${branches === 1 ? "" : "es"}`;
    const part = this.partial ? `: the ${boxes.toLocaleString("en")} around the active message${this.above ? `, ${this.above.toLocaleString("en")} messages above them` : ""} (More lays out more)` : "";
    this.info.title = `${boxes.toLocaleString("en")} boxes${part}; runs of messages without a fork, label or branch end are drawn as one box`;
    const more = this.root.querySelector("#tree-more");
    if (more) more.hidden = !this.partial || this.limit >= MAX_BOXES;
  }

  /**
   * Takes node `to`, appended under `from`, into the run box that ends at
   * `from` without laying the tree out again, where that is all the append
   * changed: the box folds a run (compact), only `branch` ends there (its leaf
   * moved on to `to`), and `to` has no label. Returns false, having changed
   * nothing, for any other case (setNodes lays it out then).
   */
  extendRun(from, to, branch, label) {
    const box = this.boxOf.get(from);
    if (!this.compact || !box || box.last !== from || label || box.names?.length !== 1 || box.names[0] !== branch || this.boxOf.has(to)) return false;
    if (box.id !== from) this.boxOf.delete(from);
    this.shape = null; // the boxes no longer match the last read
    box.last = to;
    box.run++;
    this.boxOf.set(to, box);
    this.nodeCount++;
    this.extended = (this.extended ?? 0) + 1;
    this.#describe(this.branchCount ?? 0);
    return true;
  }

  /** The first node of every box, in layout order: what the active path is asked about. */
  boxIds() {
    return this.boxes.map((b) => b.id);
  }

  /**
   * Highlights the active path and brings its leaf into view. leaf is the
   * path's last node (null for none): when it ends a laid-out box, the path's
   * boxes are that box and those above it; otherwise active(ids) answers, for
   * the boxes' first nodes, whether each is on the active path (t.onPath: the
   * path's own ids are never read).
   */
  setActive({ active, leaf }) {
    const box = leaf ? this.boxOf.get(leaf) : null;
    if (box?.last === leaf) {
      // The leaf ends a laid-out box: the path's boxes are it and the boxes above it.
      this.active = new Set();
      for (let b = box; b; b = b.parent) this.active.add(b.id);
    } else {
      const ids = this.boxIds();
      const on = ids.length ? active(ids) : [];
      this.active = new Set(ids.filter((_, i) => on[i]));
    }
    this.leaf = leaf;
    if (!this.placed) {
      // A small tree is shown whole; a big one around the active message.
      if (!this.fit(0.7) && box) this.centerOn(box);
    } else if (box && !this.#visible(box)) this.centerOn(box);
    this.placed = true;
    this.redraw();
  }

  /** Centers the view on a box (keeps the zoom unless it is too small to read). */
  centerOn(box) {
    const { width, height } = this.#size();
    if (this.k < 0.5) this.k = 0.8;
    this.tx = width / 2 - box.x * this.k;
    this.ty = height / 2 - (box.y + H / 2) * this.k;
    this.redraw();
  }

  /** The viewport point (client coordinates) of the box holding nodeId, brought into view first; null if absent. */
  pointOf(nodeId) {
    const at = this.boxOf.has(nodeId) ? nodeId : this.locate?.(nodeId, this.boxOf);
    const box = at ? this.boxOf.get(at) : null;
    if (!box) return null;
    if (!this.#visible(box)) this.centerOn(box);
    this.#draw();
    const r = this.canvas.getBoundingClientRect();
    return { x: r.left + box.x * this.k + this.tx, y: r.top + (box.y + H / 2) * this.k + this.ty };
  }

  /** Zooms to show the whole tree; with minK, only if that zoom is at least minK (returns whether it did). */
  fit(minK = MIN_K) {
    if (!this.boxes.length) return false;
    let x0 = Infinity, x1 = -Infinity, y1 = 0;
    for (const b of this.boxes) {
      if (b.x < x0) x0 = b.x;
      if (b.x > x1) x1 = b.x;
      if (b.y > y1) y1 = b.y;
    }
    const { width, height } = this.#size();
    const k = Math.max(MIN_K, Math.min(1.2, width / (x1 - x0 + W + 40), height / (y1 + H + GAP_Y + 40)));
    if (k < minK) return false;
    this.k = k;
    this.tx = width / 2 - ((x0 + x1) / 2) * k;
    this.ty = Math.max(12, (height - (y1 + H) * k) / 2);
    this.redraw();
    return true;
  }

  zoom(factor, cx, cy) {
    const { width, height } = this.#size();
    cx ??= width / 2;
    cy ??= height / 2;
    const k = Math.max(MIN_K, Math.min(MAX_K, this.k * factor));
    this.tx = cx - ((cx - this.tx) / this.k) * k;
    this.ty = cy - ((cy - this.ty) / this.k) * k;
    this.k = k;
    this.redraw();
  }

  setCompact(on) {
    this.compact = on;
  }

  redraw() {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.#draw();
    });
  }

  #size() {
    return { width: this.canvas.clientWidth || 1, height: this.canvas.clientHeight || 1 };
  }

  #resize() {
    const dpr = window.devicePixelRatio || 1;
    const { width, height } = this.#size();
    this.canvas.width = Math.round(width * dpr);
    this.canvas.height = Math.round(height * dpr);
    this.#draw();
  }

  #visible(box) {
    const { width, height } = this.#size();
    const sx = box.x * this.k + this.tx;
    const sy = box.y * this.k + this.ty;
    const half = (W / 2) * this.k;
    return sx - half > 8 && sx + half < width - 8 && sy > 8 && sy + H * this.k < height - 8;
  }

  #hit(clientX, clientY) {
    const r = this.canvas.getBoundingClientRect();
    const x = (clientX - r.left - this.tx) / this.k;
    const y = (clientY - r.top - this.ty) / this.k;
    for (const b of this.boxes) {
      if (x >= b.x - W / 2 && x <= b.x + W / 2 && y >= b.y && y <= b.y + H) return b;
    }
    return null;
  }

  #wire() {
    const c = this.canvas;
    let drag = null;
    c.addEventListener("pointerdown", (e) => {
      drag = { x: e.clientX, y: e.clientY, tx: this.tx, ty: this.ty, moved: false };
      c.setPointerCapture(e.pointerId);
    });
    c.addEventListener("pointermove", (e) => {
      if (drag) {
        const dx = e.clientX - drag.x;
        const dy = e.clientY - drag.y;
        if (Math.abs(dx) + Math.abs(dy) > 4) drag.moved = true;
        if (drag.moved) {
          this.tx = drag.tx + dx;
          this.ty = drag.ty + dy;
          this.tip.hidden = true;
          this.redraw();
        }
        return;
      }
      this.#hover(e);
    });
    c.addEventListener("pointerup", (e) => {
      const d = drag;
      drag = null;
      if (d && !d.moved) {
        const box = this.#hit(e.clientX, e.clientY);
        if (box) this.onPick(box.last);
      }
    });
    c.addEventListener("pointerleave", () => {
      this.tip.hidden = true;
      if (this.hovered) {
        this.hovered = null;
        this.redraw();
      }
    });
    c.addEventListener("wheel", (e) => {
      e.preventDefault();
      const r = c.getBoundingClientRect();
      if (e.ctrlKey || !e.shiftKey) this.zoom(Math.exp(-e.deltaY * 0.0015), e.clientX - r.left, e.clientY - r.top);
      this.tip.hidden = true;
    }, { passive: false });
    c.addEventListener("keydown", (e) => {
      const step = 60;
      const moves = { ArrowLeft: [step, 0], ArrowRight: [-step, 0], ArrowUp: [0, step], ArrowDown: [0, -step] };
      // Arrows move a keyboard cursor from box to box (up: the parent, down: the
      // first child, left/right: the siblings), Enter opens it; Shift+arrows pan.
      if (moves[e.key] && !e.shiftKey && this.boxes.length) {
        const cur = this.hovered ?? (this.leaf ? this.boxOf.get(this.leaf) : null) ?? this.boxes[0];
        const sibs = cur.parent ? cur.parent.children : this.boxes.filter((b) => !b.parent);
        const i = sibs.indexOf(cur);
        const next = { ArrowUp: cur.parent, ArrowDown: cur.children[0], ArrowLeft: sibs[i - 1], ArrowRight: sibs[i + 1] }[e.key] ?? cur;
        this.hovered = next;
        if (!this.#visible(next)) this.centerOn(next);
        this.redraw();
        // The box's words, not its Markdown's marks ("# Plan … **bold**"), for a screen reader.
        c.setAttribute("aria-label", `Tree: ${next.role} message, ${next.text}${next.label ? ` (label ${next.label})` : ""}. Enter opens it; arrows move; Shift+arrows pan.`);
        e.preventDefault();
      } else if ((e.key === "Enter" || e.key === " ") && this.hovered) {
        this.onPick(this.hovered.last);
        e.preventDefault();
      } else if (moves[e.key]) {
        this.tx += moves[e.key][0];
        this.ty += moves[e.key][1];
        this.redraw();
        e.preventDefault();
      } else if (e.key === "+" || e.key === "=") this.zoom(1.25);
      else if (e.key === "-") this.zoom(0.8);
    });
  }

  #hover(e) {
    const box = this.#hit(e.clientX, e.clientY);
    if (box !== this.hovered) {
      this.hovered = box;
      this.redraw();
    }
    if (!box) {
      this.tip.hidden = true;
      this.canvas.style.cursor = "grab";
      return;
    }
    this.canvas.style.cursor = "pointer";
    const lines = [`${ROLE[box.role] ?? box.role}: ${box.text.length > 220 ? box.text.slice(0, 217) + "\u2026" : box.text}`];
    if (box.run > 1) lines.push(`${box.run.toLocaleString("en")} messages in a row \u2014 click to open the last`);
    if (box.label) lines.push(`label: ${box.label}`);
    if (box.names) lines.push(`branch: ${box.names.join(", ")}`);
    this.tip.textContent = lines.join("\n");
    const r = this.root.getBoundingClientRect();
    this.tip.style.left = `${Math.min(e.clientX - r.left + 14, r.width - 280)}px`;
    this.tip.style.top = `${e.clientY - r.top + 14}px`;
    this.tip.hidden = false;
  }

  #draw() {
    const ctx = this.ctx;
    const dpr = window.devicePixelRatio || 1;
    const { width, height } = this.#size();
    const css = getComputedStyle(this.root);
    const color = (name) => css.getPropertyValue(name).trim();
    const C = {
      bg: color("--tree-bg"), edge: color("--tree-edge"), accent: color("--accent"), user: color("--tree-user"),
      ai: color("--tree-ai"), text: color("--text"), muted: color("--muted"), border: color("--border"),
      label: color("--label"), labelText: color("--label-text"), hover: color("--tree-hover"),
    };
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = C.bg;
    ctx.fillRect(0, 0, width, height);
    if (!this.boxes.length) {
      ctx.fillStyle = C.muted;
      ctx.font = "14px system-ui, sans-serif";
      ctx.textAlign = "center";
      ctx.fillText("No messages yet", width / 2, height / 2);
      return;
    }
    const k = this.k;
    ctx.setTransform(dpr * k, 0, 0, dpr * k, dpr * this.tx, dpr * this.ty);
    const x0 = -this.tx / k - W, x1 = (width - this.tx) / k + W;
    const y0 = -this.ty / k - H - GAP_Y, y1 = (height - this.ty) / k + GAP_Y;
    const shown = [];
    for (const b of this.boxes) if (b.x >= x0 && b.x <= x1 && b.y >= y0 && b.y <= y1) shown.push(b);
    // Edges: into every box on screen, and out of on-screen boxes into off-screen children.
    const edges = (active) => {
      ctx.beginPath();
      const line = (p, c) => {
        const py = p.y + H, mid = (py + c.y) / 2;
        ctx.moveTo(p.x, py);
        ctx.bezierCurveTo(p.x, mid, c.x, mid, c.x, c.y);
      };
      for (const b of shown) {
        if (b.parent && this.active.has(b.id) === active) line(b.parent, b);
        for (const c of b.children) {
          if ((c.x < x0 || c.x > x1 || c.y > y1) && this.active.has(c.id) === active) line(b, c);
        }
      }
      ctx.strokeStyle = active ? C.accent : C.edge;
      ctx.lineWidth = (active ? 2.5 : 1.2) / Math.max(k, 0.25);
      ctx.stroke();
    };
    edges(false);
    edges(true);
    if (this.above > 0) {
      // The part of the tree above the boxes: a dashed stub and how many messages.
      ctx.setLineDash([4 / k, 4 / k]);
      ctx.beginPath();
      for (const b of shown) {
        if (b.parent) continue;
        ctx.moveTo(b.x, b.y - GAP_Y);
        ctx.lineTo(b.x, b.y);
      }
      ctx.strokeStyle = C.accent;
      ctx.lineWidth = 2 / Math.max(k, 0.25);
      ctx.stroke();
      ctx.setLineDash([]);
      if (k >= 0.42) {
        ctx.font = "600 11px system-ui, sans-serif";
        ctx.fillStyle = C.muted;
        ctx.textAlign = "center";
        ctx.textBaseline = "middle";
        for (const b of shown) if (!b.parent) ctx.fillText(`\u22ee ${this.above.toLocaleString("en")} earlier messages`, b.x, b.y - GAP_Y - 8);
      }
    }
    const detail = k >= 0.42;
    ctx.textBaseline = "middle";
    if (k < 0.12) {
      // Far out: boxes as plain marks at least 3 px wide, the active path in the accent color.
      const w = Math.max(W, 3 / k), h = Math.max(H, 3 / k);
      for (const on of [false, true]) {
        ctx.beginPath();
        for (const b of shown) if (this.active.has(b.id) === on) ctx.rect(b.x - w / 2, b.y, w, h);
        ctx.fillStyle = on ? C.accent : C.edge;
        ctx.fill();
      }
      this.drawn = shown.length;
      return;
    }
    for (const b of shown) {
      const on = this.active.has(b.id);
      const x = b.x - W / 2;
      ctx.beginPath();
      ctx.roundRect(x, b.y, W, H, 8);
      ctx.fillStyle = b === this.hovered ? C.hover : b.role === "user" ? C.user : C.ai;
      ctx.fill();
      const isLeaf = this.leaf !== null && b.last === this.leaf;
      ctx.lineWidth = isLeaf ? 3.5 : on ? 2 : 1;
      ctx.strokeStyle = on ? C.accent : C.border;
      ctx.stroke();
      if (!detail) continue;
      ctx.textAlign = "left";
      ctx.font = "600 11px system-ui, sans-serif";
      ctx.fillStyle = on ? C.accent : C.muted;
      ctx.fillText(ROLE[b.role] ?? b.role, x + 9, b.y + 13);
      if (b.run > 1) {
        ctx.textAlign = "right";
        ctx.fillText(`\u00d7${b.run.toLocaleString("en")}`, x + W - 9, b.y + 13);
        ctx.textAlign = "left";
      }
      ctx.font = "12px system-ui, sans-serif";
      ctx.fillStyle = C.text;
      ctx.fillText(b.text.length > 26 ? b.text.slice(0, 25) + "\u2026" : b.text, x + 9, b.y + 29);
      if (b.label) {
        const t = b.label.length > 18 ? b.label.slice(0, 17) + "\u2026" : b.label;
        ctx.font = "600 10px system-ui, sans-serif";
        const w = ctx.measureText(t).width + 12;
        ctx.beginPath();
        ctx.roundRect(x + W - w - 6, b.y - 8, w, 16, 8);
        ctx.fillStyle = C.label;
        ctx.fill();
        ctx.fillStyle = C.labelText;
        ctx.fillText(t, x + W - w, b.y);
      }
      if (b.names) {
        const t = b.names.length > 1 ? `${b.names[0]} +${b.names.length - 1}` : b.names[0];
        const s = t.length > 24 ? t.slice(0, 23) + "\u2026" : t;
        ctx.font = "600 11px system-ui, sans-serif";
        ctx.fillStyle = on ? C.accent : C.muted;
        ctx.textAlign = "center";
        ctx.fillText(`\u2387 ${s}`, b.x, b.y + H + 12);
      }
    }
    this.drawn = shown.length;
  }
}
