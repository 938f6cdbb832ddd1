package core

import (
	"bytes"
	"math/rand/v2"
	"regexp"
	"testing"
)

// FuzzMergeWithFiles: MergeWith (FreshNames, KeepPlace) of a loaded file and
// a copy edited apart keeps every node and every leaf on a branch, leaves a
// sound tree that reloads byte for byte, and its report says Changed exactly
// when the bytes changed.
func FuzzMergeWithFiles(f *testing.F) {
	for i, file := range outsideSeedFiles() {
		f.Add(file, uint64(i), uint8(20), uint8(3))
	}
	f.Fuzz(func(t *testing.T, fa []byte, seed uint64, n, opt uint8) {
		a, err := Unmarshal(fa)
		if err != nil || len(a.Validate()) > 0 {
			return
		}
		g := &opGen{r: rand.New(rand.NewPCG(seed, 8))}
		b := a.Clone()
		a.newID, b.newID = prefixIDs("A"), prefixIDs("B")
		for range int(n) % 30 {
			a.Apply([]Op{g.op(a)}, int64(g.r.IntN(1000)))
			b.Apply([]Op{g.op(b)}, int64(g.r.IntN(1000)))
		}
		leavesOn := func(tr *Tree) map[string]bool {
			on := map[string]bool{}
			for _, br := range tr.Branches() {
				if br.Leaf != "" {
					on[br.Leaf] = true
				}
			}
			return on
		}
		inputs := []*Tree{a.Clone(), b}
		before := a.Marshal()
		rep, err := a.MergeWith(b, MergeOptions{FreshNames: opt&1 != 0, KeepPlace: opt&2 != 0})
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("uncoded %v", err)
			}
			if !bytes.Equal(a.Marshal(), before) {
				t.Fatal("refused merge changed the tree")
			}
			return
		}
		after := a.Marshal()
		if rep.Changed() != !bytes.Equal(usedRe.ReplaceAll(after, nil), usedRe.ReplaceAll(before, nil)) {
			t.Fatalf("report Changed()=%v but bytes changed=%v; opts=%d report=%+v\n%s", rep.Changed(), !bytes.Equal(after, before), opt, rep, treeDiff(after, before))
		}
		if p := a.Validate(); len(p) > 0 {
			t.Fatalf("problems %+v", p)
		}
		reach := map[string]bool{}
		for _, br := range a.Branches() {
			p, _ := a.PathOf(br.Name)
			for _, id := range p {
				reach[id] = true
			}
		}
		for i, in := range inputs {
			for id, nd := range in.nodes {
				if !hasContent(a, id, nd) {
					t.Fatalf("input %d: node %s lost", i, id)
				}
			}
			for leaf := range leavesOn(in) {
				if _, ok := a.nodes[leaf]; ok && !reach[leaf] {
					t.Fatalf("input %d: leaf %s on no branch after MergeWith", i, leaf)
				}
			}
		}
		back, err := Unmarshal(after)
		if err != nil || !bytes.Equal(back.Marshal(), after) {
			t.Fatalf("does not reload: %v", err)
		}
	})
}

var usedRe = regexp.MustCompile(`,"used":-?[0-9]+`)
