package core

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// checkRecent compares RecentBranches(limit) with the plain answer: the
// active branch, then the others by last use (branch.used), most recent
// first; branches used at the same tick may come in either order.
func checkRecent(t *testing.T, tr *Tree, limit int, where string) {
	t.Helper()
	got := tr.RecentBranches(limit)
	if want := min(limit, len(tr.branches)); len(got) != want {
		t.Fatalf("%s: RecentBranches(%d) gave %d branches, want %d", where, limit, len(got), want)
	}
	if len(got) == 0 {
		return
	}
	if got[0].Name != tr.ActiveBranch() {
		t.Fatalf("%s: the first is %q, want the active %q", where, got[0].Name, tr.ActiveBranch())
	}
	seen := map[string]bool{}
	for i, b := range got {
		want, ok := tr.LookupBranch(b.Name)
		if !ok || seen[b.Name] {
			t.Fatalf("%s: %q listed twice or not a branch", where, b.Name)
		}
		seen[b.Name] = true
		if b.Leaf != want.Leaf || b.CreatedAtMs != want.CreatedAtMs || (b.Summary == nil) != (want.Summary == nil) || b.Summary != nil && *b.Summary != *want.Summary {
			t.Fatalf("%s: %q is %+v, want %+v", where, b.Name, b, want)
		}
		if i > 1 && tr.branches[b.Name].used > tr.branches[got[i-1].Name].used {
			t.Fatalf("%s: %q (used %d) after %q (used %d)", where, b.Name, tr.branches[b.Name].used, got[i-1].Name, tr.branches[got[i-1].Name].used)
		}
	}
	if len(got) > 1 && len(got) == limit {
		last := tr.branches[got[len(got)-1].Name].used
		for name, b := range tr.branches {
			if !seen[name] && b.used > last {
				t.Fatalf("%s: %q (used %d) left out for %q (used %d)", where, name, b.used, got[len(got)-1].Name, last)
			}
		}
	}
}

// Random operations (switches, rewinds, edits, deletes, loads, merges): the
// sidebar's list of the most recently used branches is always the one a sort
// of every branch gives.
func TestRecentBranchesAreTheMostRecentlyUsed(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		g := &opGen{r: rand.New(rand.NewPCG(seed, 11)), deletes: true}
		tr := New(counterIDs())
		for step := range 200 {
			tr.Apply([]Op{g.op(tr)}, 1) // failures change nothing
			switch g.r.IntN(40) {
			case 0: // a reload: the chain is rebuilt
				l, err := Unmarshal(tr.Marshal(), counterIDs())
				if err != nil {
					t.Fatal(err)
				}
				tr = l
			case 1: // a merge of a copy that moved on
				c := tr.Clone()
				c.Apply([]Op{g.op(c), g.op(c)}, 2)
				tr.Merge(c)
			}
			where := "seed " + itoa(int(seed)) + " step " + itoa(step)
			for _, limit := range []int{1, 2, 3, 1000} {
				checkRecent(t, tr, limit, where)
			}
			checkSummaries(t, tr, g.branch(tr), where)
		}
	}
}

// After a load the order is the file's: by use, then the newest, then the
// name; the same file gives the same list.
func TestRecentBranchesAfterALoadDoNotDependOnTheMap(t *testing.T) {
	tr, ids := chain(t, "a", "b", "c")
	for i := range 30 {
		if _, err := tr.Branch(ids[i%3], "", int64(100+i%5)); err != nil {
			t.Fatal(err)
		}
	}
	file := tr.Marshal()
	var first []string
	for k := range 20 {
		l, err := Unmarshal(file)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, b := range l.RecentBranches(100) {
			names = append(names, b.Name)
		}
		if k == 0 {
			first = names
		} else if !slices.Equal(names, first) {
			t.Fatalf("load %d lists %v, the first %v", k, names, first)
		}
	}
	if len(first) != 31 || first[0] != tr.ActiveBranch() {
		t.Fatalf("listed %v", first)
	}
}

// checkSummaries compares BranchSummaries with a walk of Branches (in name
// order).
func checkSummaries(t *testing.T, tr *Tree, branch, where string) {
	t.Helper()
	var own *Summary
	var others []Summary
	un := 0
	for _, b := range tr.Branches() {
		switch {
		case b.Name == branch:
			own = b.Summary
		case b.Summary == nil:
			un++
		default:
			others = append(others, *b.Summary)
		}
	}
	gotOwn, gotOthers, gotUn := tr.BranchSummaries(branch)
	if (own == nil) != (gotOwn == nil) || own != nil && *own != *gotOwn || !slices.Equal(others, gotOthers) || un != gotUn {
		t.Fatalf("%s: BranchSummaries(%q) = %v %v %d, want %v %v %d", where, branch, gotOwn, gotOthers, gotUn, own, others, un)
	}
}
