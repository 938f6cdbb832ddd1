package core

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// raceOfAPrunedDeletionAndAnAppend makes a tree q, a with a branch "x" made
// at 3 at a and a message of its own, x1, and two copies of it: a deletes x at
// 74 and prunes x1; b, which has not seen the deletion, appends to x at 71.
// It returns the copies, x1 and b's leaf of x.
func raceOfAPrunedDeletionAndAnAppend(t *testing.T) (a, b *Tree, x1, bLeaf string) {
	t.Helper()
	base, ids := chain(t, "q", "a")
	if _, err := base.Branch(ids[1], "x", 3); err != nil {
		t.Fatal(err)
	}
	x1 = mustAppend(t, base, msg("user", "on x"), 4)
	if err := base.SwitchBranch(MainBranch); err != nil {
		t.Fatal(err)
	}
	a, b = base.Clone(), base.Clone()
	a.newID, b.newID = prefixIDs("a"), prefixIDs("b")
	if err := b.SwitchBranch("x"); err != nil {
		t.Fatal(err)
	}
	bLeaf = mustAppend(t, b, msg("user", "B's message"), 71)
	if err := a.DeleteBranchAt("x", 74); err != nil {
		t.Fatal(err)
	}
	if removed, err := a.Prune(); err != nil || len(removed) != 1 || removed[0] != x1 {
		t.Fatalf("a's prune removed %v (%v), want %s", removed, err, x1)
	}
	return a, b, x1, bLeaf
}

// A copy that prunes a deleted leaf before it syncs still knows which leaf its
// deletion saw: an append another copy made below it keeps the name, in either
// order, and the merge is stable.
func TestMergeOfADeletionPrunedBeforeItSyncsKeepsAnAppendTheDeletingCopyDidNotSee(t *testing.T) {
	a, b, _, bLeaf := raceOfAPrunedDeletionAndAnAppend(t)
	ab, ba := mustMerge(t, a, b), mustMerge(t, b, a)
	if !bytes.Equal(ab.Marshal(), ba.Marshal()) {
		t.Fatalf("the merge depends on its order:\n%s", treeDiff(ab.Marshal(), ba.Marshal()))
	}
	if x, ok := ab.LookupBranch("x"); !ok || x.Leaf != bLeaf {
		t.Fatalf("b's append %s is not on x: %+v, %v; branches %+v", bLeaf, x, ok, ab.Branches())
	}
	if u := unreachable(ab); len(u) != 0 {
		t.Fatalf("nodes on no branch: %v", u)
	}
	want := ab.Marshal()
	for _, in := range []*Tree{a, b, ab} {
		if got := mustMerge(t, ab, in).Marshal(); !bytes.Equal(got, want) {
			t.Fatalf("merging the result again changed it:\n%s", treeDiff(got, want))
		}
	}
	back, err := Unmarshal(want)
	if err != nil || !bytes.Equal(back.Marshal(), want) {
		t.Fatalf("the merge does not save and load byte for byte: %v", err)
	}
}

// TestPropertyMergeOfCopiesThatPrunedMakesALeafUnreachableOnlyWhenACopyDeletedItsBranch
// is TestPropertyMergeMakesALeafUnreachableOnlyWhenACopyDeletedItsBranch with
// copies that prune before they merge (each at random): a leaf of a copy's
// branch is on no branch after the merge only when a deletion of that
// instance saw it at or below its leaf, and a deletion still takes every
// value of its instance at or above the leaf it saw, moved no later (what is
// at or above is read in the merge of the copies as they were before their
// prunes).
func TestPropertyMergeOfCopiesThatPrunedMakesALeafUnreachableOnlyWhenACopyDeletedItsBranch(t *testing.T) {
	seeds, pruned := mergeSeeds(t, 800, 12), 0
	for s := range seeds {
		seed := uint64(s) + 1
		trees, deleted := replicasDeleting(seed, 3, 40, true, false)
		r := rand.New(rand.NewPCG(seed, 9))
		whole := randomMerge(t, r, trees)
		copies := make([]*Tree, len(trees))
		for i, in := range trees {
			copies[i] = in.Clone()
			if r.IntN(3) != 0 {
				removed, err := copies[i].Prune()
				if err != nil {
					t.Fatalf("seed %d: prune of copy %d: %v", seed, i, err)
				}
				if len(removed) > 0 {
					pruned++
				}
			}
		}
		m := randomMerge(t, r, copies)
		checkOffBranchLeavesWereDeleted(t, seed, m, whole, trees, deleted)
		for name, b := range m.branches {
			reg := registerOf(name, b.leaf)
			for _, in := range trees {
				for _, d := range in.tombs[reg].list() {
					if d.created == b.created && d.leaf != "" && b.moved <= d.at && whole.reaches(d.leaf, b.leaf) {
						t.Fatalf("seed %d: a copy deleted %q (made at %d) at %d at %s, yet the merge of the pruned copies has it as %q at %s, above, moved at %d", seed, reg, b.created, d.at, d.leaf, name, b.leaf, b.moved)
					}
				}
			}
		}
	}
	if pruned < seeds/2 {
		t.Fatalf("of %d seeds, %d pruned a node (want half)", seeds, pruned)
	}
}

// list is the tombstone's deletions (none for nil).
func (s *tombstone) list() []deletion {
	if s == nil {
		return nil
	}
	return s.deleted
}

// prunedSyncedReplicas is syncedReplicas (with deletions, reloaded) where a
// copy also prunes now and then after its edits, before it syncs: a
// deletion's path then grows over several prunes and travels in merges.
func prunedSyncedReplicas(seed uint64, n, rounds, steps int) []*Tree {
	return syncedReplicasOf(seed, 17, n, rounds, steps, true, true, true)
}

// Copies that prune between their syncs still merge as a join: any order and
// grouping gives the same bytes, and merging the result with itself or with
// an input changes nothing.
func TestPropertyMergeOfCopiesThatPruneBetweenSyncsGivesTheSameBytes(t *testing.T) {
	seeds, paths := mergeSeeds(t, 300, 4), 0
	runMergeProperty(t, seeds, func(seed uint64) []*Tree {
		trees := prunedSyncedReplicas(seed, 4, 3, 12)
		if withPaths(trees) {
			paths++
		}
		return trees
	}, true, true)
	t.Logf("of %d seeds, %d kept the path of a pruned deletion", seeds, paths)
	if paths < seeds/10 {
		t.Fatalf("of %d seeds, %d kept the path of a pruned deletion (want a tenth)", seeds, paths)
	}
}

// withPaths reports whether a tree holds a deletion whose leaf a prune removed.
func withPaths(trees []*Tree) bool {
	for _, tr := range trees {
		for _, s := range tr.tombs {
			for _, d := range s.deleted {
				if len(d.above) > 0 {
					return true
				}
			}
		}
	}
	return false
}
