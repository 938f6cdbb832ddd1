package core

import "bytes"

// InsertNode adds a node with a given id under parent ("" for a new root), as an
// importer or a merge needs: ids and times are kept as they were. The id must be
// new (CodeConflict) and the parent must exist (CodeNotFound). No branch moves.
func (t *Tree) InsertNode(id, parent string, msg Message, label string, atMs int64) error {
	tick()
	if err := checkName("id", id); err != nil {
		return err
	}
	if t.nodes[id] != nil {
		return newError(CodeConflict, "a node with id "+quote(id)+" already exists")
	}
	if parent != "" && t.nodes[parent] == nil {
		return newError(CodeNotFound, "parent "+quote(parent)+" of node "+quote(id)+" is not a node")
	}
	msg, err := parseMessage(msg, &t.keys)
	if err != nil {
		return err
	}
	if label != "" && !validUTF8(label) {
		return newError(CodeInvalidInput, "label for "+quote(id)+" is not valid UTF-8")
	}
	t.addNode(&node{id: id, parent: parent, msg: msg, lab: newLabel(label, 0), created: atMs})
	return nil
}

// SetBranch points the branch called name at leaf ("" for leafless), creating it
// (stamped atMs) if needed. Unlike Rewind it keeps nothing: it is for importers
// and merges that rebuild branches as they were. The move is dated as the file
// leaves it out (the later of the branch's and the leaf's times), which no
// import format carries.
func (t *Tree) SetBranch(name, leaf string, atMs int64) error {
	if err := checkName("branch name", name); err != nil {
		return err
	}
	if leaf != "" && t.nodes[leaf] == nil {
		return errNodeNotFound(leaf)
	}
	if b := t.branches[name]; b != nil {
		t.setLeaf(b, leaf, t.movedDefault(&branch{leaf: leaf, created: b.created}))
		return nil
	}
	b := &branch{name: name, leaf: leaf, created: atMs}
	b.moved = t.movedDefault(b)
	t.addBranch(b)
	return nil
}

// Changes lists what changed since the last TakeChanges: for storage that keeps
// one row per node and per branch and writes only what an operation touched.
type Changes struct {
	Nodes    []string // added, relabelled, removed, or whose children changed
	Branches []string // created, moved, summarized, used or deleted
	Meta     bool     // the root or the active branch may have changed
	// All: anything may have changed (TakeWatched after Succeed: the tree
	// was swapped in whole); Nodes and Branches are then empty.
	All bool
}

// TakeChanges returns the changes since the previous call and forgets them; the
// first call starts the recording and returns nothing. Trees do not record until
// then, so a tree that is never persisted row by row pays nothing. Ids and names
// are sorted; a listed node or branch that no longer exists was removed.
func (t *Tree) TakeChanges() Changes {
	if t.changed == nil {
		t.changed = &changes{}
		return Changes{}
	}
	return t.changed.take()
}

// Succeed makes t the next state of old, a tree it replaces whole under one
// handle (a merged or reloaded copy): t's version goes on from old's, a watch
// old had goes on in t, saying that anything may have changed, and so does a
// sync feed, with what old's had not handed out yet and every record t and
// old hold apart (t's own, or removed): a merge swapped in with the lean
// module is then pushed by the rows it changed, not whole.
func (t *Tree) Succeed(old *Tree) {
	t.version += old.version + 1
	if old.watched != nil {
		t.watched = &changes{all: true}
	}
	if old.synced != nil {
		t.synced = old.synced
		if !t.synced.all {
			t.noteApart(t.synced, old)
		}
	}
}

// Equal reports whether t and u hold the same records (every node and branch
// row alike), root and active branch: whether their Marshal is the same,
// without writing it. A tree swapped in for an equal one (an every-row delta
// delivered twice) changes nothing.
func (t *Tree) Equal(u *Tree) bool {
	return t.active == u.active && t.SameRecords(u)
}

