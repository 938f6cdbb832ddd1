// Package assistantui imports and exports assistant-ui's
// ExportedMessageRepository, what its ThreadHistoryAdapter loads and its
// MessageRepository imports and exports: {"headId", "messages": [{"message",
// "parentId"}]}, every message of the thread's tree, parents first, with the
// head (the last message of the branch shown) named.
//
// A ThreadMessage ({"id","role","content":[parts],"createdAt",…}) is stored
// as sessiontree/assistant-ui stores it: without its id (the node's id) and
// its createdAt (the node's time), {"role","content", every other member as
// it was}, and core/chat reads its parts. Export writes every node, parents
// first: a stored ThreadMessage as it was; any other message converted
// through core/chat (text, reasoning, a tool call with its result when the
// same message holds it, an image), with the defaults assistant-ui gives a
// message (metadata, an assistant's status, a user's attachments), and the
// message itself in the record's "sessiontree" member, so an import gives it
// back. The head is the active branch's leaf; the branches, their names and
// summaries ride in the file's "sessiontree" member.
package assistantui

import (
	"bytes"
	"strconv"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/chat"
	"github.com/sessiontree/sessiontree/core/formats/internal/convert"
	"github.com/sessiontree/sessiontree/core/rawjson"
)

// Import reads an ExportedMessageRepository into a tree whose node ids are
// the messages' ids and whose active branch ends at headId. An item that is
// not a ThreadMessage is reported by index and skipped (with the messages
// below it); a duplicate id is renamed and reported.
func Import(data []byte, opts ...core.Option) (*core.Tree, convert.Report, error) {
	rep := convert.Report{Format: "assistant-ui"}
	data = bytes.Clone(bytes.TrimSpace(data))
	if !rawjson.Valid(data) || len(data) == 0 || data[0] != '{' {
		return nil, rep, convert.Invalid(`assistant-ui: expected an object {"headId","messages":[{"message","parentId"}]}`)
	}
	top, err := convert.Members(data)
	if err != nil {
		return nil, rep, convert.Invalid("assistant-ui: " + err.Error())
	}
	raw, ok := convert.Get(top, "messages")
	list, err := convert.Elements(raw)
	if !ok || err != nil {
		return nil, rep, convert.Invalid(`assistant-ui: "messages" is not an array`)
	}
	b := convert.NewBuilder("assistant-ui", opts)
	for i, item := range list {
		b.Report.Records++
		ms, err := convert.Members(item)
		if err != nil {
			b.Report.Problemf(0, "", "item "+strconv.Itoa(i)+": not an object: skipped")
			continue
		}
		rec, _ := convert.Get(ms, "message")
		msg, label, at, err := derive(rec)
		if err != nil {
			b.Report.Problemf(0, "", "item "+strconv.Itoa(i)+": "+err.Error()+": skipped")
			continue
		}
		parent := ""
		if p, ok := convert.Get(ms, "parentId"); ok && len(p) > 0 && p[0] == '"' {
			parent = rawjson.Unquote(p)
		}
		id, _ := rawjson.LookupString(rec, "id")
		b.Add(0, id, parent, msg, label, at)
	}
	head := ""
	if h, ok := convert.Get(top, "headId"); ok && len(h) > 0 && h[0] == '"' {
		head = rawjson.Unquote(h)
	}
	ext, _ := convert.Get(top, convert.ExtKey)
	t, r := b.Finish(head, nil, ext)
	return t, *r, nil
}

// derive turns a ThreadMessage into the node's message, label and time: the
// message without its id and createdAt (its time), or what its "sessiontree"
// member carries.
func derive(rec []byte) (core.Message, string, int64, error) {
	ms, err := convert.Members(rec)
	if err != nil {
		return nil, "", 0, convert.Invalid("the message is not an object")
	}
	base := convert.Without(ms, convert.ExtKey)
	role := convert.Str(base, "role")
	if role != "system" && role != "user" && role != "assistant" {
		return nil, "", 0, convert.Invalid(`"role" is not "system", "user" or "assistant"`)
	}
	content, _ := convert.Get(base, "content")
	if len(content) == 0 || content[0] != '[' {
		return nil, "", 0, convert.Invalid(`"content" is not an array of parts`)
	}
	if id, ok := rawjson.LookupString(rec, "id"); !ok || id == "" {
		return nil, "", 0, convert.Invalid(`the message has no "id"`)
	}
	var at int64
	if c := convert.Str(base, "createdAt"); c != "" {
		at, _ = convert.ParseISO(c)
	}
	o := convert.NewObject(nil).Raw("role", mustGet(base, "role")).Raw("content", content)
	msg, err := core.ParseMessage(o.Members(convert.Without(base, "id", "role", "content", "createdAt")).Bytes())
	if err != nil {
		return nil, "", 0, err
	}
	return convert.WithNodeExt(ms, msg, at)
}

