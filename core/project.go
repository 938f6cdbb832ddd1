package core

import (
	"slices"
	"strings"
)

// PathOf returns the node ids of branch, root first. A leafless branch has an
// empty path. A corrupt path (a dangling leaf or parent, a cycle) fails with
// CodeCorrupt rather than returning a shortened list.
func (t *Tree) PathOf(branch string) ([]string, error) {
	b := t.branches[branch]
	if b == nil {
		return nil, t.errNoBranch(branch)
	}
	return t.pathFrom(b.leaf, branch)
}

// ActivePath is PathOf the active branch.
func (t *Tree) ActivePath() ([]string, error) { return t.PathOf(t.active) }

// pathFrom walks parent links from leaf to a root, for branch (named in errors).
func (t *Tree) pathFrom(leaf, branch string) ([]string, error) {
	path := make([]string, t.depthOf(leaf))
	i := len(path)
	err := t.walkUp(leaf, branch, func(id string, _ *node) bool {
		if i--; i >= 0 {
			path[i] = id
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	return path, nil
}

// depthOf counts the nodes from leaf up to its root, stopping early at a
// dangling link or after as many steps as there are nodes; walkUp reports why.
// Counting first lets a projection allocate once, exactly.
func (t *Tree) depthOf(leaf string) int {
	n := t.nodes[leaf]
	depth := 0
	for n != nil && depth <= len(t.nodes) {
		depth++
		n = n.up
	}
	return min(depth, len(t.nodes))
}

// walkUp calls visit for leaf and each of its ancestors, leaf first, until
// visit returns false, following
// the nodes' up pointers (no map lookup per step). A dangling leaf or parent, or
// more steps than there are nodes (a cycle), is CodeCorrupt naming branch.
func (t *Tree) walkUp(leaf, branch string, visit func(id string, n *node) bool) error {
	if leaf == "" {
		return nil
	}
	n := t.nodes[leaf]
	if n == nil {
		return newError(CodeCorrupt, "branch "+quote(branch)+": leaf "+quote(leaf)+" is not a node")
	}
	id := leaf
	for steps := 1; ; steps++ {
		tick()
		if steps > len(t.nodes) {
			return newError(CodeCorrupt, "branch "+quote(branch)+": the parent links from "+quote(leaf)+" form a cycle through "+quote(id))
		}
		if t.keyDups != nil && t.keyDups[id] != "" {
			return newError(CodeCorrupt, "branch "+quote(branch)+": node "+quote(id)+": "+t.keyDups[id]+" (Repair keeps the last value)")
		}
		if !visit(id, n) || n.parent == "" {
			return nil
		}
		if n.up == nil {
			return newError(CodeCorrupt, "branch "+quote(branch)+": node "+quote(id)+" has parent "+quote(n.parent)+", which is not a node")
		}
		id, n = n.parent, n.up
	}
}

// LinearProjectionOf returns the messages of branch, root first: what a linear
// consumer (a model, an exporter) sees. It fails closed like PathOf.
func (t *Tree) LinearProjectionOf(branch string) ([]Message, error) {
	b := t.branches[branch]
	if b == nil {
		return nil, t.errNoBranch(branch)
	}
	msgs := make([]Message, t.depthOf(b.leaf))
	i := len(msgs)
	err := t.walkUp(b.leaf, branch, func(_ string, n *node) bool {
		if i--; i >= 0 {
			msgs[i] = n.msg
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	return msgs, nil
}

// LinearProjection is LinearProjectionOf the active branch.
func (t *Tree) LinearProjection() ([]Message, error) { return t.LinearProjectionOf(t.active) }

// Children returns the ids of id's children, ordered by (created, id).
func (t *Tree) Children(id string) ([]string, error) {
	n := t.nodes[id]
	if n == nil {
		return nil, errNodeNotFound(id)
	}
	return slices.Clone(n.children), nil
}

// Siblings returns the children of id's parent (the roots, for a root), id
// included, and id's index among them: the data of a 〈2/3〉 switcher.
func (t *Tree) Siblings(id string) ([]string, int, error) {
	n := t.nodes[id]
	if n == nil {
		return nil, 0, errNodeNotFound(id)
	}
	list := t.siblingList(n.parent)
	if list == nil {
		return nil, 0, newError(CodeCorrupt, "node "+quote(id)+" has parent "+quote(n.parent)+", which is not a node")
	}
	i := slices.Index(*list, id)
	if i < 0 {
		return nil, 0, newError(CodeCorrupt, "node "+quote(id)+" is missing from its parent's children")
	}
	return slices.Clone(*list), i, nil
}

// Switcher returns what a chat view shows of node id besides its message:
// its label ("" when none), the number of its siblings (id included) and its
// index among them (Siblings' list and index), without copying the list: a
// chat view asks it of every message on the screen at each redraw.
func (t *Tree) Switcher(id string) (label string, count, index int, err error) {
	tick()
	n := t.nodes[id]
	if n == nil {
		return "", 0, 0, errNodeNotFound(id)
	}
	list := t.siblingList(n.parent)
	if list == nil {
		return "", 0, 0, newError(CodeCorrupt, "node "+quote(id)+" has parent "+quote(n.parent)+", which is not a node")
	}
	i := slices.Index(*list, id)
	if i < 0 {
		return "", 0, 0, newError(CodeCorrupt, "node "+quote(id)+" is missing from its parent's children")
	}
	return n.labelText(), len(*list), i, nil
}

// RenderBranchText renders branch as plain text, one turn per line, "role: text"
// (see Message.Text; a role is written the same way, so that none makes a line
// of its own): the input of a summarizer.
func (t *Tree) RenderBranchText(branch string) (string, error) {
	msgs, err := t.LinearProjectionOf(branch)
	if err != nil {
		return "", err
	}
	var sb strings.Builder
	for i, m := range msgs {
		if i > 0 {
			sb.WriteByte('\n')
		}
		sb.WriteString(oneLine([]string{m.Role()}))
		sb.WriteString(": ")
		sb.WriteString(m.Text())
	}
	return sb.String(), nil
}
