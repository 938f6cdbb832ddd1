package provider

import (
	"slices"
	"sort"

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
	grown  string
	turns  int    // turns gathered in it
	rep    Report // what reading, pairing and renaming its turns reported
	blocks []block
	tok    []int // tokens of each block
	sys    []int // indices of the path's preamble blocks it holds (see units)
	// atRoot: the segment starts the path or follows only its preamble (a
	// request made while the path was all system messages, or one up to a
	// node of the preamble, left a segment of them alone: the next one's
	// leading system messages were taken for droppable turns until Dec 6,
	// night, and a budget dropped them)
	atRoot bool
	// adoptedBelowLast: see gathered; such a segment is converted again when
	// the path goes on below it (its next node decides what it adopts).
	adoptedBelowLast bool
	sysTok           int
	total            int
	units            []unit
	unitTok          []int
	// tokSuf[i] and unitSuf[k]: the tokens of blocks from i on and of units
	// from k on (one more than blocks and units, the last 0): fit and write
	// sum what a request keeps of a segment without reading it block by
	// block.
	tokSuf, unitSuf []int
	// wrote is, for Chat Completions and Responses, what the segment's
	// blocks from one on wrote when their serials run on (nil: not known);
	// blocks of a folded or unfolded segment are new, and so is it.
	wrote [2]*segWrote
	// pos is, for each turn, the path nodes of the segment before it (a
	// path node's own index in the segment): start+pos[i] path nodes come
	// before turn i on the path, what a budget counts as left out.
	pos          []int32
	pendingEnd   bool
	folded       bool     // its blocks but the system messages were let go (fold)
	index        int      // its place among the memo's segments
	ids          []string // the node of each turn
	names, looks []string // see gathered
	results      []string // see gathered
	where        map[string]int
	// orphansBefore[k][i] is how many of rep.OrphanCalls (k 0) and
	// rep.OrphanResults (k 1) blocks[:i] wrote (one longer than blocks; nil
	// when it has none of the kind): a request that keeps the blocks from i
	// on names those after, in the order pair found them, the blocks' order.
	orphansBefore [2][]int32
}

// convert reads and converts the path nodes ids (with their messages; next
// is the path node after them) into a segment.
//
// atRoot: the stretch starts the path, or follows nothing but the path's
// preamble (its system messages), so its own leading system messages are
// preamble too (see units).
func convert(t *core.Tree, start int, ids []string, msgs []core.Message, next string, keepThinking, atRoot bool) *segment {
	g := gather(t, ids, msgs, next)
	s := &segment{start: start, atRoot: atRoot, last: ids[len(ids)-1], next: next, ids: g.ids, pendingEnd: g.pendingEnd, adoptedBelowLast: g.adoptedBelowLast, names: g.names, looks: g.looks, results: g.results}
	// Each turn's place: the stretch's path nodes gathered before it (an
	// adopted node follows the path node it hangs from).
	s.pos = make([]int32, len(g.ids))
	p := 0
	for i, id := range g.ids {
		s.pos[i] = int32(p)
		if p < len(ids) && id == ids[p] {
			p++
		}
	}
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
	again := convert(t, s.start, ids, msgs, s.next, keepThinking, s.atRoot)
	if len(again.blocks) != len(s.blocks) {
		return &core.Error{Code: core.CodeCorrupt, Message: "a stretch of the path converted differently twice (a bug in sessiontree)"}
	}
	s.blocks, s.folded = again.blocks, false
	s.wrote = [2]*segWrote{}
	return nil
}

// read converts turns into the segment's blocks.
func (s *segment) read(turns []chat.Turn, cont []bool, keepThinking bool) {
	if s.pos == nil { // a list of messages, not a stretch of a tree: each turn is one
		s.pos = make([]int32, len(turns))
		for i := range s.pos {
			s.pos[i] = int32(i)
		}
	}
	s.turns = len(turns)
	s.rep.Messages = len(turns)
	items := flatten(turns, cont, keepThinking, &s.rep)
	items = pair(items, &s.rep)
	legalize(items, &s.rep)
	unique(items, func(turn int) int { return s.start + int(s.pos[turn]) }, &s.rep)
	s.setBlocks(group(items))
}

