package openwebui

import (
	"strings"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/chat"
	"github.com/sessiontree/sessiontree/core/formats/internal/convert"
	"github.com/sessiontree/sessiontree/core/rawjson"
)

// foreignKeys are the members other formats keep their records under: a
// message holding one came from that format.
var foreignKeys = []string{"chatgpt", "librechat", "claudecode", "pi", "codex", "claudeai", "sillytavern"}

// ownShape reports whether msg is an Open WebUI message as it is: a role Open
// WebUI shows (user, assistant, system), content a string, and no record of
// another format.
func ownShape(msg []byte) bool {
	role, _ := rawjson.LookupString(msg, "role")
	if role != "user" && role != "assistant" && role != "system" {
		return false
	}
	c, ok := rawjson.Lookup(msg, "content")
	if !ok || len(c) == 0 || c[0] != '"' {
		return false
	}
	for _, k := range foreignKeys {
		if _, has := rawjson.Lookup(msg, k); has {
			return false
		}
	}
	return true
}

// native writes a message of another shape as an Open WebUI message: a role
// it shows (a tool's result is input to the model: user), the content as the
// one markdown string Open WebUI renders — reasoning in a
// <details type="reasoning"> block and tool calls in a
// <details type="tool_calls"> block, as Open WebUI writes them
// (backend/open_webui/utils/middleware.py), a tool's result in a code block,
// an image as a markdown image — a timestamp in seconds, the model, and done
// for a reply. What the content cannot hold stays in the record's
// "sessiontree" member.
func native(tr *core.Tree, n core.Node, m core.Message) core.Message {
	t := convert.Named(tr, n, chat.Read(m))
	at := t.TimeMs
	if at == 0 {
		at = n.CreatedAtMs
	}
	role := "user"
	switch t.Role {
	case chat.Assistant:
		role = "assistant"
	case chat.System:
		role = "system"
	}
	var sb strings.Builder
	sep := func() {
		if sb.Len() > 0 {
			sb.WriteString("\n\n")
		}
	}
	for _, p := range t.Parts {
		switch p.Kind {
		case chat.Text:
			sep()
			sb.WriteString(p.Text)
		case chat.Thinking:
			sep()
			sb.WriteString("<details type=\"reasoning\" done=\"true\">\n<summary>Thought</summary>\n")
			sb.WriteString(p.Text)
			sb.WriteString("\n</details>")
		case chat.ToolCall:
			sep()
			sb.WriteString(`<details type="tool_calls" done="true" id="`)
			sb.WriteString(escapeAttr(p.CallID))
			sb.WriteString(`" name="`)
			sb.WriteString(escapeAttr(p.Name))
			sb.WriteString(`" arguments="`)
			sb.WriteString(escapeAttr(p.Args))
			sb.WriteString("\">\n<summary>Tool Executed</summary>\n</details>")
		case chat.ToolResult:
			sep()
			body := p.Text
			if body == "" && len(p.Raw) > 0 {
				body = string(p.Raw)
			}
			sb.WriteString("```\n")
			sb.WriteString(body)
			sb.WriteString("\n```")
		case chat.Image:
			if p.URL != "" {
				sep()
				sb.WriteString("![image](")
				sb.WriteString(p.URL)
				sb.WriteString(")")
			}
		}
	}
	o := convert.NewObject(nil).String("role", role).String("content", sb.String()).Int("timestamp", at/1000)
	if t.Model != "" {
		o.String("model", t.Model)
	}
	if role == "assistant" {
		o.Raw("done", []byte("true"))
	}
	return o.Bytes()
}

func escapeAttr(s string) string {
	return strings.NewReplacer("&", "&amp;", `"`, "&quot;", "<", "&lt;", ">", "&gt;").Replace(s)
}
