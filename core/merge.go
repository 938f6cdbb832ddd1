package core

import (
	"bytes"
	"cmp"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"
)

// Merge rules (SPEC §3 "Merge"). A merge is the least upper bound of the two
// copies' states, and the tree it returns is a function of that state alone,
// so copies merged in any order and grouping save to the same bytes:
//
//   - Nodes are the union by id. Two nodes with one id and different content
//     (parent, time or message) are a conflict: the one with the smaller
//     (created, parent, message) keeps the id, the other is kept under
//     id + "~" + a hash of its content, as a value of the register
//     "conflict~" + id (a branch of that name unless another reaches it).
//   - A label is the one set (or cleared) last, by (label time, label).
//   - Deleted names are the union of tombstones: per name, the instances
//     deleted (a branch made under the name, told by its creation time) with
//     the leaf the branch had then, each at its later deletion, and the later
//     whole-name deletion of a file written before instances were recorded
//     (see tombstone).
//   - Branch names are registers holding a set of values (leaf, move time,
//     creation time), joined by union and pruned: a value is dropped when a
//     deletion of its instance at its leaf or below (or of the whole name)
//     came no earlier than its move, and when a newer value of the same
//     instance is at or below it (see merge_registers.go, which also shows
//     why this is a join). So a deletion in one copy takes what that copy
//     saw: not another copy's branch minted apart under the same name, nor an
//     append another copy made to the branch apart. The newest value is the
//     branch; every other one is kept as name + "~" + leaf, shown unless a
//     deletion of that name took it or another branch reaches its leaf, else
//     a hidden record. A stored conflict name maps back to its register
//     (registerOf), so nothing but these values is state, and no leaf is left
//     unreachable except by a deletion of its instance at that leaf or below.
//   - Summaries form a state of their own, merged as a CRDT: a grow-only map
//     from (branch family, node) to a last-writer-wins register holding the
//     newest summary by (time, text, model) that any copy wrote as of that node
//     on a branch of that family (see family). What a branch shows is then
//     computed, not carried: the newest summary of its family as of a node on
//     its path. Summaries no branch shows are kept ("kept_summaries" on the
//     family's entry in "branches", see shelfHome).
//   - Per-copy state: a value's "used" clock is the larger of the two copies',
//     and the active branch is the one whose copy used it last (largest used
//     clock, then main, then name).
//
// Known limits. Copies that minted the same id (SPEC §2 forbids it) merge
// commutatively and idempotently, but which content keeps the id can depend on
// grouping. Two branches made under one name in the same millisecond are one
// instance: deleting either deletes both (at or above the leaf it saw).

// MergeReport says what a merge changed in the tree merged into.
type MergeReport struct {
	NodesAdded       []string        // ids new to the tree, sorted
	LabelsChanged    []string        // nodes whose label changed
	BranchesAdded    []string        // names new to the tree (conflict branches included)
	BranchesMoved    []string        // names whose leaf changed
	BranchesDeleted  []string        // names the other copy had deleted
	SummariesChanged []string        // branches whose summary changed
	Conflicts        []MergeConflict // what was kept under a new id or name
	ActiveBranch     string          // the active branch after the merge
	ActiveChanged    bool            // whether that differs from before
	// more: the merge changed the file in what the lists above do not name
	// (a label's or a move's time, a hidden value, a deletion's record, kept
	// summaries, the root), which later merges read: Changed counts it. (Not
	// a branch's use clock alone: each copy's own, and a merge that keeps a
	// tab in its place moves it.)
	more bool
}

// MergeConflict is one thing both copies changed apart that the merge kept
// twice: a node id with two contents (Node, kept as KeptAs) or a branch both
// moved (Branch; the losing leaf Node is kept on the branch KeptAs).
type MergeConflict struct {
	Kind    string // "node" or "branch"
	Node    string
	Branch  string
	KeptAs  string
	Message string
}

// Changed reports whether the merge changed anything: whether the tree saves
// other bytes than before it, but for the branches' use clocks ("used": which
// branch was used last, each copy's own; a merge that took only the other
// copy's clocks is not a change to store or send).
func (r MergeReport) Changed() bool {
	return len(r.NodesAdded)+len(r.LabelsChanged)+len(r.BranchesAdded)+len(r.BranchesMoved)+
		len(r.BranchesDeleted)+len(r.SummariesChanged)+len(r.Conflicts) > 0 || r.ActiveChanged || r.more
}

