package convert

import (
	"bytes"
	"strconv"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/rawjson"
)

// ExtKey is the member an export adds, to a record or to the file, for what the
// format has no field for; an import reads it back. Tools that do not know it
// ignore it.
const ExtKey = "sessiontree"

// NodeExt is what a record's "sessiontree" member carries: the parts of a node
// that the record's own fields do not reproduce.
type NodeExt struct {
	Message  core.Message // the node's message, when deriving it from the record gives another
	Same     bool         // Message's {"~":0} members are the derived message's (markSame)
	Label    string
	HasLabel bool
	At       int64
	HasAt    bool
}

// A Base is what the "elided" references of a record's "sessiontree" member
// point into: the record's bytes without that member, and their checksum,
// made at the first reference. Records that are one line (SillyTavern's
// swipes) share one: made once a swipe, a line of N swipes cost O(N²).
type Base struct {
	ms   []Member
	b    []byte
	sum  string
	made bool
}

// NewBase is the base of a record whose members, without "sessiontree", are ms.
func NewBase(ms []Member) *Base { return &Base{ms: ms} }

func (b *Base) get() ([]byte, string) {
	if !b.made {
		b.b = NewObject(nil).Members(b.ms).Bytes()
		b.sum = strconv.FormatUint(uint64(Checksum(b.b)), 10)
		b.made = true
	}
	return b.b, b.sum
}

// ReadNodeExt reads the "sessiontree" member of a record's members, if any.
func ReadNodeExt(ms []Member) (NodeExt, bool) { return ReadNodeExtOn(ms, nil) }

// ReadNodeExtOn is ReadNodeExt with the record's base given (nil: made from ms).
func ReadNodeExtOn(ms []Member, shared *Base) (NodeExt, bool) {
	raw, ok := Get(ms, ExtKey)
	if !ok {
		return NodeExt{}, false
	}
	var e NodeExt
	inner, err := Members(raw)
	if err != nil {
		return NodeExt{}, false
	}
	if m, ok := Get(inner, "message"); ok {
		if sum, elided := Get(inner, "elided"); elided {
			if shared == nil {
				shared = NewBase(Without(ms, ExtKey))
			}
			base, want := shared.get()
			if want != string(sum) {
				m = nil // the record changed since the export: its own fields give the message
			} else if m, ok = Resolve(m, base); !ok {
				m = nil
			}
		}
		if _, same := Get(inner, "same"); same && m != nil {
			e.Message = core.Message(m) // its role may be a reference: WithNodeExt fills and checks it
		} else if msg, err := core.ParseMessage(m); m != nil && err == nil {
			e.Message = msg
		}
	}
	if v, _ := Get(inner, "same"); string(v) == "true" {
		e.Same = true
	}
	if l, ok := Get(inner, "label"); ok && len(l) > 0 && l[0] == '"' {
		e.Label, e.HasLabel = rawjson.Unquote(l), true
	}
	if a, ok := Get(inner, "created_at_ms"); ok {
		if n, err := strconv.ParseInt(string(a), 10, 64); err == nil {
			e.At, e.HasAt = n, true
		}
	}
	return e, true
}

// Apply overrides what e carries.
func (e NodeExt) Apply(msg *core.Message, label *string, at *int64) {
	if e.Message != nil {
		*msg = e.Message
	}
	if e.HasLabel {
		*label = e.Label
	}
	if e.HasAt {
		*at = e.At
	}
}

// Derive turns a format's record into a node's message, label and time.
type Derive func(rec []byte) (msg core.Message, label string, at int64, err error)

// Faithful returns rec, with a "sessiontree" member added when derive(rec) does
// not give back n exactly: the message, label or time that differ. So an
// import of an export gives every node back as it was.
func Faithful(rec []byte, n core.Node, derive Derive) []byte {
	msg, label, at, derr := derive(rec)
	if derr == nil && bytes.Equal(msg, n.Message) && label == n.Label && at == n.CreatedAtMs {
		return rec
	}
	ms, err := Members(rec)
	if err != nil {
		return rec
	}
	ms = Without(ms, ExtKey)
	l := &Line{ms: ms}
	var base []byte
	if derr != nil || !bytes.Equal(msg, n.Message) {
		base = NewObject(nil).Members(ms).Bytes()
		l.base, l.sum, l.find = base, Checksum(base), finder(base)
	}
	return NewObject(nil).Members(ms).Raw(ExtKey, l.ext(n, msg, label, at, derr)).Bytes()
}

// A Line is a record whose "sessiontree" member speaks for many nodes (a
// SillyTavern line holds every swipe of a message): what Faithful works out
// of the record (its members, its bytes and their checksum, where its long
// strings lie) is worked out once, not once a node: a line of N swipes was
// O(N) a swipe, O(N²) in all (a message regenerated 10,000 times: 22 s).
type Line struct {
	ms   []Member // without "sessiontree"
	base []byte
	sum  uint32
	find func(inner []byte) []int
}

// NewLine prepares rec for Ext.
func NewLine(rec []byte) (*Line, error) {
	ms, err := Members(rec)
	if err != nil {
		return nil, err
	}
	ms = Without(ms, ExtKey)
	base := NewObject(nil).Members(ms).Bytes()
	l := &Line{ms: ms, base: base, sum: Checksum(base)}
	var x *index
	l.find = func(inner []byte) []int {
		if x == nil {
			x = newIndex(base)
		}
		return x.find(inner)
	}
	return l, nil
}

// Ext returns what Faithful would put under "sessiontree" in the line for n
// (derive reads the line as n's record), or nil when the line gives n back
// as it is.
func (l *Line) Ext(n core.Node, derive Derive) []byte {
	msg, label, at, derr := derive(l.base)
	if derr == nil && bytes.Equal(msg, n.Message) && label == n.Label && at == n.CreatedAtMs {
		return nil
	}
	return l.ext(n, msg, label, at, derr)
}

