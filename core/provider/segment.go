package provider

import (
	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/chat"
)

// A segment is a stretch of a path converted on its own: its turns read,
// flattened, paired and grouped into blocks, with the sums a budget needs
// (tokens, messages per unit), so that a request over a path of segments
// reads only the blocks it keeps. A stretch converts on its own exactly as
// it converts within the whole path when no call id, result id or reply id
// of it appears in an earlier stretch and its first block does not continue
// the reply the earlier one ended with (memo.go checks both).
type segment struct {
	start, end int    // the path nodes [start, end) it holds
	last, next string // the id of its last path node, and of the path node after it ("" at the leaf)
	// grown is a node added below last since, when next is "": the path may
	// go on into it (any other child added below a segment's nodes sends the
	// segment back to conversion).
	grown   string
	offset  int    // turns gathered before it on the path
	turns   int    // turns gathered in it
	rep     Report // what reading, pairing and renaming its turns reported
	blocks  []block
	tok     []int // tokens of each block
	sys     []int // indices of its system blocks
	sysTok  int
	total   int
	units   []unit
	unitTok []int
	// per unit, and one past the last: the messages of the units before it
	// (turnsIn of their blocks) and the latest turn an item of them holds
	// (-1: none).
	turnsBefore, latestBefore []int
	pendingEnd                bool
	folded                    bool     // its blocks but the system messages were let go (fold)
	index                     int      // its place among the memo's segments
	ids                       []string // the node of each turn
	names, looks              []string // see gathered
	where                     map[string]int
}

// convert reads and converts the path nodes ids (with their messages; next
// is the path node after them) into a segment.
func convert(t *core.Tree, ids []string, msgs []core.Message, next string, keepThinking bool) *segment {
	g := gather(t, ids, msgs, next)
	s := &segment{last: ids[len(ids)-1], next: next, ids: g.ids, pendingEnd: g.pendingEnd, names: g.names, looks: g.looks}
	cont := continuations(g.turns, g.ids)
	for i, tu := range g.turns {
		if len(tu.Parts) == 1 && tu.Parts[0].Kind == chat.ToolResult {
			s.names = append(s.names, g.ids[i]) // a later result may continue it
		}
	}
	s.read(g.turns, cont, keepThinking)
	s.rep.Adopted = g.adopted
	return s
}

// unfold converts a folded segment again from its path nodes ids (with
// their messages): the same nodes, read the same way, give the same blocks.
func (s *segment) unfold(t *core.Tree, ids []string, msgs []core.Message, keepThinking bool) error {
	if len(ids) != s.end-s.start || ids[len(ids)-1] != s.last {
		return &core.Error{Code: core.CodeCorrupt, Message: "the path changed under a request (a bug in sessiontree)"}
	}
	again := convert(t, ids, msgs, s.next, keepThinking)
	if len(again.blocks) != len(s.blocks) {
		return &core.Error{Code: core.CodeCorrupt, Message: "a stretch of the path converted differently twice (a bug in sessiontree)"}
	}
	s.blocks, s.folded = again.blocks, false
	return nil
}

// read converts turns into the segment's blocks.
func (s *segment) read(turns []chat.Turn, cont []bool, keepThinking bool) {
	s.turns = len(turns)
	s.rep.Messages = len(turns)
	items := flatten(turns, cont, keepThinking, &s.rep)
	items = pair(items, &s.rep)
	legalize(items, &s.rep)
	s.setBlocks(group(items))
}

