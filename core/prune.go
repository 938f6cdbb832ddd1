package core

// Prune deletes every node that lies on no branch's path, and returns their ids
// in (created, id) order. It refuses a tree that Validate finds problems in, so
// that a broken link never makes it delete messages: Repair first.
func (t *Tree) Prune() ([]string, error) {
	if problems := t.Validate(); len(problems) > 0 {
		return nil, newError(CodeCorrupt, "the tree has "+itoa(len(problems))+" structural problems (first: "+problems[0].Message+"); repair it before pruning")
	}
	kept := make(map[string]bool, len(t.nodes))
	for _, b := range t.branches {
		for id := b.leaf; id != "" && !kept[id]; id = t.nodes[id].parent {
			kept[id] = true
		}
	}
	var removed []string
	for _, id := range t.orderedIDs() {
		if !kept[id] {
			removed = append(removed, id)
		}
	}
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
		t.forgetRemovedLeaves()
	}
	return removed, nil
}

// forgetRemovedLeaves makes every deletion whose leaf is no longer a node a
// deletion of its whole instance: a merge could no longer tell what is at or
// above that leaf, and a copy that held the branch there must not bring it
// back.
func (t *Tree) forgetRemovedLeaves() {
	for name, s := range t.tombs {
		c := &tombstone{}
		for _, d := range s.deleted {
			if t.nodes[d.leaf] == nil {
				d.leaf = ""
			}
			c.add(d)
		}
		if !c.equal(s) {
			t.tombs[name] = c
			t.noteBranch(name)
		}
	}
}
