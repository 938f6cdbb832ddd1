package core

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

func outsideSeedFiles() [][]byte {
	var out [][]byte
	for _, s := range []uint64{1, 2, 3, 4} {
		for _, tr := range replicas(s, 2, 25, s%2 == 0, false) {
			out = append(out, tr.Marshal())
		}
	}
	return out
}

// FuzzMergeFiles: two files from outside (or one file and copies of it edited
// apart by random ops) merge commutatively and idempotently, losing no node.
func FuzzMergeFiles(f *testing.F) {
	files := outsideSeedFiles()
	for i := 0; i+1 < len(files); i += 2 {
		f.Add(files[i], files[i+1], uint64(i), uint8(0))
		f.Add(files[i], []byte{}, uint64(i), uint8(20))
	}
	f.Fuzz(func(t *testing.T, fa, fb []byte, seed uint64, n uint8) {
		a, err := Unmarshal(fa)
		if err != nil {
			return
		}
		var b *Tree
		if len(fb) == 0 {
			g := &opGen{r: rand.New(rand.NewPCG(seed, 7)), deletes: seed%3 == 0}
			b = a.Clone()
			a.newID, b.newID = prefixIDs("A"), prefixIDs("B")
			for range int(n) % 30 {
				a.Apply([]Op{g.op(a)}, int64(g.r.IntN(1000)))
				b.Apply([]Op{g.op(b)}, int64(g.r.IntN(1000)))
			}
		} else {
			b, err = Unmarshal(fb)
			if err != nil {
				return
			}
		}
		ab, e1 := Merge(a, b)
		ba, e2 := Merge(b, a)
		if (e1 == nil) != (e2 == nil) {
			t.Fatalf("merge errs one way only: %v / %v", e1, e2)
		}
		if e1 != nil {
			if _, ok := e1.(*Error); !ok {
				t.Fatalf("uncoded %v", e1)
			}
			return
		}
		want := ab.Marshal()
		if got := ba.Marshal(); !bytes.Equal(got, want) {
			t.Fatalf("not commutative:\n%s", treeDiff(got, want))
		}
		if p := ab.Validate(); len(p) != 0 {
			t.Fatalf("merged has problems: %+v", p)
		}
		for _, in := range []*Tree{a, b} {
			for id, nd := range in.nodes {
				if !hasContent(ab, id, nd) {
					t.Fatalf("node %s lost", id)
				}
			}
		}
		back, err := Unmarshal(want)
		if err != nil || !bytes.Equal(back.Marshal(), want) {
			t.Fatalf("merged does not reload byte-equal: %v", err)
		}
		if got := mustMerge(t, ab, ab).Marshal(); !bytes.Equal(got, want) {
			t.Fatalf("not idempotent:\n%s", treeDiff(got, want))
		}
		for i, in := range []*Tree{a, b} {
			if got := mustMerge(t, ab, in).Marshal(); !bytes.Equal(got, want) {
				t.Fatalf("merging input %d again changed it:\n%s", i, treeDiff(got, want))
			}
			if got := mustMerge(t, in, ab).Marshal(); !bytes.Equal(got, want) {
				t.Fatalf("merging into input %d the merged changed it:\n%s", i, treeDiff(got, want))
			}
		}
		// in-place merge agrees with Merge
		c := a.Clone()
		if _, err := c.Merge(b); err != nil {
			t.Fatalf("in-place: %v", err)
		}
		if got := c.Marshal(); !bytes.Equal(got, want) {
			t.Fatalf("t.Merge differs from Merge:\n%s", treeDiff(got, want))
		}
	})
}
