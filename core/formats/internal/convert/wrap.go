package convert

import (
	"strings"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/rawjson"
)

// Wrap builds the message of a record that has no chat-message shape of its
// own: {"role":role,"content":text,key:rec}. The record is kept whole under key
// so an export gives it back.
func Wrap(role, text, key string, rec []byte) core.Message {
	buf := make([]byte, 0, len(role)+len(text)+len(key)+len(rec)+32)
	return core.Message(NewObject(buf).String("role", role).String("content", text).Raw(key, rec).Bytes())
}

// Title is a conversation's title for a format that needs one: the first
// user message's text, trimmed to 60 bytes of valid UTF-8, or fallback.
func Title(nodes []core.Node, fallback string) string {
	for _, n := range nodes {
		if n.Message.Role() == "user" {
			s := strings.TrimSpace(ContentText(n.Message))
			if len(s) > 60 {
				s = s[:60]
			}
			return strings.ToValidUTF8(s, "")
		}
	}
	return fallback
}

// ContentText renders a message's content as plain text with real newlines:
// a string, or the text of its text parts joined by newlines, "[type]" for
// other parts.
func ContentText(msg []byte) string {
	c, ok := rawjson.Lookup(msg, "content")
	if !ok {
		return ""
	}
	return PartsText(c)
}

// PartsText renders a content value: a string, or an array of parts.
func PartsText(c []byte) string {
	if len(c) > 0 && c[0] == '"' {
		return rawjson.Unquote(c)
	}
	var out []string
	eachElement(c, func(p []byte) {
		if p[0] == '"' {
			out = append(out, rawjson.Unquote(p))
			return
		}
		if s, ok := rawjson.LookupString(p, "text"); ok {
			out = append(out, s)
		} else if typ, ok := rawjson.LookupString(p, "type"); ok {
			out = append(out, "["+typ+"]")
		}
	})
	return strings.Join(out, "\n")
}
