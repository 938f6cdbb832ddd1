package provider

import (
	"cmp"
	"github.com/sessiontree/sessiontree/core"
	"slices"
	"sort"
	"strconv"
	"strings"
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
	// A strings.Builder: += copied the text so far at each part, and a
	// block of n parts cost O(n²) (40,000 of them: 10 s; an outside pass).
	var s strings.Builder
	for _, it := range b.items {
		if it.part.Kind != chat.Text {
			continue
		}
		if s.Len() > 0 {
			s.WriteString("\n\n")
		}
		s.WriteString(it.part.Text)
	}
	return s.String()
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

// imageURL is an image's URL when OpenAI can fetch or decode it: http(s),
// or a base64 data URL of PNG, JPEG, GIF or WebP, the formats it takes (it
// refuses the whole request for another, an SVG or a BMP: "You uploaded an
// unsupported image"); else "".
func imageURL(p chat.Part) string {
	u := p.URL
	if hasPrefix(u, "https://") || hasPrefix(u, "http://") {
		return u
	}
	for _, mt := range [...]string{"image/png", "image/jpeg", "image/gif", "image/webp"} {
		if pre := "data:" + mt + ";base64,"; hasPrefix(u, pre) && len(u) > len(pre) && isBase64(u[len(pre):]) {
			return u
		}
	}
	return ""
}

// isBase64 reports whether s is standard base64 with its padding: the APIs
// refuse a whole request over one image whose data does not decode (until
// Dec 6, night, such an image was sent; an outside pass). Its bytes are not
// checked against the media type.
func isBase64(s string) bool {
	if len(s)%4 != 0 {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case 'A' <= c && c <= 'Z', 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '+', c == '/':
		case c == '=' && (i == len(s)-1 || i == len(s)-2 && s[len(s)-1] == '='):
		default:
			return false
		}
	}
	return true
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
// (Report.Parts) and their serials: first, first+1, … (numbered in one
// step), or none (first 0) for a block written for one request alone.
type written struct {
	msgs  [][]byte
	first uint64
	parts int
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
		if len(w.msgs) > 0 {
			w.first = serials.Add(uint64(len(w.msgs))) - uint64(len(w.msgs)) + 1 // in one step: a block's serials run on
		}
		*slot = w
	}
	return w
}

// writeMessages writes the spans' messages as one JSON array, a run of
// messages the caller holds (held) as [p,c] (Options.Held), and returns
// their serials as runs; sc (or nil) lends its buffers. A span of a segment
// whose messages were written once and run on (segWrote) that the caller
// holds whole costs the same however many messages it holds.
func writeMessages(spans []span, api API, rep *Report, held *places, one func(block, *Report) [][]byte, sc *scratch) ([]byte, []Run) {
	if sc == nil {
		sc = new(scratch)
	}
	ai := 0
	if api == OpenAIResponses {
		ai = 1
	}
	w := &messageWriter{held: held, vals: sc.vals[:0], digits: sc.digits[:0], runs: sc.runs[:0], rep: rep}
	for _, p := range spans {
		if p.seg == nil {
			for _, b := range p.blocks {
				core.Tick()
				w.block(b.wrote(api, one))
			}
			continue
		}
		s, from := p.seg, p.from
		sw := s.wrote[ai]
		if sw != nil && from >= sw.from && sw.put(w, from) {
			continue
		}
		outs := slices.Grow(sc.outs[:0], len(s.blocks)-from)[:len(s.blocks)-from]
		for i, b := range s.blocks[from:] {
			core.Tick()
			outs[i] = b.wrote(api, one)
			w.block(outs[i])
		}
		if sw == nil || from < sw.from {
			if now := runOn(outs, from); now != nil || sw == nil {
				s.wrote[ai] = now
			}
		}
		clear(outs)
		sc.outs = outs[:0]
	}
	w.flush()
	rep.Sent = w.sent
	if cap(w.digits) > cap(sc.digits) {
		sc.digits = w.digits[:0]
	}
	sc.vals, sc.runs = w.vals, w.runs // the next request's, once this one is written (letGo)
	sc.looked = w.looked
	return list(w.vals), w.runs
}

