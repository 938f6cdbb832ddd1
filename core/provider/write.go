package provider

import (
	"slices"
	"strconv"
	"sync/atomic"

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

// blockOut is what a block wrote for each API, kept with the block.
type blockOut struct {
	chat, responses *written
	anthropic       *anthropicPiece
	tok             int // the block's tokens (0: not counted yet)
}

// written is one block's messages for one API, what writing them counted
// (Report.Parts) and their serials.
type written struct {
	msgs    [][]byte
	serials []uint64
	parts   int
}

// serials numbers the messages blocks wrote, across trees: a number stands
// for the same bytes for as long as a caller holds it.
var serials atomic.Uint64

// wrote is what b writes for api by one: once for a block the memo keeps.
func (b block) wrote(api API, one func(block, *Report) [][]byte) *written {
	var slot **written
	if b.out != nil {
		switch api {
		case OpenAIChat:
			slot = &b.out.chat
		case OpenAIResponses:
			slot = &b.out.responses
		}
	}
	if slot != nil && *slot != nil {
		return *slot
	}
	var rep Report
	w := &written{msgs: one(b, &rep), parts: rep.Parts}
	if slot != nil {
		w.serials = make([]uint64, len(w.msgs))
		for i := range w.serials {
			w.serials[i] = serials.Add(1)
		}
		*slot = w
	}
	return w
}

// writeMessages writes the blocks' messages as one JSON array, a run of
// messages the caller holds (held) as [p,c] (Options.Held), and returns
// the serial of each message (0: none); sc (or nil) lends its buffers.
func writeMessages(blocks []block, api API, rep *Report, held *places, one func(block, *Report) [][]byte, sc *scratch) ([]byte, []uint64) {
	if sc == nil {
		sc = new(scratch)
	}
	outs := slices.Grow(sc.outs[:0], len(blocks))[:len(blocks)]
	n := 0
	for i, b := range blocks {
		outs[i] = b.wrote(api, one)
		n += len(outs[i].msgs)
	}
	vals := sc.vals[:0]
	nums := make([]uint64, 0, n)
	digits := sc.digits[:0] // the runs written in place of messages, in one buffer
	runAt, runLen := 0, 0   // the open run of held messages: Held[runAt:runAt+runLen]
	flush := func() {
		if runLen == 0 {
			return
		}
		at := len(digits)
		digits = append(digits, '[')
		digits = strconv.AppendInt(digits, int64(runAt), 10)
		digits = append(digits, ',')
		digits = strconv.AppendInt(digits, int64(runLen), 10)
		digits = append(digits, ']')
		vals = append(vals, digits[at:len(digits):len(digits)])
		runLen = 0
	}
	for _, w := range outs {
		rep.Parts += w.parts
		if w.serials == nil {
			for range w.msgs {
				nums = append(nums, 0)
			}
		} else {
			nums = append(nums, w.serials...)
		}
		for i, m := range w.msgs {
			if w.serials != nil {
				if p, ok := held.find(w.serials[i]); ok {
					if runLen > 0 && p == runAt+runLen {
						runLen++
					} else {
						flush()
						runAt, runLen = p, 1
					}
					continue
				}
			}
			flush()
			vals = append(vals, m)
		}
	}
	flush()
	rep.Sent = len(nums)
	if cap(digits) > cap(sc.digits) {
		sc.digits = digits[:0]
	}
	sc.outs, sc.vals = outs, vals // the next request's, once this one is written (letGo)
	return list(vals), nums
}

// places finds a serial's place in the list the caller holds
// (Options.Held): a few places after the last one found first (a request's
// held messages come in runs of the list, after what the budget dropped
// from its front); a serial above the list's largest is none of them (the
// messages written since were numbered after it); else by a map made on
// the first such miss.
type places struct {
	list []uint64
	last int
	max  uint64 // the list's largest serial, once a miss needed it
	at   map[uint64]int
}

func placesIn(list []uint64) *places {
	if len(list) == 0 {
		return nil
	}
	return &places{list: list, last: -1}
}

func (h *places) find(n uint64) (int, bool) {
	if h == nil || n == 0 {
		return 0, false
	}
	for p := h.last + 1; p < min(len(h.list), h.last+17); p++ {
		if h.list[p] == n {
			h.last = p
			return p, true
		}
	}
	if h.max == 0 {
		h.max = slices.Max(h.list)
	}
	if n > h.max {
		return 0, false
	}
	if h.at == nil {
		h.at = make(map[uint64]int, len(h.list))
		for i, s := range h.list {
			if s != 0 {
				if _, dup := h.at[s]; !dup {
					h.at[s] = i
				}
			}
		}
	}
	p, ok := h.at[n]
	if ok {
		h.last = p
	}
	return p, ok
}

// chatMessages writes a block as Chat Completions messages.
func chatMessages(b block, rep *Report) [][]byte {
	var msgs [][]byte
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
			return nil
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
	return msgs
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

// responsesItems writes a block as Responses input items.
func responsesItems(b block, rep *Report) [][]byte {
	var items [][]byte
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
	return items
}