// setBlocks keeps blocks and sums what fit reads of them.
func (s *segment) setBlocks(blocks []block) {
	s.blocks = blocks
	outs := make([]blockOut, len(blocks))
	for i := range blocks {
		blocks[i].out = &outs[i]
	}
	s.tok = make([]int, len(blocks))
	s.units = units(blocks, s.atRoot)
	lead := len(blocks)
	if len(s.units) > 0 {
		lead = s.units[0].from
	}
	for i, b := range blocks {
		s.tok[i] = tokens(b)
		b.out.tok = s.tok[i]
		s.total += s.tok[i]
		if s.atRoot && i < lead {
			s.sys = append(s.sys, i) // the path's preamble (see units)
			s.sysTok += s.tok[i]
		}
	}
	s.unitTok = make([]int, len(s.units))
	for k, u := range s.units {
		for i := u.from; i < u.to; i++ {
			s.unitTok[k] += s.tok[i]
		}
	}
	s.sumSuffixes()
	s.countOrphans()
	s.wrote = [2]*segWrote{}
}

// countOrphans sets orphansBefore from the blocks' items.
func (s *segment) countOrphans() {
	for k, names := range [2][]string{s.rep.OrphanCalls, s.rep.OrphanResults} {
		s.orphansBefore[k] = nil
		if len(names) == 0 {
			continue
		}
		before := make([]int32, len(s.blocks)+1)
		for i, b := range s.blocks {
			before[i+1] = before[i]
			for _, it := range b.items {
				if int(it.orphan) == k+1 {
					before[i+1]++
				}
			}
		}
		s.orphansBefore[k] = before
	}
}

// orphans appends to calls and results the orphans the blocks from from on
// wrote.
func (s *segment) orphans(calls, results []string, from int) ([]string, []string) {
	if b := s.orphansBefore[0]; b != nil {
		calls = append(calls, s.rep.OrphanCalls[b[from]:]...)
	}
	if b := s.orphansBefore[1]; b != nil {
		results = append(results, s.rep.OrphanResults[b[from]:]...)
	}
	return calls, results
}

// sumSuffixes sets tokSuf and unitSuf from tok and unitTok.
func (s *segment) sumSuffixes() {
	s.tokSuf = make([]int, len(s.tok)+1)
	for i := len(s.tok) - 1; i >= 0; i-- {
		s.tokSuf[i] = s.tokSuf[i+1] + s.tok[i]
	}
	s.unitSuf = make([]int, len(s.unitTok)+1)
	for k := len(s.unitTok) - 1; k >= 0; k-- {
		s.unitSuf[k] = s.unitSuf[k+1] + s.unitTok[k]
	}
}

