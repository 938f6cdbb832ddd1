package core

// SummarizeBranch attaches a summary to branch as of its current leaf. modelID is
// "" for a summary the caller wrote. A leafless branch fails with
// CodeEmptyBranch: there is no node to be as of.
func (t *Tree) SummarizeBranch(branch, summary, modelID string, atMs int64) error {
	b, err := t.summarizable(branch)
	if err != nil {
		return err
	}
	if summary == "" {
		return newError(CodeInvalidInput, "summary for branch "+quote(branch)+" must be a non-empty string")
	}
	if !validUTF8(summary) || !validUTF8(modelID) {
		return newError(CodeInvalidInput, "summary for branch "+quote(branch)+" is not valid UTF-8")
	}
	t.setSummary(b, &Summary{Summary: summary, NodeID: b.leaf, Branch: b.name, ModelID: modelID, CreatedAtMs: atMs})
	return nil
}

func (t *Tree) summarizable(name string) (*branch, error) {
	b := t.branches[name]
	if b == nil {
		return nil, t.errNoBranch(name)
	}
	if b.leaf == "" {
		return nil, newError(CodeEmptyBranch, "branch "+quote(name)+" has no messages to summarize")
	}
	if t.nodes[b.leaf] == nil {
		return nil, newError(CodeCorrupt, "branch "+quote(name)+" has leaf "+quote(b.leaf)+", which is not a node")
	}
	return b, nil
}

// StubSummary is the deterministic summary SummarizeBranchWith falls back to:
// "[1 turn, unsummarized]", "[N turns, unsummarized]", or for a branch whose path
// cannot be read "[unsummarized: unreadable branch]", never a made-up count.
func (t *Tree) StubSummary(branch string) (Summary, error) {
	b := t.branches[branch]
	if b == nil {
		return Summary{}, t.errNoBranch(branch)
	}
	return t.stubSummary(b), nil
}

func (t *Tree) stubSummary(b *branch) Summary {
	s := Summary{Branch: b.name, CreatedAtMs: b.created}
	if t.nodes[b.leaf] != nil {
		s.NodeID = b.leaf
	}
	// The path's length as its leaf knows it; built (a list of every id on
	// it) only when it does not: no leaf, or a broken path, which pathFrom
	// names. Built for every branch, a chat with a regenerated reply at each
	// of its turns allocated 242 times its file for a splice.
	n := t.depth(t.nodes[b.leaf])
	var err error
	if n == 0 {
		var path []string
		path, err = t.pathFrom(b.leaf, b.name)
		n = len(path)
	}
	switch {
	case err != nil:
		s.Summary = "[unsummarized: unreadable branch]"
	case n == 1:
		s.Summary = "[1 turn, unsummarized]"
	default:
		s.Summary = "[" + itoa(n) + " turns, unsummarized]"
	}
	return s
}

// Splice is what a strictly linear export target can carry: the active branch's
// messages and a summary of every other branch.
type Splice struct {
	Messages  []Message
	Summaries []Summary // one per off-path branch, in branch-name order
}

// SpliceForLinearExport returns the active projection (failing closed, like
// LinearProjection) and, for every other branch in name order, its summary or a
// stub. A corrupt off-path branch gets the unreadable stub; nothing is mutated.
func (t *Tree) SpliceForLinearExport() (Splice, error) {
	msgs, err := t.LinearProjection()
	if err != nil {
		return Splice{}, err
	}
	out := Splice{Messages: msgs}
	names := t.branchNames()
	for _, name := range names {
		if name == t.active {
			continue
		}
		b := t.branches[name]
		if b.summary != nil {
			out.Summaries = append(out.Summaries, *b.summary)
		} else {
			out.Summaries = append(out.Summaries, t.stubSummary(b))
		}
	}
	return out, nil
}

// BranchSummaries returns the summary of branch (nil when it has none), the
// summaries of the other branches in name order, and how many other branches
// have none: what a request's note says of the branches it does not send. It
// reads the summarized branches only, kept from one call to the next with
// the branch rows changed since (a chat that forked 40,000 times and
// summarized 3 reads 3 at each request, not 40,000).
func (t *Tree) BranchSummaries(branch string) (own *Summary, others []Summary, unsummarized int) {
	var names []string
	for name := range t.summarizedBranches() {
		if name != branch {
			names = append(names, name)
		}
	}
	if b := t.branches[branch]; b != nil {
		if b.summary != nil {
			s := *b.summary
			own = &s
		}
		unsummarized = len(t.branches) - 1 - len(names)
	} else {
		unsummarized = len(t.branches) - len(names)
	}
	sortStrings(names)
	for _, name := range names {
		others = append(others, *t.branches[name].summary)
	}
	return own, others, unsummarized
}

// summarizedBranches returns the branches that have a summary: the set of
// the last call brought up to date with the branch rows changed since, or,
// when the log does not cover what changed (a rollback, a merge, a load,
// more than 128 rows), read again from every branch.
func (t *Tree) summarizedBranches() map[string]bool {
	if t.summarized != nil {
		if changed, ok := t.BranchesChangedSince(t.summarizedAt); ok {
			for _, name := range changed {
				if b := t.branches[name]; b != nil && b.summary != nil {
					t.summarized[name] = true
				} else {
					delete(t.summarized, name)
				}
			}
			t.summarizedAt = t.Revision()
			return t.summarized
		}
	}
	t.summarized = map[string]bool{}
	for name, b := range t.branches {
		if b.summary != nil {
			t.summarized[name] = true
		}
	}
	t.summarizedAt = t.Revision()
	return t.summarized
}
