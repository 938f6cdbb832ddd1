package provider

import (
	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/rawjson"
)

// The memo a tree keeps of its converted paths (core.Tree.Memo), so that a
// request costs what it keeps and what changed since the last one, not the
// whole path: a chat resends the same prefix at every turn. It holds the
// last projected path as segments of segmentNodes path nodes; a request
// keeps the segments its path still starts with, converts the rest, and
// fits the budget from the newest block back.
//
// It stays exact: a segment converts on its own as within the whole path
// unless a later one shares an id with it (a call answered or repeated
// across them, a reply's lines split between them) or starts by continuing
// its reply; then the two convert as one. A node added below a node a
// segment read (core.Tree.AddedSince) sends that segment and those after it
// back to conversion; a node removed or relinked, a merge, or more than 128
// nodes added between two requests, the whole memo.
type pathMemo struct {
	rev   core.Revision
	segs  []*segment
	names map[string]int // a call, result or reply id → the segment that holds it first
	nodes map[string]int // a node a segment read (path or adopted) → that segment
	// head is the path's preamble as a request last converted it (headOf)
	// from the path's first nodes headIDs; a node added below one it read
	// (headRead) drops it.
	head     *head
	headIDs  []string
	headRead map[string]bool
	// scratch: the buffers of the tree's requests (write).
	scratch scratch
}

// memoKey is the key of the memo on a tree: one for requests that keep
// Anthropic's thinking and one for the rest, since flatten differs.
type memoKey struct{ keepThinking bool }

// segmentNodes is how many path nodes a segment holds when a long path is
// converted: small enough that a fork converts little again, large enough
// that the sums over segments stay a small part of a request.
const segmentNodes = 256

// memoOf returns the tree's memo for keepThinking, with what the tree's
// edits since it was made no longer cover dropped.
func memoOf(t *core.Tree, keepThinking bool) *pathMemo {
	key := memoKey{keepThinking}
	m, _ := t.Memo(key).(*pathMemo)
	if m == nil {
		m = &pathMemo{rev: t.Revision(), names: map[string]int{}, nodes: map[string]int{}}
		t.SetMemo(key, m)
		return m
	}
	added, ok := t.AddedSince(m.rev)
	if !ok {
		m.truncate(0)
		m.head = nil
	}
	for _, a := range added {
		if m.headRead[a.Parent] {
			m.head = nil
		}
		// A node added below one a segment read may be one it would adopt,
		// unless it is the path's next node below the last segment's end
		// (checked when the path is matched: next is "" there).
		i, read := m.nodes[a.Parent]
		if !read {
			continue
		}
		if s := m.segs[i]; i == len(m.segs)-1 && s.last == a.Parent && s.next == "" && s.grown == "" {
			s.grown = a.Child // the one child that may continue the path
			continue
		}
		m.truncate(i)
	}
	m.rev = t.Revision()
	return m
}

// truncate drops the segments from i on.
func (m *pathMemo) truncate(i int) {
	if i >= len(m.segs) {
		return
	}
	for _, s := range m.segs[i:] {
		for _, x := range s.names {
			if j, ok := m.names[x]; ok && j >= i {
				delete(m.names, x)
			}
		}
		for _, x := range s.ids {
			if j, ok := m.nodes[x]; ok && j >= i {
				delete(m.nodes, x)
			}
		}
	}
	clear(m.segs[i:])
	m.segs = m.segs[:i]
}

// depends returns the first segment s would read differently after, or -1:
// one that holds an id s holds or looked at, or the last one with blocks
// when s starts by continuing its reply.
func (m *pathMemo) depends(s *segment) int {
	dep := len(m.segs)
	for _, list := range [][]string{s.names, s.looks} {
		for _, x := range list {
			if i, ok := m.names[x]; ok && i < dep {
				dep = i
			}
		}
	}
	if n := len(m.segs); n > 0 && dep > n-1 && m.segs[n-1].pendingEnd && len(s.ids) > 0 {
		// The results the last segment ends with wait for its reply to end.
		dep = n - 1
	}
	if len(s.blocks) > 0 && s.blocks[0].role == asstRole {
		for i := len(m.segs) - 1; i >= 0 && i < dep; i-- {
			if r := m.segs[i].lastRole(); r != 0 {
				if r == asstRole {
					dep = i
				}
				break
			}
		}
	}
	if dep == len(m.segs) {
		return -1
	}
	return dep
}

// preambleOnly reports whether the segments held cover the path from its
// start up to from with its preamble alone (system messages: no unit).
func (m *pathMemo) preambleOnly(from int) bool {
	if len(m.segs) == 0 || m.segs[0].start != 0 || m.segs[len(m.segs)-1].end != from {
		return false
	}
	for _, s := range m.segs {
		if !s.atRoot || len(s.units) > 0 {
			return false
		}
	}
	return true
}

// push appends s, after the segments it does not depend on.
func (m *pathMemo) push(s *segment) {
	i := len(m.segs)
	for _, x := range s.names {
		if _, ok := m.names[x]; !ok {
			m.names[x] = i
		}
	}
	for _, x := range s.ids {
		m.nodes[x] = i
	}
	s.index = i
	m.segs = append(m.segs, s)
	m.mergeTail()
}

