package core

import (
	"strings"

	"github.com/sessiontree/sessiontree/core/rawjson"
)

// TreeEntry is one entry of a Subtree read: a node without its message or,
// read in runs, a run of nodes each the only child of the one before (what a
// tree view draws as one box).
type TreeEntry struct {
	ID       string   // the node, or the run's first node
	Last     string   // the run's last node (ID when the run is one node)
	Run      int      // nodes in the run (1 unless read in runs)
	Parent   string   // ID's parent, "" for a root
	Depth    int      // entries between this one and the read's top (0 for the top)
	Children int      // children of Last
	Label    string   // ID's label ("" when none; a run's later nodes have none)
	Role     string   // ID's message role
	Preview  string   // the start of ID's text on one line, at most PreviewBytes bytes and an ellipsis
	Branches []string // live branches whose leaf is Last, by name
}

// PreviewBytes bounds TreeEntry.Preview (before its ellipsis).
const PreviewBytes = 120

// Subtree lists the nodes under from (from included; "" for every root) in
// depth-first order, children ordered as Children orders them, without their
// messages: what a tree view lays out. depth ≥ 0 keeps entries at most depth
// below the top (< 0: no bound); limit > 0 stops after limit entries and
// reports more. With runs, a node joins the entry of its parent when that
// parent has one child, no label and no branch ending at it, and the node has
// no label (a labelled node is an entry of its own): a 200k-message chat
// without forks is one entry. A node reached twice (a corrupt tree) is
// listed once. Read in runs, the cost grows with the entries, not with the
// nodes of their runs (runs.go keeps where each run ends); otherwise, or
// when the tree's links disagree, with the nodes visited.
func (t *Tree) Subtree(from string, depth, limit int, runs bool) (entries []TreeEntry, more bool, err error) {
	var tops []string
	if from == "" {
		tops = t.roots
	} else if t.nodes[from] == nil {
		return nil, false, errNodeNotFound(from)
	} else {
		tops = []string{from}
	}
	leafOf := t.leafOf()
	if runs {
		if entries, more, ok := t.subtreeInRuns(tops, depth, limit, leafOf); ok {
			return entries, more, nil
		}
	}
	return t.subtreeWalk(tops, depth, limit, runs, leafOf)
}

// SubtreeAround is at most limit entries of Subtree in runs around node
// near: what a tree view of a huge tree lays out around the message a user
// is at, at a cost that grows with limit and with the runs between near and
// the read's top, not with the tree (a 200k-message chat with 4,000 forks
// reads limit entries). The read is the subtree of the highest run above
// near whose subtree fits in limit (Subtree of every root when the whole
// tree fits); then, if the run above that one fits with it, that run and, of
// its last node's other children's subtrees in their order, what the limit
// leaves (more: true). When near's own run's subtree does not fit, it is
// that subtree cut at limit, like Subtree's limit. Entries are in depth-first
// order, depths counted from the read's top; above is how many nodes are
// above the top on its path (0 at a root). limit ≤ 0 reads the whole tree.
// When the tree's links disagree it reads from the roots, like Subtree.
func (t *Tree) SubtreeAround(near string, limit int) (entries []TreeEntry, above int, more bool, err error) {
	n := t.nodes[near]
	if n == nil {
		return nil, 0, false, errNodeNotFound(near)
	}
	if limit > 0 {
		if r, ok := t.newRunRead(); ok {
			if entries, top, more, ok := r.around(n, limit); ok {
				if top != nil {
					above = t.depth(top) - 1
				}
				return entries, above, more, nil
			}
		}
	}
	entries, more, err = t.Subtree("", -1, limit, true)
	return entries, 0, more, err
}

// subtreeWalk is Subtree by a walk of every node it lists or folds.
func (t *Tree) subtreeWalk(tops []string, depth, limit int, runs bool, leafOf map[string][]string) (entries []TreeEntry, more bool, err error) {
	const seen = 1
	var visited []*node
	defer func() {
		for _, n := range visited {
			n.mark = 0
		}
	}()
	visit := func(n *node) *node {
		if n == nil || n.mark == seen {
			return nil
		}
		n.mark = seen
		visited = append(visited, n)
		return n
	}
	type item struct {
		id    string
		depth int
	}
	stack := make([]item, 0, len(tops))
	for i := len(tops) - 1; i >= 0; i-- {
		stack = append(stack, item{tops[i], 0})
	}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		n := visit(t.nodes[it.id])
		if n == nil {
			continue
		}
		if limit > 0 && len(entries) == limit {
			more = true
			break
		}
		e := TreeEntry{ID: it.id, Last: it.id, Run: 1, Parent: n.parent, Depth: it.depth,
			Label: n.labelText(), Role: n.msg.Role(), Preview: previewOf(n.msg)}
		last := n
		for runs && len(last.children) == 1 && last.labelText() == "" && leafOf[e.Last] == nil {
			next := t.nodes[last.children[0]]
			if next == nil || next.mark == seen || next.labelText() != "" {
				break
			}
			visit(next)
			e.Last, last = last.children[0], next
			e.Run++
		}
		e.Children = len(last.children)
		e.Branches = leafOf[e.Last]
		entries = append(entries, e)
		if depth >= 0 && it.depth >= depth {
			continue
		}
		for i := len(last.children) - 1; i >= 0; i-- {
			stack = append(stack, item{last.children[i], it.depth + 1})
		}
	}
	return entries, more, nil
}

