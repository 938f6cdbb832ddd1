package core

import (
	"slices"
	"strings"
)

// Hit is one node whose text matched a search.
type Hit struct {
	NodeID  string
	Role    string
	Snippet string // the matching line of text, trimmed around the match
}

// Search finds nodes on every branch (and off any branch) whose rendered text
// contains query, ignoring case, ordered by (created, id). limit ≤ 0 means no limit.
func (t *Tree) Search(query string, limit int) []Hit {
	if query == "" {
		return nil
	}
	q := strings.ToLower(query)
	ids := t.orderedIDs()
	var hits []Hit
	for _, id := range ids {
		n := t.nodes[id]
		text := n.msg.Text()
		lower := strings.ToLower(text)
		i := strings.Index(lower, q)
		if i < 0 || len(lower) != len(text) {
			if i < 0 {
				continue
			}
			i = 0 // case folding changed lengths; show the start
		}
		hits = append(hits, Hit{NodeID: id, Role: n.msg.Role(), Snippet: snippet(text, i, len(q))})
		if limit > 0 && len(hits) == limit {
			break
		}
	}
	return hits
}

// snippet cuts about 60 bytes of context either side of text[i:i+n], on rune
// boundaries.
func snippet(text string, i, n int) string {
	const ctx = 60
	from, to := max(0, i-ctx), min(len(text), i+n+ctx)
	for from > 0 && from < len(text) && text[from]&0xC0 == 0x80 {
		from--
	}
	for to < len(text) && text[to]&0xC0 == 0x80 {
		to++
	}
	s := text[from:to]
	if from > 0 {
		s = "…" + s
	}
	if to < len(text) {
		s += "…"
	}
	return s
}

// orderedIDs lists every node id ordered by (created, id).
func (t *Tree) orderedIDs() []string {
	ids := make([]string, 0, len(t.nodes))
	for id := range t.nodes {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, t.byAge)
	return ids
}

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

// Prune deletes every node that lies on no branch's path, and returns their ids
// in (created, id) order. It refuses a tree that Validate finds problems in, so
// that a broken link never makes it delete messages: Repair first.
func (t *Tree) Prune() ([]string, error) {
	if problems := t.Validate(); len(problems) > 0 {
		return nil, newError(CodeCorrupt, "the tree has "+itoa(len(problems))+" structural problems (first: "+problems[0].Message+"); repair it before pruning")
	}
	kept := make(map[string]bool, len(t.nodes))
	for _, b := range t.branches {
		for id := b.leaf; id != "" && !kept[id]; id = t.nodes[id].parent {
			kept[id] = true
		}
	}
	var removed []string
	for _, id := range t.orderedIDs() {
		if !kept[id] {
			removed = append(removed, id)
		}
	}
	// An unreachable node's whole subtree is unreachable, so the order of removal
	// does not matter.
	for _, id := range removed {
		t.removeNode(id)
	}
	return removed, nil
}
