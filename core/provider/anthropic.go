package provider

import (
	"slices"
	"strconv"
	"strings"

	"github.com/sessiontree/sessiontree/core/chat"
	"github.com/sessiontree/sessiontree/core/rawjson"
)

// placeholderText opens an Anthropic request whose conversation starts
// with the assistant: the first message must be the user's.
const placeholderText = "(conversation continues)"

// anthropicMessage is one message being built: its role and content blocks
// with their serials (0: written for this request alone).
type anthropicMessage struct {
	user    bool
	blocks  [][]byte
	serials []uint64
	// lastText is the index in blocks of the last text block and its text,
	// so a final assistant message can lose its trailing whitespace.
	lastText int
	text     string
}

// join appends the blocks of the next message of the same role (Anthropic's
// roles alternate), with their serials and their last text block, if any.
func (m *anthropicMessage) join(blocks [][]byte, serials []uint64, lastText int, text string) {
	if lastText >= 0 {
		m.lastText, m.text = len(m.blocks)+lastText, text
	}
	m.blocks = append(m.blocks, blocks...)
	m.serials = append(m.serials, serials...)
}

// anthropicPiece is what one block writes for Anthropic: the system text
// it adds (a system block), or the content blocks of a user or assistant
// message, its last text block and the tools it calls; kept with the block
// (blockOut) like the other APIs' messages.
type anthropicPiece struct {
	system   string
	isSystem bool
	user     bool
	content  [][]byte
	serials  []uint64
	lastText int
	text     string
	tools    []string
	parts    int
}

// anthropicOf is what b writes for Anthropic: once for a block the memo keeps.
func anthropicOf(b block) *anthropicPiece {
	if b.out != nil && b.out.anthropic != nil {
		return b.out.anthropic
	}
	var rep Report
	p := &anthropicPiece{lastText: -1}
	text := func(s string) {
		if isBlank(s) {
			return
		}
		p.lastText, p.text = len(p.content), s
		p.content = append(p.content, newObj().str("type", "text").str("text", s).done())
	}
	switch b.role {
	case sysRole:
		p.isSystem, p.system = true, joinText(b)
	case userRole:
		p.user = true
		for _, it := range b.items {
			switch it.part.Kind {
			case chat.Text:
				text(it.part.Text)
			case chat.Image:
				if src := anthropicImage(it.part); src != nil {
					p.content = append(p.content, newObj().str("type", "image").raw("source", src).done())
				} else {
					rep.Parts++
					text("[image]")
				}
			}
		}
	case asstRole:
		for _, it := range b.items {
			part := it.part
			switch part.Kind {
			case chat.Text:
				text(part.Text)
			case chat.Thinking: // flatten kept only what Anthropic takes back
				p.content = append(p.content, anthropicThinking(part))
			case chat.ToolCall:
				input := []byte(part.Args)
				if !isJSONObject(input) {
					input = newObj().str("input", part.Args).done()
				}
				p.content = append(p.content, newObj().str("type", "tool_use").str("id", part.CallID).str("name", part.Name).raw("input", input).done())
				p.tools = append(p.tools, part.Name)
			}
		}
	case resultsRole:
		p.user = true
		for _, it := range b.items {
			o := newObj().str("type", "tool_result").str("tool_use_id", it.part.CallID)
			if t := resultText(it.part, &rep); t != "" {
				o.str("content", t)
			}
			if it.part.IsError {
				o.raw("is_error", []byte("true"))
			}
			p.content = append(p.content, o.done())
		}
	}
	p.parts = rep.Parts
	p.content = slices.Clip(p.content)
	p.serials = make([]uint64, len(p.content))
	if b.out != nil {
		for i := range p.serials {
			p.serials[i] = serials.Add(1)
		}
		b.out.anthropic = p
	}
	return p
}

