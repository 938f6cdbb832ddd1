package core

import "slices"

// journal records how to undo each mutation made during Apply, so that a failing
// batch leaves the tree exactly as it was without copying it. Every change to a
// Tree goes through the primitives in this file.
type journal struct {
	undo []undo
	// The branches whose first leaf move and first touch are recorded: rollback
	// always undoes the whole journal, so later moves of the same branch need no
	// record (a batch of appends records its branch once, not once per append).
	leafOf, touched *branch
	// What the batch noted, kept here and told to the feeds (TakeChanges,
	// TakeWatched, TakeSynced) only when it goes in; and the version before
	// it, put back by rollback. Before Dec 5 a failed batch moved the version
	// and left rows of what never happened in every feed.
	version uint64
	notes   []string // node ids, then branch names after a "\x00" entry each
	meta    bool
	// went: the journal is of the last Apply, which went in, and after is
	// the version it left; Undo may take it back while the version is still
	// after (no change since).
	went  bool
	after uint64
}

// undo is one recorded change: a plain value, so recording allocates nothing
// beyond the journal's own slice.
type undo struct {
	kind   undoKind
	n      *node
	b      *branch
	name   string // old root, active branch or leaf, or a tombstone's name
	i1, i2 int64
	lab    *nodeLabel
	sum    *Summary
	tomb   *tombstone // a name's tombstone before the change, or nil
}

type undoKind uint8

const (
	undoAddNode undoKind = iota
	undoLeaf
	undoAddBranch
	undoRemoveBranch
	undoActive
	undoTouch
	undoLabel
	undoTomb
	undoSummary
)

// changes remembers what changed since the last TakeChanges, for callers that
// persist a tree incrementally (one row per node and branch).
type changes struct {
	nodes    map[string]struct{}
	branches map[string]struct{}
	meta     bool // root or active branch
	all      bool // anything (Succeed)
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
	if c != nil {
		c.addBranch(name)
	}
}

// addBranch is branch's slow path, one copy for its many call sites.
//
//go:noinline
func (c *changes) addBranch(name string) {
	if c.branches == nil {
		c.branches = make(map[string]struct{})
	}
	c.branches[name] = struct{}{}
}

// noteNode, noteBranch and noteMeta record a change for the store's feed
// (TakeChanges), for the watch (TakeWatched), for a sync client's feed
// (TakeSynced) and in the version (Version).
func (t *Tree) noteNode(id string) {
	t.nodeGen++
	t.version++
	if t.journal != nil {
		t.journal.notes = append(t.journal.notes, id)
		return
	}
	t.changed.node(id)
	t.watched.node(id)
	t.synced.node(id)
}

func (t *Tree) noteBranch(name string) {
	t.branchLog.add(name)
	t.version++
	if t.journal != nil {
		t.journal.notes = append(t.journal.notes, "\x00", name)
		return
	}
	t.changed.branch(name)
	t.watched.branch(name)
	t.synced.branch(name)
}

func (t *Tree) noteMeta() {
	t.version++
	if t.journal != nil {
		t.journal.meta = true
		return
	}
	t.changed.setMeta()
	t.watched.setMeta()
	t.synced.setMeta()
}

// tell gives the feeds what a batch that went in noted (see journal.notes).
func (t *Tree) tell(j *journal) {
	for i := 0; i < len(j.notes); i++ {
		if j.notes[i] != "\x00" {
			t.changed.node(j.notes[i])
			t.watched.node(j.notes[i])
			t.synced.node(j.notes[i])
			continue
		}
		i++
		t.changed.branch(j.notes[i])
		t.watched.branch(j.notes[i])
		t.synced.branch(j.notes[i])
	}
	if j.meta {
		t.changed.setMeta()
		t.watched.setMeta()
		t.synced.setMeta()
	}
	clear(j.notes) // the journal is kept for the next batch: not its strings
	j.notes, j.meta = j.notes[:0], false
}

func (c *changes) setMeta() {
	if c != nil {
		c.meta = true
	}
}

// openJournal starts recording for Apply, reusing the last journal's memory.
func (t *Tree) openJournal() {
	j := t.spare
	if j == nil || cap(j.undo) > 1<<16 {
		j = &journal{}
	}
	t.spare = nil
	j.undo = j.undo[:0]
	j.leafOf, j.touched = nil, nil
	j.version, j.notes, j.meta = t.version, j.notes[:0], false
	j.went = false
	t.journal = j
}

// closeJournal stops recording, tells the feeds what the batch noted (none
// after a rollback) and keeps the journal for the next Apply.
func (t *Tree) closeJournal() {
	j := t.journal
	t.spare, t.journal = j, nil
	t.tell(j)
}

