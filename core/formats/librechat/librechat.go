// Package librechat imports and exports LibreChat conversation exports:
// {"conversationId",…,"messages":[…]} where the messages are either flat
// (linked by parentMessageId) or nested (each with its "children"); a
// parentMessageId of null or 00000000-0000-0000-0000-000000000000 marks a root,
// and a conversation may have several roots, which stay several roots.
//
// A message becomes {"role":"user"|"assistant","content":text,"librechat":rec}
// where rec is the message without "children". The conversation's other
// fields are kept under "librechat_conversation" on its first node. LibreChat
// has no "current message": main ends at the last message of the file, and
// every other leaf gets a branch. Export writes the flat form.
package librechat

import (
	"bytes"
	"errors"
	"strconv"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/formats/internal/convert"
	"github.com/sessiontree/sessiontree/core/rawjson"
)

// Key holds the original message; ConversationKey the conversation's fields.
const (
	Key             = "librechat"
	ConversationKey = "librechat_conversation"
	// NoParent is LibreChat's parentMessageId of a root.
	NoParent = "00000000-0000-0000-0000-000000000000"
)

// Import reads a LibreChat export, flat or nested.
func Import(data []byte, opts ...core.Option) (*core.Tree, convert.Report, error) {
	// A copy of our own: messages may be slices of it, and the caller may
	// reuse its buffer.
	data = bytes.Clone(bytes.TrimSpace(data))
	if err := checkJSON(data); err != nil {
		return nil, convert.Report{}, err
	}
	top, _ := convert.Members(data)
	msgs, ok := convert.Get(top, "messages")
	if !ok || len(msgs) == 0 || msgs[0] != '[' {
		return nil, convert.Report{}, convert.Invalid("librechat: no \"messages\" array")
	}
	ext, _ := convert.Get(top, convert.ExtKey)
	header := convert.NewObject(nil).Members(convert.Set(convert.Without(top, "messages", convert.ExtKey), "recursive", []byte("false"))).Bytes()
	b := convert.NewBuilder("librechat", opts)
	list := flatten(msgs)
	first, last := true, ""
	nested := 0
	for _, it := range list {
		b.Report.Records++
		if it.ms == nil {
			b.Report.Problemf(0, "", "message "+strconv.Itoa(b.Report.Records)+" is not an object: skipped")
			continue
		}
		ms := it.ms
		rec := convert.NewObject(nil).Members(ms).Bytes()
		msg, label, at, err := derive(rec)
		if err != nil {
			b.Report.Problemf(0, convert.Str(ms, "messageId"), err.Error()+": skipped")
			continue
		}
		if first {
			if x, _ := convert.ReadNodeExt(ms); x.Message == nil {
				msg = convert.AppendMember(msg, ConversationKey, header)
			}
			first = false
		}
		parent := ""
		if it.in >= 0 {
			parent = convert.Str(list[it.in].ms, "messageId")
			nested++
		}
		if parent == "" {
			parent = parentOf(ms)
		}
		last = b.Add(0, convert.Str(ms, "messageId"), parent, msg, label, at)
	}
	if nested > 0 {
		b.Report.Note("nested (recursive) export read; export writes the flat form")
	}
	// main: the last message of the file, down its newest children to a leaf.
	for last != "" {
		n, _ := b.Tree.Node(last)
		if len(n.Children) == 0 {
			break
		}
		last = n.Children[len(n.Children)-1]
	}
	t, rep := b.Finish(last, nil, ext)
	return t, *rep, nil
}

// checkJSON refuses data that is not one JSON object, saying why: a nested
// export of a long chain of messages goes two levels deeper per message, past
// rawjson.MaxDepth at about 5,000, which was reported as not an object.
func checkJSON(data []byte) error {
	if len(data) == 0 || data[0] != '{' {
		return convert.Invalid("librechat: expected one JSON object")
	}
	end, err := rawjson.ScanValue(data, 0)
	var se *rawjson.SyntaxError
	switch {
	case errors.As(err, &se) && se.Msg == "JSON nested too deeply":
		return convert.Invalid("librechat: nested more than " + strconv.Itoa(rawjson.MaxDepth) + " levels deep (a nested export's chain of about " +
			strconv.Itoa(rawjson.MaxDepth/2) + " messages or more), at byte " + strconv.Itoa(se.Offset) + ": not read; LibreChat's flat export has no such limit")
	case err != nil:
		return convert.Invalid("librechat: not valid JSON: " + err.Error())
	case end != len(data):
		return convert.Invalid("librechat: expected one JSON object, and there is more after it at byte " + strconv.Itoa(end))
	}
	return nil
}

// nestedMessage is a message of the file: its members without "children",
// nil when it is not an object, and the index (in flatten's list) of the
// message whose children hold it, or -1.
type nestedMessage struct {
	ms []convert.Member
	in int
}

