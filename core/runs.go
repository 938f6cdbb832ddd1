package core

// Runs: what Subtree needs to fold a chain into one entry without walking it.
//
// A run is a chain of nodes, each the only child of the one before, that no
// label interrupts: it starts at a head (a root, a child of a fork, a
// labelled node or the child of one) and ends at the first node that has
// other than one child, has a label, or whose only child has one. Where
// branches end is left out (they move with every append): Subtree splits a
// run at a branch's leaf when it reads it.
//
// A run's first and last node point at it (node.run). The first read finds
// them in one pass over the nodes (after a load, over the loader's blocks of
// nodes, faster than the map), following parent pointers only; every add
// and label change then keeps them in step (attach, relabel): an append at
// a run's end lengthens it, a new child of a node inside a run ends the run
// there, a label parts a run or joins it to its neighbours. After a removal
// or a relinking (shapeGen), a merge, or labels from another copy's rows,
// the next read builds them again.

// runIndex says whether the runs the nodes point at (node.run) are the
// tree's as of shapeGen gen and the adds-th attach.
type runIndex struct {
	gen, adds uint64
	// sound: every children list names exactly the nodes whose parent link
	// points at it, the roots list the parentless nodes, each once, and
	// every node is stored under its id. Otherwise Subtree walks.
	sound bool
}

// runSpan is a run: its first and last node (each pointing at it) and its
// number of nodes.
type runSpan struct {
	head, last *node
	n          int
}

// isHead reports whether a run starts at n.
func isHead(n *node) bool {
	return n.parent == "" || n.up == nil || len(n.up.children) != 1 || n.labelText() != "" || n.up.labelText() != ""
}

// startRun makes head..last, n nodes, a run.
func startRun(head, last *node, n int) {
	r := &runSpan{head, last, n}
	head.run, last.run = r, r
}

// spanOf returns the run whose head is n, or nil.
func spanOf(n *node) *runSpan {
	if r := n.run; r != nil && r.head == n {
		return r
	}
	return nil
}

// endsRun reports whether n is the last node of its run.
func endsRun(n *node) bool { return n.run != nil && n.run.last == n }

// inStep reports whether ix describes t as it is.
func (ix *runIndex) inStep(t *Tree) bool {
	return ix != nil && ix.gen == t.shapeGen && ix.adds == t.attaches.n
}

// runIndex returns the tree's runs, brought up to date: the nodes added
// without attach (ApplyRows) are taken in from the attach log, anything else
// is built again.
func (t *Tree) runIndex() *runIndex {
	ix := t.runs
	if ix != nil && ix.gen == t.shapeGen {
		if ix.adds == t.attaches.n {
			return ix
		}
		if !ix.sound {
			ix.adds = t.attaches.n
			return ix
		}
		if added, ok := t.AddedSince(Revision{gen: ix.gen, adds: ix.adds}); ok && ix.replay(t, added) {
			ix.adds = t.attaches.n
			return ix
		}
	}
	ix = &runIndex{gen: t.shapeGen, adds: t.attaches.n}
	blocks, at := t.loaded, t.loadedAt
	t.loaded = nil
	added, ok := t.AddedSince(at)
	for _, a := range added {
		ok = ok && t.nodes[a.Child] != nil
	}
	s := runScan{sound: true}
	if blocks != nil && ok {
		// Every node is in the blocks of the load or added since, and none
		// was ever in a run.
		for _, b := range blocks {
			for i := range b {
				s.node(&b[i])
			}
		}
		for _, a := range added {
			s.node(t.nodes[a.Child])
		}
	} else {
		for k, n := range t.nodes {
			n.run = nil
			s.sound = s.sound && n.id == k
			s.node(n)
		}
	}
	ix.sound = s.runs(t)
	t.runs = ix
	return ix
}

// runScan is the pass of a build over every node: it counts the links both
// ways and collects the nodes that end a run.
type runScan struct {
	ends                       []*node
	parentless, linked, listed int
	sound                      bool // false once a node is not stored under its id
}

