package convert

import (
	"strconv"
	"strings"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/rawjson"
)

// Session builds a tree from a JSONL session file, line by line. It holds back
// the last node until the next one comes, so lines that are not messages (a
// file snapshot, a model change) can be kept with the message before them,
// under AfterKey, and lines before the first message under BeforeKey on the
// first node: written back in place on export, never dropped.
//
// Memory: a held node's message and the lines kept with it may be borrowed
// (built in Scratch, or a line EachLine lent); when the node is inserted its
// message is copied once into the session's Arena, and an id or parent that
// pointed into the borrowed message then points into the copy. So an import
// keeps one copy of each message and makes little garbage per line.
type Session struct {
	B         *Builder
	AfterKey  string
	BeforeKey string
	Arena     Arena
	held      heldNode
	hasHeld   bool
	before    []byte            // kept lines before the first node, each followed by ','
	alias     map[string]string // folded line id → the node its children hang on
	nodes     int
	beforeN   int
	active    string
	scratch   [2][]byte
	cur       int // scratch[cur] may hold the held node's message
	// Defer, when set before the first Node, keeps every node in Deferred
	// instead of adding it to B, for a format that links parents only once
	// the whole file is read (claudecode). The format then adds them itself.
	Defer    bool
	Deferred []DeferredNode
}

// DeferredNode is a node a deferring Session finished but did not add: its
// message (with the kept lines) in the arena, id and parent as Node got them.
type DeferredNode struct {
	Line       int
	ID, Parent string
	Msg        core.Message
	Label      string
	At         int64
	Active     bool
}

type heldNode struct {
	line              int
	id, parent, label string
	msg               core.Message
	at                int64
	after             []byte // kept lines, each followed by ','
	active            bool
}

// NewSession starts a session import.
func NewSession(format, afterKey, beforeKey string, opts []core.Option) *Session {
	return &Session{B: NewBuilder(format, opts), AfterKey: afterKey, BeforeKey: beforeKey, alias: map[string]string{}}
}

// Resolve follows folded lines up to the node a child of parent hangs on.
func (s *Session) Resolve(parent string) string {
	if len(s.alias) == 0 {
		return parent
	}
	for i := 0; i < 1000; i++ {
		p, ok := s.alias[parent]
		if !ok {
			return parent
		}
		parent = p
	}
	return parent
}

// Scratch returns an empty buffer to build the next node's message in; it
// stays valid until the Node call after the one that takes the message.
func (s *Session) Scratch() []byte { return s.scratch[s.cur^1][:0] }

// Node adds a message line. msg is copied (into Scratch, unless it was built
// there); id and parent may be views into msg (see View) or strings of their
// own, never views into a line EachLine lent.
func (s *Session) Node(line int, id, parent string, msg core.Message, label string, at int64) {
	s.flush()
	buf := s.scratch[s.cur^1]
	if !inside(msg, buf[:cap(buf)]) {
		nb := append(buf[:0], msg...)
		id, parent = rebase(id, msg, nb), rebase(parent, msg, nb)
		msg = nb
	}
	s.scratch[s.cur^1] = msg[:0]
	s.cur ^= 1
	s.held = heldNode{line: line, id: id, parent: s.Resolve(parent), msg: msg, label: label, at: at, after: s.held.after[:0]}
	s.hasHeld = true
}

// Active marks the node of the last Node call as the active leaf, the one main
// ends at unless Finish is given another.
func (s *Session) Active() { s.held.active = true }

// Fold keeps a line that is not a message with the message before it (raw may
// be a line EachLine lent: it is copied). A line with an id is made
// transparent: its children hang on its parent.
func (s *Session) Fold(raw []byte, id, parent string) {
	if id != "" {
		s.alias[strings.Clone(id)] = strings.Clone(s.Resolve(parent))
	}
	if !s.hasHeld {
		s.before = append(append(s.before, raw...), ',')
		s.beforeN++
		return
	}
	s.held.after = append(append(s.held.after, raw...), ',')
}

// Label sets the label of node target (a label line).
func (s *Session) Label(line int, target, label string) {
	if s.hasHeld && s.held.id == target {
		s.held.label = strings.Clone(label)
		return
	}
	s.flush()
	label = strings.Clone(label)
	if err := s.B.Tree.Label(target, label); err != nil {
		if label == "" {
			_ = s.B.Tree.ClearLabel(target)
			return
		}
		s.B.Report.Problemf(line, target, "label for a node that is not in the file: dropped")
	}
}

