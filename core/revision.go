package core

// What a cache of data derived from a tree's paths (core/provider keeps the
// turns of a path it converted) needs to know to stay exact: whether a node
// was removed or relinked since, and which nodes gained a child.

// Revision marks a point in a tree's edits: Revision() before deriving data,
// AddedSince after, to learn what the data may no longer cover.
type Revision struct {
	gen   uint64 // shapeGen
	adds  uint64 // attaches logged
	names uint64 // branch names noted (nameLog)
}

// Attach is a node added under a parent: Parent "" for a new root.
type Attach struct{ Parent, Child string }

// attachLogSize bounds the attaches a tree remembers: a chat adds a message
// or two between two requests.
const attachLogSize = 128

// attachLog is a ring of the last attachLogSize attaches.
type attachLog struct {
	n    uint64
	ring [attachLogSize]Attach
}

func (t *Tree) logAttach(parent, child string) {
	t.attaches.ring[t.attaches.n%attachLogSize] = Attach{parent, child}
	t.attaches.n++
}

// nameLog is a ring of the names of the last attachLogSize branch rows that
// changed (a branch made, moved, used, summarized or deleted).
type nameLog struct {
	n    uint64
	ring [attachLogSize]string
}

// Revision returns the tree's current revision.
func (t *Tree) Revision() Revision { return Revision{t.shapeGen, t.attaches.n, t.branchLog.n} }

// BranchesChangedSince returns the names of the branches whose rows changed
// since r, oldest first (a name may repeat; a deleted branch's too), and
// true; false where AddedSince is false, or after more than 128 changes.
func (t *Tree) BranchesChangedSince(r Revision) ([]string, bool) {
	if r.gen != t.shapeGen || r.names > t.branchLog.n || t.branchLog.n-r.names > attachLogSize {
		return nil, false
	}
	out := make([]string, 0, t.branchLog.n-r.names)
	for i := r.names; i < t.branchLog.n; i++ {
		out = append(out, t.branchLog.ring[i%attachLogSize])
	}
	return out, true
}

// AddedSince returns the nodes added since r, oldest first, and true; false
// when the tree changed since r in a way such a list does not cover (a node
// removed or relinked, a merge, a rollback, or more than 128 nodes added).
func (t *Tree) AddedSince(r Revision) ([]Attach, bool) {
	if r.gen != t.shapeGen || r.adds > t.attaches.n || t.attaches.n-r.adds > attachLogSize {
		return nil, false
	}
	out := make([]Attach, 0, t.attaches.n-r.adds)
	for i := r.adds; i < t.attaches.n; i++ {
		out = append(out, t.attaches.ring[i%attachLogSize])
	}
	return out, true
}

// Memo returns what SetMemo stored under key on this tree, or nil. A package
// that derives data from a tree keeps it here, so that it lives and dies
// with the tree (a Clone, a Merge or a load starts without it).
func (t *Tree) Memo(key any) any {
	for _, m := range t.memos {
		if m.key == key {
			return m.val
		}
	}
	return nil
}

// SetMemo stores val under key (nil removes it).
func (t *Tree) SetMemo(key, val any) {
	for i, m := range t.memos {
		if m.key == key {
			if val == nil {
				t.memos = append(t.memos[:i], t.memos[i+1:]...)
			} else {
				t.memos[i].val = val
			}
			return
		}
	}
	if val != nil {
		t.memos = append(t.memos, memo{key, val})
	}
}

type memo struct{ key, val any }
