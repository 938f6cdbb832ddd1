// Package claudecode imports and exports Claude Code session transcripts
// (JSONL, one record a line, linked by uuid and parentUuid).
//
// A line with a "message" becomes a node whose message is that message (role,
// content, …) plus "claudecode": the line with "message" replaced by 0, so the
// line is kept whole without holding its content twice. A system line with a
// text "content" (a local command, a compact_boundary) becomes a node with
// role "system" and that content. Every other line is not a turn of the
// conversation — progress events, hook summaries, turn durations, file
// history snapshots, summaries — and is kept with the node before it under
// "claudecode_after" (before the first node: "claudecode_before"), written
// back in place on export. A turn whose parentUuid names such a line hangs on
// that line's nearest turn ancestor.
//
// Parallel tool calls: Claude Code writes an assistant message as one line
// per content block and hangs each tool_result line off its own tool_use
// line. The import rebuilds what the model saw, one sequence: the message's
// lines, then each result (see link). Every line keeps its uuid and its
// parentUuid, so export writes the file back as it was; where an import would
// place a line elsewhere than the tree has it, the line carries the node's
// parent in its "sessiontree" member.
//
// Roots: a compact_boundary line has parentUuid null and points back with
// logicalParentUuid; it stays a root (the tree is a forest) so the active
// branch projects what the model saw after compaction, and the pre-compaction
// history stays whole under its own branch. Sidechain (subagent) lines are
// nodes like any other; a sidechain root is a root. main ends at the last
// non-sidechain turn.
package claudecode

