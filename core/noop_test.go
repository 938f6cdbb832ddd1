package core

import "testing"

// A call that changes nothing leaves the tree's version where it was and
// hands a store no row: a label set again no later, the same summary again, a
// switch to the branch that is active and the most recently used. Before,
// each moved the version (a React store drew again) and listed a row (a store
// wrote it, and sent the other tabs a delta). Set later, used apart, or
// changed, each is a change as before.
func TestACallThatChangesNothingMovesNoVersionAndNoRow(t *testing.T) {
	tr := New(counterIDs())
	a := mustAppend(t, tr, msg("user", "hi"), 1)
	mustAppend(t, tr, msg("assistant", "hello"), 2)
	if _, err := tr.Branch(a, "side", 3); err != nil {
		t.Fatal(err)
	}
	if err := tr.SwitchBranch(MainBranch); err != nil {
		t.Fatal(err)
	}
	if err := tr.LabelAt(a, "start", 10); err != nil {
		t.Fatal(err)
	}
	if err := tr.SummarizeBranch("side", "a side", "m", 20); err != nil {
		t.Fatal(err)
	}
	tr.TakeChanges() // starts the recording
	still := func(what string, call func() error) {
		t.Helper()
		v := tr.Version()
		if err := call(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if c := tr.TakeChanges(); tr.Version() != v || len(c.Nodes)+len(c.Branches) > 0 || c.Meta {
			t.Fatalf("%s changed nothing, yet the version went %d → %d and the rows %+v", what, v, tr.Version(), c)
		}
	}
	moved := func(what string, call func() error) {
		t.Helper()
		v := tr.Version()
		if err := call(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if c := tr.TakeChanges(); tr.Version() == v || len(c.Nodes)+len(c.Branches) == 0 && !c.Meta {
			t.Fatalf("%s is a change, yet the version stayed %d (rows %+v)", what, v, c)
		}
	}
	still("the same label again, at the same time", func() error { return tr.LabelAt(a, "start", 10) })
	still("the same label again, at no time of its own", func() error { return tr.Label(a, "start") })
	moved("the same label at a later time (it wins a later merge)", func() error { return tr.LabelAt(a, "start", 11) })
	moved("another label", func() error { return tr.Label(a, "begin") })
	still("the same summary again", func() error { return tr.SummarizeBranch("side", "a side", "m", 20) })
	moved("the same summary at a later time", func() error { return tr.SummarizeBranch("side", "a side", "m", 21) })
	moved("another summary", func() error { return tr.SummarizeBranch("side", "other", "m", 21) })
	still("a switch to the active branch, the most recently used", func() error { return tr.SwitchBranch(MainBranch) })
	if _, err := tr.Branch(a, "later", 30); err != nil { // a branch made is used, main is not the most recent
		t.Fatal(err)
	}
	tr.TakeChanges()
	moved("a switch to the active branch when another was used since (its recency)", func() error { return tr.SwitchBranch(MainBranch) })
	still("then again", func() error { return tr.SwitchBranch(MainBranch) })
	x := mustAppend(t, tr, msg("user", "x"), 40)
	tr.TakeChanges()
	still("a label cleared that is not there", func() error { return tr.ClearLabel(x) })
}
