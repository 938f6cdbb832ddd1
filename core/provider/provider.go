// Package provider projects a conversation (a tree's path, or any list of
// stored messages) into the request body a model API accepts as is: OpenAI
// Chat Completions ("messages"), OpenAI Responses ("input" items) and
// Anthropic Messages ("system", "messages" and the "tools" its history uses).
//
// Every message is read through core/chat, whatever tool wrote it, then
// written in the API's shape:
//
//   - Roles are mapped (developer and system → the API's system place; a
//     tool's result → the API's result shape).
//   - Every tool call is paired with its result by id, and the result is
//     placed right after the assistant message that made the call. A call
//     without a later result, and a result without an earlier call (or a
//     second result for one call), become text, deterministically:
//     "[tool call NAME(ARGS): no result]" in the assistant's turn and
//     "[tool result NAME: TEXT]" in the user's. Each is reported. (ChatGPT
//     answers one browser call with a chain of tool messages: ProjectTree
//     joins them into one result.)
//   - Call ids and tool names are made legal for every API (ids
//     [A-Za-z0-9_-]{1,64}, names [A-Za-z0-9_-]{1,64}): an id or name that is not
//     becomes its legal characters plus a hash of the original, the same on
//     the call and its result.
//     A call whose id an earlier call of the request already has (Kimi K2
//     names a turn's first call "functions.NAME:0" at every turn) gets a new
//     one, the same on its result: Anthropic refuses repeated tool_use ids.
//   - Anthropic: consecutive messages of one role are merged, tool_result
//     blocks open the user message that follows the tool_use, the first
//     message is a user's (a placeholder is put first when the conversation
//     starts with the assistant), empty text is never sent, and the tools
//     used in the history are defined (Anthropic refuses tool blocks
//     otherwise; replace them with your own definitions).
//   - Thinking is kept only where the API accepts it back: Anthropic thinking
//     with an Anthropic signature, and redacted_thinking, but not at the end
//     of an assistant message (Anthropic refuses that). OpenAI's APIs get no
//     reasoning back (Chat Completions has no field for it; a Responses
//     reasoning item needs the id of a stored response).
//   - Messages no model sees are dropped: a tool's own notes (chat.Turn.Meta),
//     hidden or empty system messages, and every import field (a format's
//     record, its kept lines): only what the API's schema names is written.
//   - A budget (Options.Budget, in approximate tokens: bytes of text and
//     arguments / 4, rounded up, plus 4 per message) drops the oldest turns,
//     never a call without its result, until the rest fits (the path's
//     preamble, the system messages it starts with, and the newest exchange,
//     from the last user message on, always stay); in their place goes a system note with the summaries
//     Options.Summaries holds (ProjectTree passes the splice's: the other
//     branches' summaries in name order, and the branch's own when it
//     covers what was dropped; a stub tells a model nothing and is left
//     out). The report says what went (BudgetDropped) and which summaries
//     stood in (Summarized, Unsummarized).
//   - ProjectTree reads a path once, and with a budget only from its leaf
//     back as far as the budget needs: the tree remembers the blocks it
//     converted (memo.go), a request converts only the nodes added since
//     and the budget reads the blocks from the newest back, so a budgeted
//     request costs what it keeps, not the path.
//
// It is pure Go over core/rawjson: no reflection, no encoding/json.
package provider

import (
	"slices"
	"strconv"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/chat"
	"github.com/sessiontree/sessiontree/core/rawjson"
)

// API names a request shape.
type API string

// The APIs a projection is written for.
const (
	OpenAIChat      API = "openai-chat"      // POST /v1/chat/completions: {"messages"}
	OpenAIResponses API = "openai-responses" // POST /v1/responses: {"input"}
	Anthropic       API = "anthropic"        // POST /v1/messages: {"system","messages","tools"}
)

// APIs lists every API a projection is written for.
var APIs = []API{OpenAIChat, OpenAIResponses, Anthropic}

