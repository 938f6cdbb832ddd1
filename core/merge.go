package core

import (
	"bytes"
	"cmp"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"
)

// Merge rules (SPEC §3 "Merge"). The result is a function of the two trees'
// contents only, and that function is commutative, associative and idempotent,
// so copies merged in any order and grouping save to the same bytes:
//
//   - Nodes are the union by id. Two nodes with one id and different content
//     (parent, time or message) are a conflict: the one with the smaller
//     (created, parent, message) keeps the id, the other is kept under
//     id + "~" + a hash of its content, on a branch of its own.
//   - A label is the one set (or cleared) last, by (label time, label).
//   - A branch name is a register: it holds the value (leaf, move time)
//     moved last, by (move time, leaf id), of all the values the copies hold
//     for it, shown or hidden. A leaf that loses a name becomes a value of the
//     name + "~" + that leaf (a conflict branch), resolved the same way.
//     normalize then forgets a conflict branch that a value of its family at
//     least as new reaches, and hides (keeps as a "hidden" record, which still
//     takes part in the register) one that any other branch reaches.
//   - A deleted name stays deleted against copies whose branch was moved no
//     later than the deletion; a later move brings it back.
//   - Summaries form a state of their own, merged as a CRDT: a grow-only map
//     from (branch family, node) to a last-writer-wins register holding the
//     newest summary by (time, text, model) that any copy wrote as of that node
//     on a branch of that family (see family). A merge joins the two copies'
//     maps key by key (commutative, associative, idempotent), taking in both
//     the summaries their branches show and the ones they keep. What a branch
//     shows is then computed, not carried: the newest summary of its family as
//     of a node on its path. It depends only on the joined map and the merged
//     branches, never on what an earlier merge showed or dropped, so it is the
//     same for every order and grouping whenever the branches are. Summaries
//     no branch shows are kept ("kept_summaries" on the family's entry in
//     "branches", see shelfHome) so that no merge forgets one that a branch
//     of a later merge may show. (Before, a summary travelled with its branch
//     and was lost when a dropped conflict branch was its only holder, so a
//     branch that came back at that leaf showed it or not by merge order.)
//   - Per-copy state: a branch's "used" clock is the larger of the two, and
//     the active branch is the one whose copy used it last (largest used clock,
//     then name), or the most recently used surviving branch.
//
// Known limits. Forgetting (rather than hiding) a conflict branch keeps files
// from growing with every sync, but a stale copy can then bring an older value
// back to that name, and a deletion of a name can remove the value that had
// pushed another leaf to a conflict branch: copies that synced in between and
// edited or deleted conflict branches can still merge to different conflict
// names or hidden records by grouping (7 of 2,000 stress runs; no node or
// summary is lost; see TestStressMergeOfCopiesThatSyncedInBetweenGivesTheSameBytes).
// Copies that minted the same id (SPEC §2 forbids it) merge commutatively and
// idempotently, but which content keeps the id can depend on grouping.

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

// Changed reports whether the merge changed anything.
func (r MergeReport) Changed() bool {
	return len(r.NodesAdded)+len(r.LabelsChanged)+len(r.BranchesAdded)+len(r.BranchesMoved)+
		len(r.BranchesDeleted)+len(r.SummariesChanged)+len(r.Conflicts) > 0 || r.ActiveChanged
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
		newID:    a.newID,
		clock:    max(a.clock, b.clock),
	}}
	m.tombs()
	m.nodes()
	m.branches()
	m.normalize()
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
	if t.journal != nil {
		return MergeReport{}, newError(CodeConflict, "Merge cannot run inside Apply")
	}
	r, conflicts, err := merge(t, other)
	if err != nil {
		return MergeReport{}, err
	}
	rep := t.diff(r)
	rep.Conflicts = conflicts
	changed := t.changed
	*t = *r
	t.changed = changed
	if changed != nil {
		for _, id := range rep.NodesAdded {
			changed.node(id)
		}
		for _, id := range rep.touchedNodes {
			changed.node(id)
		}
		for _, list := range [][]string{rep.BranchesAdded, rep.BranchesMoved, rep.BranchesDeleted, rep.touchedBranches} {
			for _, name := range list {
				changed.branch(name)
			}
		}
		changed.setMeta()
	}
	return rep.MergeReport, nil
}

