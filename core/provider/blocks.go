package provider

import (
	"strings"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/chat"
)

// The phases of a projection: flatten the turns into items of one part
// each, pair every call with its result, group the items into blocks (the
// messages every API has: system, user, assistant, and the results that
// answer an assistant's calls), apply the budget, and write the blocks in
// the API's shape.

type role uint8

const (
	sysRole role = iota + 1
	userRole
	asstRole
	resultsRole // the results of the calls of the assistant block before it
)

// item is one part of a turn, with the role it is spoken in.
type item struct {
	role role
	part chat.Part
	turn int  // index of the turn it comes from
	cont bool // a result that continues the one before it for the same call (see gather)
	// orphan is set on a call (orphanCall) or a result (orphanResult) pair
	// wrote as text: a request reports it only when it writes its block.
	orphan uint8
	// match is the same number on a call and the result pair gave it (from
	// 1; 0 for anything else): an id alone does not tell which result is
	// whose when a tool reuses ids (Kimi K2 names a turn's first call
	// "functions.NAME:0" at every turn).
	match int32
}

const (
	orphanCall = 1 + iota
	orphanResult
)

// block is one message of the request: consecutive items of one role.
type block struct {
	role  role
	items []item
	turn  int // the first item's turn
	// out is what the block wrote (write.go), shared by its copies; nil for
	// a block made for one request (the budget's note).
	out *blockOut
}

// flatten turns the turns into items, dropping what no model sees and the
// thinking the request does not take back (keepThinking: Anthropic's, when
// the caller wants it); a turn left with nothing is counted as dropped.
func flatten(turns []chat.Turn, cont []bool, keepThinking bool, rep *Report) []item {
	var out []item
	for i, t := range turns {
		core.Tick()
		if t.Meta {
			rep.Dropped++
			continue
		}
		before := len(out)
		for _, p := range t.Parts {
			switch p.Kind {
			case chat.Text:
				if isBlank(p.Text) {
					continue
				}
				out = append(out, item{role: textRole(t.Role), part: p, turn: i})
			case chat.Image:
				if t.Role == chat.User || t.Role == chat.Tool {
					out = append(out, item{role: userRole, part: p, turn: i})
				} else {
					rep.Parts++
				}
			case chat.Thinking:
				if t.Role == chat.Assistant && keepThinking && anthropicThinking(p) != nil {
					out = append(out, item{role: asstRole, part: p, turn: i})
				} else {
					rep.Thinking++
				}
			case chat.ToolCall:
				out = append(out, item{role: asstRole, part: p, turn: i})
			case chat.ToolResult:
				out = append(out, item{role: resultsRole, part: p, turn: i, cont: i < len(cont) && cont[i]})
			default:
				rep.Parts++
			}
		}
		if len(out) == before {
			rep.Dropped++
		}
	}
	return out
}

// textRole is where a turn's text goes: a tool's stray text is the user's.
func textRole(r chat.Role) role {
	switch r {
	case chat.System:
		return sysRole
	case chat.Assistant:
		return asstRole
	}
	return userRole
}

