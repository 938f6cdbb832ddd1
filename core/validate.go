package core

import (
	"slices"
	"strings"
)

// Problem kinds reported by Validate.
const (
	ProblemDuplicateID    = "duplicate_id"      // two nodes share an id
	ProblemIDMismatch     = "id_mismatch"       // a node's id differs from its key
	ProblemDanglingParent = "dangling_parent"   // a parent that is not a node
	ProblemCycle          = "cycle"             // parent links that loop
	ProblemChildren       = "children_mismatch" // children lists that disagree with parents
	ProblemDanglingLeaf   = "dangling_leaf"     // a branch leaf that is not a node
	ProblemBranchName     = "branch_name_mismatch"
	ProblemMissingMain    = "missing_main" // no branch called "main"
	ProblemUnknownActive  = "unknown_active_branch"
	ProblemBadSummary     = "bad_summary"   // a summary pointing off its branch
	ProblemBadRoot        = "bad_root"      // root is not the first parentless node
	ProblemDuplicateKey   = "duplicate_key" // a message names a key twice (KeepDuplicateKeys)
)

// Problem is one structural fault found by Validate.
type Problem struct {
	Kind    string
	Node    string // the node at fault, if any
	Branch  string // the branch at fault, if any
	Message string // a sentence naming what and where
}

// problems collects Problems; add is one shared call, not a copy per site.
type problems []Problem

//go:noinline
func (p *problems) add(kind, node, branch, msg string) {
	*p = append(*p, Problem{Kind: kind, Node: node, Branch: branch, Message: msg})
}

// Validate lists every structural problem of the tree, in a deterministic order.
// A tree built only through this package's operations has none; a loaded file may.
func (t *Tree) Validate() []Problem {
	// The checks read each node through a list of the nodes by key rather
	// than the map (a map read is a cache miss in a large tree: Validate made
	// about twelve a node, now about three). A loaded tree has that list from
	// its file's order (sortedNodes).
	list := t.sortedNodes()
	var out problems
	add := out.add
	for _, d := range t.dups {
		add(ProblemDuplicateID, d.id, "", "node id "+quote(d.id)+" appears more than once")
	}
	if len(t.keyDups) > 0 {
		for _, kn := range list {
			if w := t.keyDups[kn.key]; w != "" {
				add(ProblemDuplicateKey, kn.key, "", "node "+quote(kn.key)+": "+w)
			}
		}
	}
	parented := 0
	for _, kn := range list {
		k, n := kn.key, kn.n
		if n.id != k {
			add(ProblemIDMismatch, k, "", "node stored under "+quote(k)+" says its id is "+quote(n.id))
		}
		if n.parent != "" {
			if t.nodes[n.parent] == nil {
				add(ProblemDanglingParent, k, "", "node "+quote(k)+" has parent "+quote(n.parent)+", which is not a node")
			} else {
				parented++
			}
		}
	}
	for _, k := range t.cycleEntriesOf(list) {
		add(ProblemCycle, k, "", "the parent links through node "+quote(k)+" form a cycle")
	}
	if !t.childrenAgree(t.roots, "") {
		add(ProblemChildren, "", "", "the list of root nodes disagrees with the nodes' parents")
	}
	listed := 0
	for _, kn := range list {
		listed += len(kn.n.children)
		if !t.childrenAgree(kn.n.children, kn.key) {
			add(ProblemChildren, kn.key, "", "children of node "+quote(kn.key)+" disagree with the nodes' parents")
		}
	}
	if listed != parented {
		add(ProblemChildren, "", "", "some nodes are missing from their parent's children")
	}
	if r := t.nodes[t.root]; (t.root != "" || len(t.roots) > 0) && (r == nil || r.parent != "") {
		add(ProblemBadRoot, t.root, "", "root "+quote(t.root)+" is not a parentless node")
	}
	if t.branches[MainBranch] == nil {
		add(ProblemMissingMain, "", MainBranch, `there is no branch named "main"`)
	}
	if t.branches[t.active] == nil {
		add(ProblemUnknownActive, "", t.active, "the active branch "+quote(t.active)+" does not exist")
	}
	for _, name := range t.branchNames() {
		b := t.branches[name]
		if b.name != name {
			add(ProblemBranchName, "", name, "branch stored under "+quote(name)+" says its name is "+quote(b.name))
		}
		if b.leaf != "" && t.nodes[b.leaf] == nil {
			add(ProblemDanglingLeaf, b.leaf, name, "branch "+quote(name)+" has leaf "+quote(b.leaf)+", which is not a node")
		}
		if s := b.summary; s != nil && (s.Branch != name || !t.pathContains(b.leaf, s.NodeID)) {
			add(ProblemBadSummary, s.NodeID, name, "the summary of branch "+quote(name)+" is not as of a node on that branch")
		}
	}
	return out
}

func (t *Tree) sortedKeys() []string {
	if list := t.nodesInOrder(); list != nil {
		keys := make([]string, len(list))
		for i, kn := range list {
			keys[i] = kn.key
		}
		return keys
	}
	keys := t.keyList()
	sortKeys(keys)
	return keys
}

// keyList is the keys of t's nodes in the map's order. It ticks per key: the
// keys of 100,000 nodes took 35 ms of a worker's thread in one piece while
// Go's collector was marking (issue 25: every map read then pays its write
// barrier), ahead of the sort, which yields.
func (t *Tree) keyList() []string {
	keys := make([]string, 0, len(t.nodes))
	for k := range t.nodes {
		tick()
		keys = append(keys, k)
	}
	return keys
}

