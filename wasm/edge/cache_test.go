//go:build !js || stock

package edge

import (
	"context"

	"github.com/sessiontree/sessiontree/core"
	"testing"
)

// loadCounter is a Store that counts whole-tree loads.
type loadCounter struct {
	*MemStore
	loads int
}

func (s *loadCounter) Load(ctx context.Context, tenant, id string) (Meta, []core.Fragment, []core.Fragment, error) {
	s.loads++
	return s.MemStore.Load(ctx, tenant, id)
}

func TestTheTreeJustAddedIsNotTheOneEvicted(t *testing.T) {
	c := newTreeCache(3)
	for _, id := range []string{"a", "b", "c", "d", "e"} {
		c.release(c.acquire(id))
		if c.entries[id] == nil {
			t.Fatalf("%s was evicted as it was added", id)
		}
	}
	if len(c.entries) != 3 || c.entries["a"] != nil || c.entries["b"] != nil {
		t.Fatalf("want c, d, e cached, got %v", keys(c.entries))
	}
	c.release(c.acquire("c")) // c is now the most recent: d goes next
	c.release(c.acquire("f"))
	if c.entries["d"] != nil || c.entries["c"] == nil {
		t.Fatalf("want d evicted as least recently used, got %v", keys(c.entries))
	}
}

func keys(m map[string]*entry) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// A full cache keeps the tree a request just loaded: once more trees than the
// cache holds have been touched, reading one tree twice loads it once.
func TestAFullCacheKeepsTheTreeItJustLoaded(t *testing.T) {
	s := &loadCounter{MemStore: NewMemStore()}
	h := New(Config{Store: s, SigningKey: testKey, CacheTrees: 4})
	c := newClient(t, h, "alice")
	var ids []string
	for i := 0; i < 8; i++ {
		ids = append(ids, c.create(""))
	}
	for _, id := range ids { // every tree once more: the first four reload
		if r := c.do("GET", "/v1/trees/"+id, ""); r.status != 200 {
			t.Fatalf("get: %d %s", r.status, r.body)
		}
	}
	if r := c.appendMsg(ids[0], "back"); r.status != 200 { // loads it again, once
		t.Fatalf("append: %d %s", r.status, r.body)
	}
	before := s.loads
	for i := 0; i < 3; i++ {
		if r := c.appendMsg(ids[0], "again"); r.status != 200 {
			t.Fatalf("append: %d %s", r.status, r.body)
		}
		if r := c.do("GET", "/v1/trees/"+ids[0], ""); r.status != 200 {
			t.Fatalf("get: %d %s", r.status, r.body)
		}
	}
	if s.loads != before {
		t.Fatalf("%d whole-tree loads for a tree that stayed in the cache, want 0", s.loads-before)
	}
}
