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
		return nil, errBranchNotFound(branch)
	}
	return t.pathFrom(b.leaf, "branch "+quote(branch))
}

// ActivePath is PathOf the active branch.
func (t *Tree) ActivePath() ([]string, error) { return t.PathOf(t.active) }

// pathFrom walks parent pointers from leaf to a root. where names the walk's
// origin in error messages.
func (t *Tree) pathFrom(leaf, where string) ([]string, error) {
	var path []string
	for id := leaf; id != ""; {
		n := t.nodes[id]
		if n == nil {
			if id == leaf {
				return nil, newError(CodeCorrupt, where+": leaf "+quote(id)+" is not a node")
			}
			return nil, newError(CodeCorrupt, where+": node "+quote(path[len(path)-1])+" has parent "+quote(id)+", which is not a node")
		}
		if len(path) >= len(t.nodes) {
			return nil, newError(CodeCorrupt, where+": the parent links from "+quote(leaf)+" form a cycle through "+quote(id))
		}
		path = append(path, id)
		id = n.parent
	}
	slices.Reverse(path)
	return path, nil
}

// LinearProjectionOf returns the messages of branch, root first: what a linear
// consumer (a model, an exporter) sees. It fails closed like PathOf.
func (t *Tree) LinearProjectionOf(branch string) ([]Message, error) {
	path, err := t.PathOf(branch)
	if err != nil {
		return nil, err
	}
	msgs := make([]Message, len(path))
	for i, id := range path {
		msgs[i] = t.nodes[id].msg
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

// RenderBranchText renders branch as plain text, one turn per line, "role: text"
// (see Message.Text): the input of a summarizer.
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
		sb.WriteString(m.Role())
		sb.WriteString(": ")
		sb.WriteString(m.Text())
	}
	return sb.String(), nil
}
