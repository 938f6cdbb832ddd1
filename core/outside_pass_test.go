package core

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Found by an outside fuzz pass (Dec 7): inputs a few hundred KB long that
// took seconds, and clocks that wrapped.

// A tombstone's entries go where they belong, by a binary search (a scan
// from the start for each loaded 20,000 entries of a file's list in 14 s):
// entries added in any order give the one sorted list a reference gives,
// the same instance's entries merged into one.
func TestTombstoneEntriesInAnyOrderSortAndMerge(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for round := 0; round < 200; round++ {
		var in []deletion
		for i := r.IntN(40); i > 0; i-- {
			in = append(in, deletion{created: int64(r.IntN(8)), leaf: []string{"", "a", "b"}[r.IntN(3)], at: int64(r.IntN(100))})
		}
		var s tombstone
		for _, d := range in {
			s.add(d)
		}
		// The reference: sorted by (created, leaf), one entry per pair, its latest time.
		var want []deletion
		for _, d := range in {
			at := slices.IndexFunc(want, func(e deletion) bool { return e.created == d.created && e.leaf == d.leaf })
			if at >= 0 {
				want[at].at = max(want[at].at, d.at)
			} else {
				want = append(want, d)
			}
		}
		slices.SortFunc(want, func(x, y deletion) int {
			if x.after(y) {
				return 1
			}
			if y.after(x) {
				return -1
			}
			return 0
		})
		if len(s.deleted) != len(want) {
			t.Fatalf("round %d: %d entries, want %d", round, len(s.deleted), len(want))
		}
		for i := range want {
			if g := s.deleted[i]; g.created != want[i].created || g.leaf != want[i].leaf || g.at != want[i].at {
				t.Fatalf("round %d: entry %d is %+v, want %+v", round, i, g, want[i])
			}
		}
	}
}

// A branch's stub summary counts its path from the depth its leaf knows,
// without a list of the path's ids: built for each branch of a chat with a
// regenerated reply at each turn, the lists came to 242 times the file.
func TestAStubSummaryAllocatesNoPath(t *testing.T) {
	tr := New()
	var last string
	for i := 0; i < 2000; i++ {
		id, err := tr.Append(Message(`{"role":"user","content":"turn `+strconv.Itoa(i)+`"}`), int64(i+1))
		if err != nil {
			t.Fatal(err)
		}
		last = id
	}
	if _, err := tr.Branch(last, "side", 3000); err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(20, func() {
		if s, err := tr.StubSummary("side"); err != nil || s.Summary != "[2000 turns, unsummarized]" {
			t.Fatal(s, err)
		}
	})
	if allocs > 4 {
		t.Fatalf("a stub summary of a 2,000-turn branch allocated %.0f times", allocs)
	}
}

// A move time or a use clock past 2^53 is refused at load; at 2^53 the
// next move or switch stays there instead of wrapping to the bottom of int64,
// where the move became the oldest and a merge took the branch back to the
// old leaf (the new message on "main~…"); and below it, an append after a
// late move still wins the merge with the copy that did not append.
func TestBranchClocksNeitherWrapNorPassWhatALoadTakes(t *testing.T) {
	file := func(moved, used string) string {
		return `{"format":"sessiontree","version":1,"root":"r","active_branch":"main","branches":{"idea":{"name":"idea","leaf":"r","created_at_ms":1},"main":{"name":"main","leaf":"r","created_at_ms":1,"moved_at_ms":` + moved + `,"used":` + used + `}},"nodes":{"r":{"id":"r","children":[],"message":{"role":"user","content":"q"},"created_at_ms":1}}}`
	}
	for _, f := range []string{file("9223372036854775807", "1"), file("9007199254740993", "1"), file("1", "9223372036854775807")} {
		if _, err := Unmarshal([]byte(f)); err == nil || !strings.Contains(err.Error(), "past 2^53") {
			t.Fatalf("a clock past 2^53 loaded: %v", err)
		}
	}
	a, err := Unmarshal([]byte(file("9007199254740980", "9007199254740981")))
	if err != nil {
		t.Fatal(err)
	}
	b := a.Clone()
	id, err := a.Append(Message(`{"role":"assistant","content":"the reply"}`), 5)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.SwitchBranch("idea"); err != nil {
		t.Fatal(err)
	}
	m, err := Merge(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if m.LeafOf(MainBranch) != id || m.ActiveBranch() != "idea" {
		t.Fatalf("merged: main at %q (want the append %q), active %q (want idea)", m.LeafOf(MainBranch), id, m.ActiveBranch())
	}
	// At the top, moves and switches stay there, and the tree saves a file that loads.
	for i := 0; i < 5; i++ {
		if _, err := a.Append(Message(`{"role":"user","content":"more"}`), 1<<62); err != nil {
			t.Fatal(err)
		}
		if err := a.SwitchBranch([]string{"main", "idea"}[i%2]); err != nil {
			t.Fatal(err)
		}
	}
	if a.branches[MainBranch].moved != maxClock || a.clock != maxClock {
		t.Fatalf("moved %d, clock %d: want %d", a.branches[MainBranch].moved, a.clock, int64(maxClock))
	}
	if _, err := Unmarshal(a.Marshal()); err != nil {
		t.Fatalf("the tree saves a file it refuses: %v", err)
	}
}
