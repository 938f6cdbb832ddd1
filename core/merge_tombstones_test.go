package core

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

// tabsThatMintedOneNameApart is the bug's story: two copies of one tree (two
// tabs) each mint "branch-1" for a line of their own; b deletes its
// branch-1. It returns the copies, a's line and the node b's branch-1 held.
func tabsThatMintedOneNameApart(t *testing.T) (a, b *Tree, aLine, bLeaf string) {
	t.Helper()
	base := New(WithIDSource(prefixIDs("base")))
	mustAppend(t, base, msg("user", "q"), 1)
	r1 := mustAppend(t, base, msg("assistant", "r1"), 2)
	q2 := mustAppend(t, base, msg("user", "q2"), 3)
	load := func(p string) *Tree {
		c, err := Unmarshal(base.Marshal(), WithIDSource(prefixIDs(p)))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	a, b = load("a"), load("b")
	aLine = mustAppend(t, a, msg("user", "A's new line"), 11)
	if name, err := a.Rewind(r1, 12); err != nil || name != "branch-1" {
		t.Fatalf("a's rewind kept its line under %q, %v", name, err)
	}
	mustAppend(t, a, msg("user", "A again"), 13)
	if name, err := b.Rewind(r1, 20); err != nil || name != "branch-1" {
		t.Fatalf("b's rewind kept its line under %q, %v", name, err)
	}
	mustAppend(t, b, msg("user", "B's line"), 21)
	if err := b.DeleteBranchAt("branch-1", 30); err != nil {
		t.Fatal(err)
	}
	return a, b, aLine, q2
}

// A deletion removes the branch the deleting copy had, not another copy's
// branch that happens to have the same name: "never makes a leaf unreachable".
func TestMergeOfADeletionKeepsAnotherCopysBranchOfTheSameName(t *testing.T) {
	a, b, aLine, bLeaf := tabsThatMintedOneNameApart(t)
	ab, ba := mustMerge(t, a, b), mustMerge(t, b, a)
	if !bytes.Equal(ab.Marshal(), ba.Marshal()) {
		t.Fatalf("the merge depends on its order:\n%s", treeDiff(ab.Marshal(), ba.Marshal()))
	}
	into := a.Clone()
	if _, err := into.MergeWith(b, MergeOptions{FreshNames: true, KeepPlace: true}); err != nil {
		t.Fatal(err)
	}
	for what, m := range map[string]*Tree{"merge(a, b)": ab, "merge(b, a)": ba, "a.MergeWith(b)": into} {
		if u := unreachable(m); len(u) != 0 {
			t.Fatalf("%s: nodes on no branch: %v", what, u)
		}
		held := ""
		for _, br := range m.Branches() {
			if br.Leaf == aLine {
				held = br.Name
			}
			if br.Leaf == bLeaf {
				t.Fatalf("%s: b deleted the name of its line, yet %q names it", what, br.Name)
			}
		}
		if held == "" {
			t.Fatalf("%s: a's line %q ends no branch; branches %+v", what, aLine, m.Branches())
		}
	}
	want := ab.Marshal()
	for _, in := range []*Tree{a, b, ab} {
		if got := mustMerge(t, ab, in).Marshal(); !bytes.Equal(got, want) {
			t.Fatalf("merging the result again changed it:\n%s", treeDiff(got, want))
		}
	}
}

// twoInstances makes a tree q, a, b and two copies that each name a branch
// "x" apart: older at a (made at 5), newer at b below it (made at 8).
func twoInstances(t *testing.T) (older, newer *Tree, a, b string) {
	t.Helper()
	base, ids := chain(t, "q", "a", "b")
	if _, err := base.Rewind(ids[0], 4); err != nil {
		t.Fatal(err)
	}
	older, newer = base.Clone(), base.Clone()
	older.newID, newer.newID = prefixIDs("o"), prefixIDs("n")
	for _, c := range []struct {
		tr   *Tree
		leaf string
		at   int64
	}{{older, ids[1], 5}, {newer, ids[2], 8}} {
		if _, err := c.tr.Branch(c.leaf, "x", c.at); err != nil {
			t.Fatal(err)
		}
		if err := c.tr.SwitchBranch(MainBranch); err != nil {
			t.Fatal(err)
		}
	}
	return older, newer, ids[1], ids[2]
}

// A newer instance of a name whose leaf is below an older instance's does not
// drop the older one: were it dropped, a deletion of the newer instance that
// arrives later would leave the older one's leaf on no branch in one grouping
// and on its branch in another.
func TestMergeOfADeletedInstanceKeepsAnOlderInstanceOfTheNameInEveryGrouping(t *testing.T) {
	older, newer, a, _ := twoInstances(t)
	deleter := newer.Clone()
	if err := deleter.DeleteBranchAt("x", 20); err != nil {
		t.Fatal(err)
	}
	m := allGroupings(t, older, newer, deleter)
	if x, ok := m.LookupBranch("x"); !ok || x.Leaf != a {
		t.Fatalf("the older instance of x is gone: %+v, %v; branches %+v", x, ok, m.Branches())
	}
}

// A deletion takes every value of the name that the deleting copy holds,
// those a merge keeps hidden too: the name does not come back from them.
func TestDeleteBranchDeletesTheHiddenInstancesOfTheNameToo(t *testing.T) {
	older, newer, a, b := twoInstances(t)
	m := mustMerge(t, older, newer)
	if x, _ := m.LookupBranch("x"); x.Leaf != b || len(m.hidden) != 1 {
		t.Fatalf("want x at %s and the older instance hidden; x %+v, hidden %v", b, x, m.hidden)
	}
	if err := m.DeleteBranchAt("x", 30); err != nil {
		t.Fatal(err)
	}
	for _, other := range []*Tree{older, newer, m} {
		if x, ok := mustMerge(t, m, other).LookupBranch("x"); ok {
			t.Fatalf("x came back at %s (a is %s)", x.Leaf, a)
		}
	}
}

// Tombstones of instances save and load byte for byte, as a deleted name, a
// live name deleted before and a hidden record, beside a whole-name deletion
// of a file written before instances were recorded; a deletion's leaf may be
// followed by the ids above it that a prune removed (here "c", no node of the
// file, under "b").
func TestTombstonesOfInstancesSaveAndLoadByteForByte(t *testing.T) {
	file := `{"format":"sessiontree","version":1,"root":"a","active_branch":"main","branches":{` +
		`"gone":{"name":"gone","deleted_at_ms":4,"deleted_instances":[[1,9],[1,8,"a"],[3,7,"b"],[4,7,"c","b","a"]]},` +
		`"main":{"name":"main","leaf":"b","created_at_ms":0,"used":2},` +
		`"old":{"name":"old","deleted_at_ms":6},` +
		`"x":{"name":"x","leaf":"a","created_at_ms":5,"used":1,"deleted_instances":[[2,4]]},` +
		`"x~a":{"name":"x~a","leaf":"a","created_at_ms":1,"hidden":true,"deleted_instances":[[2,3]]}},"nodes":{` +
		`"a":{"id":"a","children":["b"],"message":{"role":"user","content":"q"},"created_at_ms":1},` +
		`"b":{"id":"b","parent":"a","children":[],"message":{"role":"assistant","content":"r"},"created_at_ms":2}}}`
	tr, err := Unmarshal([]byte(file))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(tr.Marshal()); got != file {
		t.Fatalf("does not round-trip:\n%s", treeDiff([]byte(got), []byte(file)))
	}
	if got := string(mustMerge(t, tr, tr).Marshal()); got != file {
		t.Fatalf("merge with itself changed it:\n%s", treeDiff([]byte(got), []byte(file)))
	}
	for _, name := range []string{"gone", "old", "x", "x~a"} {
		row, ok := tr.BranchJSON(name)
		if want := file[strings.Index(file, `"`+name+`":{`)+len(name)+3:]; !ok || !strings.HasPrefix(want, string(row)) {
			t.Fatalf("row of %q is %s", name, row)
		}
	}
	for _, bad := range []string{
		`"deleted_instances":[]`,
		`"deleted_instances":[[3,7],[1,9]]`,
		`"deleted_instances":[[1,9],[1,7]]`,
		`"deleted_instances":[[1]]`,
		`"deleted_instances":[[1,9,2]]`,
		`"deleted_instances":[[1,9,""]]`,
		`"deleted_instances":[[1,9,"b"],[1,8,"a"]]`,
		`"deleted_instances":[[1,9,"a"],[1,8,"a"]]`,
		`"deleted_instances":[[1,9,"a"],[1,8]]`,
		`"deleted_instances":[[1,9,"a","b",2]]`,
		`"deleted_instances":[[1,9,"a",""]]`,
		`"deleted_instances":[[-9223372036854775808,9]]`,
		`"deleted_instances":[{"created_at_ms":1,"deleted_at_ms":9}]`,
		`"deleted_instances":[[1,"9"]]`,
		`"deleted_instances":{"1":9}`,
	} {
		f := strings.Replace(file, `"deleted_instances":[[1,9],[1,8,"a"],[3,7,"b"],[4,7,"c","b","a"]]`, bad, 1)
		_, err := Unmarshal([]byte(f))
		wantCode(t, err, CodeCorrupt)
	}
}

// A file written before instances were recorded deletes the whole name, as
// before: a merge drops every value of it moved no later, whichever copy made
// it, keeps a later one, and saves the deletion as it was.
func TestAWholeNameDeletionOfAnOlderFileMergesAsBefore(t *testing.T) {
	base, ids := chain(t, "q", "a")
	if _, err := base.Branch(ids[0], "idea", 3); err != nil {
		t.Fatal(err)
	}
	base.SwitchBranch(MainBranch)
	row, _ := base.BranchJSON("idea")
	file := bytes.Replace(base.Marshal(), row, []byte(`{"name":"idea","deleted_at_ms":10}`), 1)
	old, err := Unmarshal(file)
	if err != nil {
		t.Fatal(err)
	}
	if got := old.Marshal(); !bytes.Equal(got, file) {
		t.Fatalf("the older file does not round-trip:\n%s", treeDiff(got, file))
	}
	other := base.Clone()
	other.newID = prefixIDs("o")
	other.removeBranch(other.branches["idea"])
	if _, err := other.Branch(ids[1], "idea", 7); err != nil { // another instance, made apart
		t.Fatal(err)
	}
	other.SwitchBranch(MainBranch)
	m := mustMerge(t, old, other)
	if _, ok := m.LookupBranch("idea"); ok {
		t.Fatal("a whole-name deletion kept another copy's older branch")
	}
	if !bytes.Contains(m.Marshal(), []byte(`"idea":{"name":"idea","deleted_at_ms":10}`)) {
		t.Fatalf("the deletion is not saved as it was: %s", m.Marshal())
	}
	other.SwitchBranch("idea")
	later := mustAppend(t, other, msg("user", "later"), 20)
	if x, ok := mustMerge(t, other, old).LookupBranch("idea"); !ok || x.Leaf != later {
		t.Fatalf("a move after the deletion did not keep the branch: %+v", x)
	}
}

// A failed batch leaves the tombstones as they were, and a copy that takes the
// rows of a deletion (and of the name made again) saves what the deleting copy
// saves.
func TestTombstonesOfInstancesRollBackAndTravelAsRows(t *testing.T) {
	a, b, _, _ := tabsThatMintedOneNameApart(t)
	m := mustMerge(t, a, b)
	m.SwitchBranch(MainBranch)
	before := m.Marshal()
	if _, err := m.Apply([]Op{{Op: "deleteBranch", Branch: "branch-1"}, {Op: "switch", Branch: "nope"}}, 40); err == nil {
		t.Fatal("a batch with a bad op succeeded")
	}
	if got := m.Marshal(); !bytes.Equal(got, before) {
		t.Fatalf("rollback left:\n%s", treeDiff(got, before))
	}
	peer, err := Unmarshal(before)
	if err != nil {
		t.Fatal(err)
	}
	m.TakeChanges() // start recording
	steps := []func() error{
		func() error { return m.DeleteBranchAt("branch-1", 40) },
		func() error { _, err := m.Branch(m.Root(), "branch-1", 50); return err },
		func() error { return m.SwitchBranch(MainBranch) },
	}
	for i, step := range steps {
		if err := step(); err != nil {
			t.Fatal(err)
		}
		root, active, bs, ns := delta(m)
		if err := peer.ApplyRows(root, active, true, bs, ns); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if got, want := peer.Marshal(), m.Marshal(); !bytes.Equal(got, want) {
			t.Fatalf("step %d: the rows' copy differs:\n%s", i, treeDiff(got, want))
		}
		if row, _ := m.BranchJSON("branch-1"); i == 0 && !bytes.Equal(row, []byte(`{"name":"branch-1","deleted_instances":[[12,40,"a1"],[20,30,"base3"]]}`)) {
			t.Fatalf("the deletion's row is %s", row)
		}
	}
}

// raceOfADeletionAndAnAppend makes a tree q, a with a branch "x" at a (made at
// 3) and two copies of it: a deletes x at 74; with appends, b, which has not
// seen the deletion, appends to x at 71. It returns the copies and b's leaf of
// x.
func raceOfADeletionAndAnAppend(t *testing.T, appends bool) (a, b *Tree, bLeaf string) {
	t.Helper()
	base, ids := chain(t, "q", "a")
	if _, err := base.Branch(ids[1], "x", 3); err != nil {
		t.Fatal(err)
	}
	if err := base.SwitchBranch(MainBranch); err != nil {
		t.Fatal(err)
	}
	a, b = base.Clone(), base.Clone()
	a.newID, b.newID = prefixIDs("a"), prefixIDs("b")
	bLeaf = ids[1]
	if appends {
		if err := b.SwitchBranch("x"); err != nil {
			t.Fatal(err)
		}
		bLeaf = mustAppend(t, b, msg("user", "B's message"), 71)
	}
	if err := a.DeleteBranchAt("x", 74); err != nil {
		t.Fatal(err)
	}
	if row, _ := a.BranchJSON("x"); string(row) != `{"name":"x","deleted_instances":[[3,74,"`+ids[1]+`"]]}` {
		t.Fatalf("the deletion's row is %s", row)
	}
	return a, b, bLeaf
}

// A deletion takes what the deleting copy saw: an append another copy made to
// the branch apart, below the leaf the deletion saw, keeps its name, while the
// name stays deleted against a copy that did not move it.
func TestMergeOfADeletionKeepsAnAppendTheDeletingCopyDidNotSee(t *testing.T) {
	for _, appends := range []bool{true, false} {
		a, b, bLeaf := raceOfADeletionAndAnAppend(t, appends)
		ab, ba := mustMerge(t, a, b), mustMerge(t, b, a)
		if !bytes.Equal(ab.Marshal(), ba.Marshal()) {
			t.Fatalf("appends %v: the merge depends on its order:\n%s", appends, treeDiff(ab.Marshal(), ba.Marshal()))
		}
		x, ok := ab.LookupBranch("x")
		switch {
		case appends && (!ok || x.Leaf != bLeaf):
			t.Fatalf("b's append %s is not on x: %+v, %v; branches %+v", bLeaf, x, ok, ab.Branches())
		case appends && len(unreachable(ab)) != 0:
			t.Fatalf("nodes on no branch: %v", unreachable(ab))
		case !appends && ok:
			t.Fatalf("a deleted x, yet the merge has it at %s", x.Leaf)
		}
		want := ab.Marshal()
		for _, in := range []*Tree{a, b, ab} {
			if got := mustMerge(t, ab, in).Marshal(); !bytes.Equal(got, want) {
				t.Fatalf("appends %v: merging the result again changed it:\n%s", appends, treeDiff(got, want))
			}
		}
		back, err := Unmarshal(want)
		if err != nil || !bytes.Equal(back.Marshal(), want) {
			t.Fatalf("appends %v: the merge does not save and load byte for byte: %v", appends, err)
		}
	}
}

// A prune that removes the leaf a deletion saw keeps the leaf and the path
// above it as far as the first node it keeps: a stale copy that held the
// branch above that leaf does not bring it back. (Before Dec 5, evening, the
// deletion forgot its leaf and took the whole instance, appends of other
// copies below the leaf too: TestMergeOfADeletionPrunedBeforeItSyncsKeeps….)
func TestPruneOfADeletedLeafKeepsThePathItsDeletionSaw(t *testing.T) {
	base, ids := chain(t, "q", "a")
	if _, err := base.Branch(ids[0], "x", 3); err != nil {
		t.Fatal(err)
	}
	base.SwitchBranch(MainBranch)
	a, stale := base.Clone(), base.Clone()
	a.newID = prefixIDs("a")
	a.SwitchBranch("x")
	leaf := mustAppend(t, a, msg("user", "on x"), 10)
	a.SwitchBranch(MainBranch)
	if err := a.DeleteBranchAt("x", 20); err != nil {
		t.Fatal(err)
	}
	if x, ok := mustMerge(t, a, stale).LookupBranch("x"); ok {
		t.Fatalf("before the prune, the stale copy brought x back at %s", x.Leaf)
	}
	if removed, err := a.Prune(); err != nil || !slices.Equal(removed, []string{leaf}) {
		t.Fatalf("prune removed %v (%v), want %s", removed, err, leaf)
	}
	if row, _ := a.BranchJSON("x"); string(row) != `{"name":"x","deleted_instances":[[3,20,"`+leaf+`","`+ids[0]+`"]]}` {
		t.Fatalf("the deletion's row after the prune is %s", row)
	}
	if x, ok := mustMerge(t, a, stale).LookupBranch("x"); ok {
		t.Fatalf("after the prune, the stale copy brought x back at %s", x.Leaf)
	}
}
