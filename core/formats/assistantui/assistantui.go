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
// same message holds it, an image, another file), with the defaults assistant-ui gives a
// message (metadata, an assistant's status, a user's attachments), and the
// message itself in the record's "sessiontree" member, so an import gives it
// back. The head is the active branch's leaf; the branches, their names and
// summaries ride in the file's "sessiontree" member.
package assistantui

import (
	"bytes"
	"strconv"
	"strings"

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
	if len(data) > 0 && !rawjson.Valid(data) {
		return nil, rep, convert.NotJSON("assistant-ui", data)
	}
	if len(data) == 0 || data[0] != '{' {
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
			core.TickBytes(len(n.Message))
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

// Own reports whether m is a stored ThreadMessage: a role of the three, a
// "content" array of parts assistant-ui takes for that role (see validParts),
// and no "id" or "createdAt" (the node's).
func Own(m core.Message) bool {
	ms, err := convert.Members(m)
	if err != nil {
		return false
	}
	_, id := convert.Get(ms, "id")
	_, at := convert.Get(ms, "createdAt")
	c, _ := convert.Get(ms, "content")
	return !id && !at && validParts(convert.Str(ms, "role"), c)
}

// validParts reports whether content is a list of parts assistant-ui's
// ThreadMessage of role holds, as @assistant-ui/core's fromThreadMessageLike
// (thread-message-like.ts) and its ThreadMessage types (types/message.ts)
// say: an assistant's text, reasoning, tool-call (toolCallId, toolName, args
// an object, argsText), source, file, image, data and generative-ui parts; a
// user's text, image, audio, file and data parts; a system message exactly
// one text part. An image is a data:image/ or an https: or blob: URL (any
// other is dropped by the runtime); a file has its data and mimeType (Chat
// Completions' file part, {"file":{…}}, is not one).
func validParts(role string, content []byte) bool {
	if len(content) == 0 || content[0] != '[' {
		return false
	}
	parts, err := convert.Elements(content)
	if err != nil {
		return false
	}
	if role == "system" {
		if len(parts) != 1 {
			return false
		}
	} else if role != "user" && role != "assistant" {
		return false
	}
	for _, p := range parts {
		ps, err := convert.Members(p)
		if err != nil {
			return false
		}
		typ := convert.Str(ps, "type")
		ok := false
		switch role {
		case "system":
			ok = typ == "text"
		case "user":
			ok = typ == "text" || typ == "image" || typ == "audio" || typ == "file" || typ == "data"
		case "assistant":
			ok = typ == "text" || typ == "reasoning" || typ == "tool-call" || typ == "source" || typ == "file" || typ == "image" || typ == "data" || typ == "generative-ui"
		}
		if !ok {
			return false
		}
		switch typ {
		case "text", "reasoning":
			if v, ok := convert.Get(ps, "text"); !ok || len(v) == 0 || v[0] != '"' {
				return false
			}
		case "image":
			if !imageURL(convert.Str(ps, "image")) {
				return false
			}
		case "file":
			for _, k := range []string{"data", "mimeType"} {
				if v, ok := convert.Get(ps, k); !ok || len(v) == 0 || v[0] != '"' {
					return false
				}
			}
		case "tool-call":
			args, _ := convert.Get(ps, "args")
			for _, k := range []string{"toolCallId", "toolName", "argsText"} {
				if v, ok := convert.Get(ps, k); !ok || len(v) == 0 || v[0] != '"' {
					return false
				}
			}
			if convert.Str(ps, "toolCallId") == "" || len(args) == 0 || args[0] != '{' {
				return false
			}
		}
	}
	return true
}

// imageURL reports whether assistant-ui keeps an image part of url: a
// data:image/ URL, or an https: or blob: one.
func imageURL(url string) bool {
	lower := func(n int) string {
		if len(url) < n {
			return ""
		}
		b := []byte(url[:n])
		for i, c := range b {
			if 'A' <= c && c <= 'Z' {
				b[i] = c + 'a' - 'A'
			}
		}
		return string(b)
	}
	return lower(11) == "data:image/" || lower(8) == "https://" || lower(5) == "blob:"
}

// The members of a ThreadMessage's metadata each role may have (its types:
// a user's or a system message's unstable_*, steps, submittedFeedback and
// timing are undefined, and fromThreadMessageLike refuses steps on them).
var userMeta = map[string]bool{"custom": true, "isOptimistic": true, "modality": true}

// complete writes a stored ThreadMessage (ms, its members) for node n with
// what assistant-ui's types require and it lacks, as fromThreadMessageLike
// fills it in: an assistant's status and metadata (unstable_state,
// unstable_annotations, unstable_data, steps, custom), a user's attachments,
// metadata.custom; a member the role may not have is left out (the message
// rides whole in the record's "sessiontree" member then).
func complete(id, created string, ms []convert.Member) []byte {
	role := convert.Str(ms, "role")
	meta, _ := convert.Get(ms, "metadata")
	mms, err := convert.Members(meta)
	if err != nil {
		mms = nil
	}
	if role == "assistant" {
		for _, d := range []convert.Member{{Key: "unstable_state", Value: []byte("null")}, {Key: "unstable_annotations", Value: []byte("[]")},
			{Key: "unstable_data", Value: []byte("[]")}, {Key: "steps", Value: []byte("[]")}, {Key: "custom", Value: []byte("{}")}} {
			if _, ok := convert.Get(mms, d.Key); !ok {
				mms = append(mms, d)
			}
		}
	} else {
		kept := mms[:0:0]
		for _, m := range mms {
			if userMeta[m.Key] && (role == "user" || m.Key == "custom") {
				kept = append(kept, m)
			}
		}
		if _, ok := convert.Get(kept, "custom"); !ok {
			kept = append(kept, convert.Member{Key: "custom", Value: []byte("{}")})
		}
		mms = kept
	}
	o := convert.NewObject(nil).String("id", id)
	for _, m := range ms {
		switch {
		case m.Key == "metadata":
			o.Raw("metadata", convert.NewObject(nil).Members(mms).Bytes())
		case m.Key == "status" && role != "assistant", m.Key == "attachments" && role != "user":
		default:
			o.Raw(m.Key, m.Value)
		}
	}
	if _, ok := convert.Get(ms, "metadata"); !ok {
		o.Raw("metadata", convert.NewObject(nil).Members(mms).Bytes())
	}
	if _, ok := convert.Get(ms, "status"); !ok && role == "assistant" {
		o.Raw("status", []byte(`{"type":"complete","reason":"unknown"}`))
	}
	if _, ok := convert.Get(ms, "attachments"); !ok && role == "user" {
		o.Raw("attachments", []byte(`[]`))
	}
	return o.String("createdAt", created).Bytes()
}

// record writes node n's message as a ThreadMessage.
func record(t *core.Tree, n core.Node) []byte {
	created := convert.FormatISO(n.CreatedAtMs)
	if Own(n.Message) {
		if ms, err := convert.Members(n.Message); err == nil {
			return complete(n.ID, created, ms)
		}
	}
	turn := convert.Named(t, n, chat.Read(n.Message))
	role := string(turn.Role)
	switch turn.Role {
	case chat.Tool:
		role = "assistant"
	case chat.User:
		// A user message of tool results only (Anthropic's tool_result
		// blocks) is shown as the results of the calls: an assistant's
		// tool-call parts, the part a user message cannot hold.
		shown, tools := false, false
		for _, p := range turn.Parts {
			shown = shown || p.Kind == chat.Text || (p.Kind == chat.Image && imageURL(p.URL))
			tools = tools || p.Kind == chat.ToolCall || p.Kind == chat.ToolResult
		}
		if tools && !shown {
			role = "assistant"
		}
	}
	var parts [][]byte
	if role == "system" {
		// Exactly one text part.
		parts = append(parts, convert.NewObject(nil).String("type", "text").String("text", turn.Text()).Bytes())
		turn.Parts = nil
	}
	type made struct {
		at   int // its part's index
		call chat.Part
	}
	calls := map[string]made{} // by call id: a call, for its result in the same message
	for i, p := range turn.Parts {
		if p.Kind == chat.ToolCall && p.CallID == "" {
			p.CallID = n.ID + "-call-" + strconv.Itoa(i) // a tool-call part has an id
		}
		switch {
		case p.Kind == chat.Text:
			if role == "assistant" && strings.TrimSpace(p.Text) == "" {
				continue // assistant-ui drops an empty text part of a reply
			}
			parts = append(parts, convert.NewObject(nil).String("type", "text").String("text", p.Text).Bytes())
		case p.Kind == chat.Thinking:
			if role == "assistant" && strings.TrimSpace(p.Text) != "" {
				parts = append(parts, convert.NewObject(nil).String("type", "reasoning").String("text", p.Text).Bytes())
			}
		case p.Kind == chat.Image:
			if imageURL(p.URL) {
				parts = append(parts, convert.NewObject(nil).String("type", "image").String("image", p.URL).Bytes())
			}
		case p.Kind == chat.Other:
			if f, ok := convert.FilePart(p.Raw); ok {
				o := convert.NewObject(nil).String("type", "file").String("data", f.URL).String("mimeType", f.MediaType)
				if f.Filename != "" {
					o.String("filename", f.Filename)
				}
				parts = append(parts, o.Bytes())
			} else if part := uiPart(role, p.Raw); part != nil {
				parts = append(parts, part)
			}
		case role == "user" && (p.Kind == chat.ToolCall || p.Kind == chat.ToolResult):
			// A user message holds no tool-call part: a data part.
			parts = append(parts, dataPart(p))
		case p.Kind == chat.ToolCall:
			calls[p.CallID] = made{len(parts), p}
			parts = append(parts, toolCall(p.CallID, p.Name, p.Args, nil))
		case p.Kind == chat.ToolResult:
			if c, ok := calls[p.CallID]; ok && p.CallID != "" {
				parts[c.at] = toolCall(c.call.CallID, c.call.Name, c.call.Args, &p)
				continue
			}
			id := p.CallID
			if id == "" {
				id = n.ID + "-result-" + strconv.Itoa(i)
			}
			parts = append(parts, toolCall(id, p.Name, "{}", &p)) // its call is in another message
		}
	}
	o := convert.NewObject(nil).String("id", n.ID).String("role", role).Raw("content", convert.RawArray(parts)).String("createdAt", created)
	switch role {
	case "assistant":
		o.Raw("metadata", []byte(`{"unstable_state":null,"unstable_annotations":[],"unstable_data":[],"steps":[],"custom":{}}`))
		o.Raw("status", []byte(`{"type":"complete","reason":"unknown"}`))
	case "user":
		o.Raw("metadata", []byte(`{"custom":{}}`))
		o.Raw("attachments", []byte(`[]`))
	default:
		o.Raw("metadata", []byte(`{"custom":{}}`))
	}
	return o.Bytes()
}

// uiPart writes an AI SDK UIMessage's source-url and source-document parts
// (an assistant's) as source parts and its data-NAME parts as data parts, as
// sessiontree/assistant-ui's toThreadMessage does; nil for another part.
func uiPart(role string, raw []byte) []byte {
	ms, err := convert.Members(raw)
	if err != nil {
		return nil
	}
	typ := convert.Str(ms, "type")
	optional := func(o *convert.Object, key string) *convert.Object {
		if v, ok := convert.Get(ms, key); ok && len(v) > 0 && v[0] == '"' {
			o.Raw(key, v)
		}
		return o
	}
	switch {
	case typ == "source-url" && role == "assistant":
		o := convert.NewObject(nil).String("type", "source").String("sourceType", "url").String("id", convert.Str(ms, "sourceId")).String("url", convert.Str(ms, "url"))
		return optional(o, "title").Bytes()
	case typ == "source-document" && role == "assistant":
		o := convert.NewObject(nil).String("type", "source").String("sourceType", "document").String("id", convert.Str(ms, "sourceId")).
			String("title", convert.Str(ms, "title")).String("mediaType", convert.Str(ms, "mediaType"))
		return optional(o, "filename").Bytes()
	case strings.HasPrefix(typ, "data-") && role != "system":
		data, ok := convert.Get(ms, "data")
		if !ok {
			data = []byte("null")
		}
		return optional(convert.NewObject(nil).String("type", "data").String("name", typ[len("data-"):]).Raw("data", data), "id").Bytes()
	}
	return nil
}

// dataPart writes a tool call or result a user message holds as a data part
// named "tool-call" or "tool-result".
func dataPart(p chat.Part) []byte {
	d := convert.NewObject(nil).String("toolCallId", p.CallID).String("toolName", p.Name)
	name := "tool-result"
	if p.Kind == chat.ToolCall {
		name = "tool-call"
		d.String("argsText", p.Args)
	} else if p.Output != nil && !p.IsError {
		d.Raw("result", p.Output)
	} else {
		d.String("result", p.Text)
		if p.IsError {
			d.Raw("isError", []byte("true"))
		}
	}
	return convert.NewObject(nil).String("type", "data").String("name", name).Raw("data", d.Bytes()).Bytes()
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
		if result.Output != nil && !result.IsError {
			o.Raw("result", result.Output) // a UIMessage's output as it was, as JS's mapping gives it
		} else {
			o.String("result", result.Text)
		}
		if result.IsError {
			o.Raw("isError", []byte("true"))
		}
	}
	return o.Bytes()
}