// Options tune a projection.
type Options struct {
	// Budget is the most approximate tokens the projection may hold (0: no
	// limit). See the package doc for how tokens are counted. The newest
	// turn is kept even when it alone is over the budget (Report.OverBudget).
	Budget int
	// Summaries go in the system note that replaces turns a budget drops.
	Summaries []core.Summary
	// DropThinking leaves out every thinking part, even one the API would
	// take back: Anthropic refuses a request whose signature it cannot
	// verify (one made on another platform or for another model), and a
	// request with thinking disabled needs none.
	DropThinking bool
	// UpTo, when not "", ends the path at this node of the branch's path
	// (ProjectTree): the request for a regenerated reply or a reply to an
	// earlier turn, without a copy of the tree rewound there. The path's
	// node below it is never adopted (see ProjectTree): it is the reply
	// being replaced.
	UpTo string
	// Held is the Serials of the request the caller holds from the same
	// tree, in their order (0s included): a message of this request that is
	// one of them is written as where it is in Held instead of the object,
	// so that a caller that parsed it once keeps it and a request costs what
	// changed, not its window: a run of such messages at consecutive places
	// of Held (Chat Completions, Responses) as one JSON array [p,c], the c
	// messages from Held[p] on; an Anthropic content block as the number p.
	Held []uint64
	// HeldRuns is Held as runs (a chat's list is a few of them), for a
	// caller that keeps it so: when not nil, Held is not read, and the
	// request's serials come back as Request.SerialRuns (Serials is nil).
	// Then nothing of a request is written or counted once per message it
	// holds: a request costs what changed, not its window.
	HeldRuns []Run
}

// A Run is the serials First, First+1, …, Last, in that order; {0, 0} is
// one 0 (a message written for one request alone).
type Run struct{ First, Last uint64 }

// checkRuns refuses runs that stand for no list: a run that ends before it
// starts or runs on from 0, or more than 1<<30 serials in all.
func checkRuns(runs []Run) error {
	total := 0
	for _, r := range runs {
		if r.Last < r.First || r.First == 0 && r.Last != 0 || r.Last-r.First >= 1<<30 || total+r.Len() > 1<<30 {
			return &core.Error{Code: core.CodeInvalidInput, Message: "held runs must each run from a serial to one at or after it (0 alone), 1<<30 serials at most"}
		}
		total += r.Len()
	}
	return nil
}

// Len is how many serials r stands for.
func (r Run) Len() int { return int(r.Last-r.First) + 1 }

// Request is a projection: the request body's fields as compact JSON. Merge
// them with the fields the caller chooses (model, max_tokens, tools, …).
type Request struct {
	API      API
	System   []byte // Anthropic's "system" (a JSON string); nil when there is none
	Messages []byte // the "messages" array (Chat Completions, Anthropic) or the "input" array (Responses)
	Tools    []byte // Anthropic's "tools": a definition for each tool the history uses; nil when none
	Report   Report
	// Serials has a number for each message of Messages (Chat Completions,
	// Responses) or for each content block of each message, message after
	// message (Anthropic): the same number always stands for the same bytes
	// (a block the tree's memo keeps writes once), 0 for one written for
	// this request alone (the budget's note, a trimmed last text, Anthropic's
	// placeholder). See Options.Held.
	Serials []uint64
	// SerialRuns is Serials as runs, instead of Serials, for a request made
	// with Options.HeldRuns.
	SerialRuns []Run
}

// Report tells what a projection changed or left out.
type Report struct {
	Messages      int      // messages read
	Adopted       int      // ProjectTree: off-path nodes taken into the path (Claude Code's parallel calls and their results; see gather)
	Sent          int      // messages (input items) written
	Tokens        int      // approximate tokens of what was written
	Dropped       int      // messages no model sees (a tool's notes, hidden or empty ones)
	Thinking      int      // thinking parts left out (the API takes none back, or this one's signature is not the API's)
	Parts         int      // other parts left out or written as text (unknown parts, images the API cannot take, a result's non-text parts)
	OrphanCalls   []string // ids of calls written as text in this request (not in what a budget left out): no result followed them
	OrphanResults []string // ids of results written as text in this request: no call before them, or a second result for one call
	RenamedIDs    int      // call ids rewritten to be legal
	RenamedTools  int      // tool names rewritten to be legal
	Merged        int      // Anthropic: messages merged into the one before (same role)
	Placeholder   bool     // Anthropic: a user message was put first
	BudgetDropped int      // messages a budget dropped
	OverBudget    bool     // what was kept is still over the budget (the newest turn alone is)
	// Summarized names the branches whose summaries the budget's note holds
	// in place of what it dropped (the branch's own first when it covers
	// that), and Unsummarized counts the other branches it could not say
	// anything of (no summary but a stub): what a client shows beside a
	// request so the user knows what the model was not sent.
	Summarized   []string
	Unsummarized int
}

