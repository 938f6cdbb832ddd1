package convert

import (
	"strconv"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/rawjson"
)

// Session builds a tree from a JSONL session file, line by line. It holds back
// the last node until the next one comes, so lines that are not messages (a
// file snapshot, a model change) can be kept with the message before them,
// under AfterKey, and lines before the first message under BeforeKey on the
// first node: written back in place on export, never dropped.
type Session struct {
	B         *Builder
	AfterKey  string
	BeforeKey string
	held      *heldNode
	before    [][]byte
	alias     map[string]string // folded line id → the node its children hang on
	nodes     int
}

type heldNode struct {
	line              int
	id, parent, label string
	msg               core.Message
	at                int64
	after             [][]byte
}

// NewSession starts a session import.
func NewSession(format, afterKey, beforeKey string, opts []core.Option) *Session {
	return &Session{B: NewBuilder(format, opts), AfterKey: afterKey, BeforeKey: beforeKey, alias: map[string]string{}}
}

// Resolve follows folded lines up to the node a child of parent hangs on.
func (s *Session) Resolve(parent string) string {
	for i := 0; i < 1000; i++ {
		p, ok := s.alias[parent]
		if !ok {
			return parent
		}
		parent = p
	}
	return parent
}

// Node adds a message line; it returns the id it was given once inserted.
func (s *Session) Node(line int, id, parent string, msg core.Message, label string, at int64) {
	s.flush()
	s.held = &heldNode{line: line, id: id, parent: s.Resolve(parent), msg: msg, label: label, at: at}
}

// Fold keeps a line that is not a message with the message before it. A line
// with an id is made transparent: its children hang on its parent.
func (s *Session) Fold(raw []byte, id, parent string) {
	if id != "" {
		s.alias[id] = s.Resolve(parent)
	}
	if s.held == nil {
		s.before = append(s.before, raw)
		return
	}
	s.held.after = append(s.held.after, raw)
}

// Label sets the label of node target (a label line).
func (s *Session) Label(line int, target, label string) {
	if s.held != nil && s.held.id == target {
		s.held.label = label
		return
	}
	s.flush()
	if err := s.B.Tree.Label(target, label); err != nil {
		if label == "" {
			_ = s.B.Tree.ClearLabel(target)
			return
		}
		s.B.Report.Problemf(line, target, "label for a node that is not in the file: dropped")
	}
}

func (s *Session) flush() {
	h := s.held
	if h == nil {
		return
	}
	s.held = nil
	msg := h.msg
	if s.nodes == 0 && len(s.before) > 0 {
		msg = AppendMember(msg, s.BeforeKey, rawArray(s.before))
		s.before = nil
	}
	if len(h.after) > 0 {
		msg = AppendMember(msg, s.AfterKey, rawArray(h.after))
	}
	s.nodes++
	s.B.Add(h.line, h.id, h.parent, msg, h.label, h.at)
}

// Finish inserts the last node and names the branches (see Builder.Finish).
func (s *Session) Finish(active string, ext []byte) (*core.Tree, *Report) {
	s.flush()
	if len(s.before) > 0 {
		s.B.Report.Problemf(0, "", strconv.Itoa(len(s.before))+" lines and no message to keep them with: not imported")
	}
	return s.B.Finish(active, nil, ext)
}

func rawArray(items [][]byte) []byte {
	out := []byte{'['}
	for i, it := range items {
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
		msg = AppendMember(msg, beforeKey, rawArray(before))
	}
	if len(after) > 0 {
		msg = AppendMember(msg, afterKey, rawArray(after))
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
		s.alias[id] = s.Resolve(parent)
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
