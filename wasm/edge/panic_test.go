//go:build !js || stock

package edge

import (
	"context"
	"strings"
	"testing"
)

// panicOnce is a store whose next Commit panics (once), after the write was
// applied to the handler's loaded copy of the tree and before it is stored.
type panicOnce struct {
	*MemStore
	armed bool
}

func (s *panicOnce) Commit(ctx context.Context, prev int64, w Write) error {
	if s.armed {
		s.armed = false
		panic("the store broke")
	}
	return s.MemStore.Commit(ctx, prev, w)
}

// A panic in a write answers 500 and leaves nothing of the write: the tree the
// handler keeps loaded had the write applied in memory, so it is read again
// from storage, and neither a read nor the next write sees the lost one.
func TestAPanicInAWriteLeavesNothingOfIt(t *testing.T) {
	s := &panicOnce{MemStore: NewMemStore()}
	c := newClient(t, newTestHandler(s), "alice")
	id := c.create(`{"messages":[{"role":"user","content":"hi"}]}`)
	s.armed = true
	r := c.do("POST", "/v1/trees/"+id+"/ops", `{"ops":[{"op":"append","message":{"role":"user","content":"never stored"}}]}`)
	if r.status != 500 {
		t.Fatalf("the write with the store's panic: %d %s", r.status, r.body)
	}
	if got := c.do("GET", "/v1/trees/"+id, ""); strings.Contains(string(got.body), "never stored") {
		t.Fatalf("a read after the panic shows the write that was not stored: %s", got.body)
	}
	if w := c.do("POST", "/v1/trees/"+id+"/ops", `{"ops":[{"op":"append","message":{"role":"user","content":"next"}}]}`); w.status != 200 {
		t.Fatalf("the next write: %d %s", w.status, w.body)
	}
	got := c.do("GET", "/v1/trees/"+id, "")
	if strings.Contains(string(got.body), "never stored") || !strings.Contains(string(got.body), "next") {
		t.Fatalf("the next write stored the lost one with it, or not itself: %s", got.body)
	}
	fuzzTreeReadsBack(t, c, id)
}
