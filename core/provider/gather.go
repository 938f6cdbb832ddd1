package provider

import (
	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/chat"
	"github.com/sessiontree/sessiontree/core/rawjson"
)

// gathered is a stretch of a path with the off-path nodes that belong to
// it (see gather).
type gathered struct {
	turns   []chat.Turn
	ids     []string // the node of each turn
	adopted int
	// adoptedBelowLast: results were adopted below the stretch's last node,
	// the path's leaf (a reply's last line so far): whether they still are
	// depends on the path's next node, once there is one.
	adoptedBelowLast bool
	// pendingEnd: results were waiting for the reply to end when the
	// stretch ended (they follow it here; on a longer path they would
	// follow the reply's next line if it came next).
	pendingEnd bool
	// names are the call ids and reply ids the stretch's turns hold, and
	// looks those of the off-path nodes it looked at and left: what the
	// stretch's conversion would read differently after another stretch
	// that holds one of them (see memo.go).
	names, looks []string
	// results are the call ids of the results among looks: what a call
	// before the stretch would have taken (see enough).
	results []string
}

// gather returns the turns of a stretch of a path (ids, with their
// messages; next is the id of the path node after it, "" at the leaf) with
// the off-path nodes that belong to it: Claude Code writes each content
// block of one reply on its own line (the same message.id) and the result
// of each parallel tool call as a child of the line that made the call, so
// the leaf's chain of parents misses some of the reply's calls and their
// results. gather adopts, below each node of the stretch and each adopted
// node, a child that is an assistant message with the message id of an
// assistant message already taken, or a message of tool results only, each
// answering a call taken and not yet answered. Adopted assistant messages
// follow their parent; adopted results wait until the reply ends (the next
// path node that is not the assistant's), so the reply's calls stay one
// message and its results follow it.
func gather(t *core.Tree, ids []string, msgs []core.Message, next string) gathered {
	var g gathered
	onPath := make(map[string]bool, len(ids)+1)
	for _, id := range ids {
		onPath[id] = true
	}
	if next != "" {
		onPath[next] = true
	}
	replies := map[string]bool{} // message ids of assistant messages taken
	open := map[string]bool{}    // calls taken and not yet answered
	var answered = map[string]bool{}
	take := func(tu chat.Turn, msg core.Message) {
		if tu.Role == chat.Assistant {
			if id, ok := rawjson.LookupString(msg, "id"); ok && id != "" {
				replies[id] = true
				g.names = append(g.names, id)
			}
		}
		for _, p := range tu.Parts {
			switch p.Kind {
			case chat.ToolCall:
				g.names = append(g.names, p.CallID)
				if !answered[p.CallID] {
					open[p.CallID] = true
				}
			case chat.ToolResult:
				g.names = append(g.names, p.CallID)
				delete(open, p.CallID)
				answered[p.CallID] = true
			}
		}
	}
	// What an off-path node that was left could have been adopted for.
	look := func(tu chat.Turn, msg core.Message) {
		if tu.Meta {
			return
		}
		if tu.Role == chat.Assistant {
			if id, ok := rawjson.LookupString(msg, "id"); ok && id != "" {
				g.looks = append(g.looks, id)
			}
		}
		for _, p := range tu.Parts {
			if p.Kind == chat.ToolResult {
				g.looks = append(g.looks, p.CallID)
				g.results = append(g.results, p.CallID)
			}
		}
	}
	// First the path alone, so a result the path holds is never adopted from
	// elsewhere.
	turns := make([]chat.Turn, len(ids))
	for i := range ids {
		core.TickBytes(len(msgs[i])) // (a long path's conversion runs in the worker's slices)
		turns[i] = chat.Read(msgs[i])
		for _, p := range turns[i].Parts {
			if p.Kind == chat.ToolResult {
				answered[p.CallID] = true
			}
		}
	}
	out := make([]chat.Turn, 0, len(ids))
	outIDs := make([]string, 0, len(ids))
	var pending []chat.Turn
	var pendingIDs []string
	// visit walks the off-path nodes below id depth first, with a stack;
	// results are adopted only where the path goes on with the same exchange
	// (results says so: see below).
	visit := func(id string, results, last bool) {
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
					if last {
						g.adoptedBelowLast = true
					}
				default:
					look(tu, n.Message)
					continue
				}
				take(tu, n.Message)
				g.adopted++
				onPath[k] = true
				next = append(next, k)
			}
			for i := len(next) - 1; i >= 0; i-- {
				stack = append(stack, next[i])
			}
		}
	}
	// A result hanging beside the path is adopted only where the path goes
	// on with the same exchange after the node it hangs from (another line
	// of the reply, a result: Claude Code's parallel calls) or ends there (a
	// reply's last line so far), never where a person's turn comes next: the
	// user went on without it, say rewound to the call and wrote "no, stop"
	// (until Dec 6, night, such a result from the abandoned branch was sent;
	// an outside pass).
	var after chat.Turn
	if next != "" {
		if n, ok := t.Node(next); ok {
			after = chat.Read(n.Message)
		}
	}
	for i, id := range ids {
		if len(pending) > 0 && turns[i].Role != chat.Assistant {
			out, outIDs = append(out, pending...), append(outIDs, pendingIDs...)
			pending, pendingIDs = pending[:0], pendingIDs[:0]
		}
		out, outIDs = append(out, turns[i]), append(outIDs, id)
		take(turns[i], msgs[i])
		goesOn := true // the path's leaf
		switch {
		case i+1 < len(ids):
			goesOn = sameExchange(turns[i+1])
		case next != "":
			goesOn = sameExchange(after)
		}
		visit(id, goesOn, i == len(ids)-1 && next == "")
	}
	g.pendingEnd = len(pending) > 0
	g.turns, g.ids = append(out, pending...), append(outIDs, pendingIDs...)
	return g
}

