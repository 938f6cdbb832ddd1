package claudecode

import (
	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/formats/internal/convert"
	"github.com/sessiontree/sessiontree/core/rawjson"
)

// lineExt is what a line's "sessiontree" member carries beyond the node
// extension every format shares (message, label, created_at_ms): what an
// export changed or added so that Claude Code and its readers accept the
// line, and how to undo it.
type lineExt struct {
	id        string   // the node's id, when the line's uuid is another (a renamed duplicate)
	parent    string   // the node's parent, when the link phase would place the line elsewhere
	hasParent bool     // parent is set ("" for a root)
	bare      bool     // the node's message is the line's message itself, with no "claudecode" member
	added     []string // members the export added to the line's message
	was       []convert.Member
	lineAdded []string         // members the export added to the line itself
	lineWas   []convert.Member // members of the line the export replaced, as they were
	// text: the message's content was a string, written as its one text
	// block ([] for ""): the import makes it that string again.
	text bool
	// kept lines readers would refuse, carried here rather than in place
	before, after [][]byte
}

func readLineExt(raw []byte) lineExt {
	var e lineExt
	ms, err := convert.Members(raw)
	if err != nil {
		return e
	}
	e.id = convert.Str(ms, "id")
	if p, ok := convert.Get(ms, "parent"); ok {
		e.hasParent = true
		if len(p) > 0 && p[0] == '"' {
			e.parent = rawjson.Unquote(p)
		}
	}
	if b, ok := convert.Get(ms, "bare"); ok && string(b) == "true" {
		e.bare = true
	}
	e.added = stringList(ms, "added")
	e.lineAdded = stringList(ms, "line_added")
	if b, ok := convert.Get(ms, "before"); ok {
		e.before, _ = convert.Elements(b)
	}
	if a, ok := convert.Get(ms, "after"); ok {
		e.after, _ = convert.Elements(a)
	}
	if w, ok := convert.Get(ms, "was"); ok {
		e.was, _ = convert.Members(w)
	}
	if w, ok := convert.Get(ms, "line_was"); ok {
		e.lineWas, _ = convert.Members(w)
	}
	if b, ok := convert.Get(ms, "text"); ok && string(b) == "true" {
		e.text = true
	}
	return e
}

func stringList(ms []convert.Member, key string) []string {
	raw, ok := convert.Get(ms, key)
	if !ok {
		return nil
	}
	list, _ := convert.Elements(raw)
	var out []string
	for _, v := range list {
		if len(v) > 0 && v[0] == '"' {
			out = append(out, rawjson.Unquote(v))
		}
	}
	return out
}

// derive turns a line into a node's message, label and time (the Derive an
// export checks its lines with).
func derive(line []byte) (core.Message, string, int64, error) {
	m, l, a, _, err := deriveExt(line)
	return m, l, a, err
}

// deriveExt is derive that also returns the line's extension. A line with a
// message object gives that message plus "claudecode" (the line with
// "message" replaced by 0); a line without one is a system node with the
// line's "content".
func deriveExt(line []byte) (core.Message, string, int64, lineExt, error) {
	ms, err := convert.Members(line)
	if err != nil {
		return nil, "", 0, lineExt{}, err
	}
	var e lineExt
	if raw, ok := convert.Get(ms, convert.ExtKey); ok {
		e = readLineExt(raw)
	}
	base := convert.Without(ms, append([]string{convert.ExtKey}, e.lineAdded...)...)
	for _, w := range e.lineWas {
		base = convert.Set(base, w.Key, w.Value)
	}
	var at int64
	if ts := convert.Str(base, "timestamp"); ts != "" {
		at, _ = convert.ParseISO(ts)
	}
	var msg core.Message
	if m, ok := convert.Get(base, "message"); ok && len(m) > 0 && m[0] == '{' {
		if _, ok := rawjson.LookupString(m, "role"); !ok {
			return nil, "", 0, e, convert.Invalid("message has no string role")
		}
		if len(e.added) > 0 || len(e.was) > 0 || e.text {
			mm, err := convert.Members(m)
			if err != nil {
				return nil, "", 0, e, err
			}
			mm = convert.Without(mm, e.added...)
			for _, w := range e.was {
				mm = convert.Set(mm, w.Key, w.Value)
			}
			if c, ok := convert.Get(mm, "content"); e.text && ok {
				mm = convert.Set(mm, "content", textOfBlocks(c))
			}
			m = convert.NewObject(nil).Members(mm).Bytes()
		}
		if e.bare {
			msg = core.Message(m)
		} else {
			rec := convert.NewObject(nil).Members(convert.Set(base, "message", convert.Placeholder)).Bytes()
			msg = convert.AppendMember(m, Key, rec)
		}
	} else if ok {
		return nil, "", 0, e, convert.Invalid("message is not an object")
	} else {
		msg = convert.Wrap("system", convert.Str(base, "content"), Key, convert.NewObject(nil).Members(base).Bytes())
	}
	msg, label, at, err := convert.WithNodeExt(ms, msg, at)
	return msg, label, at, e, err
}

// textOfBlocks is the string an assistant's content was before an export
// wrote it as blocks (lineExt.text): the text of its one text block, "" for
// none; content of another shape (edited since) stays as it is.
func textOfBlocks(c []byte) []byte {
	blocks, err := convert.Elements(c)
	switch {
	case err != nil || len(blocks) > 1:
		return c
	case len(blocks) == 0:
		return []byte(`""`)
	}
	if typ, _ := rawjson.LookupString(blocks[0], "type"); typ != "text" {
		return c
	}
	if text, ok := rawjson.Lookup(blocks[0], "text"); ok && len(text) > 0 && text[0] == '"' {
		return text
	}
	return c
}
