// Package claudecode imports and exports Claude Code session transcripts
// (JSONL, one record a line, linked by uuid and parentUuid).
//
// A line with a "message" becomes a node whose message is that message (role,
// content, …) plus "claudecode": the line with "message" replaced by 0, so the
// line is kept whole without holding its content twice. A line with a uuid but
// no message (a system line such as compact_boundary) becomes a node with role
// "system" and its "content". Lines without a uuid (summaries, file history
// snapshots) are kept with the node before them under "claudecode_after".
//
// Roots: a compact_boundary line has parentUuid null and points back with
// logicalParentUuid; it stays a root (the tree is a forest) so the active
// branch projects what the model saw after compaction, and the pre-compaction
// history stays whole under its own branch. Sidechain (subagent) lines are
// nodes like any other; a sidechain root is a root. Assistant lines that share
// message.id (one per content block) stay one node each, in their chain.
// main ends at the last non-sidechain line.
package claudecode

import (
	"bytes"
	"io"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/formats/internal/convert"
	"github.com/sessiontree/sessiontree/core/rawjson"
)

// Keys of the node's message that hold the line and the lines kept with it.
const (
	Key       = "claudecode"
	AfterKey  = "claudecode_after"
	BeforeKey = "claudecode_before"
)

// Import reads a session transcript held in memory.
func Import(data []byte, opts ...core.Option) (*core.Tree, convert.Report, error) {
	return ImportReader(bytes.NewReader(data), opts...)
}

// ImportReader reads a session transcript line by line: memory grows with
// the tree (one copy of each line), not with the file.
func ImportReader(r io.Reader, opts ...core.Option) (*core.Tree, convert.Report, error) {
	s := convert.NewSession("claudecode", AfterKey, BeforeKey, opts)
	rep := s.B.Report
	var ext []byte
	var notes convert.Counted
	msgIDs := make(map[string]bool)
	err := convert.EachLine(r, rep, func(n int, obj []byte) {
		f := scan(obj)
		if string(f.typ) == `"`+convert.ExtKey+`"` {
			ext = bytes.Clone(obj)
			return
		}
		if convert.View(f.uuid) == "" {
			notes.Add("lines without uuid (" + convert.View(f.typ) + ") kept with the node before them")
			s.Fold(obj, "", "")
			return
		}
		var msg core.Message
		var id, parent, label string
		var at int64
		if f.Simple() {
			// The common line: build the message straight into the session's
			// scratch buffer; id and parent are views into it.
			msg = convert.Folded(s.Scratch(), obj, f.Message, Key)
			id, parent = convert.View(convert.FoldedAt(msg, obj, f.Message, Key, f.uuid)), convert.View(convert.FoldedAt(msg, obj, f.Message, Key, f.parent))
			at, _ = convert.ParseISO(convert.View(f.timestamp))
		} else {
			var err error
			msg, label, at, err = derive(obj)
			id, parent = unquote(f.uuid), unquote(f.parent)
			if err != nil {
				rep.Problemf(n, id, err.Error()+": kept with the node before it")
				s.Fold(obj, id, parent)
				return
			}
		}
		if string(f.subtype) == `"compact_boundary"` {
			notes.Add("compact_boundary lines kept as roots (logicalParentUuid stays in the line)")
		}
		if f.msgID != nil {
			var mid string
			if f.Simple() {
				// A view into msg, which the session keeps: no copy.
				mid = convert.View(convert.FoldedAt(msg, obj, f.Message, Key, f.msgID))
			} else {
				mid = unquote(f.msgID)
			}
			if msgIDs[mid] {
				notes.Add("assistant lines sharing a message.id kept as consecutive nodes")
			}
			msgIDs[mid] = true
		}
		s.Node(n, id, parent, msg, label, at)
		if string(f.sidechain) != "true" {
			s.Active()
		}
	})
	if err != nil {
		return nil, *rep, err
	}
	if rep.Records == 0 {
		return nil, *rep, convert.Invalid("claudecode: no line to read")
	}
	notes.Flush(rep)
	t, rep2 := s.Finish("", ext)
	return t, *rep2, nil
}

func unquote(lit []byte) string {
	if len(lit) == 0 || lit[0] != '"' {
		return ""
	}
	return rawjson.Unquote(lit)
}

// fields are the members of a line the import reads: raw values, slices of
// the line (string members only when they are strings).
type fields struct {
	typ, uuid, parent, subtype, sidechain, timestamp []byte
	msgID                                            []byte
	convert.LineScan
}

func scan(obj []byte) fields {
	var f fields
	convert.EachMember(obj, func(key, v []byte) bool {
		switch string(key) {
		case "type":
			convert.First(&f.typ, v)
		case "uuid":
			convert.First(&f.uuid, v)
		case "parentUuid":
			convert.First(&f.parent, v)
		case "subtype":
			convert.First(&f.subtype, v)
		case "isSidechain":
			convert.First(&f.sidechain, v)
		case "timestamp":
			convert.First(&f.timestamp, v)
		default:
			f.Member(key, v)
		}
		return true
	})
	convert.StringsOnly(&f.typ, &f.uuid, &f.parent, &f.subtype, &f.timestamp)
	if f.Message != nil {
		if id, ok := rawjson.Lookup(f.Message, "id"); ok && id[0] == '"' {
			f.msgID = id
		}
	}
	return f
}

// derive turns a line into a node's message, label and time; a line without
// a message object is a system node with the line's "content".
func derive(line []byte) (core.Message, string, int64, error) {
	return convert.DeriveLine(line, Key, func(base []convert.Member) (core.Message, error) {
		return convert.Wrap("system", convert.Str(base, "content"), Key, convert.NewObject(nil).Members(base).Bytes()), nil
	})
}

// Export writes t as a transcript: every root's nodes in preorder, the active
// path last (so its leaf is the last line, where Claude Code resumes), the
// kept lines in place, and a final {"type":"sessiontree",…} line with the
// branches.
func Export(t *core.Tree) ([]byte, error) {
	if err := convert.Corrupt(t); err != nil {
		return nil, err
	}
	var out []byte
	for _, g := range convert.Groups(t, convert.ActiveSet(t)) {
		for _, n := range g.Nodes {
			msg, before, after := convert.Attachments(n.Message, BeforeKey, AfterKey)
			out = convert.AppendLines(out, before)
			out = append(out, convert.Faithful(record(n, msg), n, convert.Reattached(derive, BeforeKey, before, AfterKey, after))...)
			out = append(out, '\n')
			out = convert.AppendLines(out, after)
		}
	}
	return convert.AppendTreeExtLine(out, t), nil
}

// record is the line written for n: its own line when it came from Claude
// Code and still fits the tree, else a user or assistant line made from it.
func record(n core.Node, msg core.Message) []byte {
	if line := convert.OwnLine(n, msg, Key, "uuid", "parentUuid"); line != nil {
		return line
	}
	typ := "user"
	if n.Message.Role() == "assistant" {
		typ = "assistant"
	}
	o := convert.NewObject(nil)
	if n.Parent != "" {
		o.String("parentUuid", n.Parent)
	} else {
		o.Raw("parentUuid", []byte("null"))
	}
	return o.Raw("isSidechain", []byte("false")).String("type", typ).String("uuid", n.ID).
		String("timestamp", convert.FormatISO(n.CreatedAtMs)).Raw("message", msg).Bytes()
}
