package core

import (
	"slices"
	"strings"
	"testing"
)

func TestChildrenAreOrderedByCreatedThenID(t *testing.T) {
	tr := New(WithIDSource(seq("r", "z", "a", "m")))
	r := mustAppend(t, tr, msg("user", "q"), 1)
	z := mustAppend(t, tr, msg("assistant", "z"), 5)
	for _, at := range []int64{2, 2} {
		if _, err := tr.Regenerate(z, msg("assistant", "x"), at); err != nil {
			t.Fatal(err)
		}
	}
	kids, _ := tr.Children(r)
	if !slices.Equal(kids, []string{"a", "m", "z"}) {
		t.Fatalf("children %v", kids)
	}
	_, err := tr.Children("nope")
	wantCode(t, err, CodeNotFound)
}

// The generated ids of one tree sort in the order they were made, so a reply
// regenerated many times in one millisecond (a client retrying, a test, a
// bench) lists its versions in the order they were made, and each new one goes
// last without a search among the others; the ids stay 16 characters of
// Crockford base32 and distinct.
func TestGeneratedIDsSortInTheOrderTheyWereMade(t *testing.T) {
	tr := New()
	q := mustAppend(t, tr, msg("user", "q"), 1)
	a := mustAppend(t, tr, msg("assistant", "a"), 2)
	made := []string{a}
	for i := 0; i < 200; i++ {
		id, err := tr.Regenerate(a, msg("assistant", "again"), 2)
		if err != nil {
			t.Fatal(err)
		}
		made = append(made, id)
	}
	kids, _ := tr.Children(q)
	if !slices.Equal(kids, made) {
		t.Fatalf("201 versions made in one millisecond are listed out of the order they were made in")
	}
	next := randomIDs()
	prev := ""
	seen := map[string]bool{}
	for i := 0; i < 10000; i++ {
		id := next()
		if len(id) != 16 || strings.Trim(id, "0123456789abcdefghjkmnpqrstvwxyz") != "" || id <= prev || seen[id] {
			t.Fatalf("id %d %q after %q: want 16 base32 characters, larger than the one before", i, id, prev)
		}
		prev, seen[id] = id, true
	}
}

func seq(ids ...string) func() string {
	i := 0
	return func() string { i++; return ids[i-1] }
}

func TestSiblingsGiveTheSwitcherListAndIndex(t *testing.T) {
	tr, ids := chain(t, "q", "a1")
	a2, _ := tr.Regenerate(ids[1], msg("assistant", "a2"), 3)
	a3, _ := tr.Regenerate(ids[1], msg("assistant", "a3"), 4)
	sib, i, err := tr.Siblings(a2)
	if err != nil || !slices.Equal(sib, []string{ids[1], a2, a3}) || i != 1 {
		t.Fatalf("%v %d %v", sib, i, err)
	}
	sib, i, _ = tr.Siblings(ids[0])
	if !slices.Equal(sib, []string{ids[0]}) || i != 0 {
		t.Fatalf("root siblings %v %d", sib, i)
	}
}

func TestEditAddsASiblingOnItsOwnActiveBranchAndKeepsTheOriginal(t *testing.T) {
	tr, ids := chain(t, "q", "a", "q2", "a2")
	e, err := tr.Edit(ids[2], msg("user", "q2 edited"), 10)
	if err != nil {
		t.Fatal(err)
	}
	if tr.ActiveBranch() == MainBranch {
		t.Fatal("edit did not switch to a branch of its own")
	}
	if got := mustPath(t, tr, tr.ActiveBranch()); !slices.Equal(got, []string{ids[0], ids[1], e}) {
		t.Fatalf("edited path %v", got)
	}
	if got := mustPath(t, tr, MainBranch); !slices.Equal(got, ids) {
		t.Fatalf("original path changed: %v", got)
	}
	_, err = tr.Edit("nope", msg("user", "x"), 1)
	wantCode(t, err, CodeNotFound)
	_, err = tr.Edit(ids[0], Message(`{}`), 1)
	wantCode(t, err, CodeInvalidInput)
}

func TestEditingTheFirstMessageAddsASecondRoot(t *testing.T) {
	tr, ids := chain(t, "q", "a")
	e, err := tr.Edit(ids[0], msg("user", "q'"), 5)
	if err != nil {
		t.Fatal(err)
	}
	sib, i, _ := tr.Siblings(e)
	if !slices.Equal(sib, []string{ids[0], e}) || i != 1 || tr.Root() != ids[0] {
		t.Fatalf("%v %d root %s", sib, i, tr.Root())
	}
	if p := mustPath(t, tr, tr.ActiveBranch()); !slices.Equal(p, []string{e}) {
		t.Fatalf("%v", p)
	}
	if len(tr.Validate()) != 0 {
		t.Fatalf("a second root is legal: %v", tr.Validate())
	}
}

