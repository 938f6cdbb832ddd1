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
	sortFunc(list, func(a, b *branch) int {
		if a.used == b.used {
			return 0
		}
		if a.used > b.used {
			return -1
		}
		return 1
	})
	t.recent, t.recentTail, t.recentLen = nil, nil, len(list)
	for i := len(list) - 1; i >= 0; i-- {
		t.pushRecent(list[i])
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
