package core

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestRegisterOfLeadsAConflictNameBackToTheRegisterWhoseValueItKeeps(t *testing.T) {
	for _, c := range []struct{ key, leaf, want string }{
		{"main", "x", "main"},
		{"main~x", "x", "main"},
		{"main~x~x", "x", "main"},
		{"main~x", "y", "main~x"},   // moved away from its conflict leaf: a register of its own
		{"main~x~y", "y", "main~x"}, // a value that register lost
		{"~x", "x", "~x"},
		{"main~", "", "main~"},
		{"a~b~c", "b~c", "a"}, // leaf ids may hold "~" (node conflicts)
	} {
		if got := registerOf(c.key, c.leaf); got != c.want {
			t.Errorf("registerOf(%q, %q) = %q, want %q", c.key, c.leaf, got, c.want)
		}
	}
}

// conflictCopies returns a (main moved to xa at 10), b (main moved to xb at
// 20) and their merge, where main is at xb and main~xa keeps xa.
func conflictCopies(t *testing.T) (a, b, ab *Tree, xa, xb string) {
	t.Helper()
	base, _ := chain(t, "q", "a")
	a, b = base.Clone(), base.Clone()
	a.newID, b.newID = prefixIDs("a"), prefixIDs("b")
	xa = mustAppend(t, a, msg("user", "from a"), 10)
	xb = mustAppend(t, b, msg("user", "from b"), 20)
	ab = mustMerge(t, a, b)
	if br, ok := ab.LookupBranch(MainBranch + "~" + xa); !ok || br.Leaf != xa {
		t.Fatalf("no conflict branch for %s: %+v", xa, ab.Branches())
	}
	return a, b, ab, xa, xb
}

func branchNames(tr *Tree) []string {
	var names []string
	for _, b := range tr.Branches() {
		names = append(names, b.Name)
	}
	return names
}

// Failure (a) of issue 7: a copy that synced, then continued a conflict branch,
// merged with the stale copy that still holds the conflict branch's value as
// its main, gives the same bytes in every grouping. The value comes back as a
// hidden record under main~x~x (main~x is a register of its own now).
func TestMergeOfAStaleCopyAndACopyThatContinuedTheConflictBranchAgreesInEveryGrouping(t *testing.T) {
	a, b, ab, xa, xb := conflictCopies(t)
	c := ab.Clone()
	c.newID = prefixIDs("c")
	if err := c.SwitchBranch(MainBranch + "~" + xa); err != nil {
		t.Fatal(err)
	}
	more := mustAppend(t, c, msg("user", "continued"), 30)
	m := allGroupings(t, a, b, c)
	if got := branchNames(m); !slices.Equal(got, []string{MainBranch, MainBranch + "~" + xa}) {
		t.Fatalf("branches %v", got)
	}
	if br, _ := m.LookupBranch(MainBranch + "~" + xa); br.Leaf != more {
		t.Fatalf("main~%s at %s, want the continued %s", xa, br.Leaf, more)
	}
	if br, _ := m.LookupBranch(MainBranch); br.Leaf != xb {
		t.Fatalf("main at %s, want %s", br.Leaf, xb)
	}
	if !strings.Contains(string(m.Marshal()), `"main~`+xa+`~`+xa+`":{"name":"main~`+xa+`~`+xa+`","leaf":"`+xa+`"`) {
		t.Fatalf("the stale value is not kept as a hidden record:\n%s", m.Marshal())
	}
}

// A copy that deleted the conflict branch keeps it deleted against the stale
// copies that hold its value, in every grouping.
func TestMergeKeepsADeletedConflictBranchDeletedAgainstStaleCopiesInEveryGrouping(t *testing.T) {
	a, b, ab, xa, _ := conflictCopies(t)
	c := ab.Clone()
	if err := c.DeleteBranchAt(MainBranch+"~"+xa, 30); err != nil {
		t.Fatal(err)
	}
	m := allGroupings(t, a, b, c)
	if got := branchNames(m); !slices.Equal(got, []string{MainBranch}) {
		t.Fatalf("branches %v, want main alone", got)
	}
}

