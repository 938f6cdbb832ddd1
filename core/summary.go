package core

import "context"

// Summarizer condenses the text of a branch (RenderBranchText), typically with a
// small-model call that may be slow or fail. It returns the summary and the id of
// the model that wrote it.
type Summarizer interface {
	Summarize(ctx context.Context, text string) (summary, modelID string, err error)
}

// SummarizerFunc adapts a function to Summarizer.
type SummarizerFunc func(ctx context.Context, text string) (string, string, error)

// Summarize calls f.
func (f SummarizerFunc) Summarize(ctx context.Context, text string) (string, string, error) {
	return f(ctx, text)
}

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
		return nil, errBranchNotFound(name)
	}
	if b.leaf == "" {
		return nil, newError(CodeEmptyBranch, "branch "+quote(name)+" has no messages to summarize")
	}
	if t.nodes[b.leaf] == nil {
		return nil, newError(CodeCorrupt, "branch "+quote(name)+" has leaf "+quote(b.leaf)+", which is not a node")
	}
	return b, nil
}

// SummarizeBranchWith summarizes branch with s, bounded by ctx. It never fails
// because of the summarizer: an error, an empty answer or ctx ending first gives
// the deterministic stub ("[N turns, unsummarized]") with no model id. It fails
// only when the branch is missing, leafless or its leaf is not a node.
func (t *Tree) SummarizeBranchWith(ctx context.Context, branch string, s Summarizer, atMs int64) error {
	b, err := t.summarizable(branch)
	if err != nil {
		return err
	}
	stub := t.stubSummary(b)
	text, err := t.RenderBranchText(branch)
	if err != nil {
		return t.SummarizeBranch(branch, stub.Summary, "", atMs)
	}
	type answer struct {
		summary, model string
		err            error
	}
	done := make(chan answer, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- answer{err: newError(CodeInvalidInput, "summarizer panicked")}
			}
		}()
		sum, model, err := s.Summarize(ctx, text)
		done <- answer{sum, model, err}
	}()
	select {
	case a := <-done:
		if a.err == nil && a.summary != "" && validUTF8(a.summary) && validUTF8(a.model) {
			return t.SummarizeBranch(branch, a.summary, a.model, atMs)
		}
	case <-ctx.Done():
	}
	return t.SummarizeBranch(branch, stub.Summary, "", atMs)
}

// StubSummary is the deterministic summary SummarizeBranchWith falls back to:
// "[1 turn, unsummarized]", "[N turns, unsummarized]", or for a branch whose path
// cannot be read "[unsummarized: unreadable branch]", never a made-up count.
func (t *Tree) StubSummary(branch string) (Summary, error) {
	b := t.branches[branch]
	if b == nil {
		return Summary{}, errBranchNotFound(branch)
	}
	return t.stubSummary(b), nil
}

func (t *Tree) stubSummary(b *branch) Summary {
	s := Summary{Branch: b.name, CreatedAtMs: b.created}
	if t.nodes[b.leaf] != nil {
		s.NodeID = b.leaf
	}
	path, err := t.pathFrom(b.leaf, b.name)
	switch {
	case err != nil:
		s.Summary = "[unsummarized: unreadable branch]"
	case len(path) == 1:
		s.Summary = "[1 turn, unsummarized]"
	default:
		s.Summary = "[" + itoa(len(path)) + " turns, unsummarized]"
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