// writeAnthropic writes the blocks as Anthropic's system, messages and the
// tools the history uses, a content block the caller holds (held) as its
// place in what the caller holds (Options.Held), and the serial of each
// content block, message after message.
func writeAnthropic(blocks []block, rep *Report, held *places) (system, messages, tools []byte, nums []uint64) {
	var sys strings.Builder // (joinText)
	var msgs []*anthropicMessage
	var toolNames []string
	seenTool := map[string]bool{}
	for _, b := range blocks {
		p := anthropicOf(b)
		rep.Parts += p.parts
		if p.isSystem {
			if p.system != "" {
				if sys.Len() > 0 {
					sys.WriteString("\n\n")
				}
				sys.WriteString(p.system)
			}
			continue
		}
		for _, name := range p.tools {
			if !seenTool[name] {
				seenTool[name] = true
				toolNames = append(toolNames, name)
			}
		}
		if len(p.content) == 0 {
			continue
		}
		if n := len(msgs); n > 0 && msgs[n-1].user == p.user {
			msgs[n-1].join(p.content, p.serials, p.lastText, p.text)
			rep.Merged++
			continue
		}
		// Copies: a merge appends to them, and the last text may be trimmed.
		msgs = append(msgs, &anthropicMessage{user: p.user, blocks: slices.Clone(p.content), serials: slices.Clone(p.serials), lastText: p.lastText, text: p.text})
	}
	msgs = dropTrailingThinking(msgs, rep)
	if len(msgs) > 0 && !msgs[0].user {
		rep.Placeholder = true
		first := &anthropicMessage{user: true, lastText: -1, blocks: [][]byte{newObj().str("type", "text").str("text", placeholderText).done()}, serials: []uint64{0}}
		msgs = append([]*anthropicMessage{first}, msgs...)
	}
	// The final assistant message may not end with whitespace.
	if n := len(msgs); n > 0 && !msgs[n-1].user {
		m := msgs[n-1]
		if m.lastText == len(m.blocks)-1 && m.lastText >= 0 {
			if t := trimRight(m.text); t != m.text {
				m.blocks[m.lastText] = newObj().str("type", "text").str("text", t).done()
				m.serials[m.lastText] = 0
			}
		}
	}
	out := make([][]byte, len(msgs))
	var digits []byte
	for i, m := range msgs {
		r := "assistant"
		if m.user {
			r = "user"
		}
		for k, n := range m.serials {
			if p, ok := held.find(n); ok {
				at := len(digits)
				digits = strconv.AppendInt(digits, int64(p), 10)
				m.blocks[k] = digits[at:len(digits):len(digits)]
			}
		}
		nums = append(nums, m.serials...)
		out[i] = newObj().str("role", r).raw("content", list(m.blocks)).done()
	}
	rep.Sent = len(out)
	if sys.Len() > 0 {
		system = rawjson.AppendString(nil, sys.String())
	}
	if len(toolNames) > 0 {
		defs := make([][]byte, len(toolNames))
		for i, n := range toolNames {
			defs[i] = newObj().str("name", n).str("description", "A tool this conversation's history calls.").
				raw("input_schema", []byte(`{"type":"object"}`)).done()
		}
		tools = list(defs)
	}
	return system, list(out), tools, nums
}

// dropTrailingThinking leaves out the thinking an assistant message ends
// with (a reply interrupted after its thinking leaves a line of thinking
// alone), since Anthropic refuses it: "The final block in an assistant
// message cannot be `thinking`". A message left empty goes, and the
// messages around it, of one role then, are merged.
func dropTrailingThinking(msgs []*anthropicMessage, rep *Report) []*anthropicMessage {
	out := msgs[:0]
	for _, m := range msgs {
		if !m.user {
			n := len(m.blocks)
			for n > 0 && isThinkingBlock(m.blocks[n-1]) {
				n--
			}
			rep.Thinking += len(m.blocks) - n
			m.blocks, m.serials = m.blocks[:n], m.serials[:n]
			if n == 0 {
				continue
			}
		}
		if k := len(out); k > 0 && out[k-1].user == m.user {
			out[k-1].join(m.blocks, m.serials, m.lastText, m.text)
			rep.Merged++
			continue
		}
		out = append(out, m)
	}
	return out
}

// isThinkingBlock reports whether b, a content block anthropicThinking
// wrote, is thinking or redacted_thinking.
func isThinkingBlock(b []byte) bool {
	return hasPrefix(string(b), `{"type":"thinking"`) || hasPrefix(string(b), `{"type":"redacted_thinking"`)
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
		if pre := "data:" + mt + ";base64,"; hasPrefix(u, pre) && len(u) > len(pre) && isBase64(u[len(pre):]) {
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
