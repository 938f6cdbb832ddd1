package core

import (
	"sync"
	"testing"
)

// A clone and a merge edited apart, in goroutines of their own (the edge's
// handler serves requests concurrently natively), each take ids from a source
// of their own: the default source keeps state, and shared it would be a data
// race (go test -race) and could mint one id in two copies.
func TestCopiesEditedApartTakeIdsFromSourcesOfTheirOwn(t *testing.T) {
	a, err := FromLinear([]Message{msg("user", "hi")}, 1)
	if err != nil {
		t.Fatal(err)
	}
	b := a.Clone()
	m, err := Merge(a, b)
	if err != nil {
		t.Fatal(err)
	}
	trees := []*Tree{a, b, m}
	ids := make([][]string, len(trees))
	var wg sync.WaitGroup
	for i, tr := range trees {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range 200 {
				id, err := tr.Append(msg("user", "more"), int64(2+k))
				if err != nil {
					t.Error(err)
					return
				}
				ids[i] = append(ids[i], id)
			}
		}()
	}
	wg.Wait()
	seen := map[string]bool{}
	for _, list := range ids {
		for _, id := range list {
			if seen[id] {
				t.Fatalf("id %s minted in two copies", id)
			}
			seen[id] = true
		}
	}
}
