package core

import "slices"

// Windows of a path: what a chat view that shows a screenful of a long
// conversation reads, at a cost that grows with the window, not the path.

// lenMemo is a path length PathLen answered: the nodes from node up to its root.
type lenMemo struct {
	node *node
	n    int
	gen  uint64 // shapeGen when it was counted
}

// lenSteps bounds how far above a leaf PathLen looks for a length it
// remembers: a send or a reply adds a node or two below the last leaf counted.
const lenSteps = 64

// PathLen returns the number of nodes on branch's path, counting up from its
// leaf along the up pointers in one tight loop, without allocating. It
// remembers its last few answers (until a node is removed or relinked): a
// leaf within 64 nodes below one it counted costs those steps, so the length
// a chat view asks for at every change costs the same in a 100- and a
// 200k-message chat (a full count is ~0.4 µs a node in WebAssembly). A
// corrupt path fails as PathOf does.
func (t *Tree) PathLen(branch string) (int, error) {
	b := t.branches[branch]
	if b == nil {
		return 0, errBranchNotFound(branch)
	}
	if b.leaf == "" {
		return 0, nil
	}
	leaf := t.nodes[b.leaf]
	if d, ok := t.depthNear(leaf); ok {
		// A remembered node at most 64 steps above, or one that meets this
		// leaf's path that near (a ‹ › switch to the other alternative).
		t.rememberLen(leaf, d)
		return d, nil
	}
	limit := len(t.nodes)
	count := 0
	for n := leaf; n != nil && count < limit; n = n.up {
		tick()
		count++
		if n.parent == "" {
			t.rememberLen(leaf, count)
			return count, nil
		}
	}
	// A dangling leaf or parent, or a cycle: walkUp names it.
	if err := t.walkUp(b.leaf, branch, func(string, *node) bool { return true }); err != nil {
		return 0, err
	}
	return 0, newError(CodeCorrupt, "branch "+quote(branch)+": its path could not be counted")
}

// depthNear returns n's depth (the nodes from n up to its root) when PathLen
// remembers it for n or for a node at most lenSteps above it, or when n and a
// remembered node meet within lenSteps above each (a fork near the leaf a
// chat view counted), without walking further; false when it does not.
func (t *Tree) depthNear(n *node) (int, bool) {
	var above [lenSteps + 1]*node
	k := 0
	for x := n; x != nil && k <= lenSteps; x = x.up {
		if d, ok := t.rememberedLen(x); ok {
			return d + k, true
		}
		above[k] = x
		k++
	}
	for _, m := range t.lens {
		if m.node == nil || m.gen != t.shapeGen {
			continue
		}
		x := m.node
		for j := 0; x != nil && j <= lenSteps; j++ {
			for i := 0; i < k; i++ {
				if above[i] == x { // x is j above m and i above n
					return m.n - j + i, true
				}
			}
			x = x.up
		}
	}
	return 0, false
}

// ancestorAt returns the node k steps above n (n itself for 0), or nil.
func ancestorAt(n *node, k int) *node {
	for ; n != nil && k > 0; k-- {
		n = n.up
	}
	return n
}

func (t *Tree) rememberedLen(n *node) (int, bool) {
	for _, m := range t.lens {
		if m.node == n && m.gen == t.shapeGen {
			return m.n, true
		}
	}
	return 0, false
}

func (t *Tree) rememberLen(n *node, count int) {
	for i, m := range t.lens {
		if m.node == n {
			t.lens[i] = lenMemo{n, count, t.shapeGen}
			return
		}
	}
	t.lens[t.lensNext] = lenMemo{n, count, t.shapeGen}
	t.lensNext = (t.lensNext + 1) % len(t.lens)
}

// AppendTailOf appends to ids and msgs the nodes of branch's path that lie
// skip to skip+count nodes above its leaf, root first: the window
// path[len-skip-count : len-skip], cut at the root. It walks up from the leaf
// only as far as the window's top, so the last screenful of a 200k-message
// path costs what it costs in a short one; a corrupt stretch on the way fails
// as PathOf does (a cycle is caught after as many steps as there are nodes).
func (t *Tree) AppendTailOf(ids []string, msgs []Message, branch string, skip, count int) ([]string, []Message, error) {
	b := t.branches[branch]
	if b == nil {
		return ids, msgs, errBranchNotFound(branch)
	}
	if count <= 0 || skip < 0 {
		return ids, msgs, nil
	}
	i0, m0, steps := len(ids), len(msgs), 0
	err := t.walkUp(b.leaf, branch, func(id string, n *node) bool {
		if steps >= skip {
			ids = append(ids, id)
			msgs = append(msgs, n.msg)
		}
		steps++
		return steps < skip+count
	})
	if err != nil {
		return ids[:i0], msgs[:m0], err
	}
	slices.Reverse(ids[i0:])
	slices.Reverse(msgs[m0:])
	return ids, msgs, nil
}