// messageWriter is what writeMessages builds: the values of the array (a
// run of held messages is one [p,c]: Options.Held), the serials as runs.
type messageWriter struct {
	held          *places
	vals          [][]byte
	digits        []byte // the [p,c] written, in one buffer
	runs          []Run
	runAt, runLen int // the open run of held messages: places runAt, … runAt+runLen-1
	sent          int
	looked        int // blocks written one by one (tests read it: scratch.looked)
	rep           *Report
}

// block writes the messages a block wrote.
func (w *messageWriter) block(o *written) {
	w.looked++
	w.rep.Parts += o.parts
	n := len(o.msgs)
	if n == 0 {
		return
	}
	w.sent += n
	if o.first == 0 {
		for _, m := range o.msgs {
			w.runs = append(w.runs, Run{})
			w.flush()
			w.vals = append(w.vals, m)
		}
		return
	}
	first := o.first
	w.serials(first, n)
	if p, c := w.held.span(first, n); c == n {
		w.hold(p, n)
		return
	}
	for i, m := range o.msgs {
		if p, c := w.held.span(first+uint64(i), 1); c == 1 {
			w.hold(p, 1)
			continue
		}
		w.flush()
		w.vals = append(w.vals, m)
	}
}

// serials adds the serials first, …, first+n-1 to the request's.
func (w *messageWriter) serials(first uint64, n int) {
	if k := len(w.runs) - 1; k >= 0 && w.runs[k].First != 0 && w.runs[k].Last+1 == first {
		w.runs[k].Last += uint64(n)
		return
	}
	w.runs = append(w.runs, Run{first, first + uint64(n) - 1})
}

// hold writes n messages the caller holds at places p, p+1, ….
func (w *messageWriter) hold(p, n int) {
	if w.runLen > 0 && p == w.runAt+w.runLen {
		w.runLen += n
		return
	}
	w.flush()
	w.runAt, w.runLen = p, n
}

// flush writes the open run of held messages as [p,c].
func (w *messageWriter) flush() {
	if w.runLen == 0 {
		return
	}
	at := len(w.digits)
	w.digits = append(w.digits, '[')
	w.digits = strconv.AppendInt(w.digits, int64(w.runAt), 10)
	w.digits = append(w.digits, ',')
	w.digits = strconv.AppendInt(w.digits, int64(w.runLen), 10)
	w.digits = append(w.digits, ']')
	w.vals = append(w.vals, w.digits[at:len(w.digits):len(w.digits)])
	w.runLen = 0
}

// segWrote is what a segment's blocks from one on wrote for an API, when
// their serials run on from block to block: a request that keeps them and
// whose caller holds them all writes them as one [p,c] and one run of
// serials, without a look at each.
type segWrote struct {
	from        int
	first       uint64  // the serial of the first message of the blocks from from on (0: they wrote none)
	msgs, parts []int32 // the messages and parts the blocks from from+i on wrote (one longer: the last 0)
}

// runOn is what outs, the segment's blocks from from to its end, wrote
// when their serials run on; else nil.
func runOn(outs []*written, from int) *segWrote {
	sw := &segWrote{from: from, msgs: make([]int32, len(outs)+1), parts: make([]int32, len(outs)+1)}
	next := uint64(0) // the serial of the first message after
	for i := len(outs) - 1; i >= 0; i-- {
		o := outs[i]
		n := len(o.msgs)
		sw.msgs[i] = sw.msgs[i+1] + int32(n)
		sw.parts[i] = sw.parts[i+1] + int32(o.parts)
		if n == 0 {
			continue
		}
		if o.first == 0 || next != 0 && o.first+uint64(n) != next {
			return nil
		}
		next = o.first
	}
	sw.first = next
	return sw
}

// put writes the segment's blocks from from on (from ≥ sw.from) when the
// caller holds every message of them, and reports whether it did; else
// it writes nothing.
func (sw *segWrote) put(w *messageWriter, from int) bool {
	i := from - sw.from
	n := int(sw.msgs[i])
	if n > 0 {
		first := sw.first + uint64(sw.msgs[0]) - uint64(n)
		p, c := w.held.span(first, n)
		if c != n {
			return false
		}
		w.sent += n
		w.serials(first, n)
		w.hold(p, n)
	}
	w.rep.Parts += int(sw.parts[i])
	return true
}

