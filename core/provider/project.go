package provider

import (
	"hash/fnv"
	"slices"
	"strconv"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/chat"
)

// project runs the phases over turns read from stored messages, as one
// segment.
func project(turns []chat.Turn, cont []bool, own *noteInput, api API, opts Options) (Request, error) {
	if opts.Budget < 0 {
		return Request{}, errNegativeBudget
	}
	s := &segment{atRoot: true} // a list of messages: it starts its path
	s.read(turns, cont, api == Anthropic && !opts.DropThinking)
	req, _, err := write([]*segment{s}, own, api, opts, nil, nil, nil, nil)
	return req, err
}

var errNegativeBudget = &core.Error{Code: core.CodeInvalidInput, Message: "budget must not be negative"}

// write fits a path of segments to the budget and writes what is kept as a
// request for api; ready unfolds a segment fit reads (see fit).
//
// With h, segs are a window of the path (see fit): write reports false, and
// writes nothing, when the window does not decide the request.
//
// sc holds the buffers a request builds and lets go of (nil: new ones): a
// tree's memo keeps one, so that a chat's requests do not allocate their
// window's size again at every turn (in wasm each such allocation brings
// the next collection of the whole heap closer).
func write(segs []*segment, own *noteInput, api API, opts Options, ready func(*segment) error, h *head, known func(string) bool, sc *scratch) (Request, bool, error) {
	if sc == nil {
		sc = new(scratch)
	}
	var rep Report
	for _, s := range segs {
		rep.add(s.rep)
	}
	spans, ok, err := fit(segs, opts, own, &rep, ready, h, known, sc)
	if err != nil || !ok {
		return Request{}, ok, err
	}
	// The calls and results written as text that the request holds: not
	// those of the blocks the budget dropped. A span of blocks alone is a
	// preamble of system messages or the budget's note: neither holds one.
	for _, p := range spans {
		if p.seg != nil {
			rep.OrphanCalls, rep.OrphanResults = p.seg.orphans(rep.OrphanCalls, rep.OrphanResults, p.from)
		}
	}
	req := Request{API: api}
	held := heldPlaces(opts)
	var runs []Run
	switch api {
	case OpenAIChat:
		req.Messages, runs = writeMessages(spans, api, &rep, held, chatMessages, sc)
	case OpenAIResponses:
		req.Messages, runs = writeMessages(spans, api, &rep, held, responsesItems, sc)
	case Anthropic:
		var nums []uint64
		req.System, req.Messages, req.Tools, nums = writeAnthropic(spanBlocks(spans, sc), &rep, held)
		runs = appendRuns(sc.runs[:0], nums)
		sc.runs = runs
	}
	if opts.HeldRuns != nil {
		req.SerialRuns = slices.Clone(runs)
	} else {
		req.Serials = expand(runs)
	}
	rep.Tokens += spanTokens(spans)
	sc.letGo()
	req.Report = rep
	return req, true, nil
}

// scratch is what a request builds and lets go of once written: the blocks
// fit keeps, and the messages' pieces before they are joined (see write).
type scratch struct {
	spans  []span
	note   [1]block
	runs   []Run
	blocks []block
	outs   []*written
	vals   [][]byte
	digits []byte
	// tail and msgs: the path's last nodes as pathSegments fetched them
	// (segments copy what they keep).
	tail []string
	msgs []core.Message
	// looked: how many blocks the last request wrote one by one (tests).
	looked int
}

// letGo lets go of what the buffers point to once a request is written: its
// blocks name messages of segments a later edit may drop.
// The buffers are kept at the length this request used: that much is cleared.
func (sc *scratch) letGo() {
	clear(sc.spans)
	clear(sc.note[:])
	clear(sc.blocks)
	clear(sc.outs)
	clear(sc.vals)
	sc.spans, sc.blocks, sc.outs, sc.vals, sc.runs = sc.spans[:0], sc.blocks[:0], sc.outs[:0], sc.vals[:0], sc.runs[:0]
}

// add adds the counts of what reading a segment reported; its orphans are
// named where their blocks are written (see write) or joined (segment.join).
func (r *Report) add(s Report) {
	r.Messages += s.Messages
	r.Adopted += s.Adopted
	r.Dropped += s.Dropped
	r.Thinking += s.Thinking
	r.Parts += s.Parts
	r.RenamedIDs += s.RenamedIDs
	r.RenamedTools += s.RenamedTools
}

