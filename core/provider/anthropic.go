package provider

import (
	"github.com/sessiontree/sessiontree/core/chat"
	"github.com/sessiontree/sessiontree/core/rawjson"
)

// placeholderText opens an Anthropic request whose conversation starts
// with the assistant: the first message must be the user's.
const placeholderText = "(conversation continues)"

// anthropicMessage is one message being built: its role and content blocks.
type anthropicMessage struct {
	user   bool
	blocks [][]byte
	// lastText is the index in blocks of the last text block and its text,
	// so a final assistant message can lose its trailing whitespace.
	lastText int
	text     string
}

// writeAnthropic writes the blocks as Anthropic's system, messages and the
// tools the history uses.
func writeAnthropic(blocks []block, rep *Report) (system, messages, tools []byte) {
	sys := ""
	var msgs []*anthropicMessage
	var toolNames []string
	seenTool := map[string]bool{}
	add := func(user bool, content [][]byte, lastText int, text string) {
		if len(content) == 0 {
			return
		}
		if n := len(msgs); n > 0 && msgs[n-1].user == user {
			m := msgs[n-1]
			if lastText >= 0 {
				m.lastText, m.text = len(m.blocks)+lastText, text
			}
			m.blocks = append(m.blocks, content...)
			rep.Merged++
			return
		}
		msgs = append(msgs, &anthropicMessage{user: user, blocks: content, lastText: lastText, text: text})
	}
	for _, b := range blocks {
		var content [][]byte
		lastText, last := -1, ""
		text := func(s string) {
			if isBlank(s) {
				return
			}
			lastText, last = len(content), s
			content = append(content, newObj().str("type", "text").str("text", s).done())
		}
		switch b.role {
		case sysRole:
			if t := joinText(b); t != "" {
				if sys != "" {
					sys += "\n\n"
				}
				sys += t
			}
			continue
		case userRole:
			for _, it := range b.items {
				switch it.part.Kind {
				case chat.Text:
					text(it.part.Text)
				case chat.Image:
					if src := anthropicImage(it.part); src != nil {
						content = append(content, newObj().str("type", "image").raw("source", src).done())
					} else {
						rep.Parts++
						text("[image]")
					}
				}
			}
			add(true, content, lastText, last)
		case asstRole:
			for _, it := range b.items {
				p := it.part
				switch p.Kind {
				case chat.Text:
					text(p.Text)
				case chat.Thinking: // flatten kept only what Anthropic takes back
					content = append(content, anthropicThinking(p))
				case chat.ToolCall:
					input := []byte(p.Args)
					if !isJSONObject(input) {
						input = newObj().str("input", p.Args).done()
					}
					content = append(content, newObj().str("type", "tool_use").str("id", p.CallID).str("name", p.Name).raw("input", input).done())
					if !seenTool[p.Name] {
						seenTool[p.Name] = true
						toolNames = append(toolNames, p.Name)
					}
				}
			}
			add(false, content, lastText, last)
		case resultsRole:
			for _, it := range b.items {
				o := newObj().str("type", "tool_result").str("tool_use_id", it.part.CallID)
				if t := resultText(it.part, rep); t != "" {
					o.str("content", t)
				}
				if it.part.IsError {
					o.raw("is_error", []byte("true"))
				}
				content = append(content, o.done())
			}
			add(true, content, -1, "")
		}
	}
	if len(msgs) > 0 && !msgs[0].user {
		rep.Placeholder = true
		first := &anthropicMessage{user: true, lastText: -1, blocks: [][]byte{newObj().str("type", "text").str("text", placeholderText).done()}}
		msgs = append([]*anthropicMessage{first}, msgs...)
	}
	// The final assistant message may not end with whitespace.
	if n := len(msgs); n > 0 && !msgs[n-1].user {
		m := msgs[n-1]
		if m.lastText == len(m.blocks)-1 && m.lastText >= 0 {
			m.blocks[m.lastText] = newObj().str("type", "text").str("text", trimRight(m.text)).done()
		}
	}
	out := make([][]byte, len(msgs))
	for i, m := range msgs {
		r := "assistant"
		if m.user {
			r = "user"
		}
		out[i] = newObj().str("role", r).raw("content", list(m.blocks)).done()
	}
	rep.Sent = len(out)
	if sys != "" {
		system = rawjson.AppendString(nil, sys)
	}
	if len(toolNames) > 0 {
		defs := make([][]byte, len(toolNames))
		for i, n := range toolNames {
			defs[i] = newObj().str("name", n).str("description", "A tool this conversation's history calls.").
				raw("input_schema", []byte(`{"type":"object"}`)).done()
		}
		tools = list(defs)
	}
	return system, list(out), tools
}

// anthropicThinking is a thinking part as Anthropic takes it back: a
// redacted_thinking block as it was, or thinking with a signature of
// Anthropic's (not a Responses item's encrypted content nor the JSON text
// pi keeps for OpenAI reasoning); nil otherwise.
func anthropicThinking(p chat.Part) []byte {
	if p.Raw != nil {
		if typ, _ := rawjson.LookupString(p.Raw, "type"); typ == "redacted_thinking" && p.Signature != "" {
			return newObj().str("type", "redacted_thinking").str("data", p.Signature).done()
		}
		return nil
	}
	if p.Signature == "" || p.Signature[0] == '{' || isBlank(p.Text) {
		return nil
	}
	return newObj().str("type", "thinking").str("thinking", p.Text).str("signature", p.Signature).done()
}

// anthropicImage is the source of an image Anthropic takes: a base64 data
// URL of JPEG, PNG, GIF or WebP, or an http(s) URL; nil otherwise.
func anthropicImage(p chat.Part) []byte {
	u := p.URL
	if hasPrefix(u, "https://") || hasPrefix(u, "http://") {
		return newObj().str("type", "url").str("url", u).done()
	}
	for _, mt := range [...]string{"image/jpeg", "image/png", "image/gif", "image/webp"} {
		if pre := "data:" + mt + ";base64,"; hasPrefix(u, pre) && len(u) > len(pre) {
			return newObj().str("type", "base64").str("media_type", mt).str("data", u[len(pre):]).done()
		}
	}
	return nil
}

func isBlank(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c != ' ' && c != '\n' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}

func trimRight(s string) string {
	for len(s) > 0 && (s[len(s)-1] == ' ' || s[len(s)-1] == '\n' || s[len(s)-1] == '\t' || s[len(s)-1] == '\r') {
		s = s[:len(s)-1]
	}
	return s
}

func isJSONObject(b []byte) bool {
	i := 0
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\t' || b[i] == '\r') {
		i++
	}
	return i < len(b) && b[i] == '{' && rawjson.Valid(b)
}
