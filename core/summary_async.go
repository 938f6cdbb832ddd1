package core

// SummaryInput returns what a summarizer running outside this package (an async
// JavaScript function, a queued job) needs: the branch's text (RenderBranchText),
// the stub to fall back to (StubSummary) and, in the stub's NodeID, the leaf the
// text is as of. It fails like SummarizeBranch when the branch is missing,
// leafless or its leaf is not a node, so no summarizer is called for nothing.
func (t *Tree) SummaryInput(branch string) (text string, stub Summary, err error) {
	b, err := t.summarizable(branch)
	if err != nil {
		return "", Summary{}, err
	}
	stub = t.stubSummary(b)
	text, err = t.RenderBranchText(branch)
	if err != nil {
		// An unreadable path still gets its stub; the caller skips the summarizer.
		return "", stub, nil
	}
	return text, stub, nil
}

// SummarizeBranchAsOf is SummarizeBranch for a summary computed from the branch
// as of node asOf (SummaryInput's stub NodeID): if the branch's leaf moved while
// the summarizer ran, it attaches nothing and fails with CodeConflict, because
// the summary would describe a different line of messages.
func (t *Tree) SummarizeBranchAsOf(branch, asOf, summary, modelID string, atMs int64) error {
	b, err := t.summarizable(branch)
	if err != nil {
		return err
	}
	if b.leaf != asOf {
		return newError(CodeConflict, "branch "+quote(branch)+" moved from "+quote(asOf)+" to "+quote(b.leaf)+
			" while it was being summarized; nothing was attached")
	}
	return t.SummarizeBranch(branch, summary, modelID, atMs)
}
