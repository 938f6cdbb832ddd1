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

// SPEC §3 (prune removes exactly the nodes reachable from no branch): a
// broken link makes a message look unreachable when it is not. Here b's
// parent names a node that is gone, so a is on no branch's path as the links
// say; Prune must refuse (CodeCorrupt) and remove nothing, not delete a.
func TestPruneRefusesATreeWithAProblemAndRemovesNothing(t *testing.T) {
	file := `{"format":"sessiontree","version":1,"root":"a","active_branch":"main","branches":{` +
		`"main":{"name":"main","leaf":"b","created_at_ms":0}},"nodes":{` +
		`"a":{"id":"a","children":[],"message":{"role":"user","content":"first"},"created_at_ms":1},` +
		`"b":{"id":"b","parent":"gone","children":[],"message":{"role":"assistant","content":"second"},"created_at_ms":2}}}`
	tr, err := Unmarshal([]byte(file))
	if err != nil {
		t.Fatal(err)
	}
	removed, err := tr.Prune()
	wantCode(t, err, CodeCorrupt)
	if len(removed) != 0 || tr.Len() != 2 {
		t.Fatalf("removed %v, %d nodes left", removed, tr.Len())
	}
	if _, ok := tr.Node("a"); !ok {
		t.Fatal("prune deleted a message of a tree it should have refused")
	}
}