// setBlocks keeps blocks and sums what fit reads of them.
func (s *segment) setBlocks(blocks []block) {
	s.blocks = blocks
	s.tok = make([]int, len(blocks))
	for i, b := range blocks {
		s.tok[i] = tokens(b)
		s.total += s.tok[i]
		if b.role == sysRole {
			s.sys = append(s.sys, i)
			s.sysTok += s.tok[i]
		}
	}
	s.units = units(blocks)
	s.unitTok = make([]int, len(s.units))
	s.turnsBefore = make([]int, len(s.units)+1)
	s.latestBefore = make([]int, len(s.units)+1)
	s.latestBefore[0] = -1
	for k, u := range s.units {
		n, latest := 0, s.latestBefore[k]
		for i := u.from; i < u.to; i++ {
			s.unitTok[k] += s.tok[i]
			n += turnsIn(blocks[i])
			for _, it := range blocks[i].items {
				latest = max(latest, it.turn)
			}
		}
		s.turnsBefore[k+1] = s.turnsBefore[k] + n
		s.latestBefore[k+1] = latest
	}
}

// units lists the blocks a budget drops together: each block that is not a
// system message, an assistant's with the results block after it.
func units(blocks []block) []unit {
	var out []unit
	for i := 0; i < len(blocks); i++ {
		if blocks[i].role == sysRole {
			continue
		}
		u := unit{i, i + 1}
		if blocks[i].role == asstRole && i+1 < len(blocks) && blocks[i+1].role == resultsRole {
			u.to = i + 2
			i++
		}
		out = append(out, u)
	}
	return out
}

// lastRole is the role of the segment's last block, 0 when it has none.
func (s *segment) lastRole() role {
	if len(s.blocks) == 0 {
		return 0
	}
	return s.blocks[len(s.blocks)-1].role
}

// indexOf is the index among the segment's turns of the last one from node
// id, or -1.
func (s *segment) indexOf(id string) int {
	if s.where == nil {
		s.where = make(map[string]int, len(s.ids))
		for i, x := range s.ids {
			s.where[x] = i
		}
	}
	if i, ok := s.where[id]; ok {
		return i
	}
	return -1
}

// unitRef is a unit of a path of segments: the segment and the unit in it.
type unitRef struct{ seg, unit int }

