package core

import (
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
)

// A tree loaded from a canonical file lists its keys in the file's order, not
// by sorting them again (nodesInOrder): a store's first feed, Validate and a
// save of a 200k-node import sorted 200k ids in one task. Whatever happens to
// the tree after the load (appends whose ids fall between the loaded ones,
// more appends than the log remembers, removals, a repair), the keys it lists
// are the sorted keys of its map, and its save is the save of the same tree
// built anew.
func TestALoadedTreeListsItsKeysInOrderWithoutSorting(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for round := 0; round < 40; round++ {
		next := 0
		ids := WithIDSource(func() string {
			next++
			// Ids that fall anywhere among the loaded ones.
			return "k" + strconv.Itoa(r.IntN(1_000_000)) + "-" + strconv.Itoa(next)
		})
		tr := New(ids)
		for i := 0; i < 60; i++ {
			if i > 3 && r.IntN(6) == 0 {
				path := mustPath(t, tr, tr.ActiveBranch())
				if _, err := tr.Rewind(path[r.IntN(len(path))], int64(i)); err != nil {
					t.Fatal(err)
				}
			}
			mustAppend(t, tr, msg([]string{"user", "assistant"}[i%2], "m"+strconv.Itoa(i)), int64(i))
		}
		file := tr.Marshal()
		got, err := Unmarshal(file, ids)
		if err != nil {
			t.Fatal(err)
		}
		if got.nodesInOrder() == nil {
			t.Fatal("a canonical file's load does not keep its order")
		}
		check := func(what string) {
			t.Helper()
			want := slices.Sorted(maps.Keys(got.nodes))
			if keys := got.sortedKeys(); !slices.Equal(keys, want) {
				t.Fatalf("round %d, %s: keys %v, want %v", round, what, keys, want)
			}
			plain := got.inOrder
			got.inOrder = nil
			fresh := got.Marshal()
			got.inOrder = plain
			if saved := got.Marshal(); string(saved) != string(fresh) {
				t.Fatalf("round %d, %s: the save differs from a sorted one", round, what)
			}
		}
		check("loaded")
		if string(got.Marshal()) != string(file) {
			t.Fatalf("round %d: the save of a load is not the file", round)
		}
		for i := 0; i < 1+r.IntN(3); i++ {
			mustAppend(t, got, msg("user", "after"), 100)
		}
		check("a few appends")
		if got.nodesInOrder() == nil {
			t.Fatal("a few appends drop the load's order")
		}
		switch r.IntN(3) {
		case 0: // more than the attach log remembers
			for i := 0; i < attachLogSize+5; i++ {
				mustAppend(t, got, msg("user", "many"), 200)
			}
			check("many appends")
			if got.nodesInOrder() == nil {
				t.Fatal("more appends than the log remembers drop the load's order")
			}
		case 1: // a branch deleted with its own messages
			for _, b := range got.Branches() {
				if b.Name != got.ActiveBranch() {
					if err := got.DeleteBranch(b.Name); err != nil {
						t.Fatal(err)
					}
					if _, err := got.Prune(); err != nil {
						t.Fatal(err)
					}
					break
				}
			}
			check("a prune")
			mustAppend(t, got, msg("user", "then"), 300)
			check("a prune, then an append")
		default: // a rewind and more appends
			path := mustPath(t, got, got.ActiveBranch())
			if _, err := got.Rewind(path[len(path)/2], 400); err != nil {
				t.Fatal(err)
			}
			mustAppend(t, got, msg("user", "other"), 401)
			check("a rewind")
		}
	}
}

// A file whose nodes are not sorted (written by another tool) is sorted as before.
func TestAnUnsortedFileIsListedSorted(t *testing.T) {
	file := []byte(`{"format":"sessiontree","version":1,"root":"b","active_branch":"main","branches":{"main":{"name":"main","leaf":"a","created_at_ms":1}},"nodes":{"b":{"id":"b","children":["a"],"message":{"role":"user","content":"q"},"created_at_ms":1},"a":{"id":"a","parent":"b","children":[],"message":{"role":"assistant","content":"r"},"created_at_ms":2}}}`)
	tr, err := Unmarshal(file)
	if err != nil {
		t.Fatal(err)
	}
	if tr.nodesInOrder() != nil {
		t.Fatal("an unsorted file's order kept as sorted")
	}
	if keys := tr.sortedKeys(); !slices.Equal(keys, []string{"a", "b"}) {
		t.Fatalf("keys %v", keys)
	}
}
