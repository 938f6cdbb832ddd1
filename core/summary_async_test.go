package core

import (
	"errors"
	"testing"
)

func TestSummaryInputGivesTextStubAndLeaf(t *testing.T) {
	tr := New()
	a, _ := tr.Append(Message(`{"role":"user","content":"hi"}`), 1)
	b, _ := tr.Append(Message(`{"role":"assistant","content":"yo\nthere"}`), 2)
	text, stub, err := tr.SummaryInput(MainBranch)
	if err != nil {
		t.Fatal(err)
	}
	if text != "user: hi\nassistant: yo\\nthere" {
		t.Fatalf("text = %q", text)
	}
	if stub.Summary != "[2 turns, unsummarized]" || stub.NodeID != b || stub.Branch != MainBranch {
		t.Fatalf("stub = %+v", stub)
	}
	_ = a
}

func TestSummaryInputFailsLikeSummarizeBranch(t *testing.T) {
	tr := New()
	if _, _, err := tr.SummaryInput(MainBranch); !errors.Is(err, ErrEmptyBranch) {
		t.Fatalf("leafless: %v", err)
	}
	if _, _, err := tr.SummaryInput("nope"); !errors.Is(err, ErrBranchNotFound) {
		t.Fatalf("missing: %v", err)
	}
}

func TestSummarizeBranchAsOfRefusesAMovedBranch(t *testing.T) {
	tr := New()
	a, _ := tr.Append(Message(`{"role":"user","content":"hi"}`), 1)
	_, stub, _ := tr.SummaryInput(MainBranch)
	tr.Append(Message(`{"role":"user","content":"more"}`), 2)
	if err := tr.SummarizeBranchAsOf(MainBranch, stub.NodeID, "s", "m", 3); !errors.Is(err, ErrConflict) {
		t.Fatalf("moved: %v", err)
	}
	if b, _ := tr.LookupBranch(MainBranch); b.Summary != nil {
		t.Fatal("a summary was attached to a moved branch")
	}
	tr.Rewind(a, 4)
	if err := tr.SummarizeBranchAsOf(MainBranch, a, "s", "m", 5); err != nil {
		t.Fatal(err)
	}
	if b, _ := tr.LookupBranch(MainBranch); b.Summary == nil || b.Summary.NodeID != a || b.Summary.ModelID != "m" {
		t.Fatalf("summary = %+v", b.Summary)
	}
}
