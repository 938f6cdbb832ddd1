package core

// The branches by their last use, most recent first: Open asks them in that
// order whether they run through a node and stops once no branch left can
// beat the one found, so a ‹ › switch back to the alternative just left asks
// a branch or two, not every branch of a chat that forked 40,000 times.
//
// The list is a chain through the branches (branch.older, branch.newer). It
// is valid while no branch was added or removed but through addBranch and
// removeBranch, which keep it (recentGen == branchGen); touch moves a branch
// to its front. Anything else (a load, a merge, rows, a rollback) leaves it
// to be rebuilt, by a sort, on the next question.

// recentBranches returns the most recently used branch, the head of the
// chain, rebuilding the chain first when it is stale.
func (t *Tree) recentBranches() *branch {
	if t.recentOK && t.recentGen == t.branchGen && t.recentLen == len(t.branches) {
		return t.recent
	}
	list := make([]*branch, 0, len(t.branches))
	for _, b := range t.branches {
		list = append(list, b)
	}
	// By use; branches used at the same tick (never active, say) the newest
	// first, then by name, so that the order does not depend on the map's.
	// Through an order of indexes, as byOff (runs.go): sortFunc costs the
	// module ~1.5 KB per element type, and int32 is one already.
	order := make([]int32, len(list))
	for i := range order {
		order[i] = int32(i)
	}
	sortFunc(order, func(i, j int32) int {
		a, b := list[i], list[j]
		switch {
		case a.used != b.used:
			return cmpDesc(a.used, b.used)
		case a.created != b.created:
			return cmpDesc(a.created, b.created)
		case a.name < b.name:
			return -1
		case a.name > b.name:
			return 1
		}
		return 0
	})
	t.recent, t.recentTail, t.recentLen = nil, nil, len(list)
	for i := len(order) - 1; i >= 0; i-- {
		t.pushRecent(list[order[i]])
	}
	t.recentOK, t.recentGen = true, t.branchGen
	return t.recent
}

// recentAdd puts b, just added (branchGen just bumped), into the chain: at its
// front or its end when its use says it belongs there (a new branch about to
// be used, a kept leaf with the use of the active branch), else it leaves the
// chain stale.
func (t *Tree) recentAdd(b *branch) {
	switch {
	case len(t.branches) == 1:
		// The only branch (New's main, say): the whole chain.
		t.recent, t.recentTail, t.recentOK = nil, nil, true
		t.pushRecent(b)
		t.recentLen = 0
	case !t.recentOK || t.recentGen != t.branchGen-1 || t.recent == nil:
		t.recentOK = false
		return
	case b.used >= t.recent.used:
		t.pushRecent(b)
	case b.used <= t.recentTail.used:
		b.newer, b.older = t.recentTail, nil
		t.recentTail.older = b
		t.recentTail = b
	default:
		t.recentOK = false
		return
	}
	t.recentLen++
	t.recentGen = t.branchGen
}

// recentRemove takes b, just removed (branchGen just bumped), out of the chain.
func (t *Tree) recentRemove(b *branch) {
	if !t.recentOK || t.recentGen != t.branchGen-1 {
		t.recentOK = false
		return
	}
	t.unlinkRecent(b)
	t.recentLen--
	t.recentGen = t.branchGen
}

// recentTouch moves b, just used, to the front of the chain.
func (t *Tree) recentTouch(b *branch) {
	if !t.recentOK || t.recentGen != t.branchGen || t.recent == b {
		return
	}
	t.unlinkRecent(b)
	t.pushRecent(b)
}

// pushRecent puts b at the front of the chain.
func (t *Tree) pushRecent(b *branch) {
	b.newer, b.older = nil, t.recent
	if t.recent != nil {
		t.recent.newer = b
	} else {
		t.recentTail = b
	}
	t.recent = b
}

func (t *Tree) unlinkRecent(b *branch) {
	if b.newer != nil {
		b.newer.older = b.older
	} else {
		t.recent = b.older
	}
	if b.older != nil {
		b.older.newer = b.newer
	} else {
		t.recentTail = b.newer
	}
	b.newer, b.older = nil, nil
}

// RecentBranches returns at most limit branches: the active one first, then
// the others by their last use, most recent first. It reads limit branches
// of the chain, not every branch (after a load or a merge the chain is
// rebuilt once, by a sort): a sidebar's list costs the same in a chat with 2
// branches and in one with 40,000.
func (t *Tree) RecentBranches(limit int) []Branch {
	if limit <= 0 || len(t.branches) == 0 {
		return nil
	}
	out := make([]Branch, 0, min(limit, len(t.branches)))
	act := t.branches[t.active]
	if act != nil {
		out = append(out, act.view())
	}
	for b := t.recentBranches(); b != nil && len(out) < limit; b = b.older {
		if b != act {
			out = append(out, b.view())
		}
	}
	return out
}

// BranchCount is the number of branches.
func (t *Tree) BranchCount() int { return len(t.branches) }

func cmpDesc(a, b int64) int {
	if a > b {
		return -1
	}
	return 1
}
