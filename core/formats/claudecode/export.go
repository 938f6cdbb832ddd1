package claudecode

import (
	"bytes"
	"strconv"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/formats/internal/convert"
	"github.com/sessiontree/sessiontree/core/rawjson"
)

// Export writes t as a transcript: every root's nodes in preorder, the active
// path last (so its leaf is the last line, where Claude Code resumes), the
// kept lines in place, the branches under "tree" in the first line's
// "sessiontree" member (a {"type":"sessiontree",…} line of its own, which
// earlier exports ended with and the import still reads, is one that
// claude-code-log reports as an unknown record; an empty tree's export is
// that line alone). A node imported from Claude Code is written as its own line; any
// other node as a line in Claude Code's form (see nativeLine). A line gets a
// "sessiontree" member only for what it cannot say itself: a parent the link
// phase would not find, a label, a time, members added so readers accept it.
func Export(t *core.Tree) ([]byte, error) {
	if err := convert.Corrupt(t); err != nil {
		return nil, err
	}
	session := sessionOf(t)
	var entries []*entry
	for _, g := range convert.Groups(t, convert.ActiveSet(t)) {
		for _, n := range g.Nodes {
			core.TickBytes(len(n.Message))
			e := newEntry(n, session)
			if len(entries) > 0 && len(e.before) > 0 {
				e.keptInExt = true // lines before a node only come back in place before the first
			}
			entries = append(entries, e)
		}
	}
	placeParents(entries)
	if len(entries) == 0 {
		// No line to carry the branches: they get a line of their own.
		return convert.AppendTreeExtLine(nil, t), nil
	}
	// The branches travel in the first line's "sessiontree" member, as pi's
	// header carries them: a line of a type of its own, with no uuid, is one
	// readers of Claude Code's sessions (claude-code-log) report as unknown.
	entries[0].tree = convert.TreeExt(t)
	var out []byte
	for _, e := range entries {
		core.Tick()
		out = e.appendTo(out)
	}
	return out, nil
}

// entry is one node as the export writes it.
type entry struct {
	n             core.Node
	msg           core.Message // the node's message without its kept lines
	before, after [][]byte     // the kept lines
	line          []byte       // the line, without "sessiontree"
	ext           lineExt
	converted     bool   // the message was put in Claude Code's form: what comes back is that form
	keptInExt     bool   // a kept line readers would refuse: the kept lines travel in "sessiontree"
	tree          []byte // the first line's: the tree's branches (convert.TreeExt), under "tree" in its "sessiontree"
}

func newEntry(n core.Node, session string) *entry {
	msg, before, after := convert.Attachments(n.Message, BeforeKey, AfterKey)
	e := &entry{n: n, msg: msg, before: before, after: after}
	if !e.ownLine() {
		e.line, e.ext, e.converted = nativeLine(n, msg, session)
	}
	for _, l := range append(append([][]byte(nil), before...), after...) {
		if ok, _ := Accepted(l); !ok {
			e.keptInExt = true
		}
	}
	return e
}

// ownLine sets the line of a node imported from Claude Code: its line with
// the message put back, and the members readers require added when missing.
func (e *entry) ownLine() bool {
	rec, ok := rawjson.Lookup(e.msg, Key)
	if !ok || len(rec) == 0 || rec[0] != '{' {
		return false
	}
	ms, err := convert.Members(rec)
	uuid := convert.Str(ms, "uuid")
	if err != nil || uuid == "" {
		return false
	}
	if uuid != e.n.ID {
		e.ext.id = e.n.ID
	}
	if m, has := convert.Get(ms, "message"); has {
		if !bytes.Equal(m, convert.Placeholder) {
			return false
		}
		body := []byte(convert.WithoutKey(e.msg, Key))
		typ := convert.Str(ms, "type")
		if role := e.msg.Role(); (typ == "user" || typ == "assistant") && role != typ {
			e.ext.was = []convert.Member{{Key: "role", Value: convert.Quote(role)}}
			body = setMember(body, "role", convert.Quote(typ))
		}
		var was []convert.Member
		body, e.ext.added, was, e.ext.text = complete(body, typ, e.n.ID, "")
		e.ext.was = append(e.ext.was, was...)
		ms = convert.Set(ms, "message", body)
	}
	typ := convert.Str(ms, "type")
	if typ == "user" || typ == "assistant" || typ == "system" {
		for _, b := range baseMembers {
			v, has := convert.Get(ms, b.key)
			switch {
			case !has:
				ms = append(ms, convert.Member{Key: b.key, Value: defaultOf(b.key, e.n)})
				e.ext.lineAdded = append(e.ext.lineAdded, b.key)
			case !fits(v, b.kind):
				e.ext.lineWas = append(e.ext.lineWas, convert.Member{Key: b.key, Value: v})
				ms = convert.Set(ms, b.key, defaultOf(b.key, e.n))
			}
		}
	}
	e.line = convert.NewObject(nil).Members(ms).Bytes()
	return true
}