// SameRecords is Equal without the active branch, which is each copy's own:
// whether t and u hold the same nodes and branch records and root. What a
// merge answers a copy that sent its tree: when the merged tree is not the
// one sent, the copy takes it back (a merge may hide or show a kept value of
// a branch that the copy's own calls left as they were).
func (t *Tree) SameRecords(u *Tree) bool {
	if t.root != u.root || len(t.nodes) != len(u.nodes) {
		return false
	}
	var c changes
	t.noteApart(&c, u)
	return len(c.nodes)+len(c.branches) == 0
}

// noteApart records in c every record that t and old hold apart: the nodes
// the merge diff names and the nodes old had that t has not, and every branch
// record whose row differs or that only one of them has.
func (t *Tree) noteApart(c *changes, old *Tree) {
	d := old.diff(t)
	for _, list := range [][]string{d.NodesAdded, d.touchedNodes} {
		for _, id := range list {
			c.node(id)
		}
	}
	for id := range old.nodes {
		if t.nodes[id] == nil {
			c.node(id)
		}
	}
	// Branches by their rows, not by the diff, which does not compare a live
	// branch's record whole (the time its name was once deleted: found by the
	// JS API's random run with mirrors, where a copy fed by the sync feed kept
	// a deleted_at_ms its tree no longer had). Branches are few beside nodes,
	// and a swap is a whole tree's work already.
	var mine, theirs []byte
	for _, keys := range [][]string{old.branchKeys(), t.branchKeys()} {
		for _, name := range keys {
			var okOld, okNew bool
			mine, okOld = old.AppendBranchJSON(mine[:0], name)
			theirs, okNew = t.AppendBranchJSON(theirs[:0], name)
			if okOld != okNew || !bytes.Equal(mine, theirs) {
				c.branch(name)
			}
		}
	}
	c.setMeta()
}

// take returns what c recorded, sorted, and forgets it.
func (c *changes) take() Changes {
	if c.all {
		*c = changes{}
		return Changes{All: true, Meta: true}
	}
	out := Changes{Meta: c.meta}
	for id := range c.nodes {
		if id != "" {
			out.Nodes = append(out.Nodes, id)
		}
	}
	for name := range c.branches {
		out.Branches = append(out.Branches, name)
	}
	sortStrings(out.Nodes)
	sortStrings(out.Branches)
	*c = changes{}
	return out
}

// Version counts the changes made to the tree: it is larger after every
// operation that changed a node, a branch, the root or the active branch
// (a merge and ApplyRows too), and never goes back. A UI compares it to the
// version it drew (React's useSyncExternalStore takes it as the snapshot).
func (t *Tree) Version() uint64 { return t.version }

// TakeWatched is TakeChanges for listeners, kept apart from it so that a
// store's feed and change events never take each other's changes: the nodes
// and branches changed (added, changed or removed) since the previous call,
// sorted, and whether the root or active branch may have changed. The first
// call starts the recording and returns nothing.
func (t *Tree) TakeWatched() Changes {
	if t.watched == nil {
		t.watched = &changes{}
		return Changes{}
	}
	return t.watched.take()
}

// TakeSynced is TakeChanges for a sync client (js/sync.js's live() pushes
// the rows it names to the edge), kept apart from the store's feed and the
// watch so that a tree stored row by row and synced live has both: what
// changed since the previous call, sorted. The first call starts the
// recording and returns All (the client holds no rows yet: it pushes the
// whole tree); a tree replaced whole (Succeed) names what the swap changed.
func (t *Tree) TakeSynced() Changes {
	if t.synced == nil {
		t.synced = &changes{}
		return Changes{All: true, Meta: true}
	}
	return t.synced.take()
}

// TakeChangesUpTo is TakeChanges handed out in parts of at most max records
// (branches first, then nodes, each in TakeChanges's order), so that a store
// writes a huge feed without anyone holding all of its rows at once. The first
// call takes the changes since the previous take; while more is true, the next
// calls hand out the rest of those before anything changed since. A record
// changed again after its part was handed out comes again in a later feed (its
// row as it is then), so a store that writes every part in order, and then the
// later feeds, holds the tree. max < 1 takes all that is left: the rest of a
// feed together with the changes since.
func (t *Tree) TakeChangesUpTo(max int) (c Changes, more bool) {
	if t.rest == nil {
		next := t.TakeChanges()
		if max < 1 || len(next.Nodes)+len(next.Branches) <= max {
			return next, false
		}
		t.rest = &next
		return t.cutRest(max)
	}
	if max < 1 {
		r := *t.rest
		t.rest = nil
		next := t.TakeChanges()
		return Changes{Nodes: unionSorted(r.Nodes, next.Nodes), Branches: unionSorted(r.Branches, next.Branches), Meta: r.Meta || next.Meta}, false
	}
	return t.cutRest(max)
}

