package core

// Depths and ancestors: what a chat view asks of a long path (its length, a
// node's place on it, whether a branch runs through a node), at a cost that
// grows with neither the path's length nor the number of branches.
//
// Each node remembers its depth (the nodes from it up to its root) and a jump
// pointer to one of its ancestors, chosen as in Myers' skew-binary
// random-access lists: the ancestor at any depth is then O(log depth) steps
// away. A node appended under a node that knows its depth learns both at once;
// any other node learns them on the first question that needs them, in one
// walk up to the nearest node that knows them, which also teaches every node
// on the way. A removed node is never an ancestor of a kept one (only leaves
// and whole unreachable subtrees are removed), so what a node knows stays true
// until up pointers are relinked; every relinking (linkUp, a node dropped from
// under its children) forgets it all (forgetDepths).

// depth returns the nodes from n up to its root, or 0 when n is nil or its
// path is broken (a dangling parent, a cycle): walkUp then names the problem.
func (t *Tree) depth(n *node) int {
	if n == nil {
		return 0
	}
	if n.depth > 0 {
		return int(n.depth)
	}
	// Walk up to the nearest node that knows its depth, or to a root, then
	// teach the nodes passed from the top down. A path longer than the tree
	// has nodes is a cycle.
	var up []*node
	for x := n; x.depth == 0; x = x.up {
		tick()
		if len(up) >= len(t.nodes) {
			return 0
		}
		up = append(up, x)
		if x.parent == "" {
			break
		}
		if x.up == nil {
			return 0
		}
	}
	for i := len(up) - 1; i >= 0; i-- {
		learnDepth(up[i])
	}
	return int(n.depth)
}

// learnDepth sets n's depth and jump pointer from its parent's (n is a root
// when its parent is ""); the parent's must be known.
func learnDepth(n *node) {
	if n.parent == "" {
		n.depth, n.jump = 1, n
		return
	}
	p := n.up
	n.depth = p.depth + 1
	// The skew-binary rule: jump over two equal jumps at once, else to the
	// parent. Jump lengths are then 2^k-1, and a walk to any ancestor
	// takes O(log depth) of them.
	if j := p.jump; p.depth-j.depth == j.depth-j.jump.depth {
		n.jump = j.jump
	} else {
		n.jump = p
	}
}

// learnDepthOnAdd gives a node just linked under its parent its depth when the
// parent knows its own, so that a chat that only grows never walks.
func learnDepthOnAdd(n *node) {
	n.depth, n.jump = 0, nil
	if n.parent == "" || (n.up != nil && n.up.depth > 0) {
		learnDepth(n)
	}
}

// forgetDepths clears every node's depth and jump pointer, after up pointers
// were relinked.
func (t *Tree) forgetDepths() {
	for _, n := range t.nodes {
		n.depth, n.jump = 0, nil
	}
}

// ancestorAtDepth returns the node at depth d on n's path (n itself at n's
// depth), or nil when d is out of range. n's depth must be known (depth > 0),
// and so then is every ancestor's.
func ancestorAtDepth(n *node, d int) *node {
	if d < 1 || d > int(n.depth) {
		return nil
	}
	for int(n.depth) > d {
		if int(n.jump.depth) >= d {
			n = n.jump
		} else {
			n = n.up
		}
	}
	return n
}

// onPathOf reports whether target lies on the path from leaf up to its root,
// and how many steps above leaf. When one of the two paths is sound it answers
// from their depths; when both are broken it walks up from leaf (as far as
// the break, or as many steps as there are nodes on a cycle), so that a
// corrupt tree is read as it is, never in a loop.
func (t *Tree) onPathOf(leaf, target *node) (bool, int) {
	if leaf == nil || target == nil {
		return false, 0
	}
	dTarget, dLeaf := t.depth(target), t.depth(leaf)
	switch {
	case dTarget > 0 && dLeaf > 0:
		if dLeaf >= dTarget && ancestorAtDepth(leaf, dTarget) == target {
			return true, dLeaf - dTarget
		}
		return false, 0
	case dTarget > 0 || dLeaf > 0:
		// Every node above a sound leaf is sound, and a broken path that
		// reached a sound node would be sound from there on.
		return false, 0
	}
	n := leaf
	for steps, limit := 0, len(t.nodes); n != nil && steps <= limit; steps++ {
		tick()
		if n == target {
			return true, steps
		}
		n = n.up
	}
	return false, 0
}

// learnDepths teaches every node it is given (each through one call of
// visit's yield, in any order) its depth and jump pointer, in O(nodes) in
// all: each node is walked once, from it up to the nearest node that knows
// its depth or to its root. A load does this so that the first question after
// it (a path's length, a request's window) does not walk the whole path. A
// node whose path is broken (a dangling parent, a cycle, a duplicate) keeps
// depth 0 and answers as before (depth walks it, walkUp names the problem).
// Nodes' marks are 0 again when it returns.
func learnDepths(visit func(yield func(*node))) {
	var chain, broken []*node
	visit(func(n *node) {
		if n.depth > 0 || n.mark != 0 {
			return
		}
		chain = chain[:0]
		x := n
		for x != nil && x.depth == 0 && x.mark == 0 {
			tick()
			x.mark = 1
			chain = append(chain, x)
			if x.parent == "" {
				break
			}
			x = x.up
		}
		top := chain[len(chain)-1]
		if top.parent == "" || (x != nil && x.depth > 0 && x == top.up) {
			for i := len(chain) - 1; i >= 0; i-- {
				learnDepth(chain[i])
				chain[i].mark = 0
			}
			return
		}
		// Up to a dangling parent, around a cycle, or into a chain already
		// found broken: marked, so that no later walk goes up it again.
		broken = append(broken, chain...)
	})
	for _, n := range broken {
		n.mark = 0
	}
}