// Body is the request body holding only the projection's fields:
// {"messages":[…]}, {"input":[…]} or {"system":…,"messages":[…],"tools":[…]}.
func (r Request) Body() []byte {
	return r.AppendBody(nil)
}

// AppendBody appends Body to b.
func (r Request) AppendBody(b []byte) []byte {
	out := append(slices.Grow(b, 32+len(r.System)+len(r.Messages)+len(r.Tools)), '{')
	switch r.API {
	case OpenAIResponses:
		out = append(out, `"input":`...)
		out = append(out, r.Messages...)
	default:
		if r.System != nil {
			out = append(out, `"system":`...)
			out = append(append(out, r.System...), ',')
		}
		out = append(out, `"messages":`...)
		out = append(out, r.Messages...)
		if r.Tools != nil {
			out = append(out, `,"tools":`...)
			out = append(out, r.Tools...)
		}
	}
	return append(out, '}')
}

// ParseAPI returns the API named s, or false.
func ParseAPI(s string) (API, bool) {
	for _, a := range APIs {
		if string(a) == s {
			return a, true
		}
	}
	return "", false
}

// Project writes msgs, oldest first, as a request for api.
func Project(msgs []core.Message, api API, opts Options) (Request, error) {
	if _, ok := ParseAPI(string(api)); !ok {
		return Request{}, unknownAPI(api)
	}
	if err := checkRuns(opts.HeldRuns); err != nil {
		return Request{}, err
	}
	turns := make([]chat.Turn, len(msgs))
	for i, m := range msgs {
		core.TickBytes(len(m))
		// Checked as a tree checks what it takes (until Dec 6, night, a
		// message naming a key twice was sent in one reading, one cut short
		// in part, and text that is not JSON dropped without a word).
		if _, err := core.ParseMessage(m); err != nil {
			msg := err.Error()
			if e, ok := err.(*core.Error); ok {
				msg = e.Message
			}
			return Request{}, &core.Error{Code: core.CodeInvalidInput, Message: "message " + strconv.Itoa(i) + ": " + msg}
		}
		turns[i] = chat.Read(m)
	}
	return project(turns, nil, nil, api, opts)
}

