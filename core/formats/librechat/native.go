package librechat

import (
	"strconv"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/chat"
	"github.com/sessiontree/sessiontree/core/formats/internal/convert"
)

// native writes a message of another shape as a LibreChat message: messageId,
// parentMessageId (LibreChat's NoParent for a root), conversationId, sender,
// isCreatedByUser, createdAt and its text. A turn with reasoning, tool calls
// or images carries them as LibreChat content parts (think, tool_call,
// image_url, text), as its agents write them, with an empty text; a tool's
// result is a message of the tool's own. What no field holds stays in the
// record's "sessiontree" member.
func native(tr *core.Tree, n core.Node, conversationID string) []byte {
	t := convert.Named(tr, n, chat.Read(n.Message))
	at := t.TimeMs
	if at == 0 {
		at = n.CreatedAtMs
	}
	o := convert.NewObject(nil).String("messageId", n.ID)
	if n.Parent != "" {
		o.String("parentMessageId", n.Parent)
	} else {
		o.String("parentMessageId", NoParent)
	}
	if conversationID != "" {
		o.String("conversationId", conversationID)
	}
	user := t.Role == chat.User && !onlyResults(t)
	sender := "assistant"
	switch {
	case user:
		sender = "user"
	case t.Role == chat.System:
		sender = "system"
	case t.Role == chat.Tool || onlyResults(t):
		sender = "tool"
		for _, p := range t.Parts {
			if p.Kind == chat.ToolResult && p.Name != "" {
				sender = p.Name
				break
			}
		}
	case t.Model != "":
		sender = t.Model
	}
	o.String("sender", sender).Raw("isCreatedByUser", []byte(strconv.FormatBool(user)))
	o.String("createdAt", convert.FormatISO(at))
	if t.Model != "" {
		o.String("model", t.Model)
	}
	if rich(t) {
		o.String("text", "").Raw("content", contentParts(t))
	} else {
		o.String("text", plain(t))
	}
	return o.Bytes()
}

func onlyResults(t chat.Turn) bool {
	for _, p := range t.Parts {
		if p.Kind != chat.ToolResult {
			return false
		}
	}
	return len(t.Parts) > 0
}

// rich reports whether the turn has parts plain text cannot hold.
func rich(t chat.Turn) bool {
	for _, p := range t.Parts {
		if p.Kind == chat.Thinking || p.Kind == chat.ToolCall || p.Kind == chat.Image {
			return true
		}
	}
	return false
}

// plain is the turn's text: its text parts, or its tools' results.
func plain(t chat.Turn) string {
	if s := t.Text(); s != "" {
		return s
	}
	var out []byte // one buffer: a string grown by += copied itself at each result
	for _, p := range t.Parts {
		if p.Kind != chat.ToolResult {
			continue
		}
		if len(out) > 0 {
			out = append(out, "\n\n"...)
		}
		if p.Text != "" {
			out = append(out, p.Text...)
		} else {
			out = append(out, p.Raw...)
		}
	}
	return string(out)
}

func contentParts(t chat.Turn) []byte {
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
			add(convert.NewObject(nil).String("type", "think").String("think", p.Text).Bytes())
		case chat.ToolCall:
			call := convert.NewObject(nil).String("id", p.CallID).String("name", p.Name).String("args", p.Args).String("type", "tool_call").Bytes()
			add(convert.NewObject(nil).String("type", "tool_call").Raw("tool_call", call).Bytes())
		case chat.ToolResult:
			add(convert.NewObject(nil).String("type", "text").String("text", p.Text).Bytes())
		case chat.Image:
			add(convert.NewObject(nil).String("type", "image_url").Raw("image_url", convert.NewObject(nil).String("url", p.URL).Bytes()).Bytes())
		}
	}
	return append(out, ']')
}