func TestCheckoutSwitchesToTheMostRecentlyUsedBranchContainingTheNode(t *testing.T) {
	// q → a1 → f1 (main), q → a2 → f2 (regenerated, then continued)
	tr, ids := chain(t, "q", "a1", "f1")
	a2, _ := tr.Regenerate(ids[1], msg("assistant", "a2"), 4)
	regen := tr.ActiveBranch()
	f2 := mustAppend(t, tr, msg("user", "f2"), 5)
	// Switching back to sibling a1 brings back a1's own deeper line, f1.
	name, err := tr.Checkout(ids[1], 6)
	if err != nil || name != MainBranch {
		t.Fatalf("checkout a1: %q %v", name, err)
	}
	if p, _ := tr.ActivePath(); !slices.Equal(p, ids) {
		t.Fatalf("active path %v", p)
	}
	// And back to a2 brings back f2, not just a2.
	if name, _ := tr.Checkout(a2, 7); name != regen {
		t.Fatalf("checkout a2 → %q want %q", name, regen)
	}
	if p, _ := tr.ActivePath(); !slices.Equal(p, []string{ids[0], a2, f2}) {
		t.Fatalf("active path %v", p)
	}
	_, err = tr.Checkout("nope", 1)
	wantCode(t, err, CodeNotFound)
}

func TestCheckoutOfANodeOnNoBranchMovesToItsNewestLeafKeepingTheOldLeaf(t *testing.T) {
	tr, ids := chain(t, "q", "a1", "f1")
	tr.Regenerate(ids[1], msg("assistant", "a2"), 4)
	regen := tr.ActiveBranch()
	late := mustAppend(t, tr, msg("user", "late"), 9)
	tr.SwitchBranch(MainBranch)
	if err := tr.DeleteBranch(regen); err != nil {
		t.Fatal(err)
	}
	sib, _, _ := tr.Siblings(ids[1])
	a2 := sib[1]
	name, err := tr.Checkout(a2, 10)
	if err != nil || name != MainBranch {
		t.Fatalf("%q %v", name, err)
	}
	if p, _ := tr.ActivePath(); p[len(p)-1] != late {
		t.Fatalf("active path %v, want it to end at the newest leaf %s", p, late)
	}
	// The old leaf f1 is kept under a fresh branch.
	found := false
	for _, b := range tr.Branches() {
		found = found || b.Leaf == ids[2]
	}
	if !found {
		t.Fatalf("old leaf lost: %+v", tr.Branches())
	}
}

// SPEC §3: a checkout of a node on no branch moves the active branch to the
// newest leaf below it: the greatest (created_at_ms, id), the order children
// are listed in, at any depth, whatever order the leaves were added in. Open
// puts the same leaf on a branch of its own.
func TestCheckoutOfANodeOnNoBranchPicksTheNewestLeafBelowIt(t *testing.T) {
	for _, open := range []bool{false, true} {
		tr, ids := chain(t, "q", "a")
		// Below x, on no branch: leaves at times 9 ("old", added last), 15
		// and 20 ("k" below x, "n" deeper down: the same time, n wins by id).
		steps := []struct {
			id, parent string
			at         int64
		}{
			{"x", ids[0], 3}, {"k", "x", 20}, {"y", "x", 4}, {"z", "y", 5},
			{"n", "z", 20}, {"deep", "z", 15}, {"old", "x", 9},
		}
		for _, s := range steps {
			if err := tr.InsertNode(s.id, s.parent, msg("assistant", s.id), "", s.at); err != nil {
				t.Fatal(err)
			}
		}
		var name string
		var err error
		if open {
			name, err = tr.Open("x", 30)
		} else {
			name, err = tr.Checkout("x", 30)
		}
		if err != nil {
			t.Fatal(err)
		}
		if p, _ := tr.ActivePath(); !slices.Equal(p, []string{ids[0], "x", "y", "z", "n"}) {
			t.Fatalf("open %v: active path %v on %q, want it to end at n (time 20, the greater id)", open, p, name)
		}
		if !open && name != MainBranch {
			t.Fatalf("checkout moved %q, not the active branch", name)
		}
	}
}

func TestDeleteBranchRemovesTheNameButKeepsTheNodes(t *testing.T) {
	tr, ids := chain(t, "q", "a")
	tr.Branch(ids[0], "side", 3)
	x := mustAppend(t, tr, msg("assistant", "x"), 4)
	wantCode(t, tr.DeleteBranch("side"), CodeConflict) // active
	tr.SwitchBranch(MainBranch)
	if err := tr.DeleteBranch("side"); err != nil {
		t.Fatal(err)
	}
	if _, ok := tr.Node(x); !ok {
		t.Fatal("deleting a branch name deleted a node")
	}
	wantCode(t, tr.DeleteBranch("side"), CodeBranchNotFound)
	wantCode(t, tr.DeleteBranch(MainBranch), CodeInvalidInput)
}