// defaultOf is the value an export gives a member readers require that the
// line lacks.
func defaultOf(key string, n core.Node) []byte {
	switch key {
	case "parentUuid":
		if n.Parent == "" {
			return []byte("null")
		}
		return convert.Quote(n.Parent)
	case "isSidechain":
		return []byte("false")
	case "userType":
		return []byte(`"external"`)
	case "uuid":
		return convert.Quote(n.ID)
	case "timestamp":
		return convert.Quote(convert.FormatISO(n.CreatedAtMs))
	}
	return []byte(`""`)
}

// complete gives the message of a line of type typ the members readers
// require (an assistant message's id, type "message", model, stop_reason and
// stop_sequence, and a usage in Claude's words; any
// message's content, a string or a list, and an assistant's a list of
// blocks, as Claude Code always writes it): it adds those it lacks (listed in
// added) and replaces those of another kind (their values kept in was).
//
// text says that an assistant's content string became its text block (see
// lineExt.text), which costs less than keeping the string in was.
func complete(m []byte, typ, id, model string) (out []byte, added []string, was []convert.Member, text bool) {
	if typ != "user" && typ != "assistant" {
		return m, nil, nil, false
	}
	need := [][3]string{{"content", `""`, "string|list"}}
	if typ == "assistant" {
		need = [][3]string{{"id", string(convert.Quote(id)), "string"}, {"type", `"message"`, "message"}, {"model", string(convert.Quote(model)), "string"}, {"content", `[]`, "list"},
			{"stop_reason", "null", "string|null"}, {"stop_sequence", "null", "string|null"}}
	}
	for _, r := range need {
		v, has := rawjson.Lookup(m, r[0])
		switch {
		case !has:
			m = convert.AppendMember(m, r[0], []byte(r[1]))
			added = append(added, r[0])
		case r[2] == "string" && kindOf(v) == "string",
			r[2] == "message" && string(v) == `"message"`,
			r[2] == "list" && kindOf(v) == "array",
			r[2] == "string|list" && (kindOf(v) == "string" || kindOf(v) == "array"),
			r[2] == "string|null" && (kindOf(v) == "string" || kindOf(v) == "null"):
		case r[2] == "list" && kindOf(v) == "string":
			// An assistant's text as a string (Open WebUI's, a Chat
			// Completions reply): one text block, a string again on the way back.
			m = setMember(m, r[0], textBlocks(v))
			text = true
		default:
			was = append(was, convert.Member{Key: r[0], Value: v})
			m = setMember(m, r[0], []byte(r[1]))
		}
	}
	if typ == "assistant" {
		if u, has := rawjson.Lookup(m, "usage"); has && !claudeUsage(u) {
			was = append(was, convert.Member{Key: "usage", Value: u})
			m = setMember(m, "usage", usageOf(u))
		}
	}
	return m, added, was, text
}

// claudeUsage reports whether u is a usage claude-code-log reads: null, or an
// object with whole numbers input_tokens and output_tokens.
func claudeUsage(u []byte) bool {
	if string(u) == "null" {
		return true
	}
	if kindOf(u) != "object" {
		return false
	}
	for _, k := range []string{"input_tokens", "output_tokens"} {
		if v, _ := rawjson.Lookup(u, k); kindOf(v) != "number" || !wholeNumber(v) {
			return false
		}
	}
	return true
}

func wholeNumber(v []byte) bool {
	for i, c := range v {
		if (c < '0' || c > '9') && !(i == 0 && c == '-') {
			return false
		}
	}
	return len(v) > 0
}

// usageOf is another tool's usage in Claude Code's words: input_tokens from
// its input_tokens or prompt_tokens, output_tokens from its output_tokens or
// completion_tokens, 0 when it has neither.
func usageOf(u []byte) []byte {
	count := func(keys ...string) []byte {
		for _, k := range keys {
			if v, _ := rawjson.Lookup(u, k); kindOf(v) == "number" && wholeNumber(v) {
				return v
			}
		}
		return []byte("0")
	}
	return convert.NewObject(nil).Raw("input_tokens", count("input_tokens", "prompt_tokens")).
		Raw("output_tokens", count("output_tokens", "completion_tokens")).Bytes()
}

// textBlocks is an assistant's content string as Claude Code writes its
// text: one text block ([] for "").
// The string's literal is kept as it was (its escapes too), so that the way
// back (textOfBlocks) gives the same bytes.
func textBlocks(v []byte) []byte {
	if string(v) == `""` {
		return []byte("[]")
	}
	b := convert.NewObject(nil).String("type", "text").Raw("text", v).Bytes()
	return append(append([]byte{'['}, b...), ']')
}

// sessionOf is the sessionId of the tree's first line that has one, else the
// id of its first root: what lines made by the export carry.
func sessionOf(t *core.Tree) string {
	for _, g := range convert.Groups(t, nil) {
		for _, n := range g.Nodes {
			core.TickBytes(len(n.Message))
			if rec, ok := rawjson.Lookup(n.Message, Key); ok {
				if s, ok := rawjson.LookupString(rec, "sessionId"); ok && s != "" {
					return s
				}
			}
		}
	}
	return t.Root()
}

