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
// last entry of any type, as pi resumes there: at the node its parent chain
// reaches when it is not a message.
package pi

import (
	"bytes"
	"io"
	"strconv"

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
	var mig migration
	// pi's leaf is the last entry of any type (its _buildIndex moves the
	// leaf to each entry in turn): when that is not a message (a model change
	// after navigating back, a label), main ends where its parent chain does.
	lastEntry := ""
	err := convert.EachLine(r, rep, func(n int, obj []byte) {
		obj = mig.entry(obj)
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
			lastEntry = ""
			return
		}
		ms, _ := convert.Members(obj)
		id, parent := convert.Str(ms, "id"), convert.Str(ms, "parentId")
		switch typ {
		case convert.ExtKey:
			ext = bytes.Clone(obj)
			return
		case "label":
			notes.Add("label entry became a node label (its own id is not kept)", "label entries became node labels (their own ids are not kept)")
			s.Label(n, convert.Str(ms, "targetId"), convert.Str(ms, "label"))
			s.Alias(id, parent)
			lastEntry = id
			return
		case "message", "branch_summary", "compaction":
		case "session":
			// An export keeps the branches in the header's "sessiontree"
			// member (pi takes the last entry as the leaf, so they cannot
			// follow the entries); a header it made up says "synthetic".
			if x, ok := convert.Get(ms, convert.ExtKey); ok {
				xm, _ := convert.Members(x)
				if _, has := convert.Get(xm, "branches"); has {
					ext = bytes.Clone(x)
				}
				if v, _ := convert.Get(xm, "synthetic"); string(v) == "true" || string(x) == "{}" {
					return
				}
				obj = convert.NewObject(nil).Members(convert.Without(ms, convert.ExtKey)).Bytes()
			}
			s.Fold(obj, id, parent)
			return
		default:
			notes.Add("entry of another type kept with the entry before it", "entries of other types kept with the entry before them")
			s.Fold(obj, id, parent)
			lastEntry = id
			return
		}
		msg, label, at, err := derive(obj)
		if err != nil {
			rep.Problemf(n, id, err.Error()+": kept with the entry before it")
			s.Fold(obj, id, parent)
			lastEntry = id
			return
		}
		lastEntry = ""
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
	if mig.from > 0 {
		rep.Note("a version " + strconv.Itoa(mig.from) + " session, migrated to version 3 as pi migrates it (each entry under the one before it, new ids)")
	}
	active := ""
	if lastEntry != "" {
		active = s.Resolve(lastEntry)
	}
	t, rep2 := s.Finish(active, ext)
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

// Export writes t as a pi session: a header (the original one when kept)
// whose "sessiontree" member holds the branches, the entries in preorder with
// the active path's leaf last (pi's SessionManager opens a session at its last
// entry), a label entry after each labelled node. A node that did not come
// from pi is written as a pi message (see native).
func Export(t *core.Tree) ([]byte, error) {
	if err := convert.Corrupt(t); err != nil {
		return nil, err
	}
	ext := convert.TreeExt(t)
	var out []byte
	first := true
	folded := map[string]string{} // id of a kept entry → the node its children hang on
	for _, n := range order(t) {
		core.Tick()
		msg, before, after := convert.Attachments(n.Message, BeforeKey, AfterKey)
		for _, l := range append(before[:len(before):len(before)], after...) {
			if id, _ := rawjson.LookupString(l, "id"); id != "" {
				p, _ := rawjson.LookupString(l, "parentId")
				folded[id] = resolve(folded, p)
			}
		}
		written := before
		if first {
			first = false
			if len(before) > 0 && isHeader(before[0]) {
				written = append([][]byte{withExt(before[0], ext)}, before[1:]...)
			} else {
				out = append(out, `{"type":"session","version":3,"id":`...)
				out = rawjson.AppendString(out, n.ID+"-session")
				out = append(out, `,"timestamp":`...)
				out = rawjson.AppendString(out, convert.FormatISO(n.CreatedAtMs))
				out = append(out, `,"cwd":"","sessiontree":{"synthetic":true,`...)
				out = append(out, ext[1:]...)
				out = append(out, "}\n"...)
			}
		}
		out = convert.AppendLines(out, written)
		derived := convert.Reattached(derive, BeforeKey, before, AfterKey, after)
		out = append(out, convert.Faithful(record(t, n, msg, folded), n, func(r []byte) (core.Message, string, int64, error) {
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
	if first {
		// No node: a header with the branches.
		out = append(out, `{"type":"session","version":3,"id":"session","timestamp":"1970-01-01T00:00:00.000Z","cwd":"","sessiontree":{"synthetic":true,`...)
		out = append(append(out, ext[1:]...), "}\n"...)
	}
	return out, nil
}

// order lists the nodes as Export writes them: each root's nodes in preorder
// with the active child last, so the active leaf ends its root; the root that
// holds the active leaf comes last. When that root is the tree's first, only
// its first node stays first (so an import finds the same first root) and
// the rest of it follows the other roots: pi reads entries in any order.
func order(t *core.Tree) []core.Node {
	groups := convert.Groups(t, convert.ActiveSet(t))
	leaf := ""
	if br, ok := t.LookupBranch(t.ActiveBranch()); ok {
		leaf = br.Leaf
	}
	a := -1
	for gi, g := range groups {
		for _, n := range g.Nodes {
			if n.ID == leaf {
				a = gi
			}
		}
	}
	var out []core.Node
	switch {
	case a < 0 || a == len(groups)-1 || (a == 0 && len(groups[0].Nodes) == 1):
		for _, g := range groups {
			out = append(out, g.Nodes...)
		}
	case a == 0:
		out = append(out, groups[0].Nodes[0])
		for _, g := range groups[1:] {
			out = append(out, g.Nodes...)
		}
		out = append(out, groups[0].Nodes[1:]...)
	default:
		for gi, g := range groups {
			if gi != a {
				out = append(out, g.Nodes...)
			}
		}
		out = append(out, groups[a].Nodes...)
	}
	return out
}

func isHeader(line []byte) bool {
	typ, _ := rawjson.LookupString(line, "type")
	return typ == "session"
}

// withExt adds the tree's "sessiontree" member to a header line.
func withExt(line, ext []byte) []byte {
	ms, err := convert.Members(line)
	if err != nil {
		return line
	}
	return convert.NewObject(nil).Members(convert.Without(ms, convert.ExtKey)).Raw(convert.ExtKey, ext).Bytes()
}

// resolve follows kept entries (a model change, a thinking level change) up
// to the node their children hang on, as the import does.
func resolve(folded map[string]string, id string) string {
	for i := 0; i < 1000; i++ {
		p, ok := folded[id]
		if !ok {
			return id
		}
		id = p
	}
	return id
}

// record is n's entry: its own pi line when it still fits n (its id, and a
// parent that is n's parent or a kept entry under it), else a message entry.
func record(t *core.Tree, n core.Node, msg core.Message, folded map[string]string) []byte {
	if rec, ok := rawjson.Lookup(msg, Key); ok {
		ms, err := convert.Members(rec)
		if err == nil && convert.Str(ms, "id") == n.ID && (n.Parent == "" || resolve(folded, convert.Str(ms, "parentId")) == n.Parent) {
			m, has := convert.Get(ms, "message")
			switch {
			case has && bytes.Equal(m, convert.Placeholder):
				return convert.Unfold(rec, convert.WithoutKey(msg, Key))
			case !has:
				return rec
			}
		}
	}
	o := convert.NewObject(nil).String("type", "message").String("id", n.ID)
	if n.Parent != "" {
		o.String("parentId", n.Parent)
	} else {
		o.Raw("parentId", []byte("null"))
	}
	return o.String("timestamp", convert.FormatISO(n.CreatedAtMs)).Raw("message", native(t, n, msg)).Bytes()
}
