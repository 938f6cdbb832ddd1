//go:build !wasm

package core

import (
	"context"
	"errors"
	"testing"
	"time"
)

type fakeSummarizer struct {
	text, summary, model string
	err                  error
	hang                 bool
	panics               bool
}

func (f *fakeSummarizer) Summarize(ctx context.Context, text string) (string, string, error) {
	f.text = text
	if f.panics {
		panic("boom")
	}
	if f.hang {
		<-ctx.Done()
		time.Sleep(10 * time.Millisecond)
		return "late", "m", nil
	}
	return f.summary, f.model, f.err
}

func TestSummarizeBranchWithUsesTheSummarizersAnswer(t *testing.T) {
	tr, _ := chain(t, "a", "b")
	f := &fakeSummarizer{summary: "short", model: "small-1"}
	if err := tr.SummarizeBranchWith(context.Background(), MainBranch, f, 5); err != nil {
		t.Fatal(err)
	}
	if f.text != "user: a\nassistant: b" {
		t.Fatalf("summarizer saw %q", f.text)
	}
	b, _ := tr.LookupBranch(MainBranch)
	if b.Summary.Summary != "short" || b.Summary.ModelID != "small-1" {
		t.Fatalf("%+v", b.Summary)
	}
}

func TestSummarizeBranchWithFallsBackToTheStubOnErrorTimeoutOrPanic(t *testing.T) {
	for name, f := range map[string]*fakeSummarizer{
		"error": {err: errors.New("provider down"), model: "m"},
		// A summarizer that fails part way may hand back what it had: an
		// error is a failure whatever came with it (SPEC §3).
		"error with text": {summary: "half a summ", err: errors.New("stream cut"), model: "m"},
		"empty":           {summary: "", model: "m"},
		"hang":            {hang: true},
		"panic":           {panics: true},
	} {
		t.Run(name, func(t *testing.T) {
			tr, _ := chain(t, "a", "b", "c")
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
			defer cancel()
			if err := tr.SummarizeBranchWith(ctx, MainBranch, f, 5); err != nil {
				t.Fatal(err)
			}
			b, _ := tr.LookupBranch(MainBranch)
			if b.Summary.Summary != "[3 turns, unsummarized]" || b.Summary.ModelID != "" {
				t.Fatalf("%+v", b.Summary)
			}
		})
	}
}

func TestSummarizeBranchWithFailsOnlyForAMissingOrEmptyBranch(t *testing.T) {
	f := &fakeSummarizer{summary: "x"}
	wantCode(t, New().SummarizeBranchWith(context.Background(), "nope", f, 1), CodeBranchNotFound)
	wantCode(t, New().SummarizeBranchWith(context.Background(), MainBranch, f, 1), CodeEmptyBranch)
}