// record keeps u for rollback when a journal is open (inside Apply).
func (t *Tree) record(u undo) {
	if t.journal != nil {
		t.journal.push(u)
	}
}

// push appends u: one copy of the append for record's many call sites.
//
//go:noinline
func (j *journal) push(u undo) { j.undo = append(j.undo, u) }

// Undo takes back the last Apply, which went in, when nothing changed the
// tree since it returned, and reports whether it did; otherwise it changes
// nothing. It is for a store that refuses a batch only once it has seen what
// the batch changes (wasm/edge: a tree over its size limit or its tenant's
// quota), which would otherwise read its tree again whole. The tree is then
// as it was before the batch, except its version, which moves on (it never
// goes back); the feeds (TakeChanges, the watch, a sync client's) are told
// again of every node and branch the batch touched, which are as they were.
func (t *Tree) Undo() bool {
	j := t.spare
	if j == nil || t.journal != nil || !j.went || t.version != j.after {
		return false
	}
	after, done := t.version, j.undo
	t.journal = j
	t.rollback()
	t.journal, j.went = nil, false
	t.nodeGen++
	for i := range done {
		u := &done[i]
		switch u.kind {
		case undoAddNode:
			t.noteNode(u.n.id)
			t.noteNode(u.n.parent)
			t.noteMeta()
		case undoLeaf, undoTouch, undoSummary:
			t.noteBranch(u.b.name)
		case undoAddBranch, undoRemoveBranch:
			t.noteBranch(u.b.name)
			t.noteMeta()
		case undoActive:
			t.noteMeta()
		case undoLabel:
			t.noteNode(u.n.id)
		case undoTomb:
			t.noteBranch(u.name)
		}
	}
	clear(done) // the journal is kept for the next batch: not its nodes and branches
	t.version = max(t.version, after) + 1
	return true
}

// rollback undoes everything recorded, newest first.
func (t *Tree) rollback() {
	j := t.journal
	for i := len(j.undo) - 1; i >= 0; i-- {
		t.undoOne(&j.undo[i])
	}
	j.undo = j.undo[:0]
	j.leafOf, j.touched = nil, nil
	t.version, j.notes, j.meta = j.version, j.notes[:0], false
}

func (t *Tree) undoOne(u *undo) {
	t.shapeGen++
	switch u.kind {
	case undoAddNode:
		delete(t.nodes, u.n.id)
		if list := t.siblingList(u.n.parent); list != nil {
			if i := slices.Index(*list, u.n.id); i >= 0 {
				*list = slices.Delete(*list, i, i+1)
			}
		}
		t.root = u.name
	case undoLeaf:
		u.b.leaf, u.b.moved = u.name, u.i1
	case undoAddBranch:
		t.branchGen++
		delete(t.branches, u.b.name)
		t.names.remove(u.b.name)
		if u.tomb != nil {
			t.tombs[u.b.name] = u.tomb
		}
	case undoRemoveBranch:
		t.branchGen++
		t.branches[u.b.name] = u.b
		t.names.add(u.b.name)
	case undoActive:
		t.active = u.name
	case undoTouch:
		u.b.used, t.clock = u.i1, u.i2
		t.recentOK = false
	case undoLabel:
		u.n.lab = u.lab
	case undoTomb:
		if u.tomb != nil {
			t.tombs[u.name] = u.tomb
		} else {
			delete(t.tombs, u.name)
		}
	case undoSummary:
		u.b.summary = u.sum
	}
}

// addNode stores n under n.id and links it under its parent (or the roots).
func (t *Tree) addNode(n *node) {
	t.nodes[n.id] = n
	t.noteNode(n.id)
	t.noteNode(n.parent)
	t.noteMeta()
	switch {
	case n.parent == "":
		t.insertOrdered(&t.roots, n.id, n.created)
	case n.up != nil || t.nodes[n.parent] != nil:
		if n.up == nil {
			n.up = t.nodes[n.parent]
		}
		t.insertOrdered(&n.up.children, n.id, n.created)
	}
	t.runs.attach(t, n)
	t.logAttach(n.parent, n.id)
	learnDepthOnAdd(n)
	t.record(undo{kind: undoAddNode, n: n, name: t.root})
	if t.root == "" {
		t.root = n.id
	}
}

// removeNode deletes a node that has no children left.
func (t *Tree) removeNode(id string) {
	t.shapeGen++
	n := t.nodes[id]
	delete(t.nodes, id)
	t.noteNode(id)
	t.noteNode(n.parent)
	t.noteMeta()
	if list := t.siblingList(n.parent); list != nil {
		if i := slices.Index(*list, id); i >= 0 {
			*list = slices.Delete(*list, i, i+1)
		}
	}
	if t.root == id {
		t.root = t.firstRoot()
	}
}

