// Package codex imports and exports Codex CLI rollout files (JSONL lines
// {"timestamp","type","payload"}). A rollout is linear; a thread_rolled_back
// event undoes the last num_turns user turns, so on import the next message
// forks from before them and the undone turns stay in the tree on a branch.
//
// Nodes: response_item messages ({"role","content":[…]} plus "codex": the line
// with its payload replaced by 0), function and custom tool calls (assistant
// messages with tool_calls) and their outputs (tool messages), and
// user_message/agent_message events that no response_item repeats. Other lines
// (session_meta, turn_context, reasoning, duplicated events, markers) are kept
// with the node before them under "codex_after" (before the first node:
// "codex_before"). Export is linear: SpliceForLinearExport's active path, then
// one developer message per other branch's summary.
package codex

import (
	"bytes"
	"io"
	"strconv"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/formats/internal/convert"
	"github.com/sessiontree/sessiontree/core/rawjson"
)

// Keys of the node's message that hold the line and the lines kept with it.
const (
	Key       = "codex"
	AfterKey  = "codex_after"
	BeforeKey = "codex_before"
)

// Import reads a rollout held in memory.
func Import(data []byte, opts ...core.Option) (*core.Tree, convert.Report, error) {
	return ImportReader(bytes.NewReader(data), opts...)
}

// step is a node of the active path; turn marks a user turn, the unit a
// thread_rolled_back counts.
type step struct {
	id   string
	turn bool
}

// ImportReader reads a rollout line by line.
func ImportReader(r io.Reader, opts ...core.Option) (*core.Tree, convert.Report, error) {
	s := convert.NewSession("codex", AfterKey, BeforeKey, opts)
	rep := s.B.Report
	var path []step
	var notes convert.Counted
	type event struct {
		line       int
		obj        []byte
		role, text string
	}
	var pending *event
	legacy := legacyReader{}
	// the last node when it is a message item (its message stays valid in
	// the session's scratch until the next node), so an event that repeats
	// it after it (as Codex writes them since 2025) is kept with it rather
	// than made a second node
	var lastMsg core.Message
	add := func(n int, msg core.Message, at int64) {
		lastMsg = nil
		parent := ""
		if len(path) > 0 {
			parent = path[len(path)-1].id
		}
		id := "line-" + strconv.Itoa(n)
		turn := userTurn(msg)
		s.Node(n, id, parent, msg, "", at)
		path = append(path, step{id, turn})
	}
	flushEvent := func() {
		if pending != nil {
			add(pending.line, convert.Wrap(pending.role, pending.text, Key, pending.obj), timeOf(pending.obj))
			pending = nil
		}
	}
	var handle func(n int, obj []byte)
	handle = func(n int, obj []byte) {
		var typ, payload []byte
		plain := true // no escaped key: the fast path may build the message
		convert.EachMember(obj, func(key, v []byte) bool {
			switch string(key) {
			case "type":
				if typ == nil && v[0] == '"' {
					typ = v
				}
			case "payload":
				if payload == nil {
					payload = v
				}
			default:
				if bytes.IndexByte(key, '\\') >= 0 {
					plain = false
				}
			}
			return true
		})
		styp := convert.View(typ)
		ptype, _ := rawjson.LookupString(payload, "type")
		if pending != nil {
			role, _ := rawjson.LookupString(payload, "role")
			if styp == "response_item" && ptype == "message" && role == pending.role && convert.ContentText(payload) == pending.text {
				notes.Add("event repeated by a response_item kept with the node before it", "events repeated by a response_item kept with the node before them")
				s.Fold(pending.obj, "", "")
				pending = nil
			} else {
				flushEvent()
			}
		}
		switch {
		case styp == "event_msg" && (ptype == "user_message" || ptype == "agent_message"):
			role := "user"
			if ptype == "agent_message" {
				role = "assistant"
			}
			text, _ := rawjson.LookupString(payload, "message")
			if lastMsg != nil && role == lastMsg.Role() && text == convert.ContentText(lastMsg) {
				notes.Add("event repeating the response_item before it kept with it", "events repeating the response_item before them kept with it")
				s.Fold(obj, "", "")
				return
			}
			pending = &event{n, bytes.Clone(obj), role, text}
			return
		case styp == "event_msg" && ptype == "thread_rolled_back":
			s.Fold(obj, "", "")
			turns, _ := strconv.Atoi(string(mustLookup(payload, "num_turns")))
			path = rollBack(path, turns)
			notes.Add("thread_rolled_back marker: the undone turns kept on a branch", "thread_rolled_back markers: the undone turns kept on a branch")
			return
		case styp == "response_item" && ptype == "message" && plain && payload[0] == '{':
			if _, ok := rawjson.LookupString(payload, "role"); ok {
				msg := convert.Folded(s.Scratch(), obj, payload, Key)
				add(n, msg, timeOf(obj))
				lastMsg = msg
				return
			}
		case styp == "response_item":
			ms, _ := convert.Members(obj)
			if msg, ok := derivePayload(obj, ms, payload, ptype); ok {
				add(n, msg, timeOf(obj))
				return
			}
		}
		s.Fold(obj, "", "")
	}
	err := convert.EachLine(r, rep, func(n int, obj []byte) {
		if line, ok := legacy.line(obj); ok {
			if line == nil {
				s.Fold(obj, "", "")
				return
			}
			notes.Add("line of the pre-2025 rollout format read as the current format's lines (export writes the current format)", "lines of the pre-2025 rollout format read as the current format's lines (export writes the current format)")
			obj = line
		}
		handle(n, obj)
	})
	if err != nil {
		return nil, *rep, err
	}
	flushEvent()
	if rep.Records == 0 {
		return nil, *rep, convert.Invalid("codex: no line to read")
	}
	notes.Flush(rep)
	active := ""
	if len(path) > 0 {
		active = path[len(path)-1].id
	}
	t, rep2 := s.Finish(active, nil)
	if t.Len() == 0 {
		return nil, *rep2, convert.Invalid("codex: no message in the file (" + strconv.Itoa(rep2.Records) + " lines read, none a message, a tool call or its output)")
	}
	return t, *rep2, nil
}

