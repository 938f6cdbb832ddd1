//go:build !js || stock

package edge

import (
	"context"
	"slices"
	"sync"
	"testing"
)

// commits is a MemStore that keeps the Writes it was asked to commit.
type commits struct {
	*MemStore
	mu     sync.Mutex
	writes []Write
}

func (s *commits) Commit(ctx context.Context, prev int64, w Write) error {
	s.mu.Lock()
	s.writes = append(s.writes, w)
	s.mu.Unlock()
	return s.MemStore.Commit(ctx, prev, w)
}

// A write says which of its node rows it created (Write.Created): the nodes
// of its appends, edits and regenerates and nothing else, not the parent
// whose children changed, not a labelled node, not a branch named like a
// node, so that a store may stage them without asking which are stored (the
// worker's objects asked about every row of a 1,000-op batch, issue 25). A
// merge says nothing.
func TestAWriteNamesTheNodesItCreated(t *testing.T) {
	s := &commits{MemStore: NewMemStore()}
	c := newClient(t, New(Config{Store: s, SigningKey: testKey}), "alice")
	id := c.create(`{"messages":[{"role":"user","content":"a"},{"role":"assistant","content":"b"}]}`)
	tree := c.do("GET", "/v1/trees/"+id, "").json(t)
	var root, leaf string
	for k, v := range tree["nodes"].(map[string]any) {
		if v.(map[string]any)["parent"] == nil {
			root = k
		} else {
			leaf = k
		}
	}
	r := c.do("POST", "/v1/trees/"+id+"/ops", `{"ops":[
		{"op":"append","message":{"role":"user","content":"c"}},
		{"op":"label","node":"`+root+`","label":"start"},
		{"op":"branch","from":"`+root+`","name":"`+leaf+`"},
		{"op":"edit","node":"`+leaf+`","message":{"role":"assistant","content":"b2"}},
		{"op":"regenerate","node":"`+leaf+`","message":{"role":"assistant","content":"b3"}},
		{"op":"switch","branch":"main"},
		{"op":"append","message":{"role":"user","content":"d"}}]}`)
	if r.status != 200 {
		t.Fatalf("ops: %d %s", r.status, r.body)
	}
	var made []string
	for i, v := range r.json(t)["results"].([]any) {
		if i == 0 || i == 3 || i == 4 || i == 6 {
			made = append(made, v.(string))
		}
	}
	w := s.writes[len(s.writes)-1]
	if !slices.Equal(w.Created, made) {
		t.Fatalf("Created %v, want the four new nodes %v", w.Created, made)
	}
	var puts []string
	for _, f := range w.PutNodes {
		puts = append(puts, f.Key)
	}
	for _, id := range made {
		if !slices.Contains(puts, id) {
			t.Fatalf("created node %s is not among the rows put %v", id, puts)
		}
	}
	if !slices.Contains(puts, root) || slices.Contains(w.Created, root) || slices.Contains(w.Created, leaf) {
		t.Fatalf("the labelled root and the leaf (a branch's name too) must be put and not created: put %v, created %v", puts, w.Created)
	}
}
