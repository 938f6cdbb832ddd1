package chatgpt

import (
	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/chat"
	"github.com/sessiontree/sessiontree/core/formats/internal/convert"
	"github.com/sessiontree/sessiontree/core/rawjson"
)

// native writes a message of another shape as the message of a ChatGPT
// mapping entry, with every field a conversations.json message has (author,
// create_time, content, status, end_turn, weight, metadata, recipient,
// channel: LibreChat's importer reads metadata.model_slug and
// content.content_type, api/server/utils/import/importers.js at b6e4959).
//
// One entry holds one content type, so the turn's leading kind decides it:
// text (content_type "text", the text parts and a code block per tool call
// made beside the text); else a tool call (the
// assistant addresses the tool: recipient is its name, content_type "code"
// holds the arguments); else a tool's result (author.role "tool", its name,
// content_type "text"); else reasoning (content_type "thoughts"). What the
// entry cannot hold stays in its "sessiontree" member.
func native(tr *core.Tree, n core.Node) []byte {
	t := convert.Named(tr, n, chat.Read(n.Message))
	at := t.TimeMs
	if at == 0 {
		at = n.CreatedAtMs
	}
	role := string(t.Role)
	recipient, name := "all", ""
	var content []byte
	text := t.Text()
	first := func(k chat.Kind) *chat.Part {
		for i := range t.Parts {
			if t.Parts[i].Kind == k {
				return &t.Parts[i]
			}
		}
		return nil
	}
	switch call, res, th := first(chat.ToolCall), first(chat.ToolResult), first(chat.Thinking); {
	case text != "" || (call == nil && res == nil && th == nil):
		// The text, then each tool call the turn also makes as a code block
		// (as ChatGPT shows the code a model sends a tool).
		parts := []string{text}
		for _, p := range t.Parts {
			if p.Kind == chat.ToolCall {
				parts = append(parts, "`"+p.Name+"`\n```json\n"+p.Args+"\n```")
			}
		}
		content = convert.NewObject(nil).String("content_type", "text").Raw("parts", rawjson.AppendStrings(nil, parts)).Bytes()
	case call != nil:
		recipient = call.Name
		content = convert.NewObject(nil).String("content_type", "code").String("language", "json").String("text", call.Args).Bytes()
	case res != nil:
		role, name = "tool", res.Name
		body := res.Text
		if body == "" && len(res.Raw) > 0 {
			body = string(res.Raw)
		}
		content = convert.NewObject(nil).String("content_type", "text").Raw("parts", rawjson.AppendStrings(nil, []string{body})).Bytes()
	default:
		thought := convert.NewObject(nil).String("summary", "Thinking").String("content", th.Text).Raw("chunks", []byte("[]")).Raw("finished", []byte("true")).Bytes()
		content = convert.NewObject(nil).String("content_type", "thoughts").Raw("thoughts", append(append([]byte{'['}, thought...), ']')).String("source_analysis_msg_id", "").Bytes()
	}
	if t.Role == chat.System {
		role = "system"
	}
	author := convert.NewObject(nil).String("role", role)
	if name != "" {
		author.String("name", name)
	} else {
		author.Raw("name", []byte("null"))
	}
	author.Raw("metadata", []byte("{}"))
	meta := convert.NewObject(nil)
	if t.Model != "" {
		meta.String("model_slug", t.Model)
	}
	if t.Hidden {
		meta.Raw("is_visually_hidden_from_conversation", []byte("true"))
	}
	endTurn := []byte("null")
	if t.Role == chat.Assistant && recipient == "all" {
		endTurn = []byte("true")
	}
	weight := []byte("1.0")
	if t.Hidden {
		weight = []byte("0.0")
	}
	return convert.NewObject(nil).String("id", n.ID).Raw("author", author.Bytes()).
		Raw("create_time", convert.FormatSeconds(at)).Raw("update_time", []byte("null")).
		Raw("content", content).String("status", "finished_successfully").Raw("end_turn", endTurn).
		Raw("weight", weight).Raw("metadata", meta.Bytes()).String("recipient", recipient).Raw("channel", []byte("null")).Bytes()
}