func mustLookup(obj []byte, key string) []byte {
	v, _ := rawjson.Lookup(obj, key)
	return v
}

// rollBack drops the last turns user turns from path, as Codex rolls its
// history back: with more turns than there are, every turn goes and what came
// before the first (the session's context) stays; with none, nothing goes.
func rollBack(path []step, turns int) []step {
	first := -1
	for i := len(path) - 1; i >= 0; i-- {
		if !path[i].turn {
			continue
		}
		first = i
		if turns--; turns == 0 {
			return path[:i]
		}
	}
	if turns > 0 && first >= 0 {
		return path[:first]
	}
	return path
}

func timeOf(obj []byte) int64 {
	ts, _ := rawjson.Lookup(obj, "timestamp")
	at, _ := convert.ParseISO(convert.View(ts))
	return at
}

// derivePayload makes a message of a response_item that is one.
func derivePayload(obj []byte, ms []convert.Member, payload []byte, ptype string) (core.Message, bool) {
	rec := func() []byte {
		return convert.NewObject(nil).Members(convert.Set(ms, "payload", convert.Placeholder)).Bytes()
	}
	switch ptype {
	case "message":
		if _, ok := rawjson.LookupString(payload, "role"); !ok {
			return nil, false
		}
		return convert.AppendMember(payload, Key, rec()), true
	case "function_call", "custom_tool_call":
		name, _ := rawjson.LookupString(payload, "name")
		args, ok := rawjson.LookupString(payload, "arguments")
		if !ok {
			args, _ = rawjson.LookupString(payload, "input")
		}
		callID, _ := rawjson.LookupString(payload, "call_id")
		fn := convert.NewObject(nil).String("name", name).String("arguments", args).Bytes()
		call := convert.NewObject(nil).String("id", callID).String("type", "function").Raw("function", fn).Bytes()
		return core.Message(convert.NewObject(nil).String("role", "assistant").String("content", "").
			Raw("tool_calls", append(append([]byte{'['}, call...), ']')).Raw(Key, obj).Bytes()), true
	case "function_call_output", "custom_tool_call_output":
		callID, _ := rawjson.LookupString(payload, "call_id")
		out, _ := rawjson.Lookup(payload, "output")
		return core.Message(convert.NewObject(nil).String("role", "tool").String("tool_call_id", callID).
			String("content", convert.PartsText(out)).Raw(Key, obj).Bytes()), true
	}
	return nil, false
}

// Export writes the active path as a rollout, then one developer message per
// other branch with its summary (or stub).
func Export(t *core.Tree) ([]byte, error) {
	sp, err := t.SpliceForLinearExport()
	if err != nil {
		return nil, err
	}
	ids, _ := t.ActivePath()
	var out []byte
	lastTS := convert.FormatISO(0)
	for i, m := range sp.Messages {
		core.Tick()
		var at int64
		id := ""
		if i < len(ids) {
			n, _ := t.Node(ids[i])
			at, id = n.CreatedAtMs, n.ID
		}
		msg, before, after := convert.Attachments(m, BeforeKey, AfterKey)
		if i == 0 && !hasMeta(before) {
			out = line(out, convert.FormatISO(at), "session_meta", sessionMeta(id, convert.FormatISO(at)))
		}
		out = appendReadable(out, before)
		lastTS = convert.FormatISO(at)
		var own []byte
		if rec, ok := rawjson.Lookup(msg, Key); ok && len(rec) > 0 && rec[0] == '{' {
			own = rec
			if p, _ := rawjson.Lookup(rec, "payload"); bytes.Equal(p, convert.Placeholder) {
				own = convert.Unfold2(rec, "payload", convert.WithoutKey(msg, Key))
			}
		}
		if ok, _ := Accepted(own); ok {
			out = append(append(out, own...), '\n')
		} else {
			// not from Codex, or a line Codex would not read: its own items
			out = appendNative(out, lastTS, core.Message(convert.WithoutKey(msg, Key)))
		}
		out = appendReadable(out, after)
	}
	for _, s := range sp.Summaries {
		text := "Summary of branch " + strconv.Quote(s.Branch) + ": " + s.Summary
		content := convert.NewObject(nil).String("type", "input_text").String("text", text).Bytes()
		payload := convert.NewObject(nil).String("type", "message").String("role", "developer").Raw("content", append(append([]byte{'['}, content...), ']')).Bytes()
		out = line(out, lastTS, "response_item", payload)
	}
	return out, nil
}