// Failure (b) of issue 7: a deletion of a name between two copies' moves of it
// removes the older move the deleting copy saw, whichever copies met first, so
// no grouping keeps a conflict branch for it. An older move the deleting copy
// did not see (an append racing the deletion) is kept, in every grouping.
func TestMergeOfADeletionBetweenTwoMovesKeepsNoConflictBranchForTheOlderMove(t *testing.T) {
	for _, saw := range []bool{true, false} {
		base, ids := chain(t, "q", "a")
		if _, err := base.Branch(ids[0], "idea", 3); err != nil {
			t.Fatal(err)
		}
		a, b, c := base.Clone(), base.Clone(), base.Clone()
		a.newID, b.newID = prefixIDs("a"), prefixIDs("b")
		xa := mustAppend(t, a, msg("user", "idea in a"), 10)
		xb := mustAppend(t, b, msg("user", "idea in b"), 20)
		if saw {
			c = a.Clone()
		}
		for _, tr := range []*Tree{a, b, c} {
			tr.SwitchBranch(MainBranch)
		}
		if err := c.DeleteBranchAt("idea", 15); err != nil {
			t.Fatal(err)
		}
		want := []string{"idea", MainBranch}
		if !saw {
			want = []string{"idea", "idea~" + xa, MainBranch}
		}
		m := allGroupings(t, a, b, c)
		if got := branchNames(m); !slices.Equal(got, want) {
			t.Fatalf("deleting copy saw a's move %v: branches %v, want %v", saw, got, want)
		}
		if br, _ := m.LookupBranch("idea"); br.Leaf != xb {
			t.Fatalf("idea at %s, want the move after the deletion, %s", br.Leaf, xb)
		}
	}
}

// A value that a newer value of its register went below is dropped: copies
// that appended in turn and synced leave no conflict branch or hidden record.
func TestMergeOfCopiesThatAppendedInTurnKeepsNoRecordOfOlderLeaves(t *testing.T) {
	base, _ := chain(t, "q")
	a, b := base.Clone(), base.Clone()
	a.newID, b.newID = prefixIDs("a"), prefixIDs("b")
	for i := range 5 {
		mustAppend(t, a, msg("user", "a"), int64(10+2*i))
		b = mustMerge(t, b, a)
		b.newID = prefixIDs("b" + strings.Repeat("x", i))
		mustAppend(t, b, msg("user", "b"), int64(11+2*i))
		a = mustMerge(t, a, b)
	}
	m := mustMerge(t, base, a)
	if len(m.Branches()) != 1 || len(m.hidden) != 0 {
		t.Fatalf("branches %v, hidden %v", branchNames(m), m.hidden)
	}
	if !bytes.Equal(m.Marshal(), a.Marshal()) {
		t.Fatalf("merging an older copy changed the tree:\n%s", treeDiff(m.Marshal(), a.Marshal()))
	}
}

// A copy's move of a branch comes after the value it moved from, whatever its
// clock says: an append dated before the branch's last move (here another
// device's, whose clock runs ahead) still takes the branch in a merge with a
// copy that holds the value it was appended to. Before, the merge kept the
// older leaf on the branch and the new message on "main~leaf" off it, and a
// device whose clock was behind saw each message it sent leave the chat it
// was in. Moves in one millisecond stay ordered so too.
func TestAMoveDatedBeforeTheValueItMovedFromStillSupersedesIt(t *testing.T) {
	a := New(WithIDSource(prefixIDs("a")))
	a.Append(Message(`{"role":"user","content":"start"}`), 1000)
	a.Append(Message(`{"role":"assistant","content":"from the fast clock"}`), 5000)
	for _, at := range []int64{4000, 5000} {
		b := a.Clone()
		b.newID = prefixIDs("b" + strconv.FormatInt(at, 10) + "-")
		leaf, err := b.Append(Message(`{"role":"user","content":"from the slow clock"}`), at)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range []*Tree{mustMerge(t, a, b), mustMerge(t, b, a)} {
			if got := m.branches[MainBranch].leaf; got != leaf || len(m.branches) != 1 {
				t.Fatalf("an append at %d: main is at %s with branches %v, want it at the append %s alone", at, got, branchNames(m), leaf)
			}
		}
		if again := mustMerge(t, b, b); !bytes.Equal(again.Marshal(), b.Marshal()) {
			t.Fatalf("an append at %d: the copy merged with itself changed:\n%s", at, treeDiff(again.Marshal(), b.Marshal()))
		}
	}
}