func (s *runScan) node(n *node) {
	tick()
	s.listed += len(n.children)
	if n.parent == "" {
		s.parentless++
	} else if n.up != nil {
		s.linked++
	}
	labelled := n.lab != nil && n.lab.text != ""
	if len(n.children) != 1 || labelled {
		s.ends = append(s.ends, n)
	}
	if labelled && n.up != nil && len(n.up.children) == 1 {
		s.ends = append(s.ends, n.up)
	}
}

// runs finishes a build: each run's head found by walking up from its last
// node, by pointer (every node is passed once), never looked up by id. It
// reports whether the links agree: the children lists hold as many entries
// as there are nodes with a parent, and the roots list the parentless nodes
// once each. (A list that names another node than the one whose parent link
// names its owner, in a corrupt file, is not caught: Subtree reads such a
// tree by its parent links inside a run, as paths do.)
func (s *runScan) runs(t *Tree) bool {
	if !s.sound || s.listed != s.linked || !t.rootsSound(s.parentless) {
		return false
	}
	for _, e := range s.ends {
		if endsRun(e) {
			continue
		}
		h, n := e, 1
		for !isHead(h) {
			tick()
			h = h.up
			n++
			if n > len(t.nodes) {
				return false
			}
		}
		startRun(h, e, n)
	}
	return true
}

// rootsSound reports whether the roots list names each of the parentless
// nodes once.
func (t *Tree) rootsSound(parentless int) bool {
	if len(t.roots) != parentless {
		return false
	}
	seen := make(map[string]bool, len(t.roots))
	for _, r := range t.roots {
		if n := t.nodes[r]; n == nil || n.parent != "" || seen[r] {
			return false
		}
		seen[r] = true
	}
	return true
}

// headAbove returns the head of the run holding n and n's place in it (0
// for the head), or nil when the walk up finds no run.
func headAbove(t *Tree, n *node) (*node, int) {
	off := 0
	for !isHead(n) {
		n = n.up
		off++
		if off > len(t.nodes) {
			return nil, 0
		}
	}
	if spanOf(n) == nil {
		return nil, 0
	}
	return n, off
}

// attach takes node c, just linked under its parent (or as a root), into the
// runs: an append at a run's end lengthens it, a new child of a node inside
// a run ends the run there. A tree whose runs are not in step forgets them.
func (ix *runIndex) attach(t *Tree, c *node) {
	if !ix.inStep(t) {
		t.runs = nil
		return
	}
	ix.adds++
	kids := 0
	if c.up != nil {
		kids = len(c.up.children)
	}
	if ix.sound && (len(c.children) > 0 || !ix.take(t, c, c.up, kids)) {
		t.runs = nil
	}
}

// take is attach's work on node c, childless, under p (nil for a root or a
// missing parent), which had kids children once c was linked; false for a
// case it leaves to a build.
func (ix *runIndex) take(t *Tree, c, p *node, kids int) bool {
	if c.run != nil {
		return false
	}
	if p == nil {
		startRun(c, c, 1)
		return true
	}
	switch {
	case kids == 1: // p ended its run: c lengthens it, unless a label parts them
		r := p.run
		if r == nil || r.last != p {
			return false
		}
		if p.labelText() != "" || c.labelText() != "" {
			startRun(c, c, 1)
			return true
		}
		if r.head != p {
			p.run = nil
		}
		r.last, r.n = c, r.n+1
		c.run = r
	case kids == 2 && !endsRun(p): // p had one child, inside p's run: p ends it
		var first *node
		for _, id := range p.children {
			if n := t.nodes[id]; n != nil && n != c {
				first = n
			}
		}
		h, off := headAbove(t, p)
		if first == nil || h == nil || first.up != p {
			return false
		}
		r := h.run
		if off+1 >= r.n {
			return false
		}
		startRun(first, r.last, r.n-off-1)
		r.last, r.n = p, off+1
		p.run = r
		startRun(c, c, 1)
	default:
		startRun(c, c, 1)
	}
	return true
}

