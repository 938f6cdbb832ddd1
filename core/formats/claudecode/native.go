package claudecode

import (
	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/chat"
	"github.com/sessiontree/sessiontree/core/formats/internal/convert"
	"github.com/sessiontree/sessiontree/core/rawjson"
)

// nativeLine is the line of a node that did not come from Claude Code: a
// user, assistant or system line in Claude Code's own form. A message whose
// content Claude Code reads as it is (a string, or Anthropic content blocks)
// is carried as it is, with what the line had to add or change listed in the
// extension so an import gives the message back byte for byte. Any other
// message, and any message that keeps another format's record, is written in
// Claude Code's form from its neutral turn (chat.Read): text, thinking,
// tool_use and tool_result blocks, what Claude Code and its readers show;
// the export keeps the original in the line's "sessiontree" member (its
// strings the line holds as references: entry.withExt), and an import gives
// it back.
func nativeLine(n core.Node, msg core.Message, session string) ([]byte, lineExt, bool) {
	t := chat.Read(msg)
	role := msg.Role()
	typ := "user"
	switch t.Role {
	case chat.Assistant:
		typ = "assistant"
	case chat.System:
		typ = "system"
	}
	e := lineExt{bare: true}
	converted := false
	var body []byte
	content, hasContent := rawjson.Lookup(msg, "content")
	plain := !convert.HasRecord(msg) && !hasAny(msg, "tool_calls", "tool_call_id", "function_call")
	switch {
	case typ == "system" && plain:
		body = msg // carried as it is; the line's content shows its text
	case typ == "system":
		converted, e.bare = true, false
		body = convert.NewObject(nil).String("role", "system").String("content", t.Text()).Bytes()
	case plain && hasContent && claudeContent(content):
		body = msg
		if role != typ {
			e.was = []convert.Member{{Key: "role", Value: convert.Quote(role)}}
			body = setMember(body, "role", convert.Quote(typ))
		}
		var was []convert.Member
		body, e.added, was, e.text = complete(body, typ, n.ID, t.Model)
		e.was = append(e.was, was...)
	default:
		// In Claude Code's form the line is a Claude Code line like any
		// other: an import gives its message with the line under "claudecode".
		converted, e.bare = true, false
		o := convert.NewObject(nil)
		if typ == "assistant" {
			o.String("id", n.ID).String("type", "message")
		}
		o.String("role", typ)
		if typ == "assistant" {
			o.String("model", t.Model)
		}
		if typ == "user" && len(t.Parts) == 1 && t.Parts[0].Kind == chat.Text {
			body = o.String("content", t.Parts[0].Text).Bytes() // a prompt, as Claude Code writes one
		} else {
			o.Raw("content", Blocks(t))
			if typ == "assistant" {
				o.Raw("stop_reason", []byte("null")).Raw("stop_sequence", []byte("null"))
			}
			body = o.Bytes()
		}
	}
	o := convert.NewObject(nil)
	if n.Parent == "" {
		o.Raw("parentUuid", []byte("null"))
	} else {
		o.String("parentUuid", n.Parent)
	}
	o.Raw("isSidechain", []byte("false")).String("userType", "external").String("cwd", "").
		String("sessionId", session).String("version", "").String("type", typ)
	if typ == "system" {
		o.String("subtype", "informational").String("content", t.Text()).String("level", "info")
	}
	o.String("uuid", n.ID).String("timestamp", convert.FormatISO(n.CreatedAtMs)).Raw("message", body)
	return o.Bytes(), e, converted
}

func hasAny(msg []byte, keys ...string) bool {
	for _, k := range keys {
		if _, ok := rawjson.Lookup(msg, k); ok {
			return true
		}
	}
	return false
}

// claudeContent reports whether content is what a Claude Code message holds:
// a string, or a list of Anthropic content blocks.
func claudeContent(content []byte) bool {
	if len(content) > 0 && content[0] == '"' {
		return true
	}
	parts, err := convert.Elements(content)
	if err != nil || len(content) == 0 || content[0] != '[' {
		return false
	}
	for _, p := range parts {
		typ, _ := rawjson.LookupString(p, "type")
		switch typ {
		case "text":
			if _, ok := rawjson.LookupString(p, "text"); !ok {
				return false
			}
		case "tool_use":
			if in, _ := rawjson.Lookup(p, "input"); kindOf(in) != "object" {
				return false
			}
		case "tool_result":
			if _, ok := rawjson.LookupString(p, "tool_use_id"); !ok {
				return false
			}
		case "thinking", "redacted_thinking", "image", "document":
		default:
			return false
		}
	}
	return true
}

// Blocks writes a turn's parts as Anthropic content blocks: text, thinking,
// tool_use (the arguments as the input object), tool_result and image; a part
// of another shape becomes a text block holding its JSON.
func Blocks(t chat.Turn) []byte {
	out := []byte{'['}
	for _, p := range t.Parts {
		o := convert.NewObject(nil)
		switch p.Kind {
		case chat.Text:
			o.String("type", "text").String("text", p.Text)
		case chat.Thinking:
			o.String("type", "thinking").String("thinking", p.Text)
			if p.Signature != "" {
				o.String("signature", p.Signature)
			}
		case chat.ToolCall:
			o.String("type", "tool_use").String("id", p.CallID).String("name", p.Name).Raw("input", inputObject(p.Args))
		case chat.ToolResult:
			o.String("type", "tool_result").String("tool_use_id", p.CallID)
			if len(p.Raw) > 0 && p.Raw[0] == '[' {
				o.Raw("content", p.Raw)
			} else if len(p.Raw) > 0 {
				o.String("content", string(p.Raw))
			} else {
				o.String("content", p.Text)
			}
			if p.IsError {
				o.Raw("is_error", []byte("true"))
			}
		case chat.Image:
			if mt, data, ok := dataURL(p.URL); ok {
				src := convert.NewObject(nil).String("type", "base64").String("media_type", mt).String("data", data).Bytes()
				o.String("type", "image").Raw("source", src)
			} else {
				o.String("type", "image").Raw("source", convert.NewObject(nil).String("type", "url").String("url", p.URL).Bytes())
			}
		default:
			o.String("type", "text").String("text", string(p.Raw))
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(out, o.Bytes()...)
	}
	return append(out, ']')
}

// inputObject is a tool call's arguments as the object tool_use.input is:
// the arguments when they are a JSON object, else {"input": the text}.
func inputObject(args string) []byte {
	if args == "" {
		return []byte("{}")
	}
	if c, err := rawjson.Compact(nil, []byte(args)); err == nil && len(c) > 0 && c[0] == '{' {
		return c
	}
	return convert.NewObject(nil).String("input", args).Bytes()
}

// dataURL splits a data: URL of base64 data into its media type and data.
func dataURL(u string) (string, string, bool) {
	const prefix = "data:"
	if len(u) < len(prefix) || u[:len(prefix)] != prefix {
		return "", "", false
	}
	rest := u[len(prefix):]
	for i := 0; i+8 <= len(rest); i++ {
		if rest[i:i+8] == ";base64," {
			return rest[:i], rest[i+8:], true
		}
	}
	return "", "", false
}

// setMember returns obj with key's value replaced.
func setMember(obj []byte, key string, v []byte) []byte {
	ms, err := convert.Members(obj)
	if err != nil {
		return obj
	}
	return convert.NewObject(nil).Members(convert.Set(ms, key, v)).Bytes()
}