// Merge returns the merge of a and b, a new tree; neither is changed. Both must
// be free of structural problems (see Validate; CodeCorrupt otherwise). The new
// tree takes its id source from a.
func Merge(a, b *Tree) (*Tree, error) {
	r, _, err := merge(a, b)
	return r, err
}

func merge(a, b *Tree) (*Tree, []MergeConflict, error) {
	for _, t := range []*Tree{a, b} {
		if err := t.mergeable(); err != nil {
			return nil, nil, err
		}
	}
	m := &merger{a: a, b: b, r: &Tree{
		nodes:    make(map[string]*node, max(len(a.nodes), len(b.nodes))+len(b.nodes)/16),
		branches: make(map[string]*branch, len(a.branches)+len(b.branches)/4),
		names:    freshNames{low: 1},
		newID:    a.idSource(),
		ownIDs:   a.ownIDs,
		clock:    max(a.clock, b.clock),
	}}
	m.tombs()
	m.nodes()
	rs := make(registers, len(a.branches)+len(b.branches)/4)
	rs.addTree(a)
	rs.addTree(b)
	for _, g := range m.generated {
		rs.add(registerOf(g.name, g.leaf), g)
	}
	m.prune(rs)
	m.resolve(rs)
	for name := range m.r.branches {
		m.r.names.add(name)
	}
	m.summaries()
	m.active()
	return m.r, m.conflicts, nil
}

// Merge merges other into t (see the package function Merge for the rules) and
// reports what changed in t. other is not changed. A merge is not an operation
// of Apply and cannot run inside one.
func (t *Tree) Merge(other *Tree) (MergeReport, error) {
	return t.MergeWith(other, MergeOptions{})
}

// MergeOptions are what a merge into one user's copy may do beyond the rules
// that make merges converge (see MergeWith).
type MergeOptions struct {
	// FreshNames keeps the other leaf of a branch both copies moved under a
	// fresh "branch-N" (Tree.Branch's names) instead of "name~leaf"; the
	// conflict name is deleted (a tombstone, so a copy that still has it does
	// not bring it back). Readable names for a user; the deterministic default
	// is what copies merged in any order need to save the same bytes.
	FreshNames bool
	// KeepPlace leaves this tree's user where they were: on their active branch
	// when it still reaches their leaf, else on the branch that now ends at that
	// leaf (where the merge kept their work when another copy moved the same
	// branch), instead of the branch either copy used last.
	KeepPlace bool
}

// MergeWith is Merge with options for a merge into one user's copy (a tab of
// the demo): readable conflict names and the user kept in place. A conflict's
// KeptAs in the report is the name the leaf is kept under after the options.
func (t *Tree) MergeWith(other *Tree, opts MergeOptions) (MergeReport, error) {
	if t.journal != nil {
		return MergeReport{}, newError(CodeConflict, "Merge cannot run inside Apply")
	}
	r, conflicts, err := merge(t, other)
	if err != nil {
		return MergeReport{}, err
	}
	if opts.FreshNames {
		r.renameConflicts(conflicts)
	}
	if opts.KeepPlace {
		r.keepPlace(t)
	}
	rep := t.diff(r)
	rep.Conflicts = conflicts
	// The change feeds and the watch go on (a feed handed out in parts too),
	// and the version counts on.
	changed, rest, watched, synced, version := t.changed, t.rest, t.watched, t.synced, t.version
	rep.more = rep.more || r.root != t.root
	moved := rep.Changed() || len(rep.touchedBranches) > 0
	gen := max(t.shapeGen, r.shapeGen)
	*t = *r
	// Every node may have moved: what was derived from t or r is stale.
	t.shapeGen = gen + 1
	t.changed, t.rest, t.watched, t.synced, t.version = changed, rest, watched, synced, version
	if changed != nil || watched != nil || synced != nil {
		for _, id := range rep.NodesAdded {
			t.noteNode(id)
		}
		for _, id := range rep.touchedNodes {
			t.noteNode(id)
		}
		for _, list := range [][]string{rep.BranchesAdded, rep.BranchesMoved, rep.BranchesDeleted, rep.touchedBranches} {
			for _, name := range list {
				t.noteBranch(name)
			}
		}
	}
	if moved {
		// A merge that changed nothing moves neither the version nor a feed
		// (before Dec 5 it did: a sync client then took its tree for edited).
		t.noteMeta()
	}
	return rep.MergeReport, nil
}