// sameExchange reports whether a path turn goes on with the exchange before
// it: an assistant's, results only, or a tool's own note; not a person's
// turn.
func sameExchange(tu chat.Turn) bool {
	if tu.Meta || tu.Role == chat.Assistant {
		return true
	}
	if len(tu.Parts) == 0 {
		return false
	}
	for _, p := range tu.Parts {
		if p.Kind != chat.ToolResult {
			return false
		}
	}
	return true
}

// sameReply reports whether msg has the message id of a reply taken.
func sameReply(msg core.Message, replies map[string]bool) bool {
	id, ok := rawjson.LookupString(msg, "id")
	return ok && id != "" && replies[id]
}

// answersOpen reports whether the turn holds results only, each answering
// an open call.
func answersOpen(tu chat.Turn, open map[string]bool) bool {
	if tu.Meta || len(tu.Parts) == 0 {
		return false
	}
	for _, p := range tu.Parts {
		if p.Kind != chat.ToolResult || !open[p.CallID] {
			return false
		}
	}
	return true
}

// continuations finds the results that continue another result: ChatGPT
// answers one browser call with several tool messages, each a child of the
// one before, so chat.Read gives each later one the id of the message before
// it as its call id. continuations rewrites that id to the call's and marks
// the turn, and pair joins its text to the first result.
func continuations(turns []chat.Turn, ids []string) []bool {
	var cont []bool
	callOf := map[string]string{} // node id of a results-only turn → the call it answers
	for i := range turns {
		tu := &turns[i]
		only, callID := len(tu.Parts) > 0, ""
		for j := range tu.Parts {
			p := &tu.Parts[j]
			if p.Kind != chat.ToolResult {
				only = false
				continue
			}
			if c, ok := callOf[p.CallID]; ok {
				if cont == nil {
					cont = make([]bool, len(turns))
				}
				p.CallID = c
				cont[i] = true
			}
			callID = p.CallID
		}
		if only && len(tu.Parts) == 1 {
			callOf[ids[i]] = callID
		}
	}
	return cont
}
