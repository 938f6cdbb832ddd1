package core

import "slices"

// AppendProjectionOf appends the messages of branch, root first, to dst and
// returns the extended slice: LinearProjectionOf into a buffer the caller
// reuses, so that projecting a long path again and again allocates nothing
// once dst has room. On error dst is returned unchanged (its length), with the
// error LinearProjectionOf gives.
func (t *Tree) AppendProjectionOf(dst []Message, branch string) ([]Message, error) {
	b := t.branches[branch]
	if b == nil {
		return dst, t.errNoBranch(branch)
	}
	start := len(dst)
	if b.leaf != "" {
		// Room for the whole path at once: appending would grow dst by
		// doubling, leaving up to twice its size behind as garbage.
		dst = slices.Grow(dst, t.depth(t.nodes[b.leaf]))
	}
	err := t.walkUp(b.leaf, branch, func(_ string, n *node) bool { dst = append(dst, n.msg); return true })
	if err != nil {
		return dst[:start], err
	}
	slices.Reverse(dst[start:])
	return dst, nil
}

// EachUpOf calls visit with the message of each node of branch's path, leaf
// first, up to the root: a projection that turns each message into something
// else as it goes (the wasm build's slots) without a buffer of the path's
// messages. It fails closed like LinearProjectionOf; when it fails, visit has
// seen the messages below the fault.
func (t *Tree) EachUpOf(branch string, visit func(Message)) error {
	b := t.branches[branch]
	if b == nil {
		return t.errNoBranch(branch)
	}
	return t.walkUp(b.leaf, branch, func(_ string, n *node) bool { visit(n.msg); return true })
}