// renameConflicts gives each branch conflict's kept leaf a fresh "branch-N" (its
// times, use and summary come along) and deletes the conflict name as of the
// kept value's move, rewriting each conflict's KeptAs.
func (r *Tree) renameConflicts(conflicts []MergeConflict) {
	for i := range conflicts {
		c := &conflicts[i]
		kept := r.branches[c.KeptAs]
		if c.Kind != "branch" || kept == nil || c.KeptAs == MainBranch {
			continue
		}
		b := &branch{name: r.freshName(), leaf: kept.leaf, created: kept.created, moved: kept.moved, used: kept.used}
		r.addBranch(b)
		if s := kept.summary; s != nil {
			moved := *s
			moved.Branch = b.name
			r.setSummary(b, &moved)
		}
		if r.active == kept.name {
			r.setActive(b.name)
		}
		r.removeBranch(kept)
		r.setTomb(kept.name, kept.created, kept.moved, kept.leaf)
		c.KeptAs = b.name
		c.Message = "both copies moved branch " + quote(c.Branch) + "; its other leaf " + quote(c.Node) + " is kept on " + quote(b.name)
	}
}

// keepPlace makes active, in r (the merge of t and another copy), the branch
// t's user was on when it still reaches t's leaf, else the branch that now
// ends at that leaf; failing both it leaves the merge's choice.
func (r *Tree) keepPlace(t *Tree) {
	was := t.branches[t.active]
	if was == nil {
		return
	}
	pick := func(b *branch) {
		if r.active == b.name && b.used == r.clock {
			return // where the user is already, and used last: a touch would only move the clock
		}
		if r.active != b.name {
			r.setActive(b.name)
		}
		r.touch(b)
	}
	if b := r.branches[t.active]; b != nil && (was.leaf == "" || r.pathContains(b.leaf, was.leaf)) {
		pick(b)
		return
	}
	var best *branch
	for _, b := range r.branches {
		if b.leaf == was.leaf && (best == nil || b.name < best.name) {
			best = b
		}
	}
	if best != nil {
		pick(best)
	} else if b := r.branches[t.active]; b != nil {
		pick(b)
	}
}

// mergeable checks what Merge relies on: no duplicate or mismatched ids, every
// parent and leaf a node, no cycle of parent links, a main branch. (Before, a
// cycle merged into the result as it was: a sound tree took in a corrupt one.)
func (t *Tree) mergeable() error {
	bad := func(msg string) error {
		return newError(CodeCorrupt, "cannot merge a tree with structural problems (Repair it first): "+msg)
	}
	if len(t.dups) > 0 {
		return bad("node id " + quote(t.dups[0].id) + " appears more than once")
	}
	for id, w := range t.keyDups {
		return bad("node " + quote(id) + ": " + w)
	}
	for k, n := range t.nodes {
		if n.id != k {
			return bad("node stored under " + quote(k) + " says its id is " + quote(n.id))
		}
		if n.parent != "" && n.up == nil {
			return bad("node " + quote(k) + " has parent " + quote(n.parent) + ", which is not a node")
		}
	}
	for name, b := range t.branches {
		if b.name != name || (b.leaf != "" && t.nodes[b.leaf] == nil) {
			return bad("branch " + quote(name) + " has leaf " + quote(b.leaf) + ", which is not a node")
		}
	}
	if id := t.cycleNode(); id != "" {
		return bad("the parent links through node " + quote(id) + " form a cycle")
	}
	if t.branches[MainBranch] == nil {
		return bad(`there is no branch named "main"`)
	}
	return nil
}

// cycleNode is a node on a cycle of parent links, or "" when there is none:
// each node is walked once (its up links, which mergeable has checked).
func (t *Tree) cycleNode() string {
	const (
		unvisited = iota
		onWalk
		done
	)
	defer func() {
		for _, n := range t.nodes {
			n.mark = unvisited
		}
	}()
	var walk []*node
	for _, start := range t.nodes {
		walk = walk[:0]
		n := start
		for ; n != nil && n.mark == unvisited; n = n.up {
			n.mark = onWalk
			walk = append(walk, n)
		}
		if n != nil && n.mark == onWalk {
			return n.id
		}
		for _, w := range walk {
			w.mark = done
		}
	}
	return ""
}

