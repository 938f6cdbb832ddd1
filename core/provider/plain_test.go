package provider

// The projection as it was before requests were windowed (issue 22): the
// whole path gathered, converted and then trimmed to the budget. The
// equivalence tests compare the windowed projection with it.

import (
	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/chat"
	"github.com/sessiontree/sessiontree/core/rawjson"
)

// projectTreePlain is ProjectTree as it was: the whole path, then the budget.
func projectTreePlain(t *core.Tree, branch string, api API, opts Options) (Request, error) {
	if _, ok := ParseAPI(string(api)); !ok {
		return Request{}, unknownAPI(api)
	}
	if branch == "" {
		branch = t.ActiveBranch()
	}
	ids, err := t.PathOf(branch)
	if err != nil {
		return Request{}, err
	}
	path := ids
	turns, ids, adopted := gatherPlain(t, ids)
	cont := continuations(turns, ids)
	// Each turn's place: the path nodes gathered before it.
	pos := make([]int, len(ids))
	p := 0
	for i, id := range ids {
		pos[i] = p
		if p < len(path) && id == path[p] {
			p++
		}
	}
	note := &noteInput{at: -1}
	if opts.Budget > 0 {
		for _, b := range t.Branches() {
			switch {
			case b.Name == branch:
				if b.Summary != nil {
					s := *b.Summary
					note.own = &s
				}
			case opts.Summaries != nil:
			case b.Summary != nil:
				note.others = append(note.others, *b.Summary)
			default:
				note.unsummarized++
			}
		}
		if opts.Summaries == nil {
			opts.Summaries = note.others
		}
	}
	if note.own != nil {
		for i, id := range path {
			if id == note.own.NodeID {
				note.at = i
			}
		}
	}
	req, err := projectPlain(turns, cont, pos, note, api, opts)
	req.Report.Adopted = adopted
	return req, err
}

// projectPlain is project as it was.
func projectPlain(turns []chat.Turn, cont []bool, pos []int, own *noteInput, api API, opts Options) (Request, error) {
	if opts.Budget < 0 {
		return Request{}, &core.Error{Code: core.CodeInvalidInput, Message: "budget must not be negative"}
	}
	rep := Report{Messages: len(turns)}
	items := flatten(turns, cont, api == Anthropic && !opts.DropThinking, &rep)
	items = pair(items, &rep)
	legalize(items, &rep)
	unique(items, func(turn int) int { return pos[turn] }, &rep)
	blocks := group(items)
	if opts.Budget > 0 {
		blocks = fitPlain(blocks, pos, opts, own, &rep)
		// The orphans of the blocks kept, the last pair named (the blocks
		// kept are the path's preamble, which holds none, and its tail).
		var kept [3]int
		for _, b := range blocks {
			for _, it := range b.items {
				kept[it.orphan]++
			}
		}
		rep.OrphanCalls = rep.OrphanCalls[len(rep.OrphanCalls)-kept[orphanCall]:]
		rep.OrphanResults = rep.OrphanResults[len(rep.OrphanResults)-kept[orphanResult]:]
	}
	req := Request{API: api}
	var runs []Run
	switch api {
	case OpenAIChat:
		req.Messages, runs = writeMessages([]span{{blocks: blocks}}, api, &rep, nil, chatMessages, nil)
		req.Serials = expand(runs)
	case OpenAIResponses:
		req.Messages, runs = writeMessages([]span{{blocks: blocks}}, api, &rep, nil, responsesItems, nil)
		req.Serials = expand(runs)
	case Anthropic:
		req.System, req.Messages, req.Tools, req.Serials = writeAnthropic(blocks, &rep, placesIn(opts.Held))
	}
	for _, b := range blocks {
		rep.Tokens += tokens(b)
	}
	req.Report = rep
	return req, nil
}