// mergeable checks, in one pass, what Merge relies on: no duplicate or
// mismatched ids, every parent and leaf a node, a main branch. (A cycle of
// parent links merges into the result as it was, for Validate to report; every
// walk here is bounded.)
func (t *Tree) mergeable() error {
	bad := func(msg string) error {
		return newError(CodeCorrupt, "cannot merge a tree with structural problems (Repair it first): "+msg)
	}
	if len(t.dups) > 0 {
		return bad("node id " + quote(t.dups[0].id) + " appears more than once")
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
	if t.branches[MainBranch] == nil {
		return bad(`there is no branch named "main"`)
	}
	return nil
}

// merger holds the state of one Merge.
type merger struct {
	a, b      *Tree
	r         *Tree
	generated []kept // losing leaves to keep on branches of their own
	conflicts []MergeConflict
}

// kept is a leaf that lost its branch name (or its node's id) in the merge and
// is to be kept on a conflict branch.
type kept struct {
	b      *branch
	origin string // the branch it lost, "" for a node conflict
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
	type loser struct {
		side int
		n    *node
	}
	var losers []loser
	for id, n := range m.b.nodes {
		have := r.nodes[id]
		switch {
		case have == nil:
			r.nodes[id] = copyNode(n)
		case sameContent(have, n):
			mergeLabel(have, n)
		case compareContent(n, have) < 0:
			losers = append(losers, loser{0, have})
			r.nodes[id] = copyNode(n)
		default:
			losers = append(losers, loser{1, n})
		}
	}
	slices.SortFunc(losers, func(x, y loser) int { return compareContent(x.n, y.n) })
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
		m.generated = append(m.generated, kept{b: &branch{name: "conflict~" + id, leaf: id, created: n.created, moved: n.created}})
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
			slices.SortFunc(n.children, r.byAge)
		}
	}
	slices.SortFunc(r.roots, r.byAge)
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

// tombs is the union of the deleted names, each at its later deletion.
func (m *merger) tombs() {
	for _, t := range []*Tree{m.a, m.b} {
		for name, at := range t.tombs {
			if name == MainBranch {
				continue
			}
			if m.r.tombs == nil {
				m.r.tombs = make(map[string]int64)
			}
			if old, ok := m.r.tombs[name]; !ok || at > old {
				m.r.tombs[name] = at
			}
		}
	}
}

// deleted reports whether a branch name at leaf, moved at moved, is deleted:
// its name, or for a conflict branch the name it lost (see isConflictBranch),
// was deleted since.
func (m *merger) deleted(name, leaf string, moved int64) bool {
	for {
		if at, ok := m.r.tombs[name]; ok && name != MainBranch && moved <= at {
			return true
		}
		origin, ok := conflictOrigin(name, leaf)
		if !ok {
			return false
		}
		name = origin
	}
}

// side is one value of a branch name: a copy's branch or hidden record, or a
// leaf that lost a name (origin) in this merge.
type side struct {
	b      *branch
	origin string
}