import (
	"bytes"
	"io"
	"strings"

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
// the tree (one copy of each line), not with the file. It runs in three
// phases: scan (each line becomes a turn or is kept with the turn before it),
// link (each turn's parent, see link) and build (the tree).
func ImportReader(r io.Reader, opts ...core.Option) (*core.Tree, convert.Report, error) {
	sc := newScanner(opts)
	if err := convert.EachLine(r, sc.s.B.Report, sc.line); err != nil {
		return nil, *sc.s.B.Report, err
	}
	rep := sc.s.B.Report
	if rep.Records == 0 {
		return nil, *rep, convert.Invalid("claudecode: no line to read")
	}
	nodes := sc.s.Drain()
	for k := range nodes {
		sc.turns[k].id, sc.turns[k].parent = nodes[k].ID, nodes[k].Parent
	}
	parents, moved := link(sc.turns, sc.via)
	sc.turns, sc.via = nil, nil // free for the tree
	active := ""
	for k, n := range nodes {
		p := parents[k]
		if f, ok := sc.fixed[k]; ok {
			p = f
		}
		id := sc.s.B.Add(n.Line, n.ID, p, n.Msg, n.Label, n.At)
		if n.Active {
			active = id
		}
	}
	for ; moved > 0; moved-- {
		sc.notes.Add("line placed in its assistant message's one sequence of tool calls and results (parallel tool calls), as the model saw it; it keeps its parentUuid", "lines placed in their assistant message's one sequence of tool calls and results (parallel tool calls), as the model saw it; each keeps its parentUuid")
	}
	sc.notes.Flush(rep)
	t, rep2 := sc.s.B.Finish(active, nil, sc.ext)
	return t, *rep2, nil
}

// scanner is the scan phase: it turns lines into nodes held by a deferring
// session and records what the link phase needs.
type scanner struct {
	s     *convert.Session
	turns []turn
	fixed map[int]string    // turn → the parent a previous export wrote in "sessiontree"
	via   map[string]string // uuid → parentUuid of lines that are not turns
	ext   []byte
	notes convert.Counted
}

func newScanner(opts []core.Option) *scanner {
	s := convert.NewSession("claudecode", AfterKey, BeforeKey, opts)
	s.Defer = true
	return &scanner{s: s, via: make(map[string]string), fixed: make(map[int]string)}
}

func (sc *scanner) line(n int, obj []byte) {
	s, rep := sc.s, sc.s.B.Report
	f := scan(obj)
	if string(f.typ) == `"`+convert.ExtKey+`"` {
		sc.ext = bytes.Clone(obj) // the branches on a line of their own (an empty tree, or an export before they moved)
		return
	}
	if x, ok := rawjson.Lookup(obj, convert.ExtKey); ok && sc.ext == nil {
		if tree, ok := rawjson.Lookup(x, "tree"); ok && len(tree) > 0 && tree[0] == '{' {
			sc.ext = bytes.Clone(tree) // the branches, in the first line's "sessiontree" (Export)
		}
	}
	uuid := unquote(f.uuid)
	if uuid == "" {
		sc.notes.Add("line without uuid (a summary, a file history snapshot, …) kept with the node before it", "lines without uuid (summaries, file history snapshots, …) kept with the node before them")
		s.Fold(obj, "", "")
		return
	}
	isTurn := f.Message != nil && !f.BadMsg
	if f.Message == nil && !f.BadMsg && string(f.typ) == `"system"` && len(f.content) > 2 && f.content[0] == '"' {
		isTurn = true
	}
	if !isTurn {
		if f.BadMsg {
			rep.Problemf(n, uuid, "message is not an object with a string role: kept with the node before it")
		} else {
			sc.notes.Add("line with a uuid that is not a turn (progress, a hook summary, a turn duration, …) kept with the node before it, its children hung on the nearest turn", "lines with a uuid that are not turns (progress, hook summaries, turn durations, …) kept with the node before them, their children hung on the nearest turn")
		}
		sc.via[uuid] = unquote(f.parent)
		s.Fold(obj, "", "")
		return
	}
	var msg core.Message
	var label string
	var at int64
	id, parent := "", ""
	var kept lineExt
	if f.Simple() {
		// The common line: build the message straight into the session's
		// scratch buffer; id and parent are views into it.
		msg = convert.Folded(s.Scratch(), obj, f.Message, Key)
		id, parent = convert.View(convert.FoldedAt(msg, obj, f.Message, Key, f.uuid)), convert.View(convert.FoldedAt(msg, obj, f.Message, Key, f.parent))
		at, _ = convert.ParseISO(convert.View(f.timestamp))
	} else {
		var err error
		var e lineExt
		msg, label, at, e, err = deriveExt(obj)
		id, parent = uuid, unquote(f.parent)
		if err != nil {
			rep.Problemf(n, id, err.Error()+": kept with the node before it")
			sc.via[id] = parent
			s.Fold(obj, "", "")
			return
		}
		if e.id != "" {
			id = e.id
		}
		if e.hasParent {
			sc.fixed[len(sc.turns)] = e.parent
		}
		kept = e
	}
	if len(kept.before) > 0 {
		// lines kept before a node that is not the file's first
		msg = convert.Reattach(msg, BeforeKey, kept.before, "", nil)
		for _, l := range kept.before {
			sc.alias(l)
		}
	}
	if string(f.subtype) == `"compact_boundary"` {
		sc.notes.Add("compact_boundary line kept as a root (logicalParentUuid stays in the line)", "compact_boundary lines kept as roots (logicalParentUuid stays in the line)")
	}
	t := turn{hasParent: f.hasParent}
	if f.Message != nil {
		t.msgID = strings.Clone(unquote(f.msgID))
		t.tools = toolIDs(f.Message)
	}
	sc.turns = append(sc.turns, t)
	s.Node(n, id, parent, msg, label, at)
	if string(f.sidechain) != "true" {
		s.Active()
	}
	for _, l := range kept.after {
		sc.fold(l)
	}
}

// fold keeps a line that a previous export carried in a line's extension.
func (sc *scanner) fold(l []byte) {
	sc.alias(l)
	sc.s.Fold(l, "", "")
}

// alias makes a kept line with a uuid transparent to the link phase.
func (sc *scanner) alias(l []byte) {
	if id, _ := rawjson.LookupString(l, "uuid"); id != "" {
		p, _ := rawjson.LookupString(l, "parentUuid")
		sc.via[id] = p
	}
}

// toolIDs lists the ids of the tool_use blocks and the tool_use_ids of the
// tool_result blocks of a message's content.
func toolIDs(message []byte) *tools {
	if !bytes.Contains(message, []byte(`"tool_`)) {
		return nil
	}
	content, ok := rawjson.Lookup(message, "content")
	if !ok || len(content) == 0 || content[0] != '[' {
		return nil
	}
	var uses, results []string
	parts, _ := convert.Elements(content)
	for _, p := range parts {
		typ, _ := rawjson.LookupString(p, "type")
		switch typ {
		case "tool_use":
			if id, ok := rawjson.LookupString(p, "id"); ok {
				uses = append(uses, id)
			}
		case "tool_result":
			if id, ok := rawjson.LookupString(p, "tool_use_id"); ok {
				results = append(results, id)
			}
		}
	}
	if uses == nil && results == nil {
		return nil
	}
	return &tools{uses, results}
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
	typ, uuid, parent, subtype, sidechain, timestamp, content []byte
	msgID                                                     []byte
	hasParent                                                 bool
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
			f.hasParent = true
			convert.First(&f.parent, v)
		case "subtype":
			convert.First(&f.subtype, v)
		case "isSidechain":
			convert.First(&f.sidechain, v)
		case "timestamp":
			convert.First(&f.timestamp, v)
		case "content":
			convert.First(&f.content, v)
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
