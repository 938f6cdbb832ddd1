//go:build !js || stock

package edge

import (
	"context"
	"strings"

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

// A refused op, a switch to the active branch and a merge that is refused or
// brings nothing are answered from the cached tree once its stored version
// is checked (a Meta read): reading the whole tree again made each such
// request cost the tree's size (1.2–1.7 s on a 21 MB tree in the worker,
// where an append took 45–370 ms). A stale copy is still read again
// (TestACachedTreeSeesWritesOfAnotherIsolate).
func TestARefusedOrEmptyWriteDoesNotReadTheTreeAgain(t *testing.T) {
	s := &loadCounter{MemStore: NewMemStore()}
	c := newClient(t, New(Config{Store: s, SigningKey: testKey}), "alice")
	id := c.create(`{"messages":[{"role":"user","content":"hi"}]}`)
	c.appendMsg(id, "more")
	file := c.do("GET", "/v1/trees/"+id, "").body
	before := s.loads
	wantError(t, c.do("POST", "/v1/trees/"+id+"/ops", `{"ops":[{"op":"switch","branch":"nope"}]}`), 404, "branch_not_found")
	if r := c.do("POST", "/v1/trees/"+id+"/ops", `{"ops":[{"op":"switch","branch":"main"}]}`); r.status != 200 {
		t.Fatalf("a switch to the active branch: %d %s", r.status, r.body)
	}
	future := `{"format":"sessiontree","version":1,"active_branch":"main","branches":{"main":{"name":"main","created_at_ms":99999999999999}},"nodes":{}}`
	wantError(t, c.do("POST", "/v1/trees/"+id+"/merge", future), 400, "invalid_input")
	if r := c.do("POST", "/v1/trees/"+id+"/merge", string(file)); r.status != 200 {
		t.Fatalf("a merge that brings nothing: %d %s", r.status, r.body)
	}
	if n := s.loads - before; n != 0 {
		t.Fatalf("the tree was read from storage %d times for writes that changed nothing", n)
	}
}

// A write refused once applied, over the tree's size limit (413) or past
// what its tenant's quota of bytes grants it (429), is taken back out of the
// cached tree (core's Undo) instead of the tree being read again whole: a
// tenant at its quota whose client keeps sending cost a read of its whole
// tree a request (1.2–1.7 s on a 21 MB tree over wrangler dev). The tree
// then answers as before the refusals, and its next writes are stored whole.
func TestAWriteRefusedOnceAppliedDoesNotReadTheTreeAgain(t *testing.T) {
	for _, limit := range []string{"tree", "bytes"} {
		s := &loadCounter{MemStore: NewMemStore()}
		cfg := Config{Store: s, SigningKey: testKey}
		status, code := 413, "too_large"
		if limit == "tree" {
			cfg.Limits = DefaultLimits
			cfg.Limits.Tree = 16 << 10
		} else {
			cfg.Quota = Quota{Bytes: 16 << 10}
			status, code = 429, "quota_exceeded"
		}
		c := newClient(t, New(cfg), "alice")
		id := c.create(`{"messages":[{"role":"user","content":"hi"}]}`)
		big := strings.Repeat("word ", 1000)
		for i := 0; ; i++ {
			r := c.appendMsg(id, big)
			if r.status == status {
				break
			}
			if r.status != 200 || i > 10 {
				t.Fatalf("%s: append %d: %d %s", limit, i, r.status, r.body)
			}
		}
		file := c.do("GET", "/v1/trees/"+id, "")
		before := s.loads
		for i := 0; i < 3; i++ {
			wantError(t, c.appendMsg(id, big), status, code)
			ops := `{"ops":[{"op":"label","node":"` + s.anyNode(id) + `","label":"x"},{"op":"append","message":{"role":"user","content":"` + big + `"}},{"op":"branch","from":"` + s.anyNode(id) + `","name":"side"}]}`
			wantError(t, c.do("POST", "/v1/trees/"+id+"/ops", ops), status, code)
		}
		if n := s.loads - before; n != 0 {
			t.Fatalf("%s: the tree was read from storage %d times for writes refused once applied", limit, n)
		}
		again := c.do("GET", "/v1/trees/"+id, "")
		if string(again.body) != string(file.body) || again.header.Get("ETag") != file.header.Get("ETag") {
			t.Fatalf("%s: the tree after the refusals:\n%s\nbefore them:\n%s", limit, again.body, file.body)
		}
		if r := c.appendMsg(id, "short"); r.status != 200 {
			t.Fatalf("%s: a short append after the refusals: %d %s", limit, r.status, r.body)
		}
		want := c.do("GET", "/v1/trees/"+id, "").body
		h := New(Config{Store: s.MemStore, SigningKey: testKey})
		if got := newClient(t, h, "alice").do("GET", "/v1/trees/"+id, "").body; string(got) != string(want) {
			t.Fatalf("%s: the stored tree:\n%s\nthe cached one:\n%s", limit, got, want)
		}
	}
}

// anyNode is the id of a node of tree id in s.
func (s *loadCounter) anyNode(id string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k := range s.trees[id].nodes {
		return k
	}
	return ""
}
