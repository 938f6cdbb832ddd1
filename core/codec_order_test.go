package core

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/sessiontree/sessiontree/core/rawjson"
)

// A save lists nodes in byte order of their ids, whatever the ids share: the
// same first 8 bytes, one a prefix of another, multi-byte runes.
func TestSaveListsNodesInByteOrderOfTheirIDs(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	pieces := []string{"a", "ab", "abcdefgh", "abcdefghi", "abcdefgg", "~", "é", "日本", "z", "A", "0"}
	for round := 0; round < 50; round++ {
		tr := New()
		want := map[string]bool{}
		for len(want) < 40 {
			id := ""
			for n := 1 + r.IntN(3); n > 0; n-- {
				id += pieces[r.IntN(len(pieces))]
			}
			if want[id] {
				continue
			}
			if err := tr.InsertNode(id, "", msg("user", id), "", int64(r.IntN(5))); err != nil {
				t.Fatal(err)
			}
			want[id] = true
		}
		nodes, ok := rawjson.Lookup(tr.Marshal(), "nodes")
		if !ok {
			t.Fatal("no nodes in the save")
		}
		var got []string
		d := rawjson.NewDecoder(nodes)
		if err := d.Object(func(key string) error { got = append(got, key); return d.Skip() }); err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) || !slices.IsSorted(got) {
			t.Fatalf("round %d: node keys not in byte order: %q", round, got)
		}
	}
}

// The loader's pattern counter agrees with bytes.Count, for the pattern it
// counts and for text made of the pattern's own bytes.
func TestLoaderCountsChildrenKeysLikeBytesCount(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	c := newCounter(childrenKey)
	alphabet := []byte(`"children:x `)
	for round := 0; round < 2000; round++ {
		s := make([]byte, r.IntN(80))
		for i := range s {
			s[i] = alphabet[r.IntN(len(alphabet))]
		}
		for k := r.IntN(3); k > 0; k-- {
			at := r.IntN(len(s) + 1)
			s = append(s[:at], append(append([]byte(nil), childrenKey...), s[at:]...)...)
		}
		if got, want := c.count(s), bytes.Count(s, childrenKey); got != want {
			t.Fatalf("count(%q) = %d, want %d", s, got, want)
		}
	}
}