func (s *Session) flush() {
	if !s.hasHeld {
		return
	}
	s.hasHeld = false
	h := &s.held
	src := h.msg
	var before []byte
	if s.nodes == 0 && len(s.before) > 0 {
		before = s.before
		s.before, s.beforeN = nil, 0
	}
	n := len(src)
	if len(before) > 0 {
		n += len(s.BeforeKey) + 5 + len(before)
	}
	if len(h.after) > 0 {
		n += len(s.AfterKey) + 5 + len(h.after)
	}
	msg := s.Arena.Make(n)
	if n == len(src) {
		msg = append(msg, src...)
	} else {
		msg = append(msg, src[:len(src)-1]...)
		for _, kv := range [2]struct {
			key   string
			lines []byte
		}{{s.BeforeKey, before}, {s.AfterKey, h.after}} {
			if len(kv.lines) == 0 {
				continue
			}
			if len(msg) > 1 {
				msg = append(msg, ',')
			}
			msg = append(append(append(msg, '"'), kv.key...), `":[`...)
			msg = append(append(msg, kv.lines[:len(kv.lines)-1]...), ']')
		}
		msg = append(msg, '}')
	}
	id, parent := rebase(h.id, src, msg), rebase(h.parent, src, msg)
	s.nodes++
	if s.Defer {
		s.Deferred = append(s.Deferred, DeferredNode{Line: h.line, ID: id, Parent: parent, Msg: msg, Label: h.label, At: h.at, Active: h.active})
		return
	}
	id = s.B.Add(h.line, id, parent, msg, h.label, h.at)
	if h.active {
		s.active = id
	}
}

// Drain finishes the last node of a deferring Session and returns every node
// it kept, in file order; lines that came before any node are reported.
func (s *Session) Drain() []DeferredNode {
	s.flush()
	if s.beforeN > 0 {
		s.B.Report.Problemf(0, "", strconv.Itoa(s.beforeN)+" lines and no message to keep them with: not imported")
		s.beforeN = 0
	}
	return s.Deferred
}

// Finish inserts the last node and names the branches (see Builder.Finish);
// with active "" main ends at the node Active marked last.
func (s *Session) Finish(active string, ext []byte) (*core.Tree, *Report) {
	s.flush()
	if s.beforeN > 0 {
		s.B.Report.Problemf(0, "", strconv.Itoa(s.beforeN)+" lines and no message to keep them with: not imported")
	}
	if active == "" {
		active = s.active
	}
	return s.B.Finish(active, nil, ext)
}

// RawArray writes a JSON array of raw values.
func RawArray(items [][]byte) []byte {
	out := []byte{'['}
	for i, it := range items {
		core.TickBytes(len(it))
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, it...)
	}
	return append(out, ']')
}

// Attachments splits a node's message into the message proper and its kept
// lines (BeforeKey, AfterKey), so an export writes them back in place.
func Attachments(msg core.Message, beforeKey, afterKey string) (core.Message, [][]byte, [][]byte) {
	bv, hasB := rawjson.Lookup(msg, beforeKey)
	av, hasA := rawjson.Lookup(msg, afterKey)
	if !hasB && !hasA {
		return msg, nil, nil
	}
	before, _ := Elements(bv)
	after, _ := Elements(av)
	return core.Message(WithoutKey(WithoutKey(msg, beforeKey), afterKey)), before, after
}

// Reattach appends the kept lines back to a derived message, as an import does.
func Reattach(msg core.Message, beforeKey string, before [][]byte, afterKey string, after [][]byte) core.Message {
	if len(before) > 0 {
		msg = AppendMember(msg, beforeKey, RawArray(before))
	}
	if len(after) > 0 {
		msg = AppendMember(msg, afterKey, RawArray(after))
	}
	return msg
}

// Placeholder is what a record keeps where its "message" was: the message
// itself is the node's message.
var Placeholder = []byte("0")

// Unfold rebuilds a record whose "message" member was replaced by Placeholder.
func Unfold(rec []byte, message []byte) []byte {
	ms, err := Members(rec)
	if err != nil {
		return rec
	}
	return NewObject(nil).Members(Set(ms, "message", message)).Bytes()
}

// Alias makes the line id (recorded elsewhere, such as a label entry that
// became a node label) transparent: its children hang on its parent.
func (s *Session) Alias(id, parent string) {
	if id != "" {
		s.alias[strings.Clone(id)] = strings.Clone(s.Resolve(parent))
	}
}

// Unfold2 is Unfold for a record whose member key held the message.
func Unfold2(rec []byte, key string, message []byte) []byte {
	ms, err := Members(rec)
	if err != nil {
		return rec
	}
	return NewObject(nil).Members(Set(ms, key, message)).Bytes()
}

// SplitConversations splits a file of conversations (an array of them, or one
// conversation object) into their JSON; format names the format in the
// error.
func SplitConversations(format string, data []byte) ([][]byte, error) {
	switch {
	case len(data) > 0 && data[0] == '[':
		convs, _ := Elements(data)
		return convs, nil
	case len(data) > 0 && data[0] == '{':
		return [][]byte{data}, nil
	}
	return nil, Invalid(format + ": expected an array of conversations or one conversation object")
}