// ProjectTree writes the path of branch ("" for the active branch) as a
// request for api. The path gets back the parallel tool calls and results a
// Claude Code transcript hangs beside it (Report.Adopted). With a budget, the
// system note that replaces dropped turns holds the summaries of the other
// branches, in name order as SpliceForLinearExport lists them, but only those
// written by a person or a model (a stub, "[N turns, unsummarized]", tells a
// model nothing: Report.Unsummarized counts those branches), and the
// branch's own summary when it is as of the last dropped path node or a
// later one.
// opts.Summaries, when not nil, is used instead of the other branches'.
//
// With a budget, a request reads the path from its leaf back only as far as
// the budget needs (a window of at least windowNodes nodes, doubled until it
// decides the request: see fit), and its preamble (the system messages the
// path starts with): the first request of a 200k-message chat converts a
// few hundred messages, not the path. What it drops is counted in path nodes
// (Report.BudgetDropped); the other counts of its Report (Messages, Adopted,
// Dropped, Thinking, Parts, orphans, renames) are of the part of the path it
// read, which holds at least what it sends.
//
// The tree keeps what a request converted (memo.go): the next request
// converts only the nodes added since and reads only the blocks it keeps,
// so a request with a budget costs about the same in a 100- and a
// 200k-message chat, and one without a budget converts only the new nodes.
// The request is the same as converting the whole path and then fitting it.
func ProjectTree(t *core.Tree, branch string, api API, opts Options) (Request, error) {
	if _, ok := ParseAPI(string(api)); !ok {
		return Request{}, unknownAPI(api)
	}
	if opts.Budget < 0 {
		return Request{}, errNegativeBudget
	}
	if err := checkRuns(opts.HeldRuns); err != nil {
		return Request{}, err
	}
	if branch == "" {
		branch = t.ActiveBranch()
	}
	n, err := t.PathLen(branch) // fails closed on a corrupt path
	if err != nil {
		return Request{}, err
	}
	skip := 0 // the branch's path nodes below UpTo
	if opts.UpTo != "" {
		i, err := t.PathIndexOn(branch, opts.UpTo)
		if err != nil {
			return Request{}, err
		}
		if i < 0 {
			return Request{}, &core.Error{Code: core.CodeInvalidInput, Message: "node " + quote(opts.UpTo) + " is not on the path of branch " + quote(branch)}
		}
		skip, n = n-1-i, i+1
	}
	below := "" // the path node below UpTo: never adopted (it is the reply being replaced)
	if skip > 0 {
		ids, _, err := t.AppendTailOf(nil, nil, branch, skip-1, 1)
		if err != nil {
			return Request{}, err
		}
		if len(ids) == 1 {
			below = ids[0]
		}
	}
	keepThinking := api == Anthropic && !opts.DropThinking
	m := memoOf(t, keepThinking)
	note := &noteInput{at: -1}
	if opts.Budget > 0 {
		var others []core.Summary
		note.own, others, note.unsummarized = t.BranchSummaries(branch)
		if opts.Summaries == nil {
			note.others = others
			opts.Summaries = others
		} else {
			note.unsummarized = 0
		}
	}
	if note.own != nil {
		if note.at, err = t.PathIndexOn(branch, note.own.NodeID); err != nil {
			return Request{}, err
		}
		if note.at >= n {
			note.at = -1 // below UpTo
		}
	}
	known := func(id string) bool { _, ok := m.names[id]; return ok }
	lo := 0
	if opts.Budget > 0 && !wholePaths {
		lo = max(0, n-windowNodes)
		if len(m.segs) == 0 {
			lo = max(0, n-firstWindow(t, branch, skip, n, opts.Budget))
		}
	}
	for {
		segs, err := m.pathSegments(t, branch, skip, n, below, keepThinking, lo)
		if err != nil {
			return Request{}, err
		}
		var h *head
		if len(segs) > 0 && segs[0].start > 0 {
			if h, err = headOf(t, m, branch, n, segs[0].start, keepThinking); err != nil {
				return Request{}, err
			}
			if h == nil { // the path's first unit lies within the window
				lo = 0
				continue
			}
		}
		// The segments fit reads are unfolded first; after the request, those
		// before them fold: the next request keeps about as much.
		read := len(segs)
		var ids []string // the path's tail, fetched once for the segments to unfold
		var msgs []core.Message
		ready := func(s *segment) error {
			read = min(read, s.index)
			if !s.folded {
				return nil
			}
			if need := n - s.start; need > len(ids) {
				var err error
				if ids, msgs, err = t.AppendTailOf(ids[:0], msgs[:0], branch, skip, need); err != nil {
					return err
				}
				if len(ids) != need {
					return &core.Error{Code: core.CodeCorrupt, Message: "branch " + quote(branch) + ": its path is shorter than it was counted"}
				}
			}
			lo := s.start - (n - len(ids))
			return s.unfold(t, ids[lo:lo+s.end-s.start], msgs[lo:lo+s.end-s.start], keepThinking)
		}
		req, ok, err := write(segs, note, api, opts, ready, h, known, &m.scratch)
		if err != nil {
			return Request{}, err
		}
		if !ok { // the window does not decide the request: twice as far back
			lo = max(0, n-2*(n-segs[0].start))
			continue
		}
		if opts.Budget > 0 {
			for _, s := range segs[:read] {
				s.fold()
			}
		}
		return req, nil
	}
}

// windowNodes is how far back from its leaf a budgeted request first reads
// a path it has not read before: at a few hundred characters a message,
// more than a budget of 32,000 tokens holds.
const windowNodes = 2 * segmentNodes

// firstWindow is how many nodes a request that has converted nothing of the
// path yet reads first: windowNodes, or, when the last nodes' size says the
// budget holds more of them, twice that many and a segment (the part kept
// must start past the window's first segment, see fit), so that the first
// request after a load converts its window once instead of a window and
// then twice it. A guess: fit still asks for more when it is short.
func firstWindow(t *core.Tree, branch string, skip, n, budget int) int {
	_, msgs, err := t.AppendTailOf(nil, nil, branch, skip, min(n, 64))
	if err != nil || len(msgs) == 0 {
		return windowNodes
	}
	size := 0
	for _, m := range msgs {
		size += len(m)
	}
	perNode := max(1, 4+size/len(msgs)/4) // tokens, as blocks.go counts them
	want := 2*(budget/perNode) + segmentNodes
	return min(max(windowNodes, want), 1<<20)
}

// wholePaths makes every request convert the whole path (the tests compare
// the windowed requests with it).
var wholePaths = false