// merger holds the state of one Merge.
type merger struct {
	a, b      *Tree
	r         *Tree
	generated []*branch // nodes that lost their id, each a value of the register "conflict~" + that id
	conflicts []MergeConflict
}

// sameContent reports whether two nodes with one id are the same message at the
// same place and time (labels aside).
func sameContent(x, y *node) bool {
	return x.parent == y.parent && x.created == y.created && bytes.Equal(x.msg, y.msg)
}

// compareContent orders two contents of one id: the smaller keeps the id.
func compareContent(x, y *node) int {
	if c := cmp.Compare(x.created, y.created); c != 0 {
		return c
	}
	if c := strings.Compare(x.parent, y.parent); c != 0 {
		return c
	}
	return bytes.Compare(x.msg, y.msg)
}

// mergeLabel keeps on dst whichever of the two labels was set last.
func mergeLabel(dst, src *node) {
	if src.labelTime() > dst.labelTime() || (src.labelTime() == dst.labelTime() && src.labelText() > dst.labelText()) {
		dst.lab = src.lab
	}
}

// conflictID is the id a node keeps when another node with different content
// holds its id: derived from its content, so every merge names it alike.
func conflictID(id string, n *node) string {
	h := fnv.New64a()
	h.Write([]byte(n.parent))
	h.Write([]byte{0})
	h.Write(strconv.AppendInt(nil, n.created, 10))
	h.Write([]byte{0})
	h.Write(n.msg)
	return id + "~" + strconv.FormatUint(h.Sum64(), 36)
}

func copyNode(n *node) *node {
	return &node{id: n.id, parent: n.parent, msg: n.msg, lab: n.lab, created: n.created}
}

// nodes builds the union of nodes, their children lists, roots and root.
func (m *merger) nodes() {
	r := m.r
	for id, n := range m.a.nodes {
		r.nodes[id] = copyNode(n)
	}
	type idLoser struct {
		side int
		n    *node
	}
	var losers []idLoser
	for id, n := range m.b.nodes {
		have := r.nodes[id]
		switch {
		case have == nil:
			r.nodes[id] = copyNode(n)
		case sameContent(have, n):
			mergeLabel(have, n)
		case compareContent(n, have) < 0:
			losers = append(losers, idLoser{0, have})
			r.nodes[id] = copyNode(n)
		default:
			losers = append(losers, idLoser{1, n})
		}
	}
	sortFunc(losers, func(x, y idLoser) int { return compareContent(x.n, y.n) })
	for _, l := range losers {
		n := copyNode(l.n)
		id := conflictID(n.id, n)
		for have := r.nodes[id]; have != nil && !sameContent(have, n); have = r.nodes[id] {
			id = conflictID(id, n)
		}
		if have := r.nodes[id]; have != nil {
			mergeLabel(have, n)
		} else {
			m.conflicts = append(m.conflicts, MergeConflict{Kind: "node", Node: n.id, KeptAs: id,
				Message: "node " + quote(n.id) + " had different content in the two copies; one is kept as " + quote(id)})
			n.id = id
			r.nodes[id] = n
		}
		m.generated = append(m.generated, &branch{name: "conflict~" + l.n.id, leaf: id, created: n.created, moved: n.created})
	}
	for id, n := range r.nodes {
		if n.parent == "" {
			r.roots = append(r.roots, id)
			continue
		}
		p := r.nodes[n.parent]
		n.up = p
		p.children = append(p.children, id)
	}
	for _, n := range r.nodes {
		if len(n.children) > 1 {
			sortFunc(n.children, r.byAge)
		}
	}
	sortFunc(r.roots, r.byAge)
	r.root = ""
	for _, c := range []string{m.a.root, m.b.root} {
		if n := r.nodes[c]; n != nil && n.parent == "" && (r.root == "" || r.byAge(c, r.root) < 0) {
			r.root = c
		}
	}
	if r.root == "" && len(r.roots) > 0 {
		r.root = r.roots[0]
	}
}

// tombs is the union of the deleted names, each the join of its tombstones.
func (m *merger) tombs() {
	for _, t := range []*Tree{m.a, m.b} {
		for name, s := range t.tombs {
			if name == MainBranch {
				continue
			}
			if m.r.tombs == nil {
				m.r.tombs = make(map[string]*tombstone)
			}
			m.r.tombs[name] = m.r.tombs[name].join(s)
		}
	}
}