// flatten lists the messages of the array msgs (valid JSON), each followed
// by the messages nested in its "children", depth first in document order.
// One pass over the nesting, whatever its depth, and no recursion: reading
// each message's children as a value and then each child again scanned the
// levels below once per level above (quadratic: 4,999 levels took 4 s), and
// a walk that recursed per level overflowed the browser's stack in wasm.
func flatten(msgs []byte) []nestedMessage {
	var out []nestedMessage
	d := rawjson.NewDecoder(msgs)
	past := func() { d.Seek(d.Pos() + 1) } // past the byte Peek returned
	// open: the messages whose members are being read, innermost last, each
	// in the children of the one before it; members: theirs so far.
	var open []int
	var members [][]convert.Member
	if d.Peek() != '[' {
		return nil
	}
	past()
	inArray := true // in a list of messages (the top one or the innermost's children), else in the innermost's members
	for {
		c := d.Peek()
		if c == ',' {
			past()
			c = d.Peek()
		}
		if inArray {
			switch {
			case c == ']':
				past()
				if len(open) == 0 {
					return out
				}
				inArray = false // on with the members of the message whose children these were
			case c == '{':
				past()
				open = append(open, len(out))
				members = append(members, []convert.Member{})
				out = append(out, nestedMessage{in: within(open[:len(open)-1])})
				inArray = false
			default:
				out = append(out, nestedMessage{in: within(open)})
				if d.Skip() != nil {
					return out
				}
			}
			continue
		}
		if c == '}' {
			past()
			out[open[len(open)-1]].ms = members[len(members)-1]
			open, members = open[:len(open)-1], members[:len(members)-1]
			inArray = true
			continue
		}
		key, err := d.String()
		if err != nil || d.Peek() != ':' {
			return out
		}
		past()
		if key == "children" {
			if d.Peek() == '[' {
				past()
				inArray = true
			} else if d.Skip() != nil {
				return out
			}
			continue
		}
		v, err := d.Raw()
		if err != nil {
			return out
		}
		members[len(members)-1] = append(members[len(members)-1], convert.Member{Key: key, Value: v})
	}
}

// within is the index of the innermost open message, or -1.
func within(open []int) int {
	if len(open) == 0 {
		return -1
	}
	return open[len(open)-1]
}

func parentOf(ms []convert.Member) string {
	p := convert.Str(ms, "parentMessageId")
	if p == NoParent {
		return ""
	}
	return p
}

func derive(rec []byte) (core.Message, string, int64, error) {
	ms, err := convert.Members(rec)
	if err != nil {
		return nil, "", 0, err
	}
	base := convert.Without(ms, convert.ExtKey)
	role := "assistant"
	if v, _ := convert.Get(base, "isCreatedByUser"); string(v) == "true" {
		role = "user"
	} else if _, ok := convert.Get(base, "isCreatedByUser"); !ok {
		if _, ok := convert.Get(base, "text"); !ok {
			return nil, "", 0, convert.Invalid("message has neither isCreatedByUser nor text")
		}
	}
	var at int64
	if s := convert.Str(base, "createdAt"); s != "" {
		at, _ = convert.ParseISO(s)
	}
	msg := convert.Wrap(role, convert.Str(base, "text"), Key, convert.NewObject(nil).Members(base).Bytes())
	return convert.WithNodeExt(ms, msg, at)
}

// Export writes t as a flat LibreChat export (recursive false, branches true).
func Export(t *core.Tree) ([]byte, error) {
	if err := convert.Corrupt(t); err != nil {
		return nil, err
	}
	convs := convert.Conversations(t, ConversationKey)
	header := convs[0].Header
	if header == nil {
		header = madeUpHeader(convs[0].Nodes)
	}
	conversationID := convert.Str(mustMembers(header), "conversationId")
	var nodes []core.Node
	for _, c := range convs {
		nodes = append(nodes, c.Nodes...)
	}
	out := []byte{'['}
	for i, n := range nodes {
		core.TickBytes(len(n.Message))
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, record(t, n, header, i == 0, conversationID)...)
	}
	out = append(out, ']')
	hm, _ := convert.Members(header)
	return convert.NewObject(nil).Members(hm).Raw("messages", out).Raw(convert.ExtKey, convert.TreeExt(t)).Bytes(), nil
}

func record(t *core.Tree, n core.Node, header []byte, first bool, conversationID string) []byte {
	rec, ok := rawjson.Lookup(n.Message, Key)
	if ok {
		ms, err := convert.Members(rec)
		if err != nil || convert.Str(ms, "messageId") != n.ID || (n.Parent != "" && parentOf(ms) != n.Parent) {
			ok = false
		}
	}
	if !ok {
		rec = native(t, n, conversationID)
	}
	d := derive
	if first {
		d = func(r []byte) (core.Message, string, int64, error) {
			m, l, a, err := derive(r)
			if rm, _ := convert.Members(r); err == nil {
				if x, _ := convert.ReadNodeExt(rm); x.Message == nil {
					m = convert.AppendMember(m, ConversationKey, header)
				}
			}
			return m, l, a, err
		}
	}
	return convert.Faithful(rec, n, d)
}

func mustMembers(v []byte) []convert.Member {
	ms, _ := convert.Members(v)
	return ms
}

// madeUpHeader is the conversation written for nodes that did not come from
// LibreChat: LibreChat's importer takes a file for a LibreChat export only
// when it has a conversationId and messages, and reads its endpoint
// (api/server/utils/import/importers.js at b6e4959, getImporter and
// importLibreChatConvo).
func madeUpHeader(nodes []core.Node) []byte {
	id := "conversation"
	if len(nodes) > 0 {
		id = nodes[0].ID
	}
	return convert.NewObject(nil).String("conversationId", id).String("endpoint", "openAI").String("title", convert.Title(nodes, "Imported chat")).
		Raw("branches", []byte("true")).Raw("recursive", []byte("false")).Bytes()
}
