package claudecode

// This file is the link phase of an import: given every turn line of a
// transcript (its uuid, its parentUuid, and the tool calls and results it
// holds) and the lines that are not turns, it decides each turn's parent in
// the tree. Export runs the same phase over the lines it writes, so that it
// knows which lines an import would place elsewhere than the tree has them.

// turn is what the link phase knows of one turn line.
type turn struct {
	id        string
	parent    string // parentUuid; "" when null or absent
	hasParent bool   // the line has a parentUuid member at all
	msgID     string // message.id of an assistant line
	tools     *tools // nil for a line with no tool_use or tool_result block
}

// tools are the tool blocks of a line.
type tools struct {
	uses    []string // ids of its tool_use blocks
	results []string // tool_use_ids of its tool_result blocks
}

func (t *turn) uses() []string {
	if t.tools == nil {
		return nil
	}
	return t.tools.uses
}

func (t *turn) results() []string {
	if t.tools == nil {
		return nil
	}
	return t.tools.results
}

// link returns the parent of every turn (in the order given: file order).
//
//   - A parent that is a line kept off the path (progress, hook summaries,
//     any line with a uuid that is not a turn) stands for that line's nearest
//     turn ancestor (through via, uuid → parentUuid of those lines).
//   - A transcript none of whose turns has a parentUuid member (older or
//     hand-written transcripts) is linear: each turn follows the one before.
//   - Claude Code writes one line per content block of an assistant message
//     (the lines share message.id, each the parent of the next) and hangs
//     each tool_result line off the line of its own tool_use, so parallel
//     tool calls look like forks. The model saw one sequence: the message's
//     blocks, then every result. So the lines of such a message are chained,
//     its results follow its last line in file order, and a line that hangs
//     off any of them continues after the last. A result whose line is a
//     root (parentUuid null) follows its tool use too.
func link(turns []turn, via map[string]string) (parents []string, moved int) {
	index := make(map[string]int, len(turns))
	for i := range turns {
		if _, dup := index[turns[i].id]; !dup {
			index[turns[i].id] = i
		}
	}
	linear := true
	for i := range turns {
		if turns[i].hasParent {
			linear = false
			break
		}
	}
	parents = make([]string, len(turns))
	for i := range turns {
		switch {
		case linear && i > 0:
			parents[i] = turns[i-1].id
		case !linear:
			parents[i] = resolve(turns[i].parent, via, index)
		}
	}
	moved = linkToolCalls(turns, parents, index)
	return parents, moved
}

// resolve follows lines that are not turns up to a turn (or "" for none),
// and shortens the chains it walked so that the next walk is one step.
func resolve(p string, via map[string]string, index map[string]int) string {
	start := p
	steps := 0
	for ; p != "" && steps <= len(via); steps++ {
		if _, ok := index[p]; ok {
			break
		}
		next, ok := via[p]
		if !ok {
			break // not in the file: the builder reports it
		}
		p = next
	}
	if steps > len(via) {
		p = "" // a cycle of lines that are not turns
	}
	for q := start; steps > 1 && q != p; steps-- {
		next, ok := via[q]
		if !ok {
			break
		}
		via[q] = p
		q = next
	}
	return p
}

// call is one assistant message and its results: the turns of its sequence.
type call struct {
	lines   []int // the message's lines, in file order
	results []int // the lines holding its results, in file order
}

// linkToolCalls rebuilds each assistant message with tool uses as the one
// sequence the model saw (see link), and returns how many turns it moved.
func linkToolCalls(turns []turn, parents []string, index map[string]int) (moved int) {
	var calls []*call
	byMsg := make(map[string]int)  // message.id → call
	byUse := make(map[string]int)  // tool_use id → call
	member := make(map[string]int) // turn id → call, for turns in a sequence
	for i := range turns {
		t := &turns[i]
		if t.msgID != "" {
			c, seen := byMsg[t.msgID]
			switch {
			case !seen:
				c = len(calls)
				calls = append(calls, &call{lines: []int{i}})
				byMsg[t.msgID] = c
			case inCall(member, parents[i], c) && !isMember(member, t.id):
				calls[c].lines = append(calls[c].lines, i)
			default:
				continue // the same message again elsewhere: left as the file has it
			}
			member[t.id] = c
			for _, u := range t.uses() {
				if _, taken := byUse[u]; !taken {
					byUse[u] = c
				}
			}
			continue
		}
		results := t.results()
		if len(results) == 0 || isMember(member, t.id) {
			continue
		}
		c, ok := byUse[results[0]]
		for _, r := range results[1:] {
			if d, found := byUse[r]; !found || d != c {
				ok = false
			}
		}
		if ok && (parents[i] == "" || inCall(member, parents[i], c)) {
			calls[c].results = append(calls[c].results, i)
			member[t.id] = c
		}
	}
	tails := make([]string, len(calls))
	for c, k := range calls {
		seq := append(append([]int(nil), k.lines...), k.results...)
		for j := 1; j < len(seq); j++ {
			if parents[seq[j]] != turns[seq[j-1]].id {
				parents[seq[j]] = turns[seq[j-1]].id
				moved++
			}
		}
		tails[c] = turns[seq[len(seq)-1]].id
	}
	for i := range turns {
		if c, in := member[turns[i].id]; in && turns[calls[c].firstOf()].id != turns[i].id {
			continue // inside a sequence: linked above
		}
		if c, in := member[parents[i]]; in && parents[i] != tails[c] {
			parents[i] = tails[c]
			moved++
		}
	}
	return moved
}

func (k *call) firstOf() int { return k.lines[0] }

func isMember(member map[string]int, id string) bool {
	_, ok := member[id]
	return ok
}

func inCall(member map[string]int, id string, c int) bool {
	d, ok := member[id]
	return ok && d == c
}
