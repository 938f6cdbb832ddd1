//go:build !wasm

package core

// SummarizeBranchWith and its Summarizer are the native form of the async
// summarizer: a goroutine bounded by a context. WebAssembly builds leave them
// out, because importing context links the time package, its godebug settings
// and the runtime's metrics (~74 KB of the gzipped browser module); there the
// summarizer is an async JavaScript function, run between SummaryInput and
// SummarizeBranchAsOf (summary_async.go) with the same fallbacks.

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
