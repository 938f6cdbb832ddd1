package core

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// sortFunc sorts stably: it agrees with slices.SortStableFunc on random input
// of every length around its run and merge boundaries, with many equal keys.
func TestSortFuncSortsStably(t *testing.T) {
	type item struct {
		key string
		pos int
	}
	cmp := func(a, b item) int { return strings.Compare(a.key, b.key) }
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, 11, 12, 13, 23, 24, 25, 47, 48, 49, 100, 1000, 4099} {
		for round := 0; round < 5; round++ {
			got := make([]item, n)
			for i := range got {
				got[i] = item{string(rune('a' + r.IntN(7))), i}
			}
			if round == 4 {
				slices.SortFunc(got, cmp) // already sorted input
			}
			want := slices.Clone(got)
			slices.SortStableFunc(want, cmp)
			sortFunc(got, cmp)
			if !slices.Equal(got, want) {
				t.Fatalf("n=%d round %d: sortFunc disagrees with a stable sort", n, round)
			}
		}
	}
}

// sortKeys (by an 8-byte prefix first) agrees with a plain sort on many keys
// that share prefixes, are shorter than 8 bytes, or hold zero bytes.
func TestSortKeysAgreesWithSortStrings(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 5, 1023, 1024, 1025, 5000} {
		keys := make([]string, n)
		for i := range keys {
			b := make([]byte, r.IntN(12))
			for j := range b {
				b[j] = "ab\x00\xff"[r.IntN(4)]
			}
			keys[i] = string(b)
		}
		want := slices.Clone(keys)
		slices.Sort(want)
		sortKeys(keys)
		if !slices.Equal(keys, want) {
			t.Fatalf("n %d: sortKeys differs from slices.Sort", n)
		}
	}
}
