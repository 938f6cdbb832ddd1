package core

import (
	"slices"
	"testing"
)

// Prune marks what it keeps in node.mark, scratch that every walk expects to
// find 0: it must leave none set, whatever it removed, and report the removed
// ids in (created, id) order however the map holds them.
func TestPruneReportsByAgeAndLeavesNoMark(t *testing.T) {
	tr, ids := chain(t, "q", "a", "q2", "a2")
	var want []string
	for i, from := range []string{ids[2], ids[0], ids[1], ids[0]} {
		name := "side" + itoa(i)
		if _, err := tr.Branch(from, name, int64(10+10*i)); err != nil {
			t.Fatal(err)
		}
		want = append(want, mustAppend(t, tr, msg("assistant", "x"), int64(11+10*i)), mustAppend(t, tr, msg("user", "y"), int64(12+10*i)))
		tr.SwitchBranch(MainBranch)
		if i != 2 {
			tr.DeleteBranch(name)
		} else {
			want = want[:len(want)-2] // kept: on a branch
		}
	}
	removed, err := tr.Prune()
	if err != nil || !slices.Equal(removed, want) {
		t.Fatalf("removed %v (%v), want %v", removed, err, want)
	}
	for id, n := range tr.nodes {
		if n.mark != 0 {
			t.Fatalf("node %s keeps mark %d after the prune", id, n.mark)
		}
	}
	if tr.Len() != 6 || len(tr.Validate()) != 0 {
		t.Fatalf("%d nodes left, problems %v", tr.Len(), tr.Validate())
	}
}
