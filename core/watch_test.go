package core

import (
	"bytes"
	"math/rand"
	"slices"
	"strings"
	"testing"
)

// Version grows with every operation that changes the tree, and TakeWatched
// says what changed, apart from the store's feed (TakeChanges): a listener
// and a store never take each other's changes (issue 24).
func TestVersionAndWatchFollowEveryChangeApartFromTheStoresFeed(t *testing.T) {
	tr := New(counterIDs())
	tr.TakeWatched() // starts the watch
	tr.TakeChanges() // starts the store's feed
	v := tr.Version()
	step := func(what string, fn func() error, nodes, branches []string) {
		t.Helper()
		if err := fn(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if tr.Version() <= v {
			t.Fatalf("%s: version %d did not grow past %d", what, tr.Version(), v)
		}
		v = tr.Version()
		w := tr.TakeWatched()
		for _, id := range nodes {
			if !slices.Contains(w.Nodes, id) {
				t.Errorf("%s: the watch does not name node %s: %+v", what, id, w)
			}
		}
		for _, name := range branches {
			if !slices.Contains(w.Branches, name) {
				t.Errorf("%s: the watch does not name branch %s: %+v", what, name, w)
			}
		}
	}
	var a, b, c string
	step("append", func() (err error) { a, err = tr.Append(msg("user", "a"), 1); return }, []string{"n1"}, []string{MainBranch})
	step("append", func() (err error) { b, err = tr.Append(msg("assistant", "b"), 2); return }, []string{"n2", "n1"}, []string{MainBranch})
	step("edit", func() (err error) { c, err = tr.Edit(a, msg("user", "a2"), 3); return }, []string{"n3"}, nil)
	step("switch", func() error { return tr.SwitchBranch(MainBranch) }, nil, nil)
	step("label", func() error { return tr.Label(b, "x") }, []string{"n2"}, nil)
	step("summarize", func() error { return tr.SummarizeBranch("branch-1", "s", "", 4) }, nil, []string{"branch-1"})
	step("delete branch", func() error { return tr.DeleteBranch("branch-1") }, nil, []string{"branch-1"})
	step("prune", func() error { _, err := tr.Prune(); return err }, []string{c}, nil)
	other := tr.Clone()
	if _, err := other.Append(msg("user", "from the other copy"), 5); err != nil {
		t.Fatal(err)
	}
	step("merge", func() error { _, err := tr.Merge(other); return err }, []string{"n4"}, nil)

	// The store's feed holds every change since its start, untouched by the watch.
	feed := tr.TakeChanges()
	for _, id := range []string{"n1", "n2", "n4", c} {
		if !slices.Contains(feed.Nodes, id) {
			t.Errorf("the store's feed lost node %s to the watch: %+v", id, feed)
		}
	}
	// Nothing changed since: the version stands, the watch is empty.
	before := tr.Version()
	tr.LinearProjection()
	tr.Validate()
	if w := tr.TakeWatched(); tr.Version() != before || len(w.Nodes)+len(w.Branches) != 0 || w.Meta {
		t.Fatalf("reads changed the version or the watch: %d→%d %+v", before, tr.Version(), w)
	}
}

// TakeSynced is a third feed, apart from the store's and the watch: each
// gets every change. Its first call says All; a merge in place is recorded
// like any change, and a tree replaced whole (Succeed) by what it changed.
func TestTheSyncFeedGetsEveryChangeApartFromTheOthers(t *testing.T) {
	tr := New(counterIDs())
	if c := tr.TakeSynced(); !c.All {
		t.Fatalf("the first take: %+v, want All", c)
	}
	tr.TakeChanges()
	tr.TakeWatched()
	a, _ := tr.Append(msg("user", "a"), 1)
	tr.TakeChanges()
	tr.TakeWatched()
	if c := tr.TakeSynced(); c.All || !slices.Contains(c.Nodes, a) || !slices.Contains(c.Branches, MainBranch) {
		t.Fatalf("after an append the other feeds took: %+v", c)
	}
	if c := tr.TakeSynced(); len(c.Nodes)+len(c.Branches) > 0 {
		t.Fatalf("a change came twice: %+v", c)
	}
	other := tr.Clone()
	b, _ := other.Append(msg("assistant", "b"), 2)
	if _, err := tr.MergeWith(other, MergeOptions{}); err != nil {
		t.Fatal(err)
	}
	if c := tr.TakeSynced(); c.All || !slices.Contains(c.Nodes, b) {
		t.Fatalf("after a merge in place: %+v", c)
	}
	// A merge swapped in whole (the lean module's way), after a change not
	// yet taken: the feed names both, and nothing else.
	pending, _ := tr.Append(msg("user", "pending"), 3)
	other = tr.Clone()
	far, _ := other.Append(msg("assistant", "far"), 4)
	merged := tr.Clone()
	if _, err := merged.MergeWith(other, MergeOptions{}); err != nil {
		t.Fatal(err)
	}
	merged.Succeed(tr)
	c := merged.TakeSynced()
	if c.All || !slices.Contains(c.Nodes, pending) || !slices.Contains(c.Nodes, far) {
		t.Fatalf("after a merge swapped in: %+v, want %s and %s", c, pending, far)
	}
	for _, id := range c.Nodes {
		if n, _ := merged.Node(id); id != pending && id != far && !slices.Contains(n.Children, pending) && !slices.Contains(n.Children, far) {
			t.Fatalf("after a merge swapped in, the feed names %s, which neither change touched: %+v", id, c)
		}
	}
	// A tree replaced by one without a node: the removed node is named.
	less := New(counterIDs())
	less.Succeed(merged)
	if c := less.TakeSynced(); !slices.Contains(c.Nodes, far) || !slices.Contains(c.Branches, MainBranch) {
		t.Fatalf("after a replace that removed nodes: %+v", c)
	}
}

// A copy kept by the sync feed's rows alone stays the tree, byte for byte,
// through random changes and trees swapped in whole (a merge of a diverged
// copy, a reload), while the store's feed is taken too.
func TestACopyKeptByTheSyncFeedStaysTheTree(t *testing.T) {
	for seed := int64(1); seed <= 8; seed++ {
		rng := rand.New(rand.NewSource(seed))
		src := New(counterIDs())
		mustAppend(t, src, msg("user", "hello"), 1)
		dst := src.Clone()
		src.TakeSynced()
		src.TakeChanges()
		for step := 0; step < 200; step++ {
			randomStep(rng, src, step)
			if rng.Intn(8) == 0 {
				// swapped in whole, as the lean module does after a merge
				next := src.Clone()
				if rng.Intn(2) == 0 {
					other := src.Clone()
					other.Apply([]Op{{Op: "append", Message: msg("assistant", "apart")}}, int64(step+5000))
					next.MergeWith(other, MergeOptions{})
				}
				next.Succeed(src)
				src = next
			}
			src.TakeChanges() // the store's feed, taken meanwhile
			c := src.TakeSynced()
			if c.All {
				t.Fatalf("seed %d step %d: the sync feed said All", seed, step)
			}
			bs, ns := rowsNamed(src, c)
			if err := dst.ApplyRows(src.Root(), src.ActiveBranch(), true, bs, ns); err != nil {
				t.Fatalf("seed %d step %d: %v", seed, step, err)
			}
			if got, want := dst.Marshal(), src.Marshal(); !bytes.Equal(got, want) {
				t.Fatalf("seed %d step %d: the copy kept by the sync feed differs (%d bytes, want %d)", seed, step, len(got), len(want))
			}
		}
	}
}

// A tree swapped in whose only difference is a live branch's record (the time
// its name was once deleted, which a merge keeps beside a live branch of that
// name and a merge's diff does not compare) names that branch on the sync
// feed: found by the JS API's random run with mirrors, where a copy fed by
// the sync feed kept a deleted_at_ms its tree no longer had.
func TestASwapNamesABranchWhoseRecordAloneDiffers(t *testing.T) {
	const file = `{"format":"sessiontree","version":1,"root":"q","active_branch":"main",` +
		`"branches":{"main":{"name":"main","leaf":"a","created_at_ms":0},"x":{"name":"x","leaf":"q","created_at_ms":3,"deleted_at_ms":4}},` +
		`"nodes":{"a":{"id":"a","parent":"q","children":[],"message":{"role":"assistant","content":"a"},"created_at_ms":2},` +
		`"q":{"id":"q","children":["a"],"message":{"role":"user","content":"q"},"created_at_ms":1}}}`
	tr, err := Unmarshal([]byte(file))
	if err != nil {
		t.Fatal(err)
	}
	if row, _ := tr.BranchJSON("x"); !bytes.Contains(row, []byte(`"deleted_at_ms":4`)) || !bytes.Contains(row, []byte(`"leaf":"q"`)) {
		t.Fatalf("the live branch's record: %s", row)
	}
	next, err := Unmarshal([]byte(strings.Replace(file, `,"deleted_at_ms":4`, "", 1)))
	if err != nil {
		t.Fatal(err)
	}
	tr.TakeSynced()
	next.Succeed(tr)
	if c := next.TakeSynced(); !slices.Contains(c.Branches, "x") {
		t.Fatalf("the swap's feed does not name branch x: %+v", c)
	}
}
