package core

import (
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
	sortFunc(ids, t.byAge)
	return ids
}