// legalize rewrites call ids and tool names that some API refuses: each must
// match [A-Za-z0-9_-]{1,64}. The rewrite is a function of the original, so a
// call and its result still match.
func legalize(items []item, rep *Report) {
	for i := range items {
		p := &items[i].part
		if p.Kind != chat.ToolCall && p.Kind != chat.ToolResult {
			continue
		}
		if id, changed := legal(p.CallID, "call"); changed {
			p.CallID = id
			if p.Kind == chat.ToolCall {
				rep.RenamedIDs++
			}
		}
		if p.Kind == chat.ToolCall {
			if name, changed := legal(p.Name, "tool"); changed {
				p.Name = name
				rep.RenamedTools++
			}
		}
	}
}

// legal returns s when it is [A-Za-z0-9_-]{1,64}, else its legal characters
// (at most 47, or empty for fallback) followed by "_" and 16 hex digits of
// its FNV-1a hash.
func legal(s, fallback string) (string, bool) {
	ok := len(s) > 0 && len(s) <= 64
	for i := 0; ok && i < len(s); i++ {
		ok = legalByte(s[i])
	}
	if ok {
		return s, false
	}
	keep := make([]byte, 0, 64)
	for i := 0; i < len(s) && len(keep) < 47; i++ {
		if legalByte(s[i]) {
			keep = append(keep, s[i])
		} else if len(keep) > 0 && keep[len(keep)-1] != '_' {
			keep = append(keep, '_')
		}
	}
	if len(keep) == 0 {
		keep = append(keep, fallback...)
	}
	h := fnv.New64a()
	h.Write([]byte(s))
	hex := strconv.FormatUint(h.Sum64(), 16)
	for len(hex) < 16 {
		hex = "0" + hex
	}
	return string(keep) + "_" + hex, true
}

// unique renames a paired call whose id an earlier paired call of items
// already has, and its result with it, so that ids are unique within a
// request: Anthropic refuses a request with two tool_use blocks of one id,
// and Kimi K2 names a turn's first call "functions.NAME:0" at every turn
// (other servers "call_0" likewise). The new id is a function of the id and
// of where the call is on the path (pos of its turn), so it stays the same
// from request to request and is the same however much of the path before
// it a request converted.
func unique(items []item, pos func(turn int) int, rep *Report) {
	seen := map[string]bool{}
	renamed := map[int32]string{} // match → the call's new id
	for i := range items {
		it := &items[i]
		if it.match == 0 {
			continue
		}
		p := &it.part
		if p.Kind == chat.ToolResult {
			if id, ok := renamed[it.match]; ok {
				p.CallID = id
			}
			continue
		}
		if !seen[p.CallID] {
			seen[p.CallID] = true
			continue
		}
		id := p.CallID
		for k := 0; seen[id]; k++ {
			id = reused(p.CallID, pos(it.turn), k)
		}
		seen[id] = true
		renamed[it.match] = id
		p.CallID = id
		rep.RenamedIDs++
	}
}

// reused is the new id of a call of id at path place at (k: the how-many-th
// try, when a new id is taken too): id's first 47 characters, "_" and 16
// hex digits of an FNV-1a hash, legal as legal's are.
func reused(id string, at, k int) string {
	h := fnv.New64a()
	h.Write([]byte(id))
	h.Write([]byte{0})
	h.Write(strconv.AppendInt(nil, int64(at), 10))
	h.Write([]byte{0})
	h.Write(strconv.AppendInt(nil, int64(k), 10))
	hex := strconv.FormatUint(h.Sum64(), 16)
	for len(hex) < 16 {
		hex = "0" + hex
	}
	return id[:min(len(id), 47)] + "_" + hex
}

func legalByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// unit is the blocks [from, to) that a budget drops together.
type unit struct{ from, to int }

// turnsIn counts the messages a block was made of.
func turnsIn(b block) int {
	n, last := 0, -1
	for _, it := range b.items {
		if it.turn != last {
			n++
			last = it.turn
		}
	}
	return n
}

// noteTokens is the most the note may take, so the budget holds it: with
// the branch's own summary whenever there is one (the note holds it when it
// covers what goes, which fit does not know before it knows what goes), and
// a count of at most most.
func noteTokens(opts Options, own *noteInput, most int) int {
	return tokens(block{items: []item{{part: chat.Part{Text: noteText(most, opts, own, -1)}}}})
}

// noteText is the system note that replaces dropped messages: how many, the
// branch's own summary when it covers them, and the other branches'.
func noteText(count int, opts Options, own *noteInput, lastDropped int) string {
	s := "[sessiontree: " + strconv.Itoa(count) + " earlier messages of this conversation were left out to fit the context budget.]"
	if own != nil && own.own != nil && own.at >= lastDropped && own.at >= 0 {
		s += "\n\nSummary of this conversation up to then:\n" + own.own.Summary
	}
	if len(opts.Summaries) > 0 {
		s += "\n\nSummaries of the conversation's other branches:"
		for _, sum := range opts.Summaries {
			s += "\n- " + sum.Branch + ": " + sum.Summary
		}
	}
	return s
}
