package core

import "slices"

// Stats counts what a tree holds.
type Stats struct {
	Nodes        int
	Branches     int
	Roots        int
	Leaves       int // nodes without children
	Depth        int // nodes on the longest root-to-leaf path
	MessageBytes int // total size of the messages' JSON
}

// Stats walks the tree once, breadth first from the roots.
func (t *Tree) Stats() Stats {
	s := Stats{Nodes: len(t.nodes), Branches: len(t.branches), Roots: len(t.roots)}
	for _, n := range t.nodes {
		s.MessageBytes += len(n.msg)
		if len(n.children) == 0 {
			s.Leaves++
		}
	}
	level := slices.Clone(t.roots)
	seen := make(map[string]bool, len(t.nodes))
	for len(level) > 0 {
		s.Depth++
		var next []string
		for _, id := range level {
			n := t.nodes[id]
			if n == nil || seen[id] {
				continue
			}
			seen[id] = true
			next = append(next, n.children...)
		}
		level = next
	}
	return s
}