// TakeEverythingUpTo (re)starts the change recording and hands out every record
// (Everything) in parts of at most max records, the rest by TakeChangesUpTo:
// the first feed of a tree a store has not held, for a tree too large to write
// in one go.
func (t *Tree) TakeEverythingUpTo(max int) (c Changes, more bool) {
	t.TakeChanges() // starts the recording, or forgets what it recorded
	all := t.Everything()
	if max < 1 || len(all.Nodes)+len(all.Branches) <= max {
		t.rest = nil
		return all, false
	}
	t.rest = &all
	return t.cutRest(max)
}

// cutRest hands out the first max records of t.rest.
func (t *Tree) cutRest(max int) (Changes, bool) {
	r := t.rest
	c := Changes{Meta: r.Meta}
	r.Meta = false
	nb := min(max, len(r.Branches))
	c.Branches, r.Branches = r.Branches[:nb:nb], r.Branches[nb:]
	nn := min(max-nb, len(r.Nodes))
	c.Nodes, r.Nodes = r.Nodes[:nn:nn], r.Nodes[nn:]
	if len(r.Branches)+len(r.Nodes) == 0 {
		t.rest = nil
		return c, false
	}
	return c, true
}

// unionSorted merges two sorted lists into one, sorted, each string once.
func unionSorted(a, b []string) []string {
	out := make([]string, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || (i < len(a) && a[i] < b[j]):
			out = append(out, a[i])
			i++
		case i == len(a) || b[j] < a[i]:
			out = append(out, b[j])
			j++
		default:
			out = append(out, a[i])
			i, j = i+1, j+1
		}
	}
	return out
}

// Everything lists every node and every branch record (live, deleted or
// hidden), sorted, as TakeChanges would if all of them had changed: what a
// store writes for a tree it has not held before, record by record with
// NodeJSON and BranchJSON.
func (t *Tree) Everything() Changes {
	return Changes{Nodes: t.sortedKeys(), Branches: t.branchKeys(), Meta: true}
}

// NodeJSON returns node id as it is written in .tree.json (the value under its
// key in "nodes"), or false.
func (t *Tree) NodeJSON(id string) ([]byte, bool) {
	n := t.nodes[id]
	if n == nil {
		return nil, false
	}
	return n.appendJSON(nil), true
}

// AppendNodeJSON appends what NodeJSON returns to dst, without a buffer of
// its own (a store's first feed of a 200k-node tree is 200k of them), or
// returns dst and false.
func (t *Tree) AppendNodeJSON(dst []byte, id string) ([]byte, bool) {
	n := t.nodes[id]
	if n == nil {
		return dst, false
	}
	return n.appendJSON(dst), true
}

// AppendBranchJSON appends what BranchJSON returns to dst, or returns dst and false.
func (t *Tree) AppendBranchJSON(dst []byte, name string) ([]byte, bool) {
	if !t.hasBranchRecord(name) {
		return dst, false
	}
	return t.appendBranchJSON(dst, name), true
}

// hasBranchRecord reports whether the file has a record under name: a live
// branch, a deleted name's tombstone or a hidden conflict branch.
func (t *Tree) hasBranchRecord(name string) bool {
	_, dead := t.tombs[name]
	return t.branches[name] != nil || dead || t.hidden[name] != nil
}

// BranchJSON returns branch name as it is written in .tree.json (for a deleted
// name, its tombstone; for a hidden conflict branch, its hidden record), or false.
func (t *Tree) BranchJSON(name string) ([]byte, bool) {
	return t.AppendBranchJSON(nil, name)
}