// fitPlain is fit over every block of the path: the path's preamble (the
// system blocks it starts with) kept, every other block in a unit, units
// dropped from the oldest while the rest is over the budget, counted in path
// nodes (pos: the path nodes before each turn).
func fitPlain(blocks []block, pos []int, opts Options, own *noteInput, rep *Report) []block {
	total := 0
	for _, b := range blocks {
		total += tokens(b)
	}
	if total <= opts.Budget {
		return blocks
	}
	var units []unit
	for i := 0; i < len(blocks); i++ {
		if len(units) == 0 && blocks[i].role == sysRole {
			continue // the preamble
		}
		u := unit{i, i + 1}
		if blocks[i].role == asstRole && i+1 < len(blocks) && blocks[i+1].role == resultsRole {
			u.to = i + 2
			i++
		}
		units = append(units, u)
	}
	drop := make([]bool, len(blocks))
	dropped := 0
	dropUnit := func(u unit) {
		for i := u.from; i < u.to; i++ {
			drop[i] = true
			total -= tokens(blocks[i])
			dropped++
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
	note := 0
	if limit >= 0 {
		note = noteTokens(opts, own, pos[blocks[units[limit].from].turn])
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
	keptPos := pos[blocks[units[k].from].turn]
	count := keptPos - pos[blocks[units[0].from].turn]
	var out []block
	noted := false
	for i, b := range blocks {
		if drop[i] {
			if !noted {
				noted = true
				out = append(out, block{role: sysRole, turn: b.turn, items: []item{{role: sysRole, part: chat.Part{Kind: chat.Text, Text: noteText(count, opts, own, keptPos-1)}}}})
			}
			continue
		}
		out = append(out, b)
	}
	rep.BudgetDropped = count
	total = 0
	for _, b := range out {
		total += tokens(b)
	}
	rep.OverBudget = total > opts.Budget
	return out
}

// gatherPlain is gather as it was: over the whole path.
func gatherPlain(t *core.Tree, ids []string) ([]chat.Turn, []string, int) {
	onPath := make(map[string]bool, len(ids))
	for _, id := range ids {
		onPath[id] = true
	}
	replies := map[string]bool{} // message ids of assistant messages taken
	open := map[string]bool{}    // calls taken and not yet answered
	var answered = map[string]bool{}
	take := func(tu chat.Turn, msg core.Message) {
		if tu.Role == chat.Assistant {
			if id, ok := rawjson.LookupString(msg, "id"); ok && id != "" {
				replies[id] = true
			}
		}
		for _, p := range tu.Parts {
			switch p.Kind {
			case chat.ToolCall:
				if !answered[p.CallID] {
					open[p.CallID] = true
				}
			case chat.ToolResult:
				delete(open, p.CallID)
				answered[p.CallID] = true
			}
		}
	}
	// First the path alone, so a result the path holds is never adopted from
	// elsewhere.
	turns := make([]chat.Turn, len(ids))
	msgs := make([]core.Message, len(ids))
	for i, id := range ids {
		n, _ := t.Node(id)
		msgs[i] = n.Message
		turns[i] = chat.Read(n.Message)
		for _, p := range turns[i].Parts {
			if p.Kind == chat.ToolResult {
				answered[p.CallID] = true
			}
		}
	}
	var out, pending []chat.Turn
	var outIDs, pendingIDs []string
	adopted := 0
	// visit walks the off-path nodes below id depth first, with a stack;
	// results only where the path goes on with the same exchange after id, or
	// ends at it.
	visit := func(id string, results bool) {
		stack := []string{id}
		for len(stack) > 0 {
			top := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			kids, _ := t.Children(top)
			var next []string
			for _, k := range kids {
				if onPath[k] {
					continue
				}
				n, _ := t.Node(k)
				tu := chat.Read(n.Message)
				switch {
				case tu.Role == chat.Assistant && !tu.Meta && sameReply(n.Message, replies):
					out, outIDs = append(out, tu), append(outIDs, k)
				case results && answersOpen(tu, open):
					pending, pendingIDs = append(pending, tu), append(pendingIDs, k)
				default:
					continue
				}
				take(tu, n.Message)
				adopted++
				onPath[k] = true
				next = append(next, k)
			}
			for i := len(next) - 1; i >= 0; i-- {
				stack = append(stack, next[i])
			}
		}
	}
	for i, id := range ids {
		if len(pending) > 0 && turns[i].Role != chat.Assistant {
			out, outIDs = append(out, pending...), append(outIDs, pendingIDs...)
			pending, pendingIDs = pending[:0], pendingIDs[:0]
		}
		out, outIDs = append(out, turns[i]), append(outIDs, id)
		take(turns[i], msgs[i])
		visit(id, i+1 == len(ids) || sameExchange(turns[i+1]))
	}
	return append(out, pending...), append(outIDs, pendingIDs...), adopted
}
