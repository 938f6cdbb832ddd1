package pi

import (
	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/chat"
	"github.com/sessiontree/sessiontree/core/formats/internal/convert"
	"github.com/sessiontree/sessiontree/core/rawjson"
)

// native writes a message of another shape as pi writes its messages
// (packages/ai types, as pi-mono 83378aa stores them): a user message with
// text and image parts; an assistant message with thinking, text and toolCall
// parts (arguments an object); a toolResult with its call's id and name. A
// system turn, which a pi session has no entry for, is written as a user
// message. Parts no pi shape holds are left to the entry's "sessiontree"
// member, which keeps the original message.
func native(tr *core.Tree, n core.Node, m core.Message) []byte {
	t := convert.Named(tr, n, chat.Read(m))
	at := t.TimeMs
	if at == 0 {
		at = n.CreatedAtMs
	}
	o := convert.NewObject(nil)
	switch t.Role {
	case chat.Tool:
		var res *chat.Part
		for i := range t.Parts {
			if t.Parts[i].Kind == chat.ToolResult {
				res = &t.Parts[i]
				break
			}
		}
		if res != nil {
			o.String("role", "toolResult").String("toolCallId", res.CallID).String("toolName", res.Name)
			o.Raw("content", resultContent(t))
			o.Raw("isError", boolJSON(res.IsError))
			return o.Int("timestamp", at).Bytes()
		}
		o.String("role", "user")
	case chat.Assistant:
		o.String("role", "assistant")
	default:
		if onlyResults(t) {
			// A user turn that only returns tool results (Anthropic's shape).
			p := t.Parts[0]
			o.String("role", "toolResult").String("toolCallId", p.CallID).String("toolName", p.Name)
			o.Raw("content", resultContent(t)).Raw("isError", boolJSON(p.IsError))
			return o.Int("timestamp", at).Bytes()
		}
		o.String("role", "user")
	}
	o.Raw("content", parts(t))
	if t.Role == chat.Assistant {
		// pi's footer and session stats add up every assistant message's
		// usage (usage.input, usage.cost.total, … with no check), and pi-ai's
		// AssistantMessage has api, provider and model strings: a message of
		// another tool gets them, its usage unknown (0).
		o.String("api", "").String("provider", "").String("model", t.Model).Raw("usage", zeroUsage)
		stop := "stop"
		for _, p := range t.Parts {
			if p.Kind == chat.ToolCall {
				stop = "toolUse"
			}
		}
		o.String("stopReason", stop)
	}
	return o.Int("timestamp", at).Bytes()
}

// zeroUsage is pi-ai's Usage of a message whose tokens are not known.
var zeroUsage = []byte(`{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}}`)

func onlyResults(t chat.Turn) bool {
	if len(t.Parts) == 0 {
		return false
	}
	for _, p := range t.Parts {
		if p.Kind != chat.ToolResult {
			return false
		}
	}
	return true
}

// parts writes a turn's parts as pi content parts.
func parts(t chat.Turn) []byte {
	out := []byte{'['}
	add := func(b []byte) {
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(out, b...)
	}
	for _, p := range t.Parts {
		switch p.Kind {
		case chat.Text:
			add(convert.NewObject(nil).String("type", "text").String("text", p.Text).Bytes())
		case chat.Thinking:
			o := convert.NewObject(nil).String("type", "thinking").String("thinking", p.Text)
			if p.Signature != "" {
				o.String("thinkingSignature", p.Signature)
			}
			add(o.Bytes())
		case chat.ToolCall:
			add(convert.NewObject(nil).String("type", "toolCall").String("id", p.CallID).String("name", p.Name).Raw("arguments", argsObject(p.Args)).Bytes())
		case chat.ToolResult:
			add(convert.NewObject(nil).String("type", "text").String("text", p.Text).Bytes())
		case chat.Image:
			if mime, data, ok := dataURL(p.URL); ok {
				add(convert.NewObject(nil).String("type", "image").String("data", data).String("mimeType", mime).Bytes())
			}
		}
	}
	return append(out, ']')
}

// resultContent is the content of a toolResult: the text of every result.
func resultContent(t chat.Turn) []byte {
	out := []byte{'['}
	for _, p := range t.Parts {
		if p.Kind != chat.ToolResult && p.Kind != chat.Text {
			continue
		}
		text := p.Text
		if text == "" && len(p.Raw) > 0 {
			text = string(p.Raw)
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(out, convert.NewObject(nil).String("type", "text").String("text", text).Bytes()...)
	}
	return append(out, ']')
}

// argsObject is a tool call's arguments as the object pi keeps.
func argsObject(args string) []byte {
	b := []byte(args)
	if len(b) > 0 && b[0] == '{' && rawjson.Valid(b) {
		c, err := rawjson.Compact(nil, b)
		if err == nil {
			return c
		}
	}
	if args == "" {
		return []byte("{}")
	}
	return convert.NewObject(nil).String("input", args).Bytes()
}

func boolJSON(b bool) []byte {
	if b {
		return []byte("true")
	}
	return []byte("false")
}

// dataURL splits a data: URL into its media type and base64 data.
func dataURL(u string) (mime, data string, ok bool) {
	const p = "data:"
	if len(u) < len(p) || u[:len(p)] != p {
		return "", "", false
	}
	for i := len(p); i < len(u); i++ {
		if u[i] == ',' {
			head := u[len(p):i]
			const b64 = ";base64"
			if len(head) >= len(b64) && head[len(head)-len(b64):] == b64 {
				return head[:len(head)-len(b64)], u[i+1:], true
			}
			return "", "", false
		}
	}
	return "", "", false
}
