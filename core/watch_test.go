package core

import (
	"slices"
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
// gets every change. Its first call, and a call after the tree was replaced
// whole (Succeed), say All; a merge in place is recorded like any change.
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
	next := tr.Clone()
	next.Succeed(tr)
	if c := next.TakeSynced(); !c.All {
		t.Fatalf("after a whole replace: %+v, want All", c)
	}
}
