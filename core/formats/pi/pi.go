// Package pi imports and exports pi coding-agent session files (JSONL v3): a
// "session" header line, then entries linked by id and parentId.
//
// A "message" entry becomes a node whose message is the entry's message plus
// "pi": the entry with "message" replaced by 0. "branch_summary" and
// "compaction" entries are what pi puts in the model's context as a user
// message, so they become nodes {"role":"user","content":summary,"pi":entry};
// a branch_summary also becomes the summary of the branch that ends at its
// fromId. "label" entries become node labels (export writes them back as label
// entries). Other entries (model changes, custom entries) are kept with the
// node before them under "pi_after", and their children hang on their parent.
// The header is kept under "pi_before" on the first node. main ends at the
// last entry.
package pi

import (
	"bytes"
	"io"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/formats/internal/convert"
	"github.com/sessiontree/sessiontree/core/rawjson"
)

// Keys of the node's message that hold the entry and the lines kept with it.
const (
	Key       = "pi"
	AfterKey  = "pi_after"
	BeforeKey = "pi_before"
)

// Import reads a session file held in memory.
func Import(data []byte, opts ...core.Option) (*core.Tree, convert.Report, error) {
	return ImportReader(bytes.NewReader(data), opts...)
}

// ImportReader reads a session file line by line.
func ImportReader(r io.Reader, opts ...core.Option) (*core.Tree, convert.Report, error) {
	s := convert.NewSession("pi", AfterKey, BeforeKey, opts)
	rep := s.B.Report
	var ext []byte
	var notes convert.Counted
	type pendingSummary struct{ from, text string }
	var summaries []pendingSummary
	err := convert.EachLine(r, rep, func(n int, obj []byte) {
		f := scan(obj)
		typ := convert.View(f.typ)
		if typ == "message" && f.Simple() {
			// The common entry: its message built straight into the session's
			// scratch buffer; id and parent are views into it.
			msg := convert.Folded(s.Scratch(), obj, f.Message, Key)
			at, _ := convert.ParseISO(convert.View(f.timestamp))
			id := convert.View(convert.FoldedAt(msg, obj, f.Message, Key, f.id))
			parent := convert.View(convert.FoldedAt(msg, obj, f.Message, Key, f.parent))
			s.Node(n, id, parent, msg, "", at)
			s.Active()
			return
		}
		ms, _ := convert.Members(obj)
		id, parent := convert.Str(ms, "id"), convert.Str(ms, "parentId")
		switch typ {
		case convert.ExtKey:
			ext = bytes.Clone(obj)
			return
		case "label":
			notes.Add("label entries became node labels (their own ids are not kept)")
			s.Label(n, convert.Str(ms, "targetId"), convert.Str(ms, "label"))
			s.Alias(id, parent)
			return
		case "message", "branch_summary", "compaction":
		case "session":
			if _, synthetic := convert.Get(ms, convert.ExtKey); synthetic {
				return // the header an export made up: not part of the tree
			}
			s.Fold(obj, id, parent)
			return
		default:
			notes.Add("entries of other types kept with the entry before them")
			s.Fold(obj, id, parent)
			return
		}
		msg, label, at, err := derive(obj)
		if err != nil {
			rep.Problemf(n, id, err.Error()+": kept with the entry before it")
			s.Fold(obj, id, parent)
			return
		}
		if typ == "branch_summary" {
			summaries = append(summaries, pendingSummary{convert.Str(ms, "fromId"), convert.Str(ms, "summary")})
		}
		s.Node(n, id, parent, msg, label, at)
		s.Active()
	})
	if err != nil {
		return nil, *rep, err
	}
	if rep.Records == 0 {
		return nil, *rep, convert.Invalid("pi: no line to read")
	}
	notes.Flush(rep)
	t, rep2 := s.Finish("", ext)
	if ext == nil {
		for _, ps := range summaries {
			for _, br := range t.Branches() {
				if br.Leaf == ps.from && br.Summary == nil && ps.text != "" {
					n, _ := t.Node(ps.from)
					_ = t.SummarizeBranch(br.Name, ps.text, "", n.CreatedAtMs)
				}
			}
		}
	}
	return t, *rep2, nil
}

// fields are the members of an entry the fast path reads: raw values, slices
// of the line (string members only when they are strings).
type fields struct {
	typ, id, parent, timestamp []byte
	convert.LineScan
}

func scan(obj []byte) fields {
	var f fields
	convert.EachMember(obj, func(key, v []byte) bool {
		switch string(key) {
		case "type":
			convert.First(&f.typ, v)
		case "id":
			convert.First(&f.id, v)
		case "parentId":
			convert.First(&f.parent, v)
		case "timestamp":
			convert.First(&f.timestamp, v)
		default:
			f.Member(key, v)
		}
		return true
	})
	convert.StringsOnly(&f.typ, &f.id, &f.parent, &f.timestamp)
	return f
}

// derive turns an entry into a node's message, label and time; a
// branch_summary or compaction entry is a user node with its "summary".
func derive(line []byte) (core.Message, string, int64, error) {
	return convert.DeriveLine(line, Key, func(base []convert.Member) (core.Message, error) {
		if typ := convert.Str(base, "type"); typ == "branch_summary" || typ == "compaction" {
			return convert.Wrap("user", convert.Str(base, "summary"), Key, convert.NewObject(nil).Members(base).Bytes()), nil
		}
		return nil, convert.Invalid("entry has no message")
	})
}

// Export writes t as a pi session: a header (the original one when kept), the
// entries in preorder with the active path last, a label entry after each
// labelled node, and a final {"type":"sessiontree",…} line with the branches.
func Export(t *core.Tree) ([]byte, error) {
	if err := convert.Corrupt(t); err != nil {
		return nil, err
	}
	var out []byte
	first := true
	for _, g := range convert.Groups(t, convert.ActiveSet(t)) {
		for _, n := range g.Nodes {
			msg, before, after := convert.Attachments(n.Message, BeforeKey, AfterKey)
			if first && len(before) == 0 {
				out = append(out, `{"type":"session","version":3,"id":`...)
				out = rawjson.AppendString(out, n.ID+"-session")
				out = append(out, `,"timestamp":`...)
				out = rawjson.AppendString(out, convert.FormatISO(n.CreatedAtMs))
				out = append(out, `,"sessiontree":{}}`+"\n"...)
			}
			first = false
			out = convert.AppendLines(out, before)
			derived := convert.Reattached(derive, BeforeKey, before, AfterKey, after)
			out = append(out, convert.Faithful(record(n, msg), n, func(r []byte) (core.Message, string, int64, error) {
				m, _, a, err := derived(r)
				return m, n.Label, a, err // labels travel as label entries
			})...)
			out = append(out, '\n')
			if n.Label != "" {
				o := convert.NewObject(out).String("type", "label").String("id", n.ID+"-label").String("parentId", n.ID).
					String("timestamp", convert.FormatISO(n.CreatedAtMs)).String("targetId", n.ID).String("label", n.Label)
				out = append(o.Bytes(), '\n')
			}
			out = convert.AppendLines(out, after)
		}
	}
	return convert.AppendTreeExtLine(out, t), nil
}

func record(n core.Node, msg core.Message) []byte {
	if line := convert.OwnLine(n, msg, Key, "id", "parentId"); line != nil {
		return line
	}
	o := convert.NewObject(nil).String("type", "message").String("id", n.ID)
	if n.Parent != "" {
		o.String("parentId", n.Parent)
	} else {
		o.Raw("parentId", []byte("null"))
	}
	return o.String("timestamp", convert.FormatISO(n.CreatedAtMs)).Raw("message", msg).Bytes()
}
