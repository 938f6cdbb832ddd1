package core

// Branch ends: which branches end at which node, what Subtree writes on each
// entry and where it splits a run. A tree view reads a few entries after
// each change; listing every branch for each read (4,000 of them in a chat
// forking every 50 messages) would cost more than the entries. So the tree
// keeps the list once built, and the next read takes in only the branches
// whose rows changed since (BranchesChangedSince: the log noteBranch keeps).
// A change that can move nodes or bypasses noteBranch (a removal, a
// relinking, a rolled-back batch, a repair: shapeGen), or more changes than
// the log holds, has it built again.

// branchEnds is where the live branches end, as of the revision rev.
type branchEnds struct {
	rev    Revision
	leafOf map[string][]string // leaf id → the names ending there, sorted; never changed in place (entries share them)
	node   map[string]*node    // leaf id → its node (nil when it is no node)
	at     map[string]string   // name → the leaf it is listed under
}

// leafOf maps each node where live branches end to their names, sorted.
// The map is the tree's: read it, never change it.
func (t *Tree) leafOf() map[string][]string {
	return t.branchEnds().leafOf
}

// branchEnds returns the ends brought up to date.
func (t *Tree) branchEnds() *branchEnds {
	e := t.ends
	var changed []string
	ok := e != nil
	if ok {
		changed, ok = t.BranchesChangedSince(e.rev)
	}
	if !ok {
		e = &branchEnds{rev: t.Revision(), leafOf: make(map[string][]string, len(t.branches)),
			node: make(map[string]*node, len(t.branches)), at: make(map[string]string, len(t.branches))}
		shared := false
		for name, b := range t.branches {
			if b.leaf != "" {
				names := append(e.leafOf[b.leaf], name)
				e.leafOf[b.leaf] = names
				shared = shared || len(names) > 1
				e.at[name] = b.leaf
				e.node[b.leaf] = t.nodes[b.leaf]
			}
		}
		if shared {
			for _, names := range e.leafOf {
				sortStrings(names)
			}
		}
		t.ends = e
		return e
	}
	for _, name := range changed {
		e.update(t, name)
	}
	e.rev = t.Revision()
	return e
}

// update takes in branch name's change: it leaves the leaf it was listed
// under and is listed under its leaf now, if it is live and has one.
func (e *branchEnds) update(t *Tree, name string) {
	leaf := ""
	if b := t.branches[name]; b != nil {
		leaf = b.leaf
	}
	old, had := e.at[name]
	if had && old == leaf {
		return
	}
	if had {
		names := e.leafOf[old]
		if len(names) == 1 {
			delete(e.leafOf, old)
			delete(e.node, old)
		} else {
			kept := make([]string, 0, len(names)-1)
			for _, n := range names {
				if n != name {
					kept = append(kept, n)
				}
			}
			e.leafOf[old] = kept
		}
		delete(e.at, name)
	}
	if leaf == "" {
		return
	}
	names := e.leafOf[leaf]
	with := make([]string, 0, len(names)+1)
	i := 0
	for i < len(names) && names[i] < name {
		i++
	}
	with = append(append(append(with, names[:i]...), name), names[i:]...)
	e.leafOf[leaf] = with
	e.at[name] = leaf
	if len(names) == 0 {
		e.node[leaf] = t.nodes[leaf]
	}
}
