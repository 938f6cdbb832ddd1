package core

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// Undo takes a batch that went in back out, as a store that refuses it only
// after seeing its rows does (wasm/edge: over the tree's size limit or its
// tenant's quota): random batches on random trees, some taken back, each
// time the tree saved as before the batch, sound for every later call, its
// version never going back, and a row store fed by TakeChanges and one fed
// by the watch both still the tree, whether or not they heard of the batch
// before the Undo.
func TestUndoOfABatchThatWentInLeavesTheTreeAsBefore(t *testing.T) {
	seeds, steps := 30, 120
	if testing.Short() || isWasm {
		seeds = 8
	}
	undone := 0
	for s := range seeds {
		seed := uint64(s) + 500
		g := &opGen{r: rand.New(rand.NewPCG(seed, 11)), deletes: s%2 == 1}
		tr := New(counterIDs())
		rows, watched := rowsOf(tr), rowsOf(tr)
		tr.TakeChanges()
		tr.TakeWatched()
		for step := range steps {
			batch := make([]Op, 1+g.r.IntN(4))
			for i := range batch {
				batch[i] = g.op(tr)
			}
			before, version := tr.Marshal(), tr.Version()
			if _, err := tr.Apply(batch, int64(step)); err == nil && g.r.IntN(3) == 0 {
				switch g.r.IntN(3) {
				case 1:
					tr.TakeChanges() // the edge reads the rows, then refuses them
				case 2:
					rows.write(tr) // a store and a listener that heard of the batch
					watched.writeChanges(tr, tr.TakeWatched())
				}
				after := tr.Version()
				if !tr.Undo() {
					t.Fatalf("seed %d step %d: Undo of the batch that went in reported false", seed, step)
				}
				undone++
				if got := tr.Marshal(); !bytes.Equal(got, before) {
					t.Fatalf("seed %d step %d: after Undo\n%s\nbefore the batch\n%s", seed, step, got, before)
				}
				if v := tr.Version(); v <= after || v <= version {
					t.Fatalf("seed %d step %d: version %d after Undo, %d before it", seed, step, v, after)
				}
				if tr.Undo() {
					t.Fatalf("seed %d step %d: a second Undo reported true", seed, step)
				}
			}
			rows.write(tr)
			watched.writeChanges(tr, tr.TakeWatched())
			for name, s := range map[string]*rowStore{"TakeChanges": rows, "the watch": watched} {
				if got := s.join(); !bytes.Equal(got, tr.Marshal()) {
					t.Fatalf("seed %d step %d: the rows fed by %s are not the tree:\n%s\n%s", seed, step, name, got, tr.Marshal())
				}
			}
			checkInvariants(t, seed, step, tr, g.deletes)
		}
	}
	if undone < seeds*steps/10 {
		t.Fatalf("only %d batches undone: the test does not test Undo", undone)
	}
}

// Undo takes back only the last Apply, which went in, with nothing changed
// since; anything else is false and changes nothing.
func TestUndoRefusesAnythingButTheLastBatchThatWentIn(t *testing.T) {
	ops := func(tr *Tree) []Op { return []Op{{Op: "append", Message: msg("user", "x")}} }
	cases := map[string]func(tr *Tree){
		"no batch yet": func(tr *Tree) {},
		"a batch that failed": func(tr *Tree) {
			tr.Apply(append(ops(tr), Op{Op: "switch", Branch: "nope"}), 2)
		},
		"a change after the batch": func(tr *Tree) {
			tr.Apply(ops(tr), 2)
			mustAppend(t, tr, msg("user", "y"), 3)
		},
		"a batch undone already": func(tr *Tree) {
			tr.Apply(ops(tr), 2)
			if !tr.Undo() {
				t.Fatal("the first Undo reported false")
			}
		},
		"a merge after the batch": func(tr *Tree) {
			tr.Apply(ops(tr), 2)
			other, _ := chain(t, "elsewhere")
			if _, err := tr.Merge(other); err != nil {
				t.Fatal(err)
			}
		},
	}
	for name, setup := range cases {
		tr, _ := chain(t, "q", "a")
		setup(tr)
		before, v := tr.Marshal(), tr.Version()
		if tr.Undo() {
			t.Errorf("%s: Undo reported true", name)
		}
		if !bytes.Equal(tr.Marshal(), before) || tr.Version() != v {
			t.Errorf("%s: a refused Undo changed the tree", name)
		}
	}
}

// rowsOf is a row store holding t's rows now.
func rowsOf(t *Tree) *rowStore {
	s := &rowStore{root: t.Root(), active: t.ActiveBranch(), branches: map[string][]byte{}, nodes: map[string][]byte{}}
	bs, ns := t.Rows()
	for _, f := range bs {
		s.branches[f.Key] = f.JSON
	}
	for _, f := range ns {
		s.nodes[f.Key] = f.JSON
	}
	return s
}
