package core

// What a cache of data derived from a tree's paths (core/provider keeps the
// turns of a path it converted) needs to know to stay exact: whether a node
// was removed or relinked since, and which nodes gained a child.

// Revision marks a point in a tree's edits: Revision() before deriving data,
// AddedSince after, to learn what the data may no longer cover.
type Revision struct {
	gen   uint64 // shapeGen
	adds  uint64 // attaches logged
	names uint64 // branch changes logged
}

// Attach is a node added under a parent: Parent "" for a new root.
type Attach struct{ Parent, Child string }

// attachLogSize bounds the attaches (and branch changes) a tree remembers: a
// chat adds a message or two between two requests.
const attachLogSize = 128

// ringLog keeps the last attachLogSize values logged, and how many were.
type ringLog[T any] struct {
	n    uint64
	ring [attachLogSize]T
}

func (l *ringLog[T]) add(v T) {
	l.ring[l.n%attachLogSize] = v
	l.n++
}

// since returns the values logged after the first from, oldest first, and
// true; false when some of them were overwritten since.
func (l *ringLog[T]) since(from uint64) ([]T, bool) {
	if from > l.n || l.n-from > attachLogSize {
		return nil, false
	}
	out := make([]T, 0, l.n-from)
	for i := from; i < l.n; i++ {
		out = append(out, l.ring[i%attachLogSize])
	}
	return out, true
}

func (t *Tree) logAttach(parent, child string) {
	t.attaches.add(Attach{parent, child})
	if t.inOrderValid() {
		t.inOrderAdded = append(t.inOrderAdded, child)
	}
}

// Revision returns the tree's current revision.
func (t *Tree) Revision() Revision { return Revision{t.shapeGen, t.attaches.n, t.branchLog.n} }

// BranchesChangedSince returns the names of the branches whose rows changed
// since r (a branch made, moved, used, summarized or deleted), oldest first
// (a name may repeat), and true; false where AddedSince is false, or after
// more than 128 changes.
func (t *Tree) BranchesChangedSince(r Revision) ([]string, bool) {
	if r.gen != t.shapeGen {
		return nil, false
	}
	return t.branchLog.since(r.names)
}

// AddedSince returns the nodes added since r, oldest first, and true; false
// when the tree changed since r in a way such a list does not cover (a node
// removed or relinked, a merge, a rollback, or more than 128 nodes added).
func (t *Tree) AddedSince(r Revision) ([]Attach, bool) {
	if r.gen != t.shapeGen {
		return nil, false
	}
	return t.attaches.since(r.adds)
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