// ext is the "sessiontree" member for n, given what deriving the record
// gave (msg, label, at, derr).
func (l *Line) ext(n core.Node, msg core.Message, label string, at int64, derr error) []byte {
	sameMsg := derr == nil && bytes.Equal(msg, n.Message)
	sameLabel := derr == nil && label == n.Label
	sameAt := derr == nil && at == n.CreatedAtMs
	o := NewObject(nil)
	elided := false
	if !sameMsg {
		// The message, without a second copy of the strings the record
		// holds already (see Elide).
		m, same := []byte(n.Message), false
		if derr == nil && !bytes.Contains(m, []byte(`{"~":`)) {
			// Role and content the record gives back as they are: a
			// reference to the derived message's own.
			m, same = markSame(m, msg)
		}
		if len(l.base) > 0 {
			m, elided = elide(m, l.find)
		}
		o.Raw("message", m)
		if same {
			o.Raw("same", []byte("true"))
		}
	}
	if !sameLabel {
		o.String("label", n.Label)
	}
	if !sameAt {
		o.Int("created_at_ms", n.CreatedAtMs)
	}
	if elided {
		o.Raw("elided", strconv.AppendUint(nil, uint64(l.sum), 10))
	}
	return o.Bytes()
}

// TreeExt writes the tree-level extension: the active branch and every branch
// as .tree.json writes it, so an import restores names, leaves and summaries.
func TreeExt(t *core.Tree) []byte {
	buf := []byte(`{"active_branch":`)
	buf = rawjson.AppendString(buf, t.ActiveBranch())
	buf = append(buf, `,"branches":[`...)
	for i, b := range t.Branches() {
		core.Tick()
		if i > 0 {
			buf = append(buf, ',')
		}
		j, _ := t.BranchJSON(b.Name)
		buf = append(buf, j...)
	}
	buf = append(buf, ']')
	if ids := unnamedLeaves(t); len(ids) > 0 {
		// So an import names only the leaves added since (see Finish).
		buf = append(buf, `,"unnamed":[`...)
		for i, id := range ids {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = rawjson.AppendString(buf, id)
		}
		buf = append(buf, ']')
	}
	return append(buf, '}')
}

// unnamedLeaves lists the leaves of t no branch ends at, root by root.
func unnamedLeaves(t *core.Tree) []string {
	if t.Root() == "" {
		return nil
	}
	named := make(map[string]bool)
	for _, b := range t.Branches() {
		named[b.Leaf] = true
	}
	var out []string
	stack, _, _ := t.Siblings(t.Root())
	stack = append([]string(nil), stack...)
	for len(stack) > 0 {
		id := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		n, ok := t.Node(id)
		if !ok {
			continue
		}
		core.Tick()
		if len(n.Children) == 0 && !named[id] {
			out = append(out, id)
		}
		stack = append(stack, n.Children...)
	}
	return out
}

// applyTreeExt restores the branches a TreeExt describes. It reports and
// returns false when ext cannot be read, so Finish names branches itself.
func (b *Builder) applyTreeExt(ext []byte) bool {
	t := b.Tree
	ms, err := Members(ext)
	if err != nil {
		b.Report.Problemf(0, "", "the sessiontree extension is not an object: branches named from the file instead")
		return false
	}
	list, _ := Get(ms, "branches")
	brs, err := Elements(list)
	if err != nil {
		b.Report.Problemf(0, "", "the sessiontree extension has no branch list: branches named from the file instead")
		return false
	}
	for _, raw := range brs {
		bm, err := Members(raw)
		if err != nil {
			continue
		}
		name, leaf := Str(bm, "name"), Str(bm, "leaf")
		created, _ := strconv.ParseInt(string(mustGet(bm, "created_at_ms")), 10, 64)
		if leaf != "" && !b.Inserted(leaf) {
			b.Report.Problemf(0, leaf, "leaf of branch "+strconv.Quote(name)+" is not a node: branch kept leafless")
			leaf = ""
		}
		if err := t.SetBranch(name, leaf, created); err != nil {
			b.Report.Problemf(0, "", "branch "+strconv.Quote(name)+": "+err.Error())
			continue
		}
		sraw, ok := Get(bm, "summary")
		if !ok {
			continue
		}
		sm, err := Members(sraw)
		if err != nil {
			continue
		}
		at, _ := strconv.ParseInt(string(mustGet(sm, "created_at_ms")), 10, 64)
		asOf := Str(sm, "node_id")
		if !b.Inserted(asOf) {
			asOf = leaf
		}
		if asOf == "" {
			continue
		}
		_ = t.SetBranch(name, asOf, created)
		if err := t.SummarizeBranch(name, Str(sm, "summary"), Str(sm, "model_id"), at); err != nil {
			b.Report.Problemf(0, "", "summary of branch "+strconv.Quote(name)+": "+err.Error())
		}
		_ = t.SetBranch(name, leaf, created)
	}
	if list, ok := Get(ms, "unnamed"); ok {
		ids, _ := Elements(list)
		b.unnamed = make(map[string]bool, len(ids))
		for _, id := range ids {
			b.unnamed[rawjson.Unquote(id)] = true
		}
	}
	if active := Str(ms, "active_branch"); active != "" && active != t.ActiveBranch() {
		if err := t.SwitchBranch(active); err != nil {
			b.Report.Problemf(0, "", "active branch "+strconv.Quote(active)+" is not in the file")
		}
	}
	return true
}

func mustGet(ms []Member, key string) []byte {
	v, _ := Get(ms, key)
	return v
}
