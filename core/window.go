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