// replay takes the nodes added without attach (ApplyRows) into the runs, in
// the order they were added; false when one of them is a case it leaves to
// a build (among them, two children added under one node).
func (ix *runIndex) replay(t *Tree, added []Attach) bool {
	later := make(map[string]int, len(added))
	for _, a := range added {
		later[a.Parent]++
	}
	for _, a := range added {
		later[a.Parent]--
		c := t.nodes[a.Child]
		if c == nil || c.parent != a.Parent || len(c.children) != later[a.Child] {
			return false // c had children of its own when it was added
		}
		var p *node
		kids := 0
		if a.Parent != "" {
			// A sibling added later would be taken for the child p had.
			if p = t.nodes[a.Parent]; p == nil || c.up != p || later[a.Parent] > 0 {
				return false
			}
			kids = len(p.children)
		}
		if !ix.take(t, c, p, kids) {
			return false
		}
	}
	return true
}

// relabel brings the runs in step with n's label about to be set (labelled)
// or cleared: a labelled node is a run of its own, so setting one parts its
// run in up to three, and clearing one joins it to the run ending at its
// parent and the run starting at its only child, where no other child or
// label parts them.
func (ix *runIndex) relabel(t *Tree, n *node, labelled bool) {
	if ix == nil || !ix.inStep(t) {
		t.runs = nil
		return
	}
	if !ix.sound || labelled == (n.labelText() != "") {
		return
	}
	if labelled {
		h, off := headAbove(t, n)
		if h == nil {
			t.runs = nil
			return
		}
		r := h.run
		if n != r.last {
			next := t.nodes[n.children[0]]
			if next == nil || next.up != n {
				t.runs = nil
				return
			}
			startRun(next, r.last, r.n-off-1)
		}
		if off > 0 {
			r.last, r.n = n.up, off
			n.up.run = r
		}
		startRun(n, n, 1)
		return
	}
	head, last, count := n, n, 1
	if n.parent != "" && n.up != nil && len(n.up.children) == 1 && n.up.labelText() == "" {
		a := n.up.run
		if a == nil || a.last != n.up {
			t.runs = nil
			return
		}
		if a.head != n.up {
			n.up.run = nil
		}
		head, count = a.head, count+a.n
	}
	if len(n.children) == 1 {
		if c := t.nodes[n.children[0]]; c != nil && c.labelText() == "" {
			b := spanOf(c)
			if b == nil {
				t.runs = nil
				return
			}
			if b.last != c {
				c.run = nil
			}
			last, count = b.last, count+b.n
		}
	}
	n.run = nil
	startRun(head, last, count)
}

// runSplit is a branch's leaf inside a run (not at its end), off nodes
// below the run's head: Subtree ends an entry there.
type runSplit struct {
	off  int
	leaf *node
}

// byOff returns s sorted by off: through an order of indexes, since sortFunc
// costs the module ~1.5 KB per element type (slices.SortFunc's pdqsort
// family ~22 KB), and int32 is one already.
func byOff(s []runSplit) []runSplit {
	order := make([]int32, len(s))
	for i := range order {
		order[i] = int32(i)
	}
	sortFunc(order, func(a, b int32) int { return s[a].off - s[b].off })
	out := make([]runSplit, len(s))
	for i, j := range order {
		out[i] = s[j]
	}
	return out
}

// runRead is one read of the tree in runs: where branches end (leafOf, by
// leaf id) and the runs they split (by head, ordered by offset).
type runRead struct {
	t      *Tree
	leafOf map[string][]string
	splits map[*node][]runSplit
}

// newRunRead returns a read of t in runs with the tree's branch ends, or
// false when the runs cannot answer (links that disagree): Subtree walks then.
func (t *Tree) newRunRead() (*runRead, bool) {
	if ix := t.runIndex(); !ix.sound {
		return nil, false
	}
	e := t.branchEnds()
	r := &runRead{t: t, leafOf: e.leafOf}
	for id, l := range e.node {
		if l == nil {
			l = t.nodes[id]
		}
		if l == nil || len(l.children) != 1 || endsRun(l) {
			continue // not a node, or the end of its run
		}
		h, off := headAbove(t, l)
		if h == nil {
			continue // on a cycle of single children: under no root
		}
		if r.splits == nil {
			r.splits = make(map[*node][]runSplit)
		}
		r.splits[h] = append(r.splits[h], runSplit{off, l})
	}
	for h, s := range r.splits {
		if len(s) > 1 {
			r.splits[h] = byOff(s)
		}
	}
	return r, true
}

