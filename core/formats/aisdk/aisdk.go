// Package aisdk imports and exports the AI SDK's UIMessage[] (the messages of
// useChat): a JSON array of {"id","role","parts","metadata"?}, linear.
//
// A UIMessage is stored as it is, without its id, which is the node's id:
// {"role","parts","metadata"?, …}, and core/chat reads its parts. Export
// writes the active path: a stored UIMessage comes back as it was; any other
// message is converted through core/chat (text, reasoning, a tool call as a
// "tool-NAME" part, its result, wherever it was stored, as that part's output,
// an image or another file, as assistant-ui and the providers hold one, as a
// file part). A message that only carries results of calls
// made before (a tool message) gives no UIMessage of its own: the UIMessage
// format has no tool role. Parts no UIMessage part holds are left out.
// Times, labels and other branches are not carried: the format has no place
// for them.
package aisdk

import (
	"bytes"
	"strconv"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/chat"
	"github.com/sessiontree/sessiontree/core/formats/internal/convert"
	"github.com/sessiontree/sessiontree/core/rawjson"
)

// Import reads a UIMessage[] (or {"messages":[…]}) into a single-path tree
// whose node ids are the messages' ids. An element that is not a UIMessage
// is reported by index and skipped; a duplicate id is renamed and reported.
func Import(data []byte, opts ...core.Option) (*core.Tree, convert.Report, error) {
	rep := convert.Report{Format: "ai-sdk"}
	data = bytes.Clone(bytes.TrimSpace(data))
	if !rawjson.Valid(data) {
		return nil, rep, convert.NotJSON("ai-sdk", data)
	}
	if len(data) > 0 && data[0] == '{' {
		m, ok := rawjson.Lookup(data, "messages")
		if !ok {
			return nil, rep, convert.Invalid("ai-sdk: an object without a \"messages\" array")
		}
		data = m
	}
	list, err := convert.Elements(data)
	if err != nil {
		return nil, rep, convert.Invalid("ai-sdk: expected an array of UIMessages")
	}
	b := convert.NewBuilder("ai-sdk", opts)
	parent := ""
	for i, raw := range list {
		b.Report.Records++
		id, msg, err := Stored(raw)
		if err != nil {
			b.Report.Problemf(0, "", "message "+strconv.Itoa(i)+": "+err.Error()+": skipped")
			continue
		}
		parent = b.Add(0, id, parent, msg, "", 0)
	}
	t, r := b.Finish(parent, nil, nil)
	r.Note("no times, labels or other branches: times are 0")
	return t, *r, nil
}

// Stored splits a UIMessage into its id and the message the tree stores:
// role, parts, metadata, then any other member, without the id.
func Stored(raw []byte) (string, core.Message, error) {
	ms, err := convert.Members(raw)
	if err != nil {
		return "", nil, convert.Invalid("not an object")
	}
	role := convert.Str(ms, "role")
	if role != "system" && role != "user" && role != "assistant" {
		return "", nil, convert.Invalid(`"role" is not "system", "user" or "assistant"`)
	}
	parts, _ := convert.Get(ms, "parts")
	if len(parts) == 0 || parts[0] != '[' {
		return "", nil, convert.Invalid(`"parts" is not an array`)
	}
	o := convert.NewObject(nil).Raw("role", mustGet(ms, "role")).Raw("parts", parts)
	if md, ok := convert.Get(ms, "metadata"); ok {
		o.Raw("metadata", md)
	}
	msg, err := core.ParseMessage(o.Members(convert.Without(ms, "id", "role", "parts", "metadata")).Bytes())
	if err != nil {
		return "", nil, err
	}
	return convert.Str(ms, "id"), msg, nil
}

// Own reports whether m is a stored UIMessage: a role of the three, a
// "parts" array and no "content".
func Own(m core.Message) bool {
	role := m.Role()
	if role != "system" && role != "user" && role != "assistant" {
		return false
	}
	parts, ok := rawjson.Lookup(m, "parts")
	_, content := rawjson.Lookup(m, "content")
	return ok && len(parts) > 0 && parts[0] == '[' && !content
}

// Export writes the active path as a UIMessage[].
func Export(t *core.Tree) ([]byte, error) {
	if err := convert.Corrupt(t); err != nil {
		return nil, err
	}
	path, err := t.ActivePath()
	if err != nil {
		return nil, err
	}
	var w Writer
	for _, id := range path {
		n, _ := t.Node(id)
		core.TickBytes(len(n.Message))
		w.Add(id, n.Message)
	}
	return w.Bytes(), nil
}

// Writer converts a path's messages to UIMessages, one at a time, so that a
// tool result finds its call in a message written before.
type Writer struct {
	msgs  []*uiMessage
	calls map[string]*uiPart // by call id: a tool part waiting for its result
}

type uiMessage struct {
	own   []byte // a stored UIMessage with its id: written as it is
	id    string
	role  string
	parts []*uiPart
}

type uiPart struct {
	raw    []byte // a part written as it is
	call   *chat.Part
	result *chat.Part
}

