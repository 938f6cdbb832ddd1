// The plain-JavaScript peer of the benchmarks: the same operations as a competent
// developer would write them without WebAssembly — a Map of nodes with parent
// ids, messages copied in with JSON.parse(JSON.stringify(…)), JSON for files.
// It is deliberately lean: it returns its own stored message objects from a
// projection (no freezing, no copies) and its apply is a plain loop (not atomic).
export class PlainTree {
  nodes = new Map();
  branches = new Map([["main", { name: "main", leaf: null, summary: null, createdAtMs: 0 }]]);
  active = "main";
  #fresh = 1;

  #id() {
    return crypto.randomUUID();
  }

  append(message, at = Date.now()) {
    const b = this.branches.get(this.active);
    const id = this.#id();
    const node = { id, parent: b.leaf, children: [], message: JSON.parse(JSON.stringify(message)), label: null, createdAtMs: at };
    if (b.leaf !== null) this.nodes.get(b.leaf).children.push(id);
    this.nodes.set(id, node);
    b.leaf = id;
    return id;
  }

  rewind(id, at = Date.now()) {
    if (!this.nodes.has(id)) throw new Error(`no node with id "${id}"`);
    const b = this.branches.get(this.active);
    if (b.leaf === null || b.leaf === id) return null;
    while (this.branches.has(`branch-${this.#fresh}`)) this.#fresh++;
    const name = `branch-${this.#fresh}`;
    this.branches.set(name, { name, leaf: b.leaf, summary: null, createdAtMs: at });
    b.leaf = id;
    return name;
  }

  apply(ops, at = Date.now()) {
    return ops.map((op) => {
      switch (op.op) {
        case "append": return this.append(op.message, op.at ?? at);
        case "rewind": return this.rewind(op.node, op.at ?? at);
        default: throw new Error(`unknown op ${op.op}`);
      }
    });
  }

  pathOf(name) {
    const path = [];
    for (let id = this.branches.get(name).leaf; id !== null; id = this.nodes.get(id).parent) path.push(id);
    return path.reverse();
  }

  linearProjection() {
    return this.pathOf(this.active).map((id) => this.nodes.get(id).message);
  }

  save() {
    const nodes = {};
    for (const n of this.nodes.values()) {
      nodes[n.id] = { id: n.id, parent: n.parent ?? undefined, children: n.children, message: n.message, created_at_ms: n.createdAtMs };
    }
    const branches = {};
    for (const b of this.branches.values()) branches[b.name] = { name: b.name, leaf: b.leaf ?? undefined, created_at_ms: b.createdAtMs };
    return JSON.stringify({ format: "sessiontree", version: 1, active_branch: this.active, branches, nodes });
  }

  static load(text) {
    const file = JSON.parse(text);
    const t = new PlainTree();
    t.active = file.active_branch;
    t.branches = new Map();
    for (const [name, b] of Object.entries(file.branches)) {
      t.branches.set(name, { name, leaf: b.leaf ?? null, summary: null, createdAtMs: b.created_at_ms });
    }
    for (const [id, n] of Object.entries(file.nodes)) {
      t.nodes.set(id, { id, parent: n.parent ?? null, children: n.children, message: n.message, label: null, createdAtMs: n.created_at_ms });
    }
    return t;
  }

  static fromLinear(messages, at = Date.now()) {
    const t = new PlainTree();
    for (const m of messages) t.append(m, at);
    return t;
  }

  free() {}
}