// subtreeInRuns is Subtree in runs over the index: each entry costs one
// lookup of its first node, whatever its run's length. A branch whose leaf
// is inside a run (a branch made at an old message, not yet appended to)
// costs a walk up to the run's head. ok is false when the runs cannot answer
// (links that disagree, a top not under a root, a node listed twice): Subtree
// walks then.
func (t *Tree) subtreeInRuns(tops []string, depth, limit int, leafOf map[string][]string) (entries []TreeEntry, more, ok bool) {
	r, ok := t.newRunRead()
	if !ok {
		return nil, false, false
	}
	r.leafOf = leafOf
	entries, _, more, ok = r.read(tops, depth, limit, false)
	return entries, more, ok
}

// read lists the entries under tops (see subtreeInRuns), or with count only
// counts them (entries stays nil): n is their number, at most limit (> 0)
// with more set when there are others.
func (r *runRead) read(tops []string, depth, limit int, count bool) (entries []TreeEntry, n int, more, ok bool) {
	t := r.t
	type item struct {
		n     *node
		head  *node
		off   int
		depth int
	}
	// Each entry's first node is marked: one reached twice (a children list
	// naming it twice) leaves the tree to the walk.
	var listed []*node
	defer func() {
		for _, n := range listed {
			n.mark = 0
		}
	}()
	stack := make([]item, 0, len(tops))
	for i := len(tops) - 1; i >= 0; i-- {
		n := t.nodes[tops[i]]
		if n == nil || t.depth(n) == 0 {
			return nil, 0, false, false
		}
		h, off := headAbove(t, n)
		if h == nil {
			return nil, 0, false, false
		}
		stack = append(stack, item{n, h, off, 0})
	}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if limit > 0 && n == limit {
			more = true
			break
		}
		x, s := it.n, spanOf(it.head)
		if s == nil || x.mark != 0 {
			return nil, 0, false, false
		}
		x.mark = 1
		listed = append(listed, x)
		lastOff, last := s.n-1, s.last
		for _, sp := range r.splits[it.head] {
			if sp.off >= it.off {
				if sp.off < lastOff {
					lastOff, last = sp.off, sp.leaf
				}
				break
			}
		}
		n++
		if !count {
			entries = append(entries, TreeEntry{ID: x.id, Last: last.id, Run: lastOff - it.off + 1, Parent: x.parent,
				Depth: it.depth, Children: len(last.children), Label: x.labelText(), Role: x.msg.Role(),
				Preview: previewOf(x.msg), Branches: r.leafOf[last.id]})
		}
		if depth >= 0 && it.depth >= depth {
			continue
		}
		if lastOff < s.n-1 {
			// Split at a branch's leaf: the run goes on at its only child.
			next := t.nodes[last.children[0]]
			if next == nil || next.up != last {
				return nil, 0, false, false
			}
			stack = append(stack, item{next, it.head, lastOff + 1, it.depth + 1})
			continue
		}
		for i := len(last.children) - 1; i >= 0; i-- {
			c := t.nodes[last.children[i]]
			if c == nil || c.up != last {
				return nil, 0, false, false
			}
			stack = append(stack, item{c, c, 0, it.depth + 1})
		}
	}
	return entries, n, more, true
}

