package convert

import (
	"bytes"
	"strconv"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/rawjson"
)

// Group is one root of a tree and every node below it, in preorder.
type Group struct {
	Root  string
	Nodes []core.Node
}

// Groups walks every root of t (in order) iteratively and returns each root's
// nodes in preorder, visiting children in order except that the child on
// onPath (if any) comes last, so the path's leaf is the last node of its root.
func Groups(t *core.Tree, onPath map[string]bool) []Group {
	if t.Root() == "" {
		return nil
	}
	// t's root first, so that it is the first root an import inserts, and
	// so t's root again; the others in their order.
	all, _, _ := t.Siblings(t.Root())
	roots := []string{t.Root()}
	for _, r := range all {
		if r != t.Root() {
			roots = append(roots, r)
		}
	}
	var out []Group
	for _, r := range roots {
		g := Group{Root: r}
		stack := []string{r}
		for len(stack) > 0 {
			id := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			n, ok := t.Node(id)
			if !ok {
				continue
			}
			core.Tick() // (an exporter's walk: see core.Tick)
			g.Nodes = append(g.Nodes, n)
			kids := lastOnPath(n.Children, onPath)
			for i := len(kids) - 1; i >= 0; i-- {
				stack = append(stack, kids[i])
			}
		}
		out = append(out, g)
	}
	return out
}

func lastOnPath(ids []string, onPath map[string]bool) []string {
	for i, id := range ids {
		if onPath[id] && i != len(ids)-1 {
			out := make([]string, 0, len(ids))
			out = append(out, ids[:i]...)
			out = append(out, ids[i+1:]...)
			return append(out, id)
		}
	}
	return ids
}

// ActiveSet returns the ids on the active path (empty when it cannot be read).
func ActiveSet(t *core.Tree) map[string]bool {
	p, _ := t.ActivePath()
	set := make(map[string]bool, len(p))
	for _, id := range p {
		set[id] = true
	}
	return set
}

// Corrupt is the error an export returns for a tree Validate finds problems in.
func Corrupt(t *core.Tree) error {
	if ps := t.Validate(); len(ps) > 0 {
		return &core.Error{Code: core.CodeCorrupt, Message: "cannot export a tree with structural problems (" + ps[0].Message + "): Repair it first"}
	}
	return nil
}

// Invalid is an invalid_input error.
func Invalid(msg string) error { return &core.Error{Code: core.CodeInvalidInput, Message: msg} }

// OwnCompact is data, a file in format, validated and compacted into one
// copy of the importer's own: one scan and one copy (a clone, a validation
// and a compaction were three scans and, for a spaced file, two copies).
// A file that is not one JSON value is NotJSON.
func OwnCompact(format string, data []byte) ([]byte, error) {
	data = bytes.TrimSpace(data)
	own, err := rawjson.Compact(make([]byte, 0, len(data)), data)
	if err != nil {
		return nil, NotJSON(format, data)
	}
	return own, nil
}

// NotJSON is the invalid_input of a file of format that is not one JSON
// value: what is wrong and at which byte, as the scan found it.
func NotJSON(format string, data []byte) error {
	end, err := rawjson.ScanValue(data, 0)
	why := "more after the value, at byte " + strconv.Itoa(end)
	if err != nil {
		why = err.Error()
	}
	return Invalid(format + ": not valid JSON: " + why)
}

// Conversation is one conversation of a multi-conversation file: the roots
// that follow a root carrying a header (found under headerKey in any of its
// nodes' messages) until the next such root.
type Conversation struct {
	Header  []byte      // nil when no node carried one
	Nodes   []core.Node // preorder, root by root
	Current string      // the active leaf when it is here, else a branch leaf here, else ""
}

// Conversations splits t into conversations by their headers.
func Conversations(t *core.Tree, headerKey string) []*Conversation {
	active := ActiveSet(t)
	var out []*Conversation
	for _, g := range Groups(t, active) {
		var h []byte
		for _, n := range g.Nodes {
			core.TickBytes(len(n.Message))
			if v, ok := rawjson.Lookup(n.Message, headerKey); ok {
				h = v
				break
			}
		}
		if h != nil || len(out) == 0 {
			out = append(out, &Conversation{Header: h})
		}
		c := out[len(out)-1]
		c.Nodes = append(c.Nodes, g.Nodes...)
	}
	if len(out) == 0 {
		out = append(out, &Conversation{})
	}
	leaves := make(map[string]bool)
	for _, br := range t.Branches() {
		leaves[br.Leaf] = true
	}
	activeLeaf := ""
	if br, ok := t.LookupBranch(t.ActiveBranch()); ok {
		activeLeaf = br.Leaf
	}
	for _, c := range out {
		for _, n := range c.Nodes {
			if n.ID == activeLeaf {
				c.Current = n.ID
				break
			}
			if c.Current == "" && leaves[n.ID] {
				c.Current = n.ID
			}
		}
	}
	return out
}

// PathIn returns the ids from a conversation's root down to leaf.
func PathIn(t *core.Tree, leaf string) []string {
	var rev []string
	for id := leaf; id != "" && len(rev) <= t.Len(); {
		n, ok := t.Node(id)
		if !ok {
			break
		}
		rev = append(rev, id)
		id = n.Parent
	}
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	return rev
}

// AppendMember returns obj (a JSON object) with key:v added at the end.
func AppendMember(obj []byte, key string, v []byte) []byte {
	out := make([]byte, 0, len(obj)+len(key)+len(v)+4)
	out = append(out, obj[:len(obj)-1]...)
	if len(obj) > 2 {
		out = append(out, ',')
	}
	out = rawjson.AppendString(out, key)
	out = append(out, ':')
	out = append(out, v...)
	return append(out, '}')
}

// WithoutKey returns obj without its member key (obj unchanged if absent).
func WithoutKey(obj []byte, key string) []byte {
	if _, ok := rawjson.Lookup(obj, key); !ok {
		return obj
	}
	ms, err := Members(obj)
	if err != nil {
		return obj
	}
	return NewObject(nil).Members(Without(ms, key)).Bytes()
}