// pair marks each result that answers an earlier, unanswered call with the
// same id, joins a continuing result to the one it continues, and writes
// every other call and result as text. It returns the items left.
func pair(items []item, rep *Report) []item {
	open := map[string]int{}     // call id → index of the call, while unanswered
	resultOf := map[string]int{} // call id → index of its result
	answered := map[int]bool{}
	paired := make([]bool, len(items))
	matches := int32(0)
	joined := make([]bool, len(items))
	var grown map[int]*strings.Builder // results continued, by item
	for i, it := range items {
		switch {
		case it.part.Kind == chat.ToolCall:
			if _, dup := open[it.part.CallID]; dup || it.part.CallID == "" {
				continue // an orphan: a second open call with this id
			}
			open[it.part.CallID] = i
		case it.part.Kind == chat.ToolResult:
			if c, ok := open[it.part.CallID]; ok && !answered[c] {
				answered[c] = true
				paired[c], paired[i] = true, true
				matches++
				items[c].match, items[i].match = matches, matches
				resultOf[it.part.CallID] = i
				delete(open, it.part.CallID)
			} else if r, ok := resultOf[it.part.CallID]; ok && it.cont {
				if it.part.Raw != nil {
					rep.Parts++
				}
				// Joined in a builder, set once: += copied the result so far
				// at each continuation (a ChatGPT chain of n: O(n²)).
				b := grown[r]
				if b == nil {
					if grown == nil {
						grown = map[int]*strings.Builder{}
					}
					b = &strings.Builder{}
					b.WriteString(items[r].part.Text)
					grown[r] = b
				}
				b.WriteString("\n\n")
				b.WriteString(it.part.Text)
				joined[i] = true
			}
		}
	}
	for r, b := range grown {
		items[r].part.Text = b.String()
	}
	for i := range items {
		it := &items[i]
		if paired[i] || joined[i] {
			continue
		}
		switch it.part.Kind {
		case chat.ToolCall:
			rep.OrphanCalls = append(rep.OrphanCalls, it.part.CallID)
			it.orphan = orphanCall
			it.part = chat.Part{Kind: chat.Text, Text: "[tool call " + it.part.Name + "(" + it.part.Args + "): no result]"}
		case chat.ToolResult:
			rep.OrphanResults = append(rep.OrphanResults, it.part.CallID)
			it.orphan = orphanResult
			name := it.part.Name
			if name == "" {
				name = "for " + it.part.CallID
			}
			text := it.part.Text
			if text == "" && it.part.Raw != nil {
				text = string(it.part.Raw)
			}
			it.role = userRole
			it.part = chat.Part{Kind: chat.Text, Text: "[tool result " + name + ": " + text + "]"}
		}
	}
	out := items[:0]
	for i, it := range items {
		if !joined[i] {
			out = append(out, it)
		}
	}
	return out
}

// group makes the blocks: system and user items of one turn make one
// message; consecutive assistant items make one until a result comes between
// them (a tool that writes each content block of a reply on its own line
// gets the reply back whole, and a call made after seeing a result stays in
// a later message); the results of an assistant block's calls follow it, in
// the calls' order.
func group(items []item) []block {
	results := map[int32]item{} // by match: ids may repeat
	for _, it := range items {
		if it.part.Kind == chat.ToolResult {
			results[it.match] = it
		}
	}
	var out []block
	flushResults := func() {
		if len(out) == 0 || out[len(out)-1].role != asstRole {
			return
		}
		var rs []item
		for _, it := range out[len(out)-1].items {
			if it.part.Kind == chat.ToolCall {
				rs = append(rs, results[it.match])
			}
		}
		if len(rs) > 0 {
			out = append(out, block{role: resultsRole, items: rs, turn: rs[0].turn})
		}
	}
	sawResult := false // a result came since the last block began: the model spoke after it
	for _, it := range items {
		if it.part.Kind == chat.ToolResult {
			sawResult = true
			continue // placed after its call
		}
		if n := len(out); n > 0 && out[n-1].role == it.role && (it.role == asstRole && !sawResult || out[n-1].turn == it.turn && it.role != asstRole) {
			out[n-1].items = append(out[n-1].items, it)
			continue
		}
		sawResult = false
		flushResults()
		out = append(out, block{role: it.role, items: []item{it}, turn: it.turn})
	}
	flushResults()
	return out
}

// tokens is a block's approximate token count: 4 per message, and a token
// per 4 bytes of its text, arguments and names, rounded up.
func tokens(b block) int {
	if b.out != nil && b.out.tok > 0 {
		return b.out.tok
	}
	n := 0
	for _, it := range b.items {
		p := it.part
		n += len(p.Text) + len(p.Args) + len(p.Name) + len(p.URL) + len(p.Signature)
	}
	return 4 + (n+3)/4
}
