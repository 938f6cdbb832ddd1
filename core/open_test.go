package core

import (
	"math/rand"
	"slices"
	"testing"
)

// SPEC §3 "Node navigation", issue 13: opening a message whose branch name was
// deleted never moves main or brings a deleted name back.
func TestOpeningAMessageWhoseBranchNameWasDeletedNeverMovesMainOrBringsADeletedNameBack(t *testing.T) {
	// The demo's repro: q → a → f (main); rewind main to a (f kept on branch-1);
	// delete the name branch-1; open f (now on no branch).
	setup := func(t *testing.T) (*Tree, []string) {
		tr, ids := chain(t, "q", "a", "f")
		kept, err := tr.Rewind(ids[1], 10)
		if err != nil || kept != "branch-1" {
			t.Fatalf("rewind kept %q %v", kept, err)
		}
		if err := tr.DeleteBranchAt("branch-1", 11); err != nil {
			t.Fatal(err)
		}
		return tr, ids
	}
	cases := []struct {
		name string
		open func(tr *Tree, id string) (string, error)
	}{
		{"Open", func(tr *Tree, id string) (string, error) { return tr.Open(id, 12) }},
		{"Apply open", func(tr *Tree, id string) (string, error) {
			got, err := tr.Apply([]Op{{Op: "open", Node: id}}, 12)
			if err != nil {
				return "", err
			}
			return got[0], nil
		}},
		{"Open after save and load", func(tr *Tree, id string) (string, error) {
			back, err := Unmarshal(tr.Marshal())
			if err != nil {
				return "", err
			}
			*tr = *back
			return tr.Open(id, 12)
		}},
		{"Open of the node above the deleted leaf's end", func(tr *Tree, id string) (string, error) {
			// Opening q, on main's path, switches to main and moves nothing.
			return tr.Open(tr.root, 12)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr, ids := setup(t)
			mainBefore, _ := tr.LookupBranch(MainBranch)
			name, err := c.open(tr, ids[2])
			if err != nil {
				t.Fatal(err)
			}
			if main, _ := tr.LookupBranch(MainBranch); main.Leaf != mainBefore.Leaf {
				t.Fatalf("main moved from %s to %s", mainBefore.Leaf, main.Leaf)
			}
			if _, back := tr.LookupBranch("branch-1"); back {
				t.Fatalf("the deleted name branch-1 came back: %+v", tr.Branches())
			}
			if tr.ActiveBranch() != name {
				t.Fatalf("active %q, returned %q", tr.ActiveBranch(), name)
			}
			p, _ := tr.ActivePath()
			if c.name == "Open of the node above the deleted leaf's end" {
				if name != MainBranch || !slices.Equal(p, ids[:2]) {
					t.Fatalf("on %q path %v", name, p)
				}
				return
			}
			if name != "branch-2" || !slices.Equal(p, ids) {
				t.Fatalf("opened on %q with path %v, want branch-2 with %v", name, p, ids)
			}
			if n := len(tr.Branches()); n != 2 {
				t.Fatalf("%d branches, want main and branch-2: %+v", n, tr.Branches())
			}
		})
	}
}

// SPEC §3: fresh names are branch-N with the smallest N not taken; a deleted
// name stays taken (its tombstone), or the next rewind would bring it back.
func TestAFreshNameNeverReusesADeletedName(t *testing.T) {
	cases := []struct {
		name string
		mint func(tr *Tree, ids []string) (string, error)
	}{
		{"Rewind", func(tr *Tree, ids []string) (string, error) { return tr.Rewind(ids[0], 20) }},
		{"Branch", func(tr *Tree, ids []string) (string, error) { return tr.Branch(ids[0], "", 20) }},
		{"Edit", func(tr *Tree, ids []string) (string, error) {
			if _, err := tr.Edit(ids[1], msg("assistant", "b"), 20); err != nil {
				return "", err
			}
			return tr.ActiveBranch(), nil
		}},
		{"Checkout of a nameless node", func(tr *Tree, ids []string) (string, error) {
			// branch-1's leaf, nameless since its deletion: main moves there,
			// and main's old leaf is kept under a fresh name.
			if _, err := tr.Checkout(ids[2], 20); err != nil {
				return "", err
			}
			for _, b := range tr.Branches() {
				if b.Name != MainBranch {
					return b.Name, nil
				}
			}
			return "", nil
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr, ids := chain(t, "q", "a", "f")
			tr.Rewind(ids[1], 10) // f on branch-1
			if err := tr.DeleteBranchAt("branch-1", 11); err != nil {
				t.Fatal(err)
			}
			got, err := c.mint(tr, ids)
			if err != nil {
				t.Fatal(err)
			}
			if got != "branch-2" {
				t.Fatalf("fresh name %q, want branch-2 (branch-1 was deleted)", got)
			}
			// An explicit name may still take a deleted name back.
			if _, err := tr.Branch(ids[0], "branch-1", 30); err != nil {
				t.Fatalf("explicit deleted name: %v", err)
			}
		})
	}
}

func TestOpenOfAnUnknownNodeFailsWithNotFound(t *testing.T) {
	tr, _ := chain(t, "q")
	_, err := tr.Open("nope", 1)
	wantCode(t, err, CodeNotFound)
}

// A fresh name past many deleted names costs one allocation (the name).
func TestAFreshNamePastDeletedNamesAllocatesOnlyTheName(t *testing.T) {
	tr, ids := chain(t, "q")
	for i := range 200 {
		name, err := tr.Branch(ids[0], "", int64(i))
		if err != nil {
			t.Fatal(err)
		}
		tr.SwitchBranch(MainBranch)
		if err := tr.DeleteBranch(name); err != nil {
			t.Fatal(err)
		}
	}
	if got := tr.freshName(); got != "branch-201" {
		t.Fatalf("fresh name %q", got)
	}
	if n := testing.AllocsPerRun(100, func() { _ = tr.freshName() }); n > 1 {
		t.Fatalf("%.0f allocations per fresh name", n)
	}
}

// The branch Open picks for a node is the same whether the depths PathLen
// remembers let it skip the walks or not: over random trees (the row tests'
// steps), with the lengths of some branches counted in between (as a chat
// view does at every render) and some nodes opened already, latestBranchThrough
// of every node equals the answer of walking every branch from its leaf.
func TestOpenPicksTheSameBranchWithRememberedDepthsAsByWalking(t *testing.T) {
	for seed := int64(1); seed <= 25; seed++ {
		rng := rand.New(rand.NewSource(seed))
		tr := New()
		for step := 0; step < 150; step++ {
			randomStep(rng, tr, step)
			for _, b := range tr.Branches() {
				if rng.Intn(2) == 0 {
					_, _ = tr.PathLen(b.Name)
				}
			}
			if step%10 != 9 {
				continue
			}
			for id := range tr.nodes {
				var want *branch
				for _, b := range tr.branches {
					if !tr.pathContains(b.leaf, id) {
						continue
					}
					if want == nil || b.used > want.used ||
						(b.used == want.used && (b.name == tr.active || (want.name != tr.active && b.name < want.name))) {
						want = b
					}
				}
				if got := tr.latestBranchThrough(id); got != want {
					t.Fatalf("seed %d step %d: node %s: got branch %v, walking says %v", seed, step, id, name(got), name(want))
				}
			}
		}
	}
}

func name(b *branch) string {
	if b == nil {
		return "none"
	}
	return b.name
}
