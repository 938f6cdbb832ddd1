package claudeai

import (
	"strings"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/chat"
	"github.com/sessiontree/sessiontree/core/formats/internal/convert"
	"github.com/sessiontree/sessiontree/core/rawjson"
)

// native writes a message of another shape as a claude.ai chat_messages
// entry with every field an export's entry has: uuid, text (the text parts,
// which importers read when the blocks give none), content blocks (text,
// thinking, tool_use, tool_result as claude.ai writes them), sender (an
// assistant's turn is the assistant's, any other the human's), times,
// attachments and files, and parent_message_uuid. An image has no block in
// an export (claude.ai lists files by name): it stays in the entry's
// "sessiontree" member.
func native(tr *core.Tree, n core.Node) []byte {
	t := convert.Named(tr, n, chat.Read(n.Message))
	at := t.TimeMs
	if at == 0 {
		at = n.CreatedAtMs
	}
	sender := "human"
	if t.Role == chat.Assistant {
		sender = "assistant"
	}
	var texts []string
	blocks := []byte{'['}
	add := func(b []byte) {
		if len(blocks) > 1 {
			blocks = append(blocks, ',')
		}
		blocks = append(blocks, b...)
	}
	for _, p := range t.Parts {
		switch p.Kind {
		case chat.Text:
			texts = append(texts, p.Text)
			add(convert.NewObject(nil).String("type", "text").String("text", p.Text).Raw("citations", []byte("[]")).Bytes())
		case chat.Thinking:
			add(convert.NewObject(nil).String("type", "thinking").String("thinking", p.Text).Bytes())
		case chat.ToolCall:
			args := []byte(p.Args)
			if !rawjson.Valid(args) || args[0] != '{' {
				args = convert.NewObject(nil).String("input", p.Args).Bytes()
			}
			add(convert.NewObject(nil).String("type", "tool_use").String("id", p.CallID).String("name", p.Name).Raw("input", args).Bytes())
		case chat.ToolResult:
			body := p.Text
			if body == "" && len(p.Raw) > 0 {
				body = string(p.Raw)
			}
			o := convert.NewObject(nil).String("type", "tool_result").String("tool_use_id", p.CallID)
			if p.Name != "" {
				o.String("name", p.Name)
			}
			inner := convert.NewObject(nil).String("type", "text").String("text", body).Bytes()
			o.Raw("content", append(append([]byte{'['}, inner...), ']'))
			if p.IsError {
				o.Raw("is_error", []byte("true"))
			}
			add(o.Bytes())
		}
	}
	blocks = append(blocks, ']')
	ts := convert.FormatISO(at)
	parent := n.Parent
	if parent == "" {
		parent = RootParent
	}
	return convert.NewObject(nil).String("uuid", n.ID).String("text", strings.Join(texts, "\n\n")).Raw("content", blocks).
		String("sender", sender).String("created_at", ts).String("updated_at", ts).
		Raw("attachments", []byte("[]")).Raw("files", []byte("[]")).String("parent_message_uuid", parent).Bytes()
}