// units lists the blocks a budget drops together: each block, an
// assistant's with the results block after it, but the system messages a
// path starts with (atRoot: blocks is the start of a path), its preamble,
// which a request always keeps.
func units(blocks []block, atRoot bool) []unit {
	var out []unit
	for i := 0; i < len(blocks); i++ {
		if atRoot && len(out) == 0 && blocks[i].role == sysRole {
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

// join appends b, the segment the path goes on with after s, to s: the
// two converted apart read as they did (b does not depend on s: see
// pathMemo.depends), so their blocks, units and sums are put end to end;
// the blocks keep what they wrote, and what runs on is found again
// (segWrote) from them.
func (s *segment) join(b *segment) {
	nb, nt := len(s.blocks), s.turns
	s.end, s.last, s.next, s.grown = b.end, b.last, b.next, b.grown
	s.turns += b.turns
	calls, results := len(s.rep.OrphanCalls), len(s.rep.OrphanResults)
	s.rep.add(b.rep)
	s.rep.OrphanCalls = append(slices.Clip(s.rep.OrphanCalls), b.rep.OrphanCalls...)
	s.rep.OrphanResults = append(slices.Clip(s.rep.OrphanResults), b.rep.OrphanResults...)
	for k, had := range [2]int{calls, results} {
		x, y := s.orphansBefore[k], b.orphansBefore[k]
		switch {
		case y == nil && x != nil:
			y = make([]int32, len(b.blocks)+1)
		case x == nil && y != nil:
			x = make([]int32, nb+1)
		case x == nil:
			continue
		}
		joined := append(make([]int32, 0, nb+len(b.blocks)+1), x...)
		for _, n := range y[1:] {
			joined = append(joined, int32(had)+n)
		}
		s.orphansBefore[k] = joined
	}
	for i := range b.blocks { // b's turns come after s's
		b.blocks[i].turn += nt
		for k := range b.blocks[i].items {
			b.blocks[i].items[k].turn += nt
		}
	}
	s.blocks = append(slices.Clip(s.blocks), b.blocks...)
	s.tok = append(slices.Clip(s.tok), b.tok...)
	for _, i := range b.sys {
		s.sys = append(s.sys, nb+i)
	}
	s.sysTok += b.sysTok
	s.total += b.total
	for _, u := range b.units {
		s.units = append(s.units, unit{u.from + nb, u.to + nb})
	}
	s.unitTok = append(slices.Clip(s.unitTok), b.unitTok...)
	shift := int32(b.start - s.start)
	for _, p := range b.pos {
		s.pos = append(s.pos, p+shift)
	}
	s.pendingEnd = b.pendingEnd
	s.ids = append(slices.Clip(s.ids), b.ids...)
	s.names = append(slices.Clip(s.names), b.names...)
	s.looks = append(slices.Clip(s.looks), b.looks...)
	s.results = append(slices.Clip(s.results), b.results...)
	s.where = nil
	s.sumSuffixes()
	for ai, sw := range s.wrote {
		s.wrote[ai] = nil
		if sw == nil || b.wrote[ai] == nil || b.wrote[ai].from != 0 {
			continue
		}
		outs := make([]*written, 0, len(s.blocks)-sw.from)
		for _, bl := range s.blocks[sw.from:] {
			if bl.out == nil {
				outs = nil
				break
			}
			o := bl.out.chat
			if ai == 1 {
				o = bl.out.responses
			}
			if o == nil {
				outs = nil
				break
			}
			outs = append(outs, o)
		}
		if outs != nil {
			s.wrote[ai] = runOn(outs, sw.from)
		}
	}
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

// head is what a request whose segments start past the path's root (a
// window: see ProjectTree) knows of the path before them: its preamble (the
// system blocks it starts with) and the path nodes before its first unit.
type head struct {
	blocks   []block
	tok      int
	firstPos int
}

// fit keeps what a budget allows of a path of segments, reading only the
// blocks it keeps: it drops the oldest units while the rest is over the
// budget; the path's preamble (the system messages it starts with) and the
// newest exchange (from the last user message on) are kept whatever their
// size, and the kept tail starts with a user's message. A system note takes
// the dropped units' place. It returns the blocks to write.
//
// ready, when not nil, is called for each segment before its blocks are
// read (other than its preamble and sums, which a folded segment keeps): it
// unfolds a folded one.
//
// With h, segs are a window of the path, from past its root to its leaf;
// fit then reports false when the window does not decide the request (it
// must reach further back): when all of it fits, when it holds no user
// message, when what is kept reaches its first segment, or when a kept
// segment may read differently with what lies before the window (known
// tells whether an id is one the window holds; see enough).
func fit(segs []*segment, opts Options, own *noteInput, rep *Report, ready func(*segment) error, h *head, known func(string) bool, sc *scratch) ([]span, bool, error) {
	win := h != nil
	all := func() ([]span, bool, error) {
		if win {
			return nil, false, nil
		}
		out := sc.spans[:0]
		for _, s := range segs {
			if err := readyOf(s, ready); err != nil {
				return nil, true, err
			}
			out = append(out, span{seg: s})
		}
		sc.spans = out
		return out, true, nil
	}
	total, sysTok := 0, 0
	for _, s := range segs {
		total += s.total
		sysTok += s.sysTok
	}
	if win {
		total += h.tok
		sysTok += h.tok
	}
	if opts.Budget <= 0 || total <= opts.Budget {
		return all()
	}
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
	pos := func(u unitRef) int {
		s := segs[u.seg]
		return s.start + int(s.pos[s.blocks[s.units[u.unit].from].turn])
	}
	end := unitRef{len(segs) - 1, len(segs[len(segs)-1].units)} // one past the last unit
	limit, ok := prev(end)
	if !ok { // no unit to drop: the preamble alone is over the budget
		rep.OverBudget = true
		return all()
	}
	user := false
	for u, ok := limit, true; ok; u, ok = prev(u) {
		if role(u) == userRole {
			limit, user = u, true
			break
		}
	}
	if win && !user {
		return nil, false, nil // the last user message lies further back
	}
	// The note counts at most the path nodes before the newest exchange.
	note := noteTokens(opts, own, pos(limit))
	// k: the first unit kept. Units go from the oldest while the rest is
	// over the budget, never the newest exchange.
	// A segment whose units all fit is kept whole; in the one where they
	// stop fitting, the first unit kept is found by its units' sums.
	k, kept, stopped := end, sysTok, false
	for i := len(segs) - 1; i >= 0 && !stopped; i-- {
		suf := segs[i].unitSuf
		if len(suf) < 2 {
			continue // no unit
		}
		if kept+suf[0]+note <= opts.Budget {
			kept += suf[0]
			k = unitRef{i, 0}
			continue
		}
		j := sort.Search(len(suf), func(j int) bool { return kept+suf[j]+note <= opts.Budget })
		if j < len(suf)-1 {
			kept += suf[j]
			k = unitRef{i, j}
		}
		stopped = true
	}
	if win && !stopped {
		return nil, false, nil // all of the window fits
	}
	if before(limit, k) {
		k = limit
	}
	// first: the path's first unit (before the window: any unit of it comes after).
	first := unitRef{-1, 0}
	if !win {
		first, _ = next(unitRef{0, -1})
	}
	for before(first, k) && before(k, limit) && role(k) != userRole {
		k, _ = next(k)
	}
	if !before(first, k) {
		rep.OverBudget = true
		return all()
	}
	if win && !enough(segs, k.seg, known) {
		return nil, false, nil
	}
	// What went: the path nodes from its first unit to the first kept.
	firstPos := 0
	if win {
		firstPos = h.firstPos
	} else {
		firstPos = pos(first)
	}
	keptPos := pos(k)
	count := keptPos - firstPos
	noteBlock := block{role: sysRole, items: []item{{role: sysRole, part: chat.Part{Kind: chat.Text, Text: noteText(count, opts, own, keptPos-1)}}}}
	if own != nil && own.own != nil && own.at >= 0 && own.at >= keptPos-1 {
		rep.Summarized = append(rep.Summarized, own.own.Branch)
	}
	for _, sum := range opts.Summaries {
		rep.Summarized = append(rep.Summarized, sum.Branch)
	}
	if own != nil {
		rep.Unsummarized = own.unsummarized
	}
	// The preamble, the note, then every block from unit k on.
	out := sc.spans[:0]
	if win {
		out = append(out, span{blocks: h.blocks})
	} else {
		for i := 0; i < first.seg; i++ {
			out = append(out, span{seg: segs[i]}) // the preamble only: no unit before first
		}
		out = append(out, span{blocks: segs[first.seg].blocks[:segs[first.seg].units[first.unit].from]})
	}
	sc.note[0] = noteBlock
	out = append(out, span{blocks: sc.note[:]})
	for _, s := range segs[k.seg:] {
		if err := readyOf(s, ready); err != nil {
			return nil, true, err
		}
	}
	out = append(out, span{seg: segs[k.seg], from: segs[k.seg].units[k.unit].from})
	for _, s := range segs[k.seg+1:] {
		out = append(out, span{seg: s})
	}
	sc.spans = out // the next request's, once this one is written (letGo)
	rep.BudgetDropped = count
	rep.OverBudget = spanTokens(out) > opts.Budget
	return out, true, nil
}

// span is a stretch of a request's blocks: a segment's from block from on,
// or blocks kept apart (a window's preamble, the budget's note).
type span struct {
	seg    *segment
	from   int
	blocks []block
}

// list is the span's blocks.
func (p span) list() []block {
	if p.seg != nil {
		return p.seg.blocks[p.from:]
	}
	return p.blocks
}

// spanTokens is the tokens of the spans' blocks.
func spanTokens(spans []span) int {
	n := 0
	for _, p := range spans {
		if p.seg != nil && p.seg.tokSuf != nil {
			n += p.seg.tokSuf[p.from]
			continue
		}
		for _, b := range p.list() {
			n += tokens(b)
		}
	}
	return n
}

// spanBlocks is the spans' blocks in one list (sc lends its buffer).
func spanBlocks(spans []span, sc *scratch) []block {
	if len(spans) == 1 {
		return spans[0].list()
	}
	n := 0
	for _, p := range spans {
		n += len(p.list())
	}
	out := slices.Grow(sc.blocks[:0], n)
	for _, p := range spans {
		out = append(out, p.list()...)
	}
	sc.blocks = out // the next request's, once this one is written (letGo)
	return out
}

// enough reports whether the window's segments from kept on read as they
// would with the whole path before them: kept is not the window's first
// segment (which may start within an exchange), and no segment from it on
// holds a result whose call it could not find, or left beside the path a
// result for a call the window does not hold (a call before the window
// would have taken it).
func enough(segs []*segment, kept int, known func(string) bool) bool {
	if kept < 1 {
		return false
	}
	for _, s := range segs[kept:] {
		if len(s.rep.OrphanResults) > 0 {
			return false
		}
		for _, id := range s.results {
			if !known(id) {
				return false
			}
		}
	}
	return true
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
	s.wrote = [2]*segWrote{}
}

// before reports whether unit a comes before unit b on the path.
func before(a, b unitRef) bool { return a.seg < b.seg || a.seg == b.seg && a.unit < b.unit }