// laterMove orders the values of one branch name: by move time, then leaf id,
// then creation time.
func laterMove(moved int64, leaf string, created int64, moved2 int64, leaf2 string, created2 int64) bool {
	if moved != moved2 {
		return moved > moved2
	}
	if leaf != leaf2 {
		return leaf > leaf2
	}
	return created > created2
}

// family is the name a branch and the conflict branches made from it share:
// the name up to its first "~".
func family(name string) string {
	if i := strings.IndexByte(name, '~'); i > 0 {
		return name[:i]
	}
	return name
}

// summaryKey identifies one register of the summary map: the branch family a
// summary was written on and the node it is as of.
type summaryKey struct{ family, node string }

// newerSummary orders summaries of one key by (time, text, model).
func newerSummary(x, y *Summary) bool {
	if x.CreatedAtMs != y.CreatedAtMs {
		return x.CreatedAtMs > y.CreatedAtMs
	}
	if x.Summary != y.Summary {
		return x.Summary > y.Summary
	}
	if x.ModelID != y.ModelID {
		return x.ModelID > y.ModelID
	}
	return x.NodeID > y.NodeID
}

// summaryStore is the summary map of one or more trees.
type summaryStore map[summaryKey]*Summary

// add joins s, written on family fam, into the store.
func (st summaryStore) add(fam string, s *Summary) {
	k := summaryKey{fam, s.NodeID}
	if have := st[k]; have == nil || newerSummary(s, have) {
		st[k] = s
	}
}

// addTree joins in every summary t holds: those its branches show and those it
// keeps. A summary as of a node t does not have (after Prune, or a bad pointer)
// is left out: it can be shown nowhere and kept on no node.
func (st summaryStore) addTree(t *Tree) {
	for name, b := range t.branches {
		if s := b.summary; s != nil && t.nodes[s.NodeID] != nil {
			st.add(family(name), s)
		}
	}
	for fam, kept := range t.shelf {
		for i := range kept {
			if t.nodes[kept[i].NodeID] != nil {
				st.add(fam, &kept[i])
			}
		}
	}
}

// summaries gives every merged branch the newest summary of its family as of a
// node on its path, and keeps the rest of the summary map on the tree. Both
// depend only on the union of the two copies' summaries and on the merged
// branches, never on what earlier merges showed or dropped.
func (m *merger) summaries() {
	r := m.r
	st := make(summaryStore)
	st.addTree(m.a)
	st.addTree(m.b)
	if len(st) == 0 {
		return
	}
	byFamily := make(map[string]map[string]*Summary)
	for k, s := range st {
		if byFamily[k.family] == nil {
			byFamily[k.family] = make(map[string]*Summary)
		}
		byFamily[k.family][k.node] = s
	}
	shown := make(map[summaryKey]bool)
	for name, b := range r.branches {
		fam := family(name)
		of := byFamily[fam]
		var best *Summary
		// Walk the path once, bounded (a cycle merges in as it was), and stop
		// when every summary of the family has been seen.
		found := 0
		for n, steps := r.nodes[b.leaf], 0; n != nil && found < len(of) && steps <= len(r.nodes); n, steps = n.up, steps+1 {
			if s := of[n.id]; s != nil {
				found++
				if best == nil || newerSummary(s, best) {
					best = s
				}
			}
		}
		if best == nil {
			continue
		}
		shown[summaryKey{fam, best.NodeID}] = true
		c := *best
		c.Branch = name
		b.summary = &c
	}
	for k, s := range st {
		if shown[k] {
			continue
		}
		if r.shelf == nil {
			r.shelf = make(map[string][]Summary)
		}
		c := *s
		c.Branch = k.family
		r.shelf[k.family] = append(r.shelf[k.family], c)
	}
	for _, kept := range r.shelf {
		sortFunc(kept, func(x, y Summary) int { return strings.Compare(x.NodeID, y.NodeID) })
	}
}

// shelve keeps s, a summary of family fam that no branch shows (as a file
// lists it under "kept_summaries"), joining it with one of the same node.
func (t *Tree) shelve(fam string, s Summary) {
	s.Branch = fam
	if t.shelf == nil {
		t.shelf = make(map[string][]Summary)
	}
	kept := t.shelf[fam]
	// A binary search and a copy with s inserted, written out: slices's
	// BinarySearchFunc and Insert would each link one more instantiation
	// into the browser module for this one call.
	i, j := 0, len(kept)
	for i < j {
		if h := int(uint(i+j) >> 1); kept[h].NodeID < s.NodeID {
			i = h + 1
		} else {
			j = h
		}
	}
	if i < len(kept) && kept[i].NodeID == s.NodeID {
		if newerSummary(&s, &kept[i]) {
			kept = slices.Clone(kept)
			kept[i] = s
		}
	} else {
		kept = append(append(append(make([]Summary, 0, len(kept)+1), kept[:i]...), s), kept[i:]...)
	}
	t.shelf[fam] = kept
}