// firstRoot is the root a tree takes when its own is gone: its first
// parentless node, or "" when it has none.
func (t *Tree) firstRoot() string {
	if len(t.roots) > 0 {
		return t.roots[0]
	}
	return ""
}

// maxClock is the latest a branch's move time or use clock gets: 2^53, what
// a JavaScript number holds exactly (285,000 years of milliseconds). At the
// top of int64 the move or switch after it wrapped to the bottom and became
// the oldest (a merge then took the branch back); a file past it is refused.
const maxClock = 1 << 53

// after is n+1, at most maxClock.
func after(n int64) int64 {
	return min(n+1, maxClock)
}

// setLeaf points b at leaf, recording atMs as the time of the move (what Merge
// compares when two copies moved the same branch), or just after the move it
// replaces when atMs is not later. A copy moves a branch from the value it
// holds, so its move comes after that value: dated by a clock behind the one
// that made the value (another device's), an append lost to the value it
// was appended to in the next merge, which kept the new message off the
// branch, on "name~leaf", and moved the branch back (DeleteBranchAt dates a
// deletion so too).
func (t *Tree) setLeaf(b *branch, leaf string, atMs int64) {
	old, oldMoved := b.leaf, b.moved
	b.leaf, b.moved = leaf, min(max(atMs, after(oldMoved)), maxClock)
	t.noteBranch(b.name)
	if j := t.journal; j != nil && j.leafOf != b {
		j.leafOf = b
		j.undo = append(j.undo, undo{kind: undoLeaf, b: b, name: old, i1: oldMoved})
	}
}

// addBranch adds b; a name deleted before is live again, so its deletion is
// forgotten.
func (t *Tree) addBranch(b *branch) {
	t.branchGen++
	t.branches[b.name] = b
	t.recentAdd(b)
	t.names.add(b.name)
	t.noteBranch(b.name)
	old := t.tombs[b.name]
	delete(t.tombs, b.name)
	t.record(undo{kind: undoAddBranch, b: b, tomb: old})
}

func (t *Tree) removeBranch(b *branch) {
	t.branchGen++
	delete(t.branches, b.name)
	t.recentRemove(b)
	t.names.remove(b.name)
	t.noteBranch(b.name)
	t.record(undo{kind: undoRemoveBranch, b: b})
}

func (t *Tree) setActive(name string) {
	old := t.active
	t.active = name
	t.noteMeta()
	t.record(undo{kind: undoActive, name: old})
}

// touch marks b as the most recently used branch.
func (t *Tree) touch(b *branch) {
	oldUsed, oldClock := b.used, t.clock
	t.clock = after(t.clock)
	b.used = t.clock
	t.recentTouch(b)
	t.noteBranch(b.name)
	if j := t.journal; j != nil && j.touched != b {
		j.touched = b
		j.undo = append(j.undo, undo{kind: undoTouch, b: b, i1: oldUsed, i2: oldClock})
	}
}

// setLabel sets or clears (label "") n's label as of atMs; the label's time
// never goes back, so a later local change also wins a later Merge.
func (t *Tree) setLabel(n *node, label string, atMs int64) {
	if n.labelText() == label && n.labelTime() >= atMs {
		return // set again, no later: nothing changes (no version, no row)
	}
	old := n.lab
	t.runs.relabel(t, n, label != "")
	n.lab = newLabel(label, max(n.labelTime(), atMs))
	t.noteNode(n.id)
	t.record(undo{kind: undoLabel, n: n, lab: old})
}

// setTomb records that the instance of the branch name made at created was
// deleted at atMs at leaf (keeping the later of two deletions there), so that
// Merge does not bring it back from an older copy. Its callers remove a
// branch of that name, so the name's record changes anyway.
func (t *Tree) setTomb(name string, created, atMs int64, leaf string) {
	old := t.tombs[name]
	s := &tombstone{}
	if old != nil {
		s.deleted = append(s.deleted, old.deleted...)
	}
	s.add(deletion{created: created, at: atMs, leaf: leaf})
	if t.tombs == nil {
		t.tombs = make(map[string]*tombstone)
	}
	t.tombs[name] = s
	t.noteBranch(name)
	t.record(undo{kind: undoTomb, name: name, tomb: old})
}

func (t *Tree) setSummary(b *branch, s *Summary) {
	old := b.summary
	if old != nil && s != nil && *old == *s {
		return // the same summary again: nothing changes
	}
	b.summary = s
	t.noteBranch(b.name)
	t.record(undo{kind: undoSummary, b: b, sum: old})
}