func mustGet(ms []convert.Member, key string) []byte {
	v, _ := convert.Get(ms, key)
	return v
}

// Export writes every node of t, parents first, with the active branch's
// leaf as the head.
func Export(t *core.Tree) ([]byte, error) {
	if err := convert.Corrupt(t); err != nil {
		return nil, err
	}
	out := []byte(`{"headId":`)
	if b, _ := t.LookupBranch(t.ActiveBranch()); b.Leaf != "" {
		out = rawjson.AppendString(out, b.Leaf)
	} else {
		out = append(out, "null"...)
	}
	out = append(out, `,"messages":[`...)
	first := true
	for _, g := range convert.Groups(t, nil) {
		for _, n := range g.Nodes {
			if !first {
				out = append(out, ',')
			}
			first = false
			out = append(out, `{"message":`...)
			out = append(out, convert.Faithful(record(t, n), n, derive)...)
			out = append(out, `,"parentId":`...)
			if n.Parent == "" {
				out = append(out, "null"...)
			} else {
				out = rawjson.AppendString(out, n.Parent)
			}
			out = append(out, '}')
		}
	}
	out = append(out, `],"sessiontree":`...)
	out = append(out, convert.TreeExt(t)...)
	return append(out, '}'), nil
}

// Own reports whether m is a stored ThreadMessage: a role of the three and
// a "content" array.
func Own(m core.Message) bool {
	role := m.Role()
	if role != "system" && role != "user" && role != "assistant" {
		return false
	}
	c, ok := rawjson.Lookup(m, "content")
	return ok && len(c) > 0 && c[0] == '['
}

// record writes node n's message as a ThreadMessage.
func record(t *core.Tree, n core.Node) []byte {
	created := convert.FormatISO(n.CreatedAtMs)
	if Own(n.Message) {
		ms, err := convert.Members(n.Message)
		if err == nil {
			return convert.NewObject(nil).String("id", n.ID).Members(ms).String("createdAt", created).Bytes()
		}
	}
	turn := convert.Named(t, n, chat.Read(n.Message))
	role := string(turn.Role)
	if turn.Role == chat.Tool {
		role = "assistant"
	}
	var parts [][]byte
	type made struct {
		at   int // its part's index
		call chat.Part
	}
	calls := map[string]made{} // by call id: a call, for its result in the same message
	for _, p := range turn.Parts {
		switch p.Kind {
		case chat.Text:
			parts = append(parts, convert.NewObject(nil).String("type", "text").String("text", p.Text).Bytes())
		case chat.Thinking:
			parts = append(parts, convert.NewObject(nil).String("type", "reasoning").String("text", p.Text).Bytes())
		case chat.ToolCall:
			calls[p.CallID] = made{len(parts), p}
			parts = append(parts, toolCall(p.CallID, p.Name, p.Args, nil))
		case chat.ToolResult:
			if c, ok := calls[p.CallID]; ok && p.CallID != "" {
				parts[c.at] = toolCall(c.call.CallID, c.call.Name, c.call.Args, &p)
				continue
			}
			parts = append(parts, toolCall(p.CallID, p.Name, "{}", &p)) // its call is in another message
		case chat.Image:
			if p.URL != "" {
				parts = append(parts, convert.NewObject(nil).String("type", "image").String("image", p.URL).Bytes())
			}
		}
	}
	o := convert.NewObject(nil).String("id", n.ID).String("role", role).Raw("content", convert.RawArray(parts)).String("createdAt", created)
	o.Raw("metadata", []byte(`{"unstable_state":null,"unstable_annotations":[],"unstable_data":[],"steps":[],"custom":{}}`))
	switch role {
	case "assistant":
		o.Raw("status", []byte(`{"type":"complete","reason":"unknown"}`))
	case "user":
		o.Raw("attachments", []byte(`[]`))
	}
	return o.Bytes()
}

// toolCall writes a "tool-call" part: its arguments as an object (an
// argument text that is not a JSON object goes as {} with the text in
// argsText) and, with a result, the result's text (isError when it failed).
func toolCall(id, name, args string, result *chat.Part) []byte {
	argsObj := bytes.TrimSpace([]byte(args))
	if len(argsObj) == 0 || argsObj[0] != '{' || !rawjson.Valid(argsObj) {
		argsObj = []byte("{}")
	}
	o := convert.NewObject(nil).String("type", "tool-call").String("toolCallId", id).String("toolName", name).Raw("args", argsObj).String("argsText", args)
	if result != nil {
		o.String("result", result.Text)
		if result.IsError {
			o.Raw("isError", []byte("true"))
		}
	}
	return o.Bytes()
}