// active makes the most recently used branch active: the largest used clock
// (a copy's active branch holds its largest), then main, then the smallest
// name. Each copy's clock counts its own switches; after a merge both go on
// from the larger, so the copy that switched last wins the next merge.
func (m *merger) active() {
	r := m.r
	best, bestUsed := "", int64(-1)
	for name, b := range r.branches {
		if b.used > bestUsed || (b.used == bestUsed && (name == MainBranch || (best != MainBranch && name < best))) {
			best, bestUsed = name, b.used
		}
	}
	r.active = best
}

// mergeDiff is a MergeReport with the rows a merge touched, for TakeChanges.
type mergeDiff struct {
	MergeReport
	touchedNodes    []string
	touchedBranches []string
}

// diff reports how r, the merge of t and another tree, differs from t.
func (t *Tree) diff(r *Tree) mergeDiff {
	var d mergeDiff
	for id, n := range r.nodes {
		tick()
		old := t.nodes[id]
		switch {
		case old == nil:
			d.NodesAdded = append(d.NodesAdded, id)
		case old.labelText() != n.labelText():
			d.LabelsChanged = append(d.LabelsChanged, id)
			d.touchedNodes = append(d.touchedNodes, id)
		case old.labelTime() != n.labelTime() || !sameContent(old, n) || !slices.Equal(old.children, n.children):
			d.touchedNodes = append(d.touchedNodes, id)
			d.more = true
		}
	}
	for name, b := range r.branches {
		old := t.branches[name]
		switch {
		case old == nil:
			d.BranchesAdded = append(d.BranchesAdded, name)
			continue
		case old.leaf != b.leaf:
			d.BranchesMoved = append(d.BranchesMoved, name)
		}
		if (old.summary == nil) != (b.summary == nil) || (b.summary != nil && *old.summary != *b.summary) {
			d.SummariesChanged = append(d.SummariesChanged, name)
		}
		if old.moved != b.moved || old.created != b.created {
			d.more = true
		}
		if old.leaf != b.leaf || old.moved != b.moved || old.created != b.created || old.used != b.used ||
			(old.summary == nil) != (b.summary == nil) || (b.summary != nil && *old.summary != *b.summary) {
			d.touchedBranches = append(d.touchedBranches, name)
		}
	}
	for name := range t.branches {
		if r.branches[name] == nil {
			d.BranchesDeleted = append(d.BranchesDeleted, name)
		}
	}
	for _, hs := range [2]map[string]*branch{t.hidden, r.hidden} {
		for name := range hs {
			x, y := t.hiddenRecord(name), r.hiddenRecord(name)
			if (x == nil) != (y == nil) || (x != nil && *x != *y) {
				d.touchedBranches = append(d.touchedBranches, name)
				d.more = d.more || x == nil || y == nil || x.leaf != y.leaf || x.moved != y.moved || x.created != y.created
			}
		}
	}
	for name, s := range r.tombs {
		if !s.equal(t.tombs[name]) {
			d.touchedBranches = append(d.touchedBranches, name)
			d.more = true
		}
	}
	// The entry that carries a family's kept summaries is rewritten when they
	// change, and so is the one that carried them before.
	for _, shelves := range [2]map[string][]Summary{t.shelf, r.shelf} {
		for fam := range shelves {
			if !slices.Equal(t.shelf[fam], r.shelf[fam]) || t.shelfHome(fam) != r.shelfHome(fam) {
				for _, home := range []string{t.shelfHome(fam), r.shelfHome(fam)} {
					if home != "" {
						d.touchedBranches = append(d.touchedBranches, home)
					}
				}
				d.more = true
			}
		}
	}
	d.ActiveBranch = r.active
	d.ActiveChanged = r.active != t.active
	for _, l := range [][]string{d.NodesAdded, d.LabelsChanged, d.BranchesAdded, d.BranchesMoved, d.BranchesDeleted, d.SummariesChanged} {
		sortStrings(l)
	}
	return d
}