// fit keeps what a budget allows of a path of segments, reading only the
// blocks it keeps: it drops the oldest blocks that are not system messages,
// an assistant block always with the results block after it, until the rest
// fits the budget; the newest exchange (from the last user message on) is
// kept whatever its size. The kept tail starts with a user's message. A
// system note takes the dropped blocks' place. It returns the blocks to
// write.
//
// ready, when not nil, is called for each segment before its blocks are
// read (other than its system messages and sums, which a folded segment
// keeps): it unfolds a folded one.
func fit(segs []*segment, opts Options, own *noteInput, rep *Report, ready func(*segment) error) ([]block, error) {
	all := func() ([]block, error) {
		for _, s := range segs {
			if err := readyOf(s, ready); err != nil {
				return nil, err
			}
		}
		return allBlocks(segs), nil
	}
	total, sysTok := 0, 0
	for _, s := range segs {
		total += s.total
		sysTok += s.sysTok
	}
	if opts.Budget <= 0 || total <= opts.Budget {
		return all()
	}
	// The units from the newest back: the newest exchange (from the last
	// user message on, or the last unit when no user speaks) stays, and
	// the units before it stay while they fit.
	note := noteTokens(opts, own)
	prev := func(u unitRef) (unitRef, bool) {
		for u.unit--; u.unit < 0; u.unit = len(segs[u.seg].units) - 1 {
			if u.seg--; u.seg < 0 {
				return u, false
			}
		}
		return u, true
	}
	next := func(u unitRef) (unitRef, bool) {
		for u.unit++; u.unit >= len(segs[u.seg].units); u.unit = 0 {
			if u.seg++; u.seg >= len(segs) {
				return u, false
			}
		}
		return u, true
	}
	role := func(u unitRef) role { s := segs[u.seg]; return s.blocks[s.units[u.unit].from].role }
	end := unitRef{len(segs) - 1, len(segs[len(segs)-1].units)} // one past the last unit
	limit, ok := prev(end)
	if !ok {
		return all() // no unit to drop
	}
	for u, ok := limit, true; ok; u, ok = prev(u) {
		if role(u) == userRole {
			limit = u
			break
		}
	}
	// k: the first unit kept. Units go from the oldest while the rest is
	// over the budget, never the newest exchange.
	k, kept := end, sysTok
	for u, ok := prev(end); ok; u, ok = prev(u) {
		if kept+segs[u.seg].unitTok[u.unit]+note > opts.Budget {
			break
		}
		kept += segs[u.seg].unitTok[u.unit]
		k = u
	}
	if before(limit, k) {
		k = limit
	}
	first, _ := next(unitRef{0, -1})
	for before(first, k) && before(k, limit) && role(k) != userRole {
		k, _ = next(k)
	}
	if !before(first, k) {
		rep.OverBudget = true
		return all()
	}
	// What went: every unit before k.
	count, lastTurn := 0, -1
	for i := 0; i < k.seg; i++ {
		s := segs[i]
		count += s.turnsBefore[len(s.units)]
		if l := s.latestBefore[len(s.units)]; l >= 0 {
			lastTurn = max(lastTurn, s.offset+l)
		}
	}
	ks := segs[k.seg]
	count += ks.turnsBefore[k.unit]
	if l := ks.latestBefore[k.unit]; l >= 0 {
		lastTurn = max(lastTurn, ks.offset+l)
	}
	noteBlock := block{role: sysRole, items: []item{{role: sysRole, part: chat.Part{Kind: chat.Text, Text: noteText(count, opts, own, lastTurn)}}}}
	if own != nil && own.own != nil && own.at >= lastTurn {
		rep.Summarized = append(rep.Summarized, own.own.Branch)
	}
	for _, sum := range opts.Summaries {
		rep.Summarized = append(rep.Summarized, sum.Branch)
	}
	if own != nil {
		rep.Unsummarized = own.unsummarized
	}
	// The system messages before the first unit, the note, the system
	// messages among the units dropped, then every block from unit k on.
	var out []block
	fs := segs[first.seg]
	from := fs.units[first.unit].from
	for i := 0; i < first.seg; i++ {
		out = append(out, segs[i].blocks...) // system blocks only: no unit before first
	}
	out = append(out, fs.blocks[:from]...)
	out = append(out, noteBlock)
	for i := first.seg; i <= k.seg; i++ {
		s := segs[i]
		to := len(s.blocks)
		if i == k.seg {
			to = s.units[k.unit].from
		}
		for _, j := range s.sys {
			if (i > first.seg || j > from) && j < to {
				out = append(out, s.blocks[j])
			}
		}
	}
	for _, s := range segs[k.seg:] {
		if err := readyOf(s, ready); err != nil {
			return nil, err
		}
	}
	out = append(out, ks.blocks[ks.units[k.unit].from:]...)
	for _, s := range segs[k.seg+1:] {
		out = append(out, s.blocks...)
	}
	rep.BudgetDropped = count
	total = 0
	for _, b := range out {
		total += tokens(b)
	}
	rep.OverBudget = total > opts.Budget
	return out, nil
}

func readyOf(s *segment, ready func(*segment) error) error {
	if ready == nil {
		return nil
	}
	return ready(s)
}

// fold lets go of the segment's blocks but its system messages, keeping
// what fit reads of them (roles, sums): a long path's memo holds the text
// of what requests keep, not of the whole path. unfold converts it again.
func (s *segment) fold() {
	if s.folded {
		return
	}
	blocks := make([]block, len(s.blocks))
	for i, b := range s.blocks {
		blocks[i] = block{role: b.role, turn: b.turn}
		if b.role == sysRole {
			blocks[i].items = b.items
		}
	}
	s.blocks, s.folded, s.where = blocks, true, nil
}

// before reports whether unit a comes before unit b on the path.
func before(a, b unitRef) bool { return a.seg < b.seg || a.seg == b.seg && a.unit < b.unit }

func allBlocks(segs []*segment) []block {
	if len(segs) == 1 {
		return segs[0].blocks
	}
	n := 0
	for _, s := range segs {
		n += len(s.blocks)
	}
	out := make([]block, 0, n)
	for _, s := range segs {
		out = append(out, s.blocks...)
	}
	return out
}
