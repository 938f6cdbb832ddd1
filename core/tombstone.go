package core

import (
	"slices"

	"github.com/sessiontree/sessiontree/core/rawjson"
)

// tombstone is what a tree knows of the deletions of one branch name, for
// Merge: which instances of the name were deleted, and when. An instance is
// one branch made under the name, told by its creation time, which every move
// of the branch keeps: copies edited apart mint the same fresh name for
// different branches, and a deletion in one copy must not take the other's.
// Two instances made in the same millisecond count as one.
//
// A deletion takes what the deleting copy saw: the values of the instance at
// the leaf the branch had when deleted or above it, moved no later. A value
// another copy moved below that leaf apart (an append racing the deletion)
// survives. A deletion that knows no leaf (a file written before leaves were
// recorded, or a leaf that Prune removed before Dec 5, evening) takes the
// whole instance. When Prune removes the leaf, the deletion keeps it and the
// ids of its ancestors that Prune removed with it, up to the first one kept
// (see Tree.keepDeletedPaths), so that what is at or above the leaf is still
// known where no copy has the leaf any more.
//
// A tombstone is never changed once a tree holds it, only replaced, so
// copies of a tree share them.
type tombstone struct {
	// deleted lists the deletions by creation time and leaf, ascending, each
	// (instance, leaf) with its latest deletion. A deletion of the whole
	// name, as files written before instances were recorded have it, comes
	// first, as the instance wholeName.
	deleted []deletion
}

// deletion is one deletion of an instance of a name: made at created, deleted
// at at, when its branch was at leaf ("": the whole instance). above lists
// leaf's ancestors, nearest first, as far as a prune that removed leaf
// removed them, and then the first one it kept (or up to a root): with it a
// merge still tells what is at or above leaf when leaf is no node of it.
type deletion struct {
	created, at int64
	leaf        string
	above       []string
}

// saw reports whether a value at node id is at d's leaf or above it in r: id
// is the leaf or one of the ids of above, or the first of them that is a node
// of r reaches it (every node above that one is a node of r, and so is id's
// every ancestor: a node in r that is below the leaf has the leaf in r too).
// The answer is the same in every tree that holds id, so a merge that asks it
// stays a join.
func (d *deletion) saw(id string, r *Tree) bool {
	if id == "" || id == d.leaf {
		return true
	}
	if r.nodes[d.leaf] != nil {
		return r.reaches(d.leaf, id)
	}
	for _, a := range d.above {
		if a == id {
			return true
		}
		if r.nodes[a] != nil {
			return r.reaches(a, id)
		}
	}
	return false
}

// longerPath returns the longer of two paths above one leaf (one is the other's
// start), or of two that differ (copies that minted one id apart) the larger:
// an order, so the join of tombstones stays commutative and associative.
func longerPath(x, y []string) []string {
	if len(x) != len(y) {
		if len(x) > len(y) {
			return x
		}
		return y
	}
	for i := range x {
		if x[i] != y[i] {
			if x[i] > y[i] {
				return x
			}
			return y
		}
	}
	return x
}

// wholeName is the instance of a deletion that names none ("deleted_at_ms"
// alone): it kills every value of the name moved no later. No instance made
// at that time can be recorded (see loader.deletions).
const wholeName = -1 << 63

// kills reports whether the value of the name made at created, moved at moved
// to leaf is deleted in r: its instance, or the whole name, was deleted no
// earlier than the move, at leaf or below it (deletion.saw, which walks up
// as a superseding value is found), or with no leaf known.
func (s *tombstone) kills(created, moved int64, leaf string, r *Tree) bool {
	if s == nil {
		return false
	}
	for _, d := range s.deleted {
		if (d.created == created || d.created == wholeName) && moved <= d.at && (d.leaf == "" || d.saw(leaf, r)) {
			return true
		}
	}
	return false
}

// join returns the union of two tombstones (either may be nil): every
// deleted instance and leaf at its later deletion.
func (s *tombstone) join(o *tombstone) *tombstone {
	if s == nil || o == nil {
		if s == nil {
			return o
		}
		return s
	}
	j := &tombstone{deleted: append([]deletion(nil), s.deleted...)}
	for _, d := range o.deleted {
		j.add(d)
	}
	return j
}

// add joins d into s, which no tree holds yet.
//
//go:noinline
func (s *tombstone) add(d deletion) {
	// Where d goes, by a binary search: a file's list comes in order, and a
	// scan from the start for each entry loaded 20,000 of them in 14 s.
	i, hi := 0, len(s.deleted)
	for i < hi {
		if m := int(uint(i+hi) >> 1); d.after(s.deleted[m]) {
			i = m + 1
		} else {
			hi = m
		}
	}
	if i < len(s.deleted) && s.deleted[i].created == d.created && s.deleted[i].leaf == d.leaf {
		s.deleted[i].at = max(s.deleted[i].at, d.at)
		s.deleted[i].above = longerPath(s.deleted[i].above, d.above)
		return
	}
	s.deleted = append(s.deleted, d)
	copy(s.deleted[i+1:], s.deleted[i:])
	s.deleted[i] = d
}

// after orders deletions in a tombstone: by creation time, then leaf.
func (d deletion) after(e deletion) bool {
	return d.created > e.created || (d.created == e.created && d.leaf > e.leaf)
}

// equal reports whether two tombstones (either may be nil) are the same.
func (s *tombstone) equal(o *tombstone) bool {
	if s == nil || o == nil {
		return s == o
	}
	if len(s.deleted) != len(o.deleted) {
		return false
	}
	for i, d := range s.deleted {
		if e := o.deleted[i]; e.created != d.created || e.at != d.at || e.leaf != d.leaf || !slices.Equal(e.above, d.above) {
			return false
		}
	}
	return true
}

// appendJSON adds the tombstone's fields to the object that ends buf:
// "deleted_at_ms" for a whole-name deletion and "deleted_instances":
// [[created_at_ms, deleted_at_ms, leaf, above…]…] for the rest
// ([created_at_ms, deleted_at_ms] for a deletion of a whole instance).
func (s *tombstone) appendJSON(buf []byte) []byte {
	buf = buf[:len(buf)-1]
	open, end := `,"deleted_instances":[[`, "}"
	for _, d := range s.deleted {
		if d.created == wholeName {
			buf = appendNumber(buf, `,"deleted_at_ms":`, d.at)
			continue
		}
		buf = appendNumber(appendNumber(buf, open, d.created), ",", d.at)
		if d.leaf != "" {
			buf = rawjson.AppendString(append(buf, ','), d.leaf)
		}
		for _, a := range d.above {
			buf = rawjson.AppendString(append(buf, ','), a)
		}
		open, end = "],[", "]]}"
	}
	return append(buf, end...)
}

// appendNumber appends pre and n: one copy of the appends for appendJSON's
// three uses.
//
//go:noinline
func appendNumber(buf []byte, pre string, n int64) []byte {
	return rawjson.AppendInt(append(buf, pre...), n)
}
