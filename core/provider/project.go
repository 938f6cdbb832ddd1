package provider

import (
	"hash/fnv"
	"strconv"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/chat"
)

// project runs the phases over turns read from stored messages.
func project(turns []chat.Turn, cont []bool, own *noteInput, api API, opts Options) (Request, error) {
	if opts.Budget < 0 {
		return Request{}, &core.Error{Code: core.CodeInvalidInput, Message: "budget must not be negative"}
	}
	rep := Report{Messages: len(turns)}
	items := flatten(turns, cont, api, opts.DropThinking, &rep)
	items = pair(items, &rep)
	legalize(items, &rep)
	blocks := group(items)
	if opts.Budget > 0 {
		blocks = fit(blocks, opts, own, &rep)
	}
	req := Request{API: api}
	switch api {
	case OpenAIChat:
		req.Messages = writeChat(blocks, &rep)
	case OpenAIResponses:
		req.Messages = writeResponses(blocks, &rep)
	case Anthropic:
		req.System, req.Messages, req.Tools = writeAnthropic(blocks, &rep)
	}
	for _, b := range blocks {
		rep.Tokens += tokens(b)
	}
	req.Report = rep
	return req, nil
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

func legalByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// fit drops the oldest blocks that are not system messages, an assistant
// block always with the results block after it, until the rest fits the
// budget; the newest exchange (from the last user message on) is kept
// whatever its size. The kept tail starts with a user's message. A system note takes the dropped
// blocks' place.
func fit(blocks []block, opts Options, own *noteInput, rep *Report) []block {
	total := 0
	for _, b := range blocks {
		total += tokens(b)
	}
	if total <= opts.Budget {
		return blocks
	}
	var units []unit
	for i := 0; i < len(blocks); i++ {
		if blocks[i].role == sysRole {
			continue
		}
		u := unit{i, i + 1}
		if blocks[i].role == asstRole && i+1 < len(blocks) && blocks[i+1].role == resultsRole {
			u.to = i + 2
			i++
		}
		units = append(units, u)
	}
	drop := make([]bool, len(blocks))
	dropped, lastTurn := 0, -1
	note := noteTokens(opts, own)
	dropUnit := func(u unit) {
		for i := u.from; i < u.to; i++ {
			drop[i] = true
			total -= tokens(blocks[i])
			dropped++
			for _, it := range blocks[i].items {
				lastTurn = max(lastTurn, it.turn)
			}
		}
	}
	// The newest exchange is kept whatever its size: from the last user
	// message on (or the last unit when no user speaks).
	limit := len(units) - 1
	for i := limit; i >= 0; i-- {
		if blocks[units[i].from].role == userRole {
			limit = i
			break
		}
	}
	k := 0
	for ; k < limit && total+note > opts.Budget; k++ {
		dropUnit(units[k])
	}
	for ; k > 0 && k < limit && blocks[units[k].from].role != userRole; k++ {
		dropUnit(units[k])
	}
	if dropped == 0 {
		rep.OverBudget = true
		return blocks
	}
	var out []block
	noted := false
	count := 0
	for i, b := range blocks {
		if drop[i] {
			count += turnsIn(b)
			if !noted {
				noted = true
				out = append(out, block{role: sysRole, turn: b.turn}) // filled below
			}
			continue
		}
		out = append(out, b)
	}
	for i := range out {
		if out[i].role == sysRole && out[i].items == nil {
			out[i].items = []item{{role: sysRole, part: chat.Part{Kind: chat.Text, Text: noteText(count, opts, own, lastTurn)}}}
		}
	}
	rep.BudgetDropped = count
	total = 0
	for _, b := range out {
		total += tokens(b)
	}
	rep.OverBudget = total > opts.Budget
	return out
}

// turnsIn counts the messages a block was made of.
// unit is the blocks [from, to) that a budget drops together.
type unit struct{ from, to int }

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

// noteTokens is an estimate of the note's size, so the budget holds it.
func noteTokens(opts Options, own *noteInput) int {
	return tokens(block{items: []item{{part: chat.Part{Text: noteText(999, opts, own, 1<<30)}}}})
}

// noteText is the system note that replaces dropped messages: how many, the
// branch's own summary when it covers them, and the other branches'.
func noteText(count int, opts Options, own *noteInput, lastDropped int) string {
	s := "[sessiontree: " + strconv.Itoa(count) + " earlier messages of this conversation were left out to fit the context budget.]"
	if own != nil && own.own != nil && own.at >= lastDropped {
		s += "\n\nSummary of this conversation up to then:\n" + own.own.Summary
	}
	if len(opts.Summaries) > 0 {
		s += "\n\nSummaries of the conversation's other branches:"
		for _, sum := range opts.Summaries {
			s += "\n- " + sum.Branch + ": " + sum.Summary
		}
	}
	if own != nil && own.unsummarized > 0 {
		if own.unsummarized == 1 {
			s += "\n\n(1 other branch has no summary.)"
		} else {
			s += "\n\n(" + strconv.Itoa(own.unsummarized) + " other branches have no summary.)"
		}
	}
	return s
}