// previewOf is preview(m.Text()) without converting the whole message when
// its content is one plain string (printable ASCII, no escape: read in
// place) that the preview cuts: its preview is then the text's. A tree view
// reads thousands of previews.
func previewOf(m Message) string {
	if raw, ok := rawjson.Lookup(m, "content"); ok {
		if s, _, ok := rawjson.PlainString(raw, 0); ok && len(s) > PreviewBytes {
			if p := preview(s); strings.HasSuffix(p, "…") {
				return p
			}
		}
	}
	return preview(m.Text())
}

// preview puts text (Message.Text: newlines written as `\n`) on one line with
// single spaces, cut to PreviewBytes on a rune boundary.
func preview(text string) string {
	var b strings.Builder
	space := false
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c == '\\' && i+1 < len(text) && (text[i+1] == 'n' || text[i+1] == 't') {
			c = ' '
			i++
		}
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
			space = b.Len() > 0
			continue
		}
		if b.Len() >= PreviewBytes && c&0xC0 != 0x80 {
			b.WriteString("…")
			return b.String()
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteByte(c)
	}
	return b.String()
}

// Title is what a list of conversations shows for the tree: the text of its
// first user message, found from the root along first children within
// titleSteps nodes (a system prompt or two may come first), on one line and
// cut like a Preview; "" when there is none. It reads a handful of nodes,
// whatever the tree's size, and once it has found a title it answers from a
// memo until the root changes or a node is removed (a server asks on every
// write, and a first message may be a megabyte).
func (t *Tree) Title() string {
	if m := &t.title; m.text != "" && m.root == t.root && m.gen == t.shapeGen {
		return m.text
	}
	n := t.nodes[t.root]
	for i := 0; n != nil && i < titleSteps; i++ {
		if n.msg.Role() == "user" {
			if text := preview(n.msg.Text()); text != "" {
				t.title.text, t.title.root, t.title.gen = text, t.root, t.shapeGen
				return text
			}
		}
		if len(n.children) == 0 {
			break
		}
		n = t.nodes[n.children[0]]
	}
	return ""
}

// titleSteps bounds the nodes Title reads.
const titleSteps = 8

// OnPath reports, for each of ids, whether it is a node on the active
// branch's path (root to leaf), copying none of the path's ids (200,000 of
// them in a huge chat). When Subtree's runs are at hand (runs.go) and each id
// starts or ends one (a tree view's boxes), the path is climbed a run at a
// time; otherwise a few ids are answered from their depths (depth.go),
// O(log depth) steps each, and many by one walk of the path that marks it. An id
// that is no node is not on the path. It fails closed like PathOf.
func (t *Tree) OnPath(ids []string) ([]bool, error) {
	b := t.branches[t.active]
	if b == nil {
		return nil, t.errNoBranch(t.active)
	}
	n, err := t.PathLen(t.active)
	if err != nil {
		return nil, err
	}
	res := make([]bool, len(ids))
	if t.onPathByRuns(t.nodes[b.leaf], ids, res) {
		return res, nil
	}
	if len(ids)*64 < n {
		leaf := t.nodes[b.leaf]
		for i, id := range ids {
			res[i], _ = t.onPathOf(leaf, t.nodes[id])
		}
		return res, nil
	}
	// Marked on the way up and cleared by a second walk of the same steps
	// (no list of the path is kept: a huge path allocates nothing here).
	setMarks := func(v uint8) error {
		return t.walkUp(b.leaf, t.active, func(_ string, n *node) bool {
			n.mark = v
			return true
		})
	}
	err = setMarks(1)
	if err == nil {
		for i, id := range ids {
			if n := t.nodes[id]; n != nil && n.mark == 1 {
				res[i] = true
			}
		}
	}
	_ = setMarks(0) // the same walk, ending as the first did
	if err != nil {
		return nil, err
	}
	return res, nil
}

// PathIndex returns id's place on the active path (0 for its root), or -1
// when id is not on it: a chat view scrolls to a node, or reads the messages
// before it, without reading the path's ids. It answers from the depths of id
// and of the leaf (depth.go), in O(log depth) steps; it fails closed like
// PathOf.
func (t *Tree) PathIndex(id string) (int, error) {
	return t.PathIndexOn(t.active, id)
}

// PathIndexOn is PathIndex on branch's path.
func (t *Tree) PathIndexOn(branch, id string) (int, error) {
	n, err := t.PathLen(branch)
	if err != nil {
		return -1, err
	}
	target := t.nodes[id]
	if target == nil || n == 0 {
		return -1, nil
	}
	if on, k := t.onPathOf(t.nodes[t.branches[branch].leaf], target); on {
		return n - 1 - k, nil
	}
	return -1, nil
}