func line(out []byte, ts, typ string, payload []byte) []byte {
	return append(convert.NewObject(out).String("timestamp", ts).String("type", typ).Raw("payload", payload).Bytes(), '\n')
}

// legacyReader reads the rollout format Codex wrote before 2025's
// {"timestamp","type","payload"} lines: a first line {"id","timestamp",…}
// (the session), then each response item as a bare line, and
// {"record_type":"state"} lines. It turns the session line into a
// session_meta line and each item into a response_item line, stamped with
// the session's time (the items have none).
type legacyReader struct {
	on bool
	ts []byte
}

var rolloutTypes = map[string]bool{"session_meta": true, "response_item": true, "event_msg": true, "turn_context": true, "compacted": true}

// line returns the current format's line for a legacy line (ok), nil for a
// legacy line to keep as it is, or ok false for a line of the current format.
func (l *legacyReader) line(obj []byte) ([]byte, bool) {
	typ, hasType := rawjson.LookupString(obj, "type")
	if l.ts == nil {
		_, hasID := rawjson.Lookup(obj, "id")
		ts, hasTS := rawjson.Lookup(obj, "timestamp")
		if hasType || !hasID || !hasTS {
			l.ts = []byte{}
			return nil, false
		}
		l.on, l.ts = true, bytes.Clone(ts)
		ms, _ := convert.Members(obj)
		for _, k := range []string{"cwd", "originator", "cli_version"} {
			if _, ok := convert.Get(ms, k); !ok {
				ms = append(ms, convert.Member{Key: k, Value: []byte(`""`)})
			}
		}
		return convert.NewObject(nil).Raw("timestamp", l.ts).String("type", "session_meta").Raw("payload", convert.NewObject(nil).Members(ms).Bytes()).Bytes(), true
	}
	if !l.on {
		return nil, false
	}
	if _, ok := rawjson.Lookup(obj, "record_type"); ok || !hasType {
		return nil, true
	}
	if rolloutTypes[typ] {
		return nil, false
	}
	return convert.NewObject(nil).Raw("timestamp", l.ts).String("type", "response_item").Raw("payload", obj).Bytes(), true
}

// appendReadable appends the kept lines Codex reads (see Accepted): a
// session_meta gets the members SessionMeta requires that it lacks
// (timestamp, cwd, originator, cli_version) and a UUID for an id that is not
// one; any other line Codex would not read (a type it does not know, a
// malformed item) is left out of the export (Codex would skip it; the import
// keeps it).
func appendReadable(out []byte, lines [][]byte) []byte {
	for _, l := range lines {
		if typ, _ := rawjson.LookupString(l, "type"); typ == "session_meta" {
			l = completeMeta(l)
		}
		if ok, _ := Accepted(l); ok {
			out = append(append(out, l...), '\n')
		}
	}
	return out
}

// hasMeta reports whether lines hold a session_meta Codex reads (once
// completed).
func hasMeta(lines [][]byte) bool {
	for _, l := range lines {
		if typ, _ := rawjson.LookupString(l, "type"); typ == "session_meta" {
			if ok, _ := Accepted(completeMeta(l)); ok {
				return true
			}
		}
	}
	return false
}

func completeMeta(l []byte) []byte {
	ms, err := convert.Members(l)
	if err != nil {
		return l
	}
	p, _ := convert.Get(ms, "payload")
	pm, err := convert.Members(p)
	if err != nil {
		return l
	}
	id := convert.Str(pm, "id")
	if !isUUID(id) {
		pm = convert.Set(pm, "id", convert.Quote(uuidOf(id)))
	}
	ts, _ := convert.Get(ms, "timestamp")
	for _, k := range []string{"timestamp", "cwd", "originator", "cli_version"} {
		if v, ok := convert.Get(pm, k); !ok || len(v) == 0 || v[0] != '"' {
			v = []byte(`""`)
			if k == "timestamp" && len(ts) > 0 && ts[0] == '"' {
				v = ts
			}
			pm = convert.Set(pm, k, v)
		}
	}
	return convert.NewObject(nil).Members(convert.Set(ms, "payload", convert.NewObject(nil).Members(pm).Bytes())).Bytes()
}