// headOf returns the preamble of branch's path of n nodes, when the path's
// first unit comes before node base (else nil): the path's first nodes
// converted, as many as that takes.
func headOf(t *core.Tree, m *pathMemo, branch string, n, base int, keepThinking bool) (*head, error) {
	if m.head != nil && len(m.headIDs)-1 <= base {
		// The last request's, when the path starts with the same nodes.
		ids, _, err := t.AppendHeadOf(nil, nil, branch, len(m.headIDs))
		if err == nil && slices.Equal(ids, m.headIDs) {
			return m.head, nil
		}
	}
	for j := min(8, base); ; j = min(2*j, base) {
		ids, msgs, err := t.AppendHeadOf(nil, nil, branch, j+1)
		if err != nil {
			return nil, err
		}
		if len(ids) != j+1 {
			return nil, &core.Error{Code: core.CodeCorrupt, Message: "branch " + quote(branch) + ": its path is shorter than it was counted"}
		}
		s := convert(t, 0, ids[:j], msgs[:j], ids[j], keepThinking, true)
		if len(s.units) > 0 {
			from := s.units[0].from
			h := &head{blocks: s.blocks[:from], tok: s.sysTok, firstPos: int(s.pos[s.blocks[from].turn])}
			m.head, m.headIDs, m.headRead = h, ids, make(map[string]bool, len(s.ids)+j)
			for _, id := range s.ids {
				m.headRead[id] = true
			}
			for _, id := range ids[:j] {
				m.headRead[id] = true
			}
			return h, nil
		}
		if j == base {
			return nil, nil
		}
	}
}

// noteInput is what the budget's note says beyond opts.Summaries: the
// projected branch's own summary, the index on the path of the node it is
// as of (-1: not on the path), and how many other branches have no summary.
type noteInput struct {
	own          *core.Summary
	at           int
	others       []core.Summary
	unsummarized int
}

func unknownAPI(api API) error {
	return &core.Error{Code: core.CodeInvalidInput, Message: "unknown API " + quote(string(api)) + ": use openai-chat, openai-responses or anthropic"}
}

func quote(s string) string {
	if len(s) > 80 {
		s = s[:80] + "…"
	}
	return `"` + s + `"`
}

// AppendJSON appends the report as a JSON object with camelCase keys, as the
// JS API and the worker give it: {"messages","adopted","sent","tokens",
// "dropped","thinking","parts","orphanCalls","orphanResults","renamedIds",
// "renamedTools","merged","placeholder","budgetDropped","overBudget",
// "summarized","unsummarized"}.
func (r Report) AppendJSON(b []byte) []byte {
	b = append(b, '{')
	for i, f := range []struct {
		key string
		n   int
	}{{"messages", r.Messages}, {"adopted", r.Adopted}, {"sent", r.Sent}, {"tokens", r.Tokens},
		{"dropped", r.Dropped}, {"thinking", r.Thinking}, {"parts", r.Parts}} {
		if i > 0 {
			b = append(b, ',')
		}
		b = rawjson.AppendString(b, f.key)
		b = append(b, ':')
		b = rawjson.AppendInt(b, int64(f.n))
	}
	b = append(b, `,"orphanCalls":`...)
	b = rawjson.AppendStrings(b, r.OrphanCalls)
	b = append(b, `,"orphanResults":`...)
	b = rawjson.AppendStrings(b, r.OrphanResults)
	for _, f := range []struct {
		key string
		n   int
	}{{"renamedIds", r.RenamedIDs}, {"renamedTools", r.RenamedTools}, {"merged", r.Merged}, {"budgetDropped", r.BudgetDropped}} {
		b = append(b, ',')
		b = rawjson.AppendString(b, f.key)
		b = append(b, ':')
		b = rawjson.AppendInt(b, int64(f.n))
	}
	b = append(b, `,"placeholder":`...)
	b = appendBool(b, r.Placeholder)
	b = append(b, `,"overBudget":`...)
	b = appendBool(b, r.OverBudget)
	b = append(b, `,"summarized":`...)
	b = rawjson.AppendStrings(b, r.Summarized)
	b = append(b, `,"unsummarized":`...)
	b = rawjson.AppendInt(b, int64(r.Unsummarized))
	return append(b, '}')
}

func appendBool(b []byte, v bool) []byte {
	if v {
		return append(b, "true"...)
	}
	return append(b, "false"...)
}
