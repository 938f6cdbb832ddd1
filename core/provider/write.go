package provider

import (
	"slices"

	"github.com/sessiontree/sessiontree/core/chat"
	"github.com/sessiontree/sessiontree/core/rawjson"
)

// obj writes one JSON object member by member.
type obj struct{ b []byte }

func (o *obj) key(k string) *obj {
	if len(o.b) > 1 {
		o.b = append(o.b, ',')
	}
	o.b = rawjson.AppendString(o.b, k)
	o.b = append(o.b, ':')
	return o
}

func (o *obj) str(k, v string) *obj {
	o.b = slices.Grow(o.b, len(k)+len(v)+8) // one growth for a long text, not one per doubling
	o.key(k)
	o.b = rawjson.AppendString(o.b, v)
	return o
}
func (o *obj) raw(k string, v []byte) *obj {
	o.key(k)
	o.b = append(o.b, v...)
	return o
}
func (o *obj) done() []byte { return append(o.b, '}') }

func newObj() *obj { return &obj{b: []byte{'{'}} }

// list writes a JSON array of raw values.
func list(vals [][]byte) []byte {
	n := 2 + len(vals)
	for _, v := range vals {
		n += len(v)
	}
	out := make([]byte, 1, n) // sized once: a request of 250 long messages is ~130 KB
	out[0] = '['
	for i, v := range vals {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, v...)
	}
	return append(out, ']')
}

// joinText is the text of a block's text items, joined by a blank line.
func joinText(b block) string {
	s := ""
	for _, it := range b.items {
		if it.part.Kind != chat.Text {
			continue
		}
		if s != "" {
			s += "\n\n"
		}
		s += it.part.Text
	}
	return s
}

// onlyText reports whether every item of b is text.
func onlyText(b block) bool {
	for _, it := range b.items {
		if it.part.Kind != chat.Text {
			return false
		}
	}
	return true
}

// imageURL is an image's URL when an API can fetch or decode it (http(s) or
// a data: URL of an image), else "".
func imageURL(p chat.Part) string {
	u := p.URL
	if hasPrefix(u, "https://") || hasPrefix(u, "http://") || hasPrefix(u, "data:image/") {
		return u
	}
	return ""
}

func hasPrefix(s, p string) bool { return len(s) >= len(p) && s[:len(p)] == p }

// resultText is what a result says as text; a result with non-text parts
// counts them as left out.
func resultText(p chat.Part, rep *Report) string {
	if p.Raw != nil {
		rep.Parts++
	}
	return p.Text
}

// writeChat writes the blocks as Chat Completions messages.
func writeChat(blocks []block, rep *Report) []byte {
	var msgs [][]byte
	for _, b := range blocks {
		switch b.role {
		case sysRole:
			msgs = append(msgs, newObj().str("role", "system").str("content", joinText(b)).done())
		case userRole:
			o := newObj().str("role", "user")
			if onlyText(b) {
				o.str("content", joinText(b))
			} else {
				o.raw("content", list(chatParts(b, rep)))
			}
			msgs = append(msgs, o.done())
		case asstRole:
			var calls [][]byte
			for _, it := range b.items {
				switch it.part.Kind {
				case chat.ToolCall:
					fn := newObj().str("name", it.part.Name).str("arguments", it.part.Args).done()
					calls = append(calls, newObj().str("id", it.part.CallID).str("type", "function").raw("function", fn).done())
				}
			}
			text := joinText(b)
			if text == "" && calls == nil {
				continue
			}
			o := newObj().str("role", "assistant")
			if text == "" {
				o.raw("content", []byte("null"))
			} else {
				o.str("content", text)
			}
			if calls != nil {
				o.raw("tool_calls", list(calls))
			}
			msgs = append(msgs, o.done())
		case resultsRole:
			for _, it := range b.items {
				msgs = append(msgs, newObj().str("role", "tool").str("tool_call_id", it.part.CallID).str("content", resultText(it.part, rep)).done())
			}
		}
	}
	rep.Sent = len(msgs)
	return list(msgs)
}

// chatParts writes a user block's parts: text and image_url.
func chatParts(b block, rep *Report) [][]byte {
	var parts [][]byte
	for _, it := range b.items {
		switch it.part.Kind {
		case chat.Text:
			parts = append(parts, newObj().str("type", "text").str("text", it.part.Text).done())
		case chat.Image:
			if u := imageURL(it.part); u != "" {
				parts = append(parts, newObj().str("type", "image_url").raw("image_url", newObj().str("url", u).done()).done())
			} else {
				rep.Parts++
				parts = append(parts, newObj().str("type", "text").str("text", "[image]").done())
			}
		}
	}
	return parts
}

// writeResponses writes the blocks as Responses input items.
func writeResponses(blocks []block, rep *Report) []byte {
	var items [][]byte
	for _, b := range blocks {
		switch b.role {
		case sysRole:
			items = append(items, newObj().str("type", "message").str("role", "system").str("content", joinText(b)).done())
		case userRole:
			o := newObj().str("type", "message").str("role", "user")
			if onlyText(b) {
				o.str("content", joinText(b))
			} else {
				var parts [][]byte
				for _, it := range b.items {
					switch it.part.Kind {
					case chat.Text:
						parts = append(parts, newObj().str("type", "input_text").str("text", it.part.Text).done())
					case chat.Image:
						if u := imageURL(it.part); u != "" {
							parts = append(parts, newObj().str("type", "input_image").str("image_url", u).str("detail", "auto").done())
						} else {
							rep.Parts++
							parts = append(parts, newObj().str("type", "input_text").str("text", "[image]").done())
						}
					}
				}
				o.raw("content", list(parts))
			}
			items = append(items, o.done())
		case asstRole:
			text := ""
			flush := func() {
				if text != "" {
					items = append(items, newObj().str("type", "message").str("role", "assistant").str("content", text).done())
					text = ""
				}
			}
			for _, it := range b.items {
				switch it.part.Kind {
				case chat.Text:
					if text != "" {
						text += "\n\n"
					}
					text += it.part.Text
				case chat.ToolCall:
					flush()
					items = append(items, newObj().str("type", "function_call").str("call_id", it.part.CallID).
						str("name", it.part.Name).str("arguments", it.part.Args).done())
				}
			}
			flush()
		case resultsRole:
			for _, it := range b.items {
				items = append(items, newObj().str("type", "function_call_output").str("call_id", it.part.CallID).
					str("output", resultText(it.part, rep)).done())
			}
		}
	}
	rep.Sent = len(items)
	return list(items)
}
