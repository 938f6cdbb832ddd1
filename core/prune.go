package core

// Prune deletes every node that lies on no branch's path, and returns their ids
// in (created, id) order. It refuses a tree that Validate finds problems in, so
// that a broken link never makes it delete messages: Repair first.
func (t *Tree) Prune() ([]string, error) {
	if problems := t.Validate(); len(problems) > 0 {
		return nil, newError(CodeCorrupt, "the tree has "+itoa(len(problems))+" structural problems (first: "+problems[0].Message+"); repair it before pruning")
	}
	// Mark every node on a branch's path (node.mark), from each leaf up to
	// the first node marked already; the tree is valid, so up links parents.
	// (Until Dec 6 this was a map of every id, and every id sorted by age:
	// 600 ms of a 100k-message chat's prune in WebAssembly.)
	for _, b := range t.branches {
		for n := t.nodes[b.leaf]; n != nil && n.mark == 0; n = n.up {
			tick()
			n.mark = 1
		}
	}
	t.keepDeletedPaths()
	var removed []string
	for id, n := range t.nodes {
		tick()
		if n.mark == 0 {
			removed = append(removed, id)
		}
		n.mark = 0
	}
	sortFunc(removed, t.byAge)
	// An unreachable node's whole subtree is unreachable, so the order of removal
	// does not matter.
	for _, id := range removed {
		t.removeNode(id)
	}
	// A hidden conflict branch may end at a removed node: its record then
	// writes the move time it used to leave to its leaf (movedDefault), so a
	// store that follows TakeChanges must rewrite it.
	if len(removed) > 0 {
		for name, h := range t.hidden {
			if t.nodes[h.leaf] == nil {
				t.noteBranch(name)
			}
		}
	}
	return removed, nil
}

// keepDeletedPaths makes every deletion whose leaf (or the last id above it)
// the prune removes (what it keeps is marked, node.mark), remember the ids above that
// leaf it removes, up to the first one it keeps or a root: a merge can then
// still tell what is at or above the leaf (see deletion.saw). Before (Dec 5),
// such a deletion forgot its leaf and took the whole instance, so an append
// that another copy made below the leaf, apart, ended on no branch.
func (t *Tree) keepDeletedPaths() {
	for name, s := range t.tombs {
		var c *tombstone
		for i, d := range s.deleted {
			last := d.leaf
			if k := len(d.above); k > 0 {
				last = d.above[k-1]
			}
			n := t.nodes[last]
			if last == "" || n == nil || n.mark != 0 {
				continue
			}
			above := append(make([]string, 0, len(d.above)+4), d.above...)
			for p := n.up; p != nil; p = p.up {
				above = append(above, p.id)
				if p.mark != 0 || len(above) > len(t.nodes) {
					break
				}
			}
			if len(above) == len(d.above) {
				continue // a removed root: nothing above it
			}
			if c == nil {
				c = &tombstone{deleted: append([]deletion(nil), s.deleted...)}
			}
			c.deleted[i].above = above
		}
		if c != nil {
			t.tombs[name] = c
			t.noteBranch(name)
		}
	}
}