// nodesInOrder returns the nodes sorted by key from the order a load read
// them in (inOrder) and those added since (inOrderAdded), or nil where that
// order no longer says it (a node removed or relinked).
func (t *Tree) nodesInOrder() []keyedNode {
	if !t.inOrderValid() {
		return nil
	}
	extra := slices.Clone(t.inOrderAdded)
	sortStrings(extra)
	out := make([]keyedNode, 0, len(t.nodes))
	j := 0
	for _, b := range t.inOrder {
		for i := range b {
			tick()
			n := &b[i]
			for j < len(extra) && extra[j] < n.id {
				if m := t.nodes[extra[j]]; m != nil {
					out = append(out, keyedNode{extra[j], m})
				}
				j++
			}
			out = append(out, keyedNode{n.id, n})
		}
	}
	for _, id := range extra[j:] {
		if m := t.nodes[id]; m != nil {
			out = append(out, keyedNode{id, m})
		}
	}
	if len(out) != len(t.nodes) { // never in a sound tree: the sort says it then
		t.inOrder, t.inOrderAdded = nil, nil
		return nil
	}
	return out
}

// inOrderValid says whether inOrder still gives the keys' order, and forgets
// it (and what was added since) once a node was removed or relinked.
func (t *Tree) inOrderValid() bool {
	if t.inOrder != nil && t.shapeGen != t.inOrderGen {
		t.inOrder, t.inOrderAdded = nil, nil
	}
	return t.inOrder != nil
}

// sortKeys sorts keys in byte order as sortStrings does, but a large list by
// an 8-byte prefix of each key held beside it in one array first: the keys of
// a loaded tree point into its file (a 100 MB file: every read of one a cache
// miss), and comparing by prefix reads them only on a tie. Sorting a
// 200k-node tree's ids took ~0.5 s in the browser (the first feed of an
// import, Validate, Repair).
func sortKeys(keys []string) {
	if len(keys) < 1024 {
		sortStrings(keys)
		return
	}
	// An order of indexes sorted, as sortedNodes sorts its nodes: sortFunc
	// costs the module ~1.5 KB per element type, and int32 is one already.
	order := make([]int32, len(keys))
	prefix := make([]uint64, len(keys))
	for i, k := range keys {
		tick()
		order[i] = int32(i)
		prefix[i] = keyPrefix(k)
	}
	sortFunc(order, func(a, b int32) int {
		if pa, pb := prefix[a], prefix[b]; pa != pb {
			if pa < pb {
				return -1
			}
			return 1
		}
		return strings.Compare(keys[a], keys[b])
	})
	sorted := make([]string, len(keys))
	for i, j := range order {
		tick()
		sorted[i] = keys[j]
	}
	copy(keys, sorted)
}

// keyPrefix is a key's first 8 bytes as a big-endian number (zeros past its end).
func keyPrefix(k string) uint64 {
	var p uint64
	for j := 0; j < 8; j++ {
		p <<= 8
		if j < len(k) {
			p |= uint64(k[j])
		}
	}
	return p
}

// childrenAgree reports whether list holds only nodes whose parent is parent,
// each once, in (created, id) order. Together with a count of parented nodes it
// proves every children list exact without building them anew.
func (t *Tree) childrenAgree(list []string, parent string) bool {
	var prev *node
	for i, c := range list {
		n := t.nodes[c]
		if n == nil || n.parent != parent || (i > 0 && !before(prev.created, list[i-1], n.created, c)) {
			return false
		}
		prev = n
	}
	return true
}

// expectedChildren derives every children list (and the roots, under "") from
// the parent links, ordered by (created, id).
func (t *Tree) expectedChildren(keys []string) map[string][]string {
	want := make(map[string][]string)
	for _, k := range keys {
		p := t.nodes[k].parent
		if p == "" || t.nodes[p] != nil {
			want[p] = append(want[p], k)
		}
	}
	for p, list := range want {
		sortFunc(list, t.byAge)
		want[p] = list
	}
	return want
}

// cycleEntries returns, for each parent-link cycle, its smallest node key. It
// colours nodes as it walks up from each one, so every node is visited once.
func (t *Tree) cycleEntries(keys []string) []string {
	list := make([]keyedNode, len(keys))
	for i, k := range keys {
		list[i] = keyedNode{k, t.nodes[k]}
	}
	defer func() {
		for _, n := range t.nodes {
			n.mark = 0 // the walks' marks above keys too
		}
	}()
	return t.cycleEntriesOf(list)
}

// cycleEntriesOf is cycleEntries from the nodes of list (n nil: not a node).
// At the end it clears the marks of the nodes in list: every node marked,
// when list holds every node of the tree (Validate); cycleEntries clears the
// rest, for a walk from its keys may mark nodes above them.
func (t *Tree) cycleEntriesOf(list []keyedNode) []string {
	const (
		unvisited = iota
		onWalk
		done
	)
	var cycles []string
	var walk []string
	var walked []*node
	for _, kn := range list {
		walk, walked = walk[:0], walked[:0]
		id, n := kn.key, kn.n
		for n != nil && n.mark == unvisited {
			n.mark = onWalk
			walk, walked = append(walk, id), append(walked, n)
			if id = n.parent; id == "" {
				break
			}
			n = t.nodes[id]
		}
		if id != "" && n != nil && n.mark == onWalk {
			// The walk closed on itself: the cycle is the part from id onwards.
			i := slices.Index(walk, id)
			cycles = append(cycles, slices.Min(walk[i:]))
		}
		for _, w := range walked {
			w.mark = done
		}
	}
	for _, kn := range list {
		if kn.n != nil {
			kn.n.mark = unvisited
		}
	}
	sortStrings(cycles)
	return cycles
}
