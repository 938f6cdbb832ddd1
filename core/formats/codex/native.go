package codex

import (
	"hash/fnv"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/chat"
	"github.com/sessiontree/sessiontree/core/formats/internal/convert"
	"github.com/sessiontree/sessiontree/core/rawjson"
)

// appendNative writes a message that did not come from Codex as the
// rollout's own response items (openai/codex, codex-rs/protocol models.rs,
// ResponseItem): text as a message item (input_text, or output_text for the
// assistant), thinking as a reasoning item, tool calls as function_call
// items and their results as function_call_output items, in the message's
// order. A message whose content is a string is one message item in its own
// role.
func appendNative(out []byte, ts string, msg core.Message) []byte {
	t := chat.Read(msg)
	role := msg.Role()
	if !codexRole(role) {
		role = string(t.Role) // a word of another tool's (pi's bashExecution): who speaks, in Codex's words
	}
	textOnly := true
	for _, p := range t.Parts {
		textOnly = textOnly && p.Kind == chat.Text
	}
	if c, _ := rawjson.Lookup(msg, "content"); textOnly && len(c) > 0 && c[0] == '"' {
		return line(out, ts, "response_item", messageItem(role, [][]byte{textPart(role, convert.ContentText(msg))}))
	}
	if !textOnly {
		role = string(t.Role)
		if t.Source == "developer" {
			role = t.Source
		}
	}
	var parts [][]byte
	flush := func() {
		if len(parts) > 0 {
			out = line(out, ts, "response_item", messageItem(role, parts))
			parts = nil
		}
	}
	for _, p := range t.Parts {
		switch p.Kind {
		case chat.Text:
			parts = append(parts, textPart(role, p.Text))
		case chat.Image:
			parts = append(parts, convert.NewObject(nil).String("type", "input_image").String("image_url", p.URL).Bytes())
		case chat.Thinking:
			flush()
			summary := convert.NewObject(nil).String("type", "summary_text").String("text", p.Text).Bytes()
			out = line(out, ts, "response_item", convert.NewObject(nil).String("type", "reasoning").
				Raw("summary", append(append([]byte{'['}, summary...), ']')).Bytes())
		case chat.ToolCall:
			flush()
			args := p.Args
			if args == "" {
				args = "{}"
			}
			out = line(out, ts, "response_item", convert.NewObject(nil).String("type", "function_call").
				String("name", p.Name).String("arguments", args).String("call_id", p.CallID).Bytes())
		case chat.ToolResult:
			flush()
			text := p.Text
			if text == "" && len(p.Raw) > 0 {
				text = string(p.Raw)
			}
			out = line(out, ts, "response_item", convert.NewObject(nil).String("type", "function_call_output").
				String("call_id", p.CallID).String("output", text).Bytes())
		default:
			parts = append(parts, textPart(role, string(p.Raw)))
		}
	}
	flush()
	return out
}

func textPart(role, text string) []byte {
	typ := "input_text"
	if role == "assistant" {
		typ = "output_text"
	}
	return convert.NewObject(nil).String("type", typ).String("text", text).Bytes()
}

func messageItem(role string, parts [][]byte) []byte {
	content := []byte{'['}
	for i, p := range parts {
		if i > 0 {
			content = append(content, ',')
		}
		content = append(content, p...)
	}
	content = append(content, ']')
	return convert.NewObject(nil).String("type", "message").String("role", role).Raw("content", content).Bytes()
}

// sessionMeta is the session_meta payload of an export whose first message
// did not come from Codex: the members Codex's SessionMeta requires (id, a
// UUID; timestamp; cwd; originator; cli_version), the id made from the first
// node's id (itself when it is a UUID).
func sessionMeta(id, ts string) []byte {
	return convert.NewObject(nil).String("id", uuidOf(id)).String("timestamp", ts).String("cwd", "").
		String("originator", "sessiontree").String("cli_version", "").String("source", "cli").Bytes()
}

// uuidOf returns id when it is a UUID, else a UUID (version 8, name-based)
// made from it, the same for the same id.
func uuidOf(id string) string {
	if isUUID(id) {
		return id
	}
	h := fnv.New128a()
	h.Write([]byte(id))
	b := h.Sum(nil)
	b[6] = b[6]&0x0f | 0x80
	b[8] = b[8]&0x3f | 0x80
	const hex = "0123456789abcdef"
	out := make([]byte, 0, 36)
	for i, c := range b {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			out = append(out, '-')
		}
		out = append(out, hex[c>>4], hex[c&15])
	}
	return string(out)
}

func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case i == 8 || i == 13 || i == 18 || i == 23:
			if c != '-' {
				return false
			}
		case c >= '0' && c <= '9', c >= 'a' && c <= 'f', c >= 'A' && c <= 'F':
		default:
			return false
		}
	}
	return true
}

// codexRole reports a message role Codex writes and reads back: user,
// assistant, developer, system.
func codexRole(role string) bool {
	return role == "user" || role == "assistant" || role == "developer" || role == "system"
}
