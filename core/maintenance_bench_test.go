package core

import (
	"strconv"
	"testing"
)

// BenchmarkPrune: a prune of a 100k-message chat with one abandoned reply
// (what "delete this branch, then clean up" does in a long chat). Each round
// makes a branch of one message and deletes it first, untimed.
func BenchmarkPrune(b *testing.B) {
	ms := make([]Message, 100000)
	for i := range ms {
		ms[i] = Message(`{"role":"user","content":"a message of ordinary length, about as long as a short chat turn is"}`)
	}
	tr, err := FromLinear(ms, 1)
	if err != nil {
		b.Fatal(err)
	}
	p := visible(b, tr)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		name := "side" + strconv.Itoa(i)
		if _, err := tr.Branch(p[500], name, 2); err != nil {
			b.Fatal(err)
		}
		if _, err := tr.Append(ms[0], 3); err != nil {
			b.Fatal(err)
		}
		if err := tr.SwitchBranch(MainBranch); err != nil {
			b.Fatal(err)
		}
		if err := tr.DeleteBranch(name); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		removed, err := tr.Prune()
		if err != nil || len(removed) != 1 {
			b.Fatalf("round %d removed %d: %v", i, len(removed), err)
		}
	}
}

// BenchmarkValidate: Validate of a 100k-message chat with a fork every 100
// messages (benchTree), as built by appends and as loaded from its file (a
// prune, an export and the worker's create each validate first).
func BenchmarkValidate(b *testing.B) {
	built, _ := benchTree(b, 100000)
	loaded, err := Unmarshal(built.Marshal())
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		tr   *Tree
	}{{"built", built}, {"loaded", loaded}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if p := c.tr.Validate(); len(p) != 0 {
					b.Fatal(p)
				}
			}
		})
	}
}
