package core

import "slices"

// Windows of a path: what a chat view that shows a screenful of a long
// conversation reads, at a cost that grows with the window, not the path.

// PathLen returns the number of nodes on branch's path: its leaf's depth,
// which the leaf knows once it or a node above it was counted (depth.go), so
// the length a chat view asks for at every change costs the same in a 100-
// and a 200k-message chat. A corrupt path fails as PathOf does.
func (t *Tree) PathLen(branch string) (int, error) {
	b := t.branches[branch]
	if b == nil {
		return 0, errBranchNotFound(branch)
	}
	if b.leaf == "" {
		return 0, nil
	}
	if d := t.depth(t.nodes[b.leaf]); d > 0 {
		return d, nil
	}
	// A dangling leaf or parent, or a cycle: walkUp names it.
	if err := t.walkUp(b.leaf, branch, func(string, *node) bool { return true }); err != nil {
		return 0, err
	}
	return 0, newError(CodeCorrupt, "branch "+quote(branch)+": its path could not be counted")
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

// AppendHeadOf appends to ids and msgs the first count nodes of branch's
// path, root first (fewer when the path is shorter): a request that keeps
// the newest messages of a long path and the system messages it starts
// with reads its head this way, in O(log depth + count) steps. A corrupt
// path fails as PathOf does.
func (t *Tree) AppendHeadOf(ids []string, msgs []Message, branch string, count int) ([]string, []Message, error) {
	n, err := t.PathLen(branch)
	if err != nil || count <= 0 || n == 0 {
		return ids, msgs, err
	}
	count = min(count, n)
	top := ancestorAtDepth(t.nodes[t.branches[branch].leaf], count)
	if top == nil {
		return ids, msgs, newError(CodeCorrupt, "branch "+quote(branch)+": its path could not be counted")
	}
	i0, m0 := len(ids), len(msgs)
	for x := top; x != nil && len(ids)-i0 < count; x = x.up {
		ids = append(ids, x.id)
		msgs = append(msgs, x.msg)
	}
	if len(ids)-i0 != count {
		return ids[:i0], msgs[:m0], newError(CodeCorrupt, "branch "+quote(branch)+": its path is shorter than it was counted")
	}
	slices.Reverse(ids[i0:])
	slices.Reverse(msgs[m0:])
	return ids, msgs, nil
}

// SharedDepth returns how many nodes, from the root down, the path up from
// node id and the path of branch have in common: the depth of the deepest node
// on both (0 when their roots differ or branch is empty). ok is false when id
// is not a node, branch is not a branch, or either path is broken. A list
// built for one path is then the start of the other for that many messages,
// so a regenerate, an edit or a switch near the end of a long path costs a
// projection what its new messages cost. O(log depth): two nodes at one depth
// have jump pointers (depth.go) of one depth, so both paths jump alike.
func (t *Tree) SharedDepth(id, branch string) (int, bool) {
	a, b := t.nodes[id], t.branches[branch]
	if a == nil || b == nil {
		return 0, false
	}
	if b.leaf == "" {
		return 0, true
	}
	c := t.nodes[b.leaf]
	da, dc := t.depth(a), t.depth(c)
	if da == 0 || dc == 0 {
		return 0, false
	}
	d := min(da, dc)
	a, c = ancestorAtDepth(a, d), ancestorAtDepth(c, d)
	for a != c {
		if a.parent == "" {
			return 0, true // two roots
		}
		if a.jump != c.jump {
			a, c = a.jump, c.jump
		} else {
			a, c = a.up, c.up
		}
	}
	return int(a.depth), true
}

// LeafOf returns the leaf of branch ("" when it is empty or not a branch).
func (t *Tree) LeafOf(branch string) string {
	if b := t.branches[branch]; b != nil {
		return b.leaf
	}
	return ""
}
