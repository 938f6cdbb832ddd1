package core

import (
	"bytes"
	"testing"
)

// AppendProjectionOf is LinearProjectionOf into a reused buffer.
func TestAppendProjectionOfGivesTheLinearProjectionAfterWhatTheBufferHeld(t *testing.T) {
	tr := New(counterIDs())
	a := mustAppend(t, tr, msg("user", "a"), 1)
	mustAppend(t, tr, msg("assistant", "b"), 2)
	if _, err := tr.Rewind(a, 3); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, tr, msg("assistant", "c"), 4)
	for _, branch := range []string{MainBranch, "branch-1"} {
		want, err := tr.LinearProjectionOf(branch)
		if err != nil {
			t.Fatal(err)
		}
		prefix := Message(`{"role":"x"}`)
		got, err := tr.AppendProjectionOf([]Message{prefix}, branch)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want)+1 || !bytes.Equal(got[0], prefix) {
			t.Fatalf("%s: %q, want the prefix then %q", branch, got, want)
		}
		for i := range want {
			if !bytes.Equal(got[i+1], want[i]) {
				t.Fatalf("%s: message %d = %s, want %s", branch, i, got[i+1], want[i])
			}
		}
	}
}

// A projection that fails leaves the buffer as it was and says why.
func TestAppendProjectionOfFailsClosedLikeLinearProjectionOf(t *testing.T) {
	tr := New(counterIDs())
	mustAppend(t, tr, msg("user", "a"), 1)
	buf := []Message{Message(`{"role":"x"}`)}
	got, err := tr.AppendProjectionOf(buf, "nope")
	wantCode(t, err, CodeBranchNotFound)
	if len(got) != 1 {
		t.Fatalf("buffer changed on error: %q", got)
	}
	tr.branches[MainBranch].leaf = "ghost"
	got, err = tr.AppendProjectionOf(buf, MainBranch)
	wantCode(t, err, CodeCorrupt)
	if len(got) != 1 {
		t.Fatalf("buffer changed on a corrupt path: %q", got)
	}
}
