package core

import "slices"

// journal records how to undo each mutation made during Apply, so that a failing
// batch leaves the tree exactly as it was without copying it. Every change to a
// Tree goes through the primitives in this file.
type journal struct {
	undo []func()
}

// changes remembers what changed since the last TakeChanges, for callers that
// persist a tree incrementally (one row per node and branch).
type changes struct {
	nodes    map[string]struct{}
	branches map[string]struct{}
	meta     bool // root or active branch
}

func (c *changes) node(id string) {
	if c == nil {
		return
	}
	if c.nodes == nil {
		c.nodes = make(map[string]struct{})
	}
	c.nodes[id] = struct{}{}
}

func (c *changes) branch(name string) {
	if c == nil {
		return
	}
	if c.branches == nil {
		c.branches = make(map[string]struct{})
	}
	c.branches[name] = struct{}{}
}

func (c *changes) setMeta() {
	if c != nil {
		c.meta = true
	}
}

// record keeps undo for rollback. Callers check t.journal first, so that no
// closure is allocated outside Apply.
func (t *Tree) record(undo func()) {
	t.journal.undo = append(t.journal.undo, undo)
}

// rollback undoes everything recorded, newest first.
func (j *journal) rollback() {
	for i := len(j.undo) - 1; i >= 0; i-- {
		j.undo[i]()
	}
	j.undo = nil
}

// addNode stores n under n.id and links it under its parent (or the roots).
func (t *Tree) addNode(n *node) {
	t.nodes[n.id] = n
	if n.parent != "" {
		n.up = t.nodes[n.parent]
	}
	t.changed.node(n.id)
	t.changed.node(n.parent)
	t.changed.setMeta()
	list := t.siblingList(n.parent)
	if list != nil {
		t.insertOrdered(list, n.id, n.created)
	}
	oldRoot := t.root
	if t.root == "" {
		t.root = n.id
	}
	if t.journal != nil {
		t.record(func() {
			delete(t.nodes, n.id)
			if list := t.siblingList(n.parent); list != nil {
				if i := slices.Index(*list, n.id); i >= 0 {
					*list = slices.Delete(*list, i, i+1)
				}
			}
			t.root = oldRoot
		})
	}
}

// removeNode deletes a node that has no children left.
func (t *Tree) removeNode(id string) {
	n := t.nodes[id]
	delete(t.nodes, id)
	t.changed.node(id)
	t.changed.node(n.parent)
	t.changed.setMeta()
	if list := t.siblingList(n.parent); list != nil {
		if i := slices.Index(*list, id); i >= 0 {
			*list = slices.Delete(*list, i, i+1)
		}
	}
	if t.root == id {
		t.root = ""
		if len(t.roots) > 0 {
			t.root = t.roots[0]
		}
	}
}

// setLeaf points b at leaf, recording atMs as the time of the move (what Merge
// compares when two copies moved the same branch).
func (t *Tree) setLeaf(b *branch, leaf string, atMs int64) {
	old, oldMoved := b.leaf, b.moved
	b.leaf, b.moved = leaf, atMs
	t.changed.branch(b.name)
	if t.journal != nil {
		t.record(func() { b.leaf, b.moved = old, oldMoved })
	}
}

// addBranch adds b; a name deleted before is live again, so its deletion is
// forgotten.
func (t *Tree) addBranch(b *branch) {
	t.branches[b.name] = b
	t.names.add(b.name)
	t.changed.branch(b.name)
	tomb, had := t.tombs[b.name]
	delete(t.tombs, b.name)
	if t.journal != nil {
		t.record(func() {
			delete(t.branches, b.name)
			t.names.remove(b.name)
			if had {
				t.tombs[b.name] = tomb
			}
		})
	}
}

func (t *Tree) removeBranch(b *branch) {
	delete(t.branches, b.name)
	t.names.remove(b.name)
	t.changed.branch(b.name)
	if t.journal != nil {
		t.record(func() {
			t.branches[b.name] = b
			t.names.add(b.name)
		})
	}
}

func (t *Tree) setActive(name string) {
	old := t.active
	t.active = name
	t.changed.setMeta()
	if t.journal != nil {
		t.record(func() { t.active = old })
	}
}

// touch marks b as the most recently used branch.
func (t *Tree) touch(b *branch) {
	oldUsed, oldClock := b.used, t.clock
	t.clock++
	b.used = t.clock
	t.changed.branch(b.name)
	if t.journal != nil {
		t.record(func() { b.used, t.clock = oldUsed, oldClock })
	}
}

// setLabel sets or clears (label "") n's label as of atMs; the label's time
// never goes back, so a later local change also wins a later Merge.
func (t *Tree) setLabel(n *node, label string, atMs int64) {
	old := n.lab
	n.lab = newLabel(label, max(n.labelTime(), atMs))
	t.changed.node(n.id)
	if t.journal != nil {
		t.record(func() { n.lab = old })
	}
}

// setTomb records that the branch name was deleted at atMs (keeping the later
// of two deletions), so that Merge does not bring it back from an older copy.
func (t *Tree) setTomb(name string, atMs int64) {
	old, had := t.tombs[name]
	if had && old >= atMs {
		return
	}
	if t.tombs == nil {
		t.tombs = make(map[string]int64)
	}
	t.tombs[name] = atMs
	t.changed.branch(name)
	if t.journal != nil {
		t.record(func() {
			if had {
				t.tombs[name] = old
			} else {
				delete(t.tombs, name)
			}
		})
	}
}

func (t *Tree) setSummary(b *branch, s *Summary) {
	old := b.summary
	b.summary = s
	t.changed.branch(b.name)
	if t.journal != nil {
		t.record(func() { b.summary = old })
	}
}