// mergeTail joins the last two segments while the one before is no larger
// than the last and the two hold less than segmentNodes nodes: a chat adds
// a segment of two nodes at every turn (its reply and the next question),
// and a request's sums run over segments, so without it a long chat's
// requests would grow with its turns. As in a binary counter, a node is
// joined at most log2(segmentNodes) times, and the segments a chat adds
// since its last load stay O(log turns) many.
func (m *pathMemo) mergeTail() {
	for n := len(m.segs); n >= 2; n = len(m.segs) {
		a, b := m.segs[n-2], m.segs[n-1]
		if a.folded || b.folded || a.end != b.start || a.end-a.start > b.end-b.start || b.end-a.start > segmentNodes {
			return
		}
		for _, x := range b.names {
			if m.names[x] == n-1 {
				m.names[x] = n - 2
			}
		}
		for _, x := range b.ids {
			if m.nodes[x] == n-1 {
				m.nodes[x] = n - 2
			}
		}
		a.join(b)
		m.segs[n-1] = nil
		m.segs = m.segs[:n-1]
	}
}

// cleanCut returns how many of msgs to take into a segment before the next
// one starts, at most limit: none when the first is a person's plain text (a
// user message whose content is a string) or a system message, where no call
// waits for its result and no reply goes on; else up to the first such
// message in reach, or all of limit when there is none. A segment that does
// start mid-exchange converts again with the one before it (depends): this
// only makes that rare.
func cleanCut(msgs []core.Message, limit int) int {
	for i, m := range msgs {
		if i == limit {
			return i
		}
		switch m.Role() {
		case "system", "developer":
			return i
		case "user":
			if c, ok := rawjson.Lookup(m, "content"); ok && len(c) > 0 && c[0] == '"' {
				return i
			}
		}
	}
	return len(msgs)
}

// pathSegments returns the first n nodes of branch's path (the path less
// its last skip nodes) from node lo on (or from
// an earlier one the memo starts at) as segments, converting only what the
// memo does not hold. below is the path node after the first n ("" when
// skip is 0): the last segment's next, so that it is never adopted. A
// corrupt path fails as PathOf does.
func (m *pathMemo) pathSegments(t *core.Tree, branch string, skip, n int, below string, keepThinking bool, lo int) ([]*segment, error) {
	// The path's tail, fetched from the leaf up as far as needed: tail[i]
	// is path node n-len(tail)+i.
	tail, msgs := m.scratch.tail[:0], m.scratch.msgs[:0] // the last request's buffers
	defer func() {
		clear(msgs) // the tree's messages and ids: not kept alive here
		clear(tail)
		m.scratch.tail, m.scratch.msgs = tail[:0], msgs[:0]
	}()
	fetch := func(count int) error {
		count = min(count, n)
		if count <= len(tail) {
			return nil
		}
		var err error
		tail, msgs, err = t.AppendTailOf(tail[:0], msgs[:0], branch, skip, count)
		if err == nil && len(tail) != count {
			err = &core.Error{Code: core.CodeCorrupt, Message: "branch " + quote(branch) + ": its path is shorter than it was counted"}
		}
		return err
	}
	at := func(i int) string { return tail[i-(n-len(tail))] }
	// The segments the path still starts with: the last whose last node is
	// on the path with the path's next node after it.
	keep := 0
	for i := len(m.segs) - 1; i >= 0; i-- {
		s := m.segs[i]
		if s.end > n {
			continue
		}
		if err := fetch(max(n-s.end+1, 2*len(tail), 64)); err != nil {
			return nil, err
		}
		if at(s.end-1) != s.last {
			continue
		}
		next := below
		if s.end < n {
			next = at(s.end)
		}
		switch {
		case s.next == next && s.grown == "":
		case s.next == "" && next != "" && s.grown == next && !s.adoptedBelowLast:
			s.next, s.grown = next, "" // the path goes on into the node added below its end
		default:
			continue // the path leaves it for another child
		}
		keep = i + 1
		break
	}
	if keep > 0 && m.segs[0].start > lo {
		keep = 0 // the request reads further back than the memo starts
	}
	m.truncate(keep)
	// Convert the rest, segmentNodes path nodes at a time; a segment that
	// depends on an earlier one converts again with it, over twice the span.
	from, minEnd := lo, 0
	if keep > 0 {
		from = m.segs[keep-1].end
	}
	for from < n {
		if err := fetch(n - from); err != nil {
			return nil, err
		}
		at0 := from - (n - len(tail))
		end := min(n, max(from+segmentNodes, minEnd))
		end += cleanCut(msgs[at0+end-from:], segmentNodes/4)
		next := below
		if end < n {
			next = at(end)
		}
		s := convert(t, from, tail[at0:at0+end-from], msgs[at0:at0+end-from], next, keepThinking, from == 0 || m.preambleOnly(from))
		s.end = end
		if dep := m.depends(s); dep >= 0 {
			start := m.segs[dep].start
			minEnd = max(end, start+2*(end-start))
			m.truncate(dep)
			from = start
			continue
		}
		m.push(s)
		from = end
	}
	return m.segs, nil
}