func TestPruneRemovesExactlyTheNodesOnNoBranchAndReportsThem(t *testing.T) {
	tr, ids := chain(t, "q", "a")
	tr.Branch(ids[0], "side", 3)
	x := mustAppend(t, tr, msg("assistant", "x"), 4)
	y := mustAppend(t, tr, msg("user", "y"), 5)
	tr.SwitchBranch(MainBranch)
	tr.DeleteBranch("side")
	removed, err := tr.Prune()
	if err != nil || !slices.Equal(removed, []string{x, y}) {
		t.Fatalf("%v %v", removed, err)
	}
	if tr.Len() != 2 || len(tr.Validate()) != 0 {
		t.Fatalf("%d nodes, problems %v", tr.Len(), tr.Validate())
	}
	if removed, _ := tr.Prune(); len(removed) != 0 {
		t.Fatalf("second prune removed %v", removed)
	}
}

func TestSearchFindsTextOnEveryBranchIgnoringCase(t *testing.T) {
	tr, ids := chain(t, "Where is the GOPHER?", "in the tree")
	tr.Regenerate(ids[1], msg("assistant", "a gopher hides off-path"), 3)
	hits := tr.Search("gopher", 0)
	if len(hits) != 2 || hits[0].NodeID != ids[0] || hits[1].Role != "assistant" {
		t.Fatalf("%+v", hits)
	}
	if len(tr.Search("gopher", 1)) != 1 || len(tr.Search("absent", 0)) != 0 || tr.Search("", 0) != nil {
		t.Fatal("limit or empty query wrong")
	}
}

func TestStatsCountNodesDepthBranchesAndBytes(t *testing.T) {
	tr, ids := chain(t, "q", "a", "b")
	tr.Regenerate(ids[1], msg("assistant", "z"), 5)
	s := tr.Stats()
	// Bytes are the messages' compact JSON, as saved: q, a, b and z.
	bytes := 0
	for _, m := range []Message{msg("user", "q"), msg("assistant", "a"), msg("user", "b"), msg("assistant", "z")} {
		bytes += len(m)
	}
	want := Stats{Nodes: 4, Branches: 2, Roots: 1, Leaves: 2, Depth: 3, MessageBytes: bytes}
	if s != want {
		t.Fatalf("%+v, want %+v", s, want)
	}
}

// SPEC §3 (Checkout switches to the most recently used branch containing
// the node): the lines a rewind keeps remember when they were last in use.
// Here a is on two kept lines, x1's (used first) and x2's (used last), and
// not on the active path: Checkout(a) brings back x2, the line the user
// saw last, not x1 because "branch-1" sorts first.
func TestCheckoutBringsBackTheKeptLineUsedLast(t *testing.T) {
	tr, ids := chain(t, "q", "a", "x1")
	if kept, _ := tr.Rewind(ids[1], 4); kept != "branch-1" {
		t.Fatalf("kept %q", kept)
	}
	x2 := mustAppend(t, tr, msg("user", "x2"), 5)
	if kept, _ := tr.Rewind(ids[0], 6); kept != "branch-2" {
		t.Fatalf("kept %q", kept)
	}
	name, err := tr.Checkout(ids[1], 7)
	if err != nil || name != "branch-2" {
		t.Fatalf("checkout a → %q (%v), want branch-2", name, err)
	}
	if p, _ := tr.ActivePath(); !slices.Equal(p, []string{ids[0], ids[1], x2}) {
		t.Fatalf("active path %v", p)
	}
}

// Checkout of a node already on the active path stays on the active branch
// when no branch was used later (a file written without "used" records).
func TestCheckoutOfANodeOnTheActivePathStaysWhenNoBranchWasUsedLater(t *testing.T) {
	file := `{"format":"sessiontree","version":1,"root":"a","active_branch":"main","branches":{` +
		`"a-side":{"name":"a-side","leaf":"c","created_at_ms":0},` +
		`"main":{"name":"main","leaf":"b","created_at_ms":0}},"nodes":{` +
		`"a":{"id":"a","children":["b","c"],"message":{"role":"user"},"created_at_ms":1},` +
		`"b":{"id":"b","parent":"a","children":[],"message":{"role":"assistant"},"created_at_ms":2},` +
		`"c":{"id":"c","parent":"a","children":[],"message":{"role":"assistant"},"created_at_ms":3}}}`
	tr, err := Unmarshal([]byte(file))
	if err != nil {
		t.Fatal(err)
	}
	if name, err := tr.Checkout("a", 9); err != nil || name != MainBranch || tr.ActiveBranch() != MainBranch {
		t.Fatalf("checkout a → %q (%v), active %q", name, err, tr.ActiveBranch())
	}
}