// around is SubtreeAround over the runs: the entries, the read's top (nil
// for every root) and more. It climbs from near's run a run at a time while
// the subtree of the run above fits in limit, counting what each step adds
// (the run's own entries and its other children's subtrees, each counted at
// most to the limit), so the cost is the runs climbed and the limit, never
// the tree. At the first run whose subtree does not fit, the read takes that
// run too, the subtree it came from whole, and of its other children's
// subtrees, in their order, what the limit leaves (more then).
func (r *runRead) around(near *node, limit int) (entries []TreeEntry, top *node, more, ok bool) {
	t := r.t
	h, _ := headAbove(t, near)
	if h == nil {
		return nil, nil, false, false
	}
	_, n, more, ok := r.read([]string{h.id}, -1, limit, true)
	if !ok || more {
		entries, _, more, ok = r.read([]string{h.id}, -1, limit, false)
		return entries, h, more, ok
	}
	top = h
	for steps := 0; top.parent != ""; steps++ {
		p := top.up
		if p == nil || !endsRun(p) || steps > len(t.nodes) {
			return nil, nil, false, false
		}
		up := p.run.head
		m := n + 1 + len(r.splits[up])
		for _, id := range p.children {
			if m > limit {
				break
			}
			if c := t.nodes[id]; c != top {
				_, k, more, ok := r.read([]string{id}, -1, limit-m+1, true)
				if !ok {
					return nil, nil, false, false
				}
				if m += k; more {
					m++
				}
			}
		}
		if m > limit {
			if n+1+len(r.splits[up]) > limit {
				break // not even the run above: top's subtree alone
			}
			return r.partial(up, top, n, limit)
		}
		top, n = up, m
	}
	if top.parent == "" {
		// At a root: every root, if they all fit.
		m := n
		for _, id := range t.roots {
			if m > limit {
				break
			}
			if id != top.id {
				_, k, more, ok := r.read([]string{id}, -1, limit-m+1, true)
				if !ok {
					return nil, nil, false, false
				}
				if m += k; more {
					m++
				}
			}
		}
		if m <= limit {
			entries, _, more, ok = r.read(t.roots, -1, limit, false)
			return entries, nil, more, ok
		}
	}
	entries, _, more, ok = r.read([]string{top.id}, -1, limit, false)
	return entries, top, more, ok
}

// partial reads run up (whose last node is from's parent), the subtree of
// from (n entries) whole, and of the last node's other children's subtrees,
// in their order, what limit leaves; more is then true.
func (r *runRead) partial(up, from *node, n, limit int) (entries []TreeEntry, top *node, more, ok bool) {
	t := r.t
	s := len(r.splits[up])
	entries, _, _, ok = r.read([]string{up.id}, s, 0, false)
	if !ok {
		return nil, nil, false, false
	}
	left := limit - len(entries) - n
	p := from.up
	for _, id := range p.children {
		var sub []TreeEntry
		var cut bool
		switch {
		case t.nodes[id] == from:
			sub, _, _, ok = r.read([]string{id}, -1, 0, false)
		case left > 0:
			sub, _, cut, ok = r.read([]string{id}, -1, left, false)
			left -= len(sub)
		default:
			cut = true
		}
		if !ok {
			return nil, nil, false, false
		}
		for i := range sub {
			sub[i].Depth += s + 1
		}
		entries = append(entries, sub...)
		more = more || cut
	}
	return entries, up, true, true
}

// onPathByRuns answers OnPath into res from the runs, when they are in step
// and every id that is a node starts or ends a run: the path from leaf is
// climbed a run at a time (the parent of a run's head ends the run above),
// so the cost is the path's runs and the ids, not its nodes. False when the
// runs cannot answer; res is then to be filled another way.
func (t *Tree) onPathByRuns(leaf *node, ids []string, res []bool) bool {
	ix := t.runs
	if leaf == nil || !ix.inStep(t) || !ix.sound {
		return false
	}
	nodes := make([]*node, len(ids))
	for i, id := range ids {
		if n := t.nodes[id]; n != nil {
			if n.run == nil {
				return false
			}
			nodes[i] = n
		}
	}
	h, _ := headAbove(t, leaf)
	if h == nil {
		return false
	}
	own := h.run // the leaf's run: on the path from its head to the leaf
	on := make(map[*runSpan]bool)
	for x, steps := h, 0; x.parent != ""; steps++ {
		p := x.up
		if p == nil || !endsRun(p) || steps > len(t.nodes) {
			return false
		}
		x = p.run.head
		on[x.run] = true
	}
	for i, n := range nodes {
		switch {
		case n == nil:
		case n.run == own:
			res[i] = n == own.head || n == leaf
		default:
			res[i] = on[n.run]
		}
	}
	return true
}