// placeParents runs the import's link phase over the lines as they will be
// written and gives each line whose node it would place elsewhere its parent
// in "sessiontree".
func placeParents(entries []*entry) {
	turns := make([]turn, len(entries))
	via := make(map[string]string)
	for k, e := range entries {
		core.TickBytes(len(e.line))
		f := scan(e.line)
		turns[k] = turn{id: e.n.ID, parent: unquote(f.parent), hasParent: f.hasParent}
		if f.Message != nil {
			turns[k].msgID = unquote(f.msgID)
			turns[k].tools = toolIDs(f.Message)
		}
		for _, l := range append(append([][]byte(nil), e.before...), e.after...) {
			if id, _ := rawjson.LookupString(l, "uuid"); id != "" {
				p, _ := rawjson.LookupString(l, "parentUuid")
				via[id] = p
			}
		}
	}
	parents, _ := link(turns, via)
	for k, e := range entries {
		if parents[k] != e.n.Parent {
			e.ext.parent, e.ext.hasParent = e.n.Parent, true
		}
	}
}

// appendTo writes the entry: its kept lines before, the line, those after.
func (e *entry) appendTo(out []byte) []byte {
	if !e.keptInExt {
		out = convert.AppendLines(out, e.before)
	}
	line := e.withExt(false, false)
	if msgOK, restOK := e.faithful(line); !msgOK || !restOK {
		// Only what the line does not give back: a label alone is not a
		// reason to carry the message (until Dec 6, night, every labelled
		// line of an imported session carried its whole message again).
		line = e.withExt(!msgOK, true)
	}
	out = append(append(out, line...), '\n')
	if !e.keptInExt {
		out = convert.AppendLines(out, e.after)
	}
	return out
}

// faithful reports whether importing line gives the entry's message back,
// and its label and time.
func (e *entry) faithful(line []byte) (msgOK, restOK bool) {
	msg, label, at, err := derive(line)
	if err != nil {
		return false, false
	}
	return bytes.Equal(convert.Reattach(msg, BeforeKey, e.before, AfterKey, e.after), e.n.Message), label == e.n.Label && at == e.n.CreatedAtMs
}

// withExt is the line with its "sessiontree" member, if it needs one; msg
// adds the node's message (the line does not give it back), whole its label
// and time. A message put in Claude Code's form (converted) is kept so too,
// its strings the line holds as references to them (convert.Elide): until
// Dec 6, night, such a message came back in Claude Code's form, and what that
// form has no place for (another tool's fields, a tool call's type, pi's
// session fields) was lost.
func (e *entry) withExt(msg, whole bool) []byte {
	o := convert.NewObject(nil)
	if msg {
		m, elided := []byte(e.msg), false
		var base []byte
		if e.converted {
			if ms, err := convert.Members(e.line); err == nil {
				base = convert.NewObject(nil).Members(ms).Bytes() // what the import reads references in
				m, elided = convert.Elide(m, base)
			}
		}
		o.Raw("message", m)
		if elided {
			o.Raw("elided", strconv.AppendUint(nil, uint64(convert.Checksum(base)), 10))
		}
	}
	if whole {
		if e.n.Label != "" {
			o.String("label", e.n.Label)
		}
		o.Int("created_at_ms", e.n.CreatedAtMs)
	}
	x := e.ext
	if x.id != "" {
		o.String("id", x.id)
	}
	if x.hasParent {
		if x.parent == "" {
			o.Raw("parent", []byte("null"))
		} else {
			o.String("parent", x.parent)
		}
	}
	if x.bare {
		o.Raw("bare", []byte("true"))
	}
	if len(x.added) > 0 {
		o.Raw("added", rawjson.AppendStrings(nil, x.added))
	}
	if len(x.was) > 0 {
		o.Raw("was", convert.NewObject(nil).Members(x.was).Bytes())
	}
	if x.text {
		o.Raw("text", []byte("true"))
	}
	if len(x.lineAdded) > 0 {
		o.Raw("line_added", rawjson.AppendStrings(nil, x.lineAdded))
	}
	if len(x.lineWas) > 0 {
		o.Raw("line_was", convert.NewObject(nil).Members(x.lineWas).Bytes())
	}
	if e.keptInExt {
		if len(e.before) > 0 {
			o.Raw("before", convert.RawArray(e.before))
		}
		if len(e.after) > 0 {
			o.Raw("after", convert.RawArray(e.after))
		}
	}
	if e.tree != nil {
		o.Raw("tree", e.tree)
	}
	ext := o.Bytes()
	if len(ext) == 2 {
		return e.line
	}
	ms, err := convert.Members(e.line)
	if err != nil {
		return e.line
	}
	return convert.NewObject(nil).Members(convert.Without(ms, convert.ExtKey)).Raw(convert.ExtKey, ext).Bytes()
}