// Add converts message m of node id; it may add no UIMessage (see Export).
func (w *Writer) Add(id string, m core.Message) {
	if Own(m) {
		w.msgs = append(w.msgs, &uiMessage{own: withID(id, m), id: id})
		return
	}
	turn := chat.Read(m)
	um := &uiMessage{id: id, role: string(turn.Role)}
	if turn.Role == chat.Tool {
		um.role = "assistant"
	}
	if w.calls == nil {
		w.calls = make(map[string]*uiPart)
	}
	attached := 0
	for i := range turn.Parts {
		p := turn.Parts[i]
		switch p.Kind {
		case chat.Text:
			um.parts = append(um.parts, &uiPart{raw: convert.NewObject(nil).String("type", "text").String("text", p.Text).Bytes()})
		case chat.Thinking:
			um.parts = append(um.parts, &uiPart{raw: convert.NewObject(nil).String("type", "reasoning").String("text", p.Text).Bytes()})
		case chat.ToolCall:
			up := &uiPart{call: &p}
			um.parts = append(um.parts, up)
			if p.CallID != "" {
				w.calls[p.CallID] = up
			}
		case chat.ToolResult:
			if up := w.calls[p.CallID]; up != nil && p.CallID != "" && up.result == nil {
				up.result = &p
				attached++
				continue
			}
			um.parts = append(um.parts, &uiPart{call: &chat.Part{Kind: chat.ToolCall, CallID: p.CallID, Name: p.Name, Args: "{}"}, result: &p})
		case chat.Image:
			if p.URL != "" {
				um.parts = append(um.parts, &uiPart{raw: convert.NewObject(nil).String("type", "file").String("mediaType", mediaType(p.URL)).String("url", p.URL).Bytes()})
			}
		case chat.Other:
			if f, ok := convert.FilePart(p.Raw); ok {
				o := convert.NewObject(nil).String("type", "file").String("mediaType", f.MediaType).String("url", f.URL)
				if f.Filename != "" {
					o.String("filename", f.Filename)
				}
				um.parts = append(um.parts, &uiPart{raw: o.Bytes()})
			}
		}
	}
	if len(um.parts) == 0 && attached > 0 {
		return // results only (a tool message, an Anthropic user message of tool_result blocks), each in its call's part
	}
	w.msgs = append(w.msgs, um)
}

// Bytes writes the UIMessages added.
func (w *Writer) Bytes() []byte {
	out := []byte{'['}
	for i, m := range w.msgs {
		core.Tick()
		if i > 0 {
			out = append(out, ',')
		}
		out = m.append(out)
	}
	return append(out, ']')
}

// Messages writes each UIMessage added, in order.
func (w *Writer) Messages() [][]byte {
	out := make([][]byte, len(w.msgs))
	for i, m := range w.msgs {
		core.Tick()
		out[i] = m.append(nil)
	}
	return out
}

func (m *uiMessage) append(out []byte) []byte {
	if m.own != nil {
		return append(out, m.own...)
	}
	out = append(out, `{"id":`...)
	out = rawjson.AppendString(out, m.id)
	out = append(out, `,"role":`...)
	out = rawjson.AppendString(out, m.role)
	out = append(out, `,"parts":[`...)
	n := 0
	for _, p := range m.parts {
		if n > 0 {
			out = append(out, ',')
		}
		n++
		out = p.append(out)
	}
	if n == 0 && m.role != "assistant" {
		out = append(out, `{"type":"text","text":""}`...) // a user or system UIMessage has a part
	}
	return append(out, "]}"...)
}

// append writes a part; a tool call as "tool-NAME" (or "dynamic-tool" when
// it has no name), with its result when one came.
func (p *uiPart) append(out []byte) []byte {
	if p.raw != nil {
		return append(out, p.raw...)
	}
	c := p.call
	if c.Name == "" {
		out = append(out, `{"type":"dynamic-tool","toolName":"tool"`...)
	} else {
		out = append(out, `{"type":`...)
		out = rawjson.AppendString(out, "tool-"+c.Name)
	}
	out = append(out, `,"toolCallId":`...)
	out = rawjson.AppendString(out, c.CallID)
	switch r := p.result; {
	case r == nil:
		out = append(out, `,"state":"input-available"`...)
	case r.IsError:
		out = append(out, `,"state":"output-error"`...)
	default:
		out = append(out, `,"state":"output-available"`...)
	}
	out = append(out, `,"input":`...)
	out = append(out, c.Args...)
	if r := p.result; r != nil && r.IsError {
		out = append(out, `,"errorText":`...)
		out = rawjson.AppendString(out, r.Text)
	} else if r != nil {
		out = append(out, `,"output":`...)
		out = rawjson.AppendString(out, r.Text)
	}
	return append(out, '}')
}

// withID is a stored UIMessage with "id" first.
func withID(id string, m core.Message) []byte {
	out := append([]byte(`{"id":`), rawjson.AppendString(nil, id)...)
	body := bytes.TrimSpace(m)
	if len(body) > 2 {
		out = append(out, ',')
		out = append(out, body[1:]...)
	} else {
		out = append(out, '}')
	}
	return out
}

// mediaType is an image URL's media type: a data URL's own, else by the
// file's extension, else "image/*".
func mediaType(url string) string {
	if len(url) > 5 && url[:5] == "data:" {
		for i := 5; i < len(url); i++ {
			if url[i] == ';' || url[i] == ',' {
				if i > 5 {
					return url[5:i]
				}
				break
			}
		}
	}
	end := len(url)
	for i := 0; i < len(url); i++ {
		if url[i] == '?' || url[i] == '#' {
			end = i
			break
		}
	}
	for ext, typ := range map[string]string{".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif", ".webp": "image/webp"} {
		if end >= len(ext) && lower(url[end-len(ext):end]) == ext {
			return typ
		}
	}
	return "image/*"
}

func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

func mustGet(ms []convert.Member, key string) []byte {
	v, _ := convert.Get(ms, key)
	return v
}