// places finds a serial's place in the list the caller holds
// (Options.Held), kept as runs: in the few runs from the last one found on
// first (a request's held messages come in the list's order, after what
// the budget dropped from its front); else by a binary search of the runs
// by their first serial, sorted on the first such miss.
type places struct {
	runs    []heldRun
	last    int
	byFirst []int // the runs of serials (not 0), by their first serial
}

// heldRun is a run of the held list, and the place of its first serial.
type heldRun struct {
	Run
	at int
}

// heldPlaces is the places of what opts holds (nil: none).
func heldPlaces(opts Options) *places {
	if opts.HeldRuns != nil {
		return placesOf(opts.HeldRuns)
	}
	return placesIn(opts.Held)
}

func placesIn(list []uint64) *places {
	return placesOf(appendRuns(nil, list))
}

func placesOf(runs []Run) *places {
	if len(runs) == 0 {
		return nil
	}
	h := &places{runs: make([]heldRun, len(runs))}
	at := 0
	for i, r := range runs {
		h.runs[i] = heldRun{r, at}
		at += r.Len()
	}
	return h
}

// find returns serial n's place in the list.
func (h *places) find(n uint64) (int, bool) {
	p, c := h.span(n, 1)
	return p, c == 1
}

// span returns the place of serial n and how many of n, n+1, …, n+want-1
// (at most want) follow it at the next places (0: n is not held).
func (h *places) span(n uint64, want int) (int, int) {
	if h == nil || n == 0 {
		return 0, 0
	}
	in := func(i int) (int, int, bool) {
		r := h.runs[i]
		if r.First == 0 || n < r.First || n > r.Last {
			return 0, 0, false
		}
		h.last = i
		return r.at + int(n-r.First), min(want, int(r.Last-n)+1), true
	}
	for i := h.last; i < min(len(h.runs), h.last+17); i++ {
		if p, c, ok := in(i); ok {
			return p, c
		}
	}
	if h.byFirst == nil {
		h.byFirst = make([]int, 0, len(h.runs))
		for i, r := range h.runs {
			if r.First != 0 {
				h.byFirst = append(h.byFirst, i)
			}
		}
		slices.SortStableFunc(h.byFirst, func(a, b int) int { return cmp.Compare(h.runs[a].First, h.runs[b].First) })
	}
	// The last run that starts at n or before.
	k := sort.Search(len(h.byFirst), func(k int) bool { return h.runs[h.byFirst[k]].First > n }) - 1
	if k >= 0 {
		if p, c, ok := in(h.byFirst[k]); ok {
			return p, c
		}
	}
	return 0, 0
}

// appendRuns appends serials as runs to runs.
func appendRuns(runs []Run, serials []uint64) []Run {
	for i := 0; i < len(serials); {
		j := i + 1
		if serials[i] != 0 {
			for j < len(serials) && serials[j] == serials[j-1]+1 {
				j++
			}
		}
		runs = append(runs, Run{serials[i], serials[j-1]})
		i = j
	}
	return runs
}

// expand is the serials runs stand for, one by one.
func expand(runs []Run) []uint64 {
	n := 0
	for _, r := range runs {
		n += r.Len()
	}
	out := make([]uint64, 0, n)
	for _, r := range runs {
		for s := r.First; ; s++ {
			out = append(out, s)
			if s == r.Last {
				break
			}
		}
	}
	return out
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
		var text strings.Builder // (joinText)
		flush := func() {
			if text.Len() > 0 {
				items = append(items, newObj().str("type", "message").str("role", "assistant").str("content", text.String()).done())
				text.Reset()
			}
		}
		for _, it := range b.items {
			switch it.part.Kind {
			case chat.Text:
				if text.Len() > 0 {
					text.WriteString("\n\n")
				}
				text.WriteString(it.part.Text)
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
