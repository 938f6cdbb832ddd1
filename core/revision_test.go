package core

import (
	"slices"
	"testing"
)

// What a cache derived from a tree learns from a revision: the nodes added
// and the branch rows changed since, in order, or false once the logs no
// longer cover it (more than 128 entries, a node removed).
func TestARevisionTellsWhatWasAddedAndWhichBranchesChanged(t *testing.T) {
	tr := New()
	first, err := tr.Append(msg("user", "q"), 1)
	if err != nil {
		t.Fatal(err)
	}
	r := tr.Revision()
	reply, _ := tr.Append(msg("assistant", "a"), 2)
	if _, err := tr.Rewind(first, 3); err != nil {
		t.Fatal(err)
	}
	other, _ := tr.Append(msg("assistant", "b"), 4)
	if err := tr.SwitchBranch("main"); err != nil {
		t.Fatal(err)
	}
	added, ok := tr.AddedSince(r)
	if !ok || !slices.Equal(added, []Attach{{first, reply}, {first, other}}) {
		t.Fatalf("added since: %v %v", added, ok)
	}
	names, ok := tr.BranchesChangedSince(r)
	if !ok || !slices.Contains(names, "main") || !slices.Contains(names, "branch-1") {
		t.Fatalf("branches changed since: %v %v", names, ok)
	}
	if names, ok := tr.BranchesChangedSince(tr.Revision()); !ok || len(names) != 0 {
		t.Fatalf("nothing changed: %v %v", names, ok)
	}
	// Past the log's size: not covered.
	r = tr.Revision()
	for i := range 130 {
		if err := tr.SwitchBranch([]string{"main", "branch-1"}[i%2]); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok := tr.BranchesChangedSince(r); ok {
		t.Fatal("130 branch changes were covered by a log of 128")
	}
	if _, ok := tr.AddedSince(r); !ok {
		t.Fatal("no node was added, yet AddedSince gave up")
	}
	// A node removed: neither covers it.
	if err := tr.SwitchBranch("main"); err != nil {
		t.Fatal(err)
	}
	r = tr.Revision()
	if err := tr.DeleteBranch("branch-1"); err != nil {
		t.Fatal(err)
	}
	if _, err := tr.Prune(); err != nil {
		t.Fatal(err)
	}
	if _, ok := tr.BranchesChangedSince(r); ok {
		t.Fatal("a prune was covered")
	}
}