// branches resolves every branch name as a register: of all the values the two
// copies hold for it (live or hidden) and the leaves that lost its parent name
// in this merge, the one moved last wins (see laterMove). Every other leaf
// loses the name and becomes a value of name + "~" + leaf, which is resolved
// the same way; normalize then decides which of these are shown.
func (m *merger) branches() {
	r := m.r
	cands := make(map[string][]side, len(m.a.branches)+len(m.b.branches))
	for _, t := range []*Tree{m.a, m.b} {
		for name, b := range t.branches {
			cands[name] = append(cands[name], side{b: b})
		}
		for name, h := range t.hidden {
			if t.branches[name] == nil && t.nodes[h.leaf] != nil {
				cands[name] = append(cands[name], side{b: h})
			}
		}
	}
	for _, g := range m.generated {
		cands[g.b.name] = append(cands[g.b.name], side{b: g.b})
	}
	queue := make([]string, 0, len(cands))
	for name := range cands {
		queue = append(queue, name)
	}
	slices.Sort(queue)
	// A lost leaf's name extends the name it lost, so it sorts after it: the
	// queue is worked in order and a new name is inserted after the current.
	for i := 0; i < len(queue); i++ {
		name := queue[i]
		var live []side
		for _, s := range cands[name] {
			if !m.deleted(name, s.b.leaf, s.b.moved) {
				live = append(live, s)
			}
		}
		if len(live) == 0 {
			continue
		}
		w := live[0].b
		for _, s := range live[1:] {
			if laterMove(s.b.moved, s.b.leaf, s.b.created, w.moved, w.leaf, w.created) {
				w = s.b
			}
		}
		nb := &branch{name: name, leaf: w.leaf, moved: w.moved, created: w.created}
		for _, s := range live {
			if s.b.moved == w.moved && s.b.leaf == w.leaf && s.b.created == w.created {
				nb.used = max(nb.used, s.b.used)
			}
		}
		r.branches[name] = nb
		for _, s := range live {
			if s.b.leaf == w.leaf || s.b.leaf == "" {
				continue
			}
			lost := name + "~" + s.b.leaf
			if cands[lost] == nil {
				j, _ := slices.BinarySearch(queue[i+1:], lost)
				queue = slices.Insert(queue, i+1+j, lost)
			}
			cands[lost] = append(cands[lost], side{b: &branch{name: lost, leaf: s.b.leaf, created: s.b.created, moved: s.b.moved}, origin: name})
		}
	}
	// Report each leaf kept under a name of its own that neither copy had.
	for _, name := range queue {
		b := r.branches[name]
		if b == nil {
			continue
		}
		for _, s := range cands[name] {
			if s.origin == "" || s.b.leaf != b.leaf {
				continue
			}
			if x, y := m.a.branches[name], m.b.branches[name]; (x != nil && x.leaf == b.leaf) || (y != nil && y.leaf == b.leaf) {
				break
			}
			m.conflicts = append(m.conflicts, MergeConflict{Kind: "branch", Node: b.leaf, Branch: s.origin, KeptAs: name,
				Message: "both copies moved branch " + quote(s.origin) + "; its other leaf " + quote(b.leaf) + " is kept on " + quote(name)})
			break
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

// conflictOrigin returns the name a conflict branch at leaf was made from.
func conflictOrigin(name, leaf string) (string, bool) {
	if !isConflictBranch(&branch{name: name, leaf: leaf}) {
		return "", false
	}
	return name[:len(name)-len(leaf)-1], true
}

// isConflictBranch reports whether b is named as a merge names the branch that
// keeps a losing leaf: a name ending in "~" and its own leaf.
func isConflictBranch(b *branch) bool {
	return b.leaf != "" && len(b.name) > len(b.leaf)+1 && strings.HasSuffix(b.name, b.leaf) &&
		b.name[len(b.name)-len(b.leaf)-1] == '~'
}

// normalize decides which conflict branches (a name ending in "~" + its own
// leaf) are shown, from the merged registers alone, so that it is the same for
// every order and grouping of merges:
//
//   - A conflict branch is forgotten when a value of its family (see family)
//     that is at least as new is at a leaf below it, or at its leaf under a
//     shorter name: a merge that meets both keeps that value or a newer one
//     of the family reaching the leaf, so a grouping that never held the
//     forgotten value ends in the same state.
//   - Any other conflict branch whose leaf another branch reaches (a path
//     passing below it, a plain branch at the same leaf, or a conflict branch
//     at the same leaf with a smaller name) is hidden: not shown, but kept as
//     a hidden record so that its value still wins its name against older
//     ones in later merges, whatever the grouping.
func (m *merger) normalize() {
	r := m.r
	// newer[f][n]: the newest move of a value of family f at a leaf strictly
	// below node n; a walk stops where an earlier one was already as new.
	newer := make(map[string]map[*node]int64)
	for _, b := range r.branches {
		if isConflictBranch(b) && newer[family(b.name)] == nil {
			newer[family(b.name)] = make(map[*node]int64)
		}
	}
	if len(newer) == 0 {
		return
	}
	for _, b := range r.branches {
		fb := newer[family(b.name)]
		n := r.nodes[b.leaf]
		if fb == nil || n == nil {
			continue
		}
		for p, steps := n.up, 0; p != nil && steps <= len(r.nodes); p, steps = p.up, steps+1 {
			if at, ok := fb[p]; ok && at >= b.moved {
				break
			}
			fb[p] = b.moved
		}
	}
	sameLeaf := make(map[string][]*branch)
	for _, b := range r.branches {
		sameLeaf[b.leaf] = append(sameLeaf[b.leaf], b)
	}
	var forget []string
	for name, b := range r.branches {
		if !isConflictBranch(b) {
			continue
		}
		f := family(name)
		if at, ok := newer[f][r.nodes[b.leaf]]; ok && at >= b.moved {
			forget = append(forget, name)
			continue
		}
		for _, o := range sameLeaf[b.leaf] {
			if o != b && family(o.name) == f && len(o.name) < len(name) && o.moved >= b.moved {
				forget = append(forget, name)
				break
			}
		}
	}
	for _, name := range forget {
		delete(r.branches, name)
	}
	// What any branch reaches: the nodes strictly above its leaf.
	below := make(map[*node]bool)
	clear(sameLeaf)
	for _, b := range r.branches {
		sameLeaf[b.leaf] = append(sameLeaf[b.leaf], b)
		n := r.nodes[b.leaf]
		if n == nil {
			continue
		}
		for p, steps := n.up, 0; p != nil && !below[p] && steps <= len(r.nodes); p, steps = p.up, steps+1 {
			below[p] = true
		}
	}
	var hide []string
	for name, b := range r.branches {
		if !isConflictBranch(b) {
			continue
		}
		reached := below[r.nodes[b.leaf]]
		for _, o := range sameLeaf[b.leaf] {
			if reached {
				break
			}
			reached = o != b && (!isConflictBranch(o) || o.name < name)
		}
		if reached {
			hide = append(hide, name)
		}
	}
	for _, name := range hide {
		if r.hidden == nil {
			r.hidden = make(map[string]*branch)
		}
		r.hidden[name] = r.branches[name]
		delete(r.branches, name)
	}
	if len(forget)+len(hide) > 0 {
		kept := m.conflicts[:0]
		for _, c := range m.conflicts {
			if c.Kind != "branch" || r.branches[c.KeptAs] != nil {
				kept = append(kept, c)
			}
		}
		m.conflicts = kept
	}
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
		slices.SortFunc(kept, func(x, y Summary) int { return strings.Compare(x.NodeID, y.NodeID) })
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
	i, ok := slices.BinarySearchFunc(kept, s.NodeID, func(x Summary, id string) int { return strings.Compare(x.NodeID, id) })
	if ok {
		if newerSummary(&s, &kept[i]) {
			kept = slices.Clone(kept)
			kept[i] = s
		}
	} else {
		kept = slices.Insert(slices.Clone(kept), i, s)
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
		old := t.nodes[id]
		switch {
		case old == nil:
			d.NodesAdded = append(d.NodesAdded, id)
		case old.labelText() != n.labelText():
			d.LabelsChanged = append(d.LabelsChanged, id)
			d.touchedNodes = append(d.touchedNodes, id)
		case old.labelTime() != n.labelTime() || !sameContent(old, n) || !slices.Equal(old.children, n.children):
			d.touchedNodes = append(d.touchedNodes, id)
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
			}
		}
	}
	for name, at := range r.tombs {
		if old, ok := t.tombs[name]; !ok || old != at {
			d.touchedBranches = append(d.touchedBranches, name)
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
			}
		}
	}
	d.ActiveBranch = r.active
	d.ActiveChanged = r.active != t.active
	for _, l := range [][]string{d.NodesAdded, d.LabelsChanged, d.BranchesAdded, d.BranchesMoved, d.BranchesDeleted, d.SummariesChanged} {
		slices.Sort(l)
	}
	return d
}
