package core

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// FuzzApplyUndo: on any sound loaded file, a batch of random ops that went in,
// then Undo, leaves the tree saving the bytes it saved before, and the tree
// still works (an op after the undo leaves it sound).
func FuzzApplyUndo(f *testing.F) {
	for i, file := range outsideSeedFiles() {
		f.Add(file, uint64(i), uint8(5))
	}
	f.Fuzz(func(t *testing.T, file []byte, seed uint64, n uint8) {
		tr, err := Unmarshal(file, WithIDSource(prefixIDs("u")))
		if err != nil || len(tr.Validate()) > 0 {
			return
		}
		g := &opGen{r: rand.New(rand.NewPCG(seed, 9)), deletes: true}
		tr.TakeChanges()
		before := tr.Marshal()
		var ops []Op
		for range int(n)%12 + 1 {
			ops = append(ops, g.op(tr))
		}
		if _, err := tr.Apply(ops, int64(g.r.IntN(2000))); err != nil {
			if !bytes.Equal(tr.Marshal(), before) {
				t.Fatalf("refused batch changed the tree: %v", err)
			}
			return
		}
		if !tr.Undo() {
			t.Fatal("Undo refused right after Apply")
		}
		if got := tr.Marshal(); !bytes.Equal(got, before) {
			t.Fatalf("Undo did not restore:\n%s", treeDiff(got, before))
		}
		if p := tr.Validate(); len(p) > 0 {
			t.Fatalf("after undo: %+v", p)
		}
		if got, err := Unmarshal(tr.Marshal()); err != nil || !tr.Equal(got) && !bytes.Equal(got.Marshal(), before) {
			t.Fatalf("reload after undo: %v", err)
		}
		tr.Apply([]Op{g.op(tr)}, 5000)
		if p := tr.Validate(); len(p) > 0 {
			t.Fatalf("op after undo left problems: %+v", p)
		}
	})
}
