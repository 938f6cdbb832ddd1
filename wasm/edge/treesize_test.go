//go:build !js || stock

package edge

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// storedBytes is what tree id's rows take in store, each its key and JSON,
// as Limits.Tree counts them.
func storedBytes(store *MemStore, id string) int64 {
	store.mu.Lock()
	defer store.mu.Unlock()
	return store.trees[id].bytes()
}

func treeLimited(store *MemStore, max int64) *Handler {
	lim := DefaultLimits
	lim.Tree = max
	return New(Config{Store: store, SigningKey: testKey, Limits: lim})
}

func TestATreeGrowsToItsLimitAndNoFurther(t *testing.T) {
	store := NewMemStore()
	const max = 64 << 10
	c := newClient(t, treeLimited(store, max), "alice")
	id := c.create(`{"messages":[{"role":"system","content":"be brief"}]}`)
	refused := false
	for i := 0; i < 100 && !refused; i++ {
		before := storedBytes(store, id)
		etag := c.do("GET", "/v1/trees/"+id, "").header.Get("ETag")
		r := c.appendMsg(id, strconv.Itoa(i)+strings.Repeat(" words", 400))
		switch r.status {
		case 200:
			if got := storedBytes(store, id); got > max {
				t.Fatalf("append %d took the tree to %d bytes, past its limit of %d", i, got, max)
			}
		case 413:
			wantError(t, r, 413, "too_large")
			if !strings.Contains(string(r.body), "at most "+strconv.Itoa(max)) || !strings.Contains(string(r.body), "nothing was stored") ||
				!strings.Contains(string(r.body), `"limit":"tree"`) {
				t.Fatalf("the refusal should name the limit and say nothing was stored: %s", r.body)
			}
			if got := storedBytes(store, id); got != before {
				t.Fatalf("a refused append changed the stored tree: %d bytes, was %d", got, before)
			}
			if now := c.do("GET", "/v1/trees/"+id, "").header.Get("ETag"); now != etag {
				t.Fatalf("a refused append moved the ETag: %s, was %s", now, etag)
			}
			if before+2400 <= max {
				t.Fatalf("refused at %d bytes, with room for the message under %d", before, max)
			}
			refused = true
		default:
			t.Fatalf("append %d: %d %s", i, r.status, r.body)
		}
	}
	if !refused {
		t.Fatal("100 appends of 2.4 KB each went into a tree of at most 64 KiB")
	}
	// Reads go on, and so does everything that does not grow the tree.
	if r := c.do("GET", "/v1/trees/"+id+"/projection", ""); r.status != 200 {
		t.Fatalf("a read of a tree at its limit: %d %s", r.status, r.body)
	}
}

func TestAWriteThatDoesNotGrowATreeOverItsLimitGoesIn(t *testing.T) {
	store := NewMemStore()
	big := newClient(t, treeLimited(store, 1<<20), "alice")
	id := big.create(`{"messages":[{"role":"user","content":"` + strings.Repeat("x", 30000) + `"}]}`)
	node := big.do("GET", "/v1/trees/"+id+"/projection", "")
	var root string
	for k := range store.trees[id].nodes {
		root = k
	}
	if r := big.do("POST", "/v1/trees/"+id+"/ops", `{"ops":[{"op":"label","node":"`+root+`","label":"`+strings.Repeat("l", 2000)+`"}]}`); r.status != 200 {
		t.Fatalf("label: %d %s (%s)", r.status, r.body, node.body)
	}
	// The same tree under a limit it is already past (a tree stored before
	// the limit was lowered).
	small := newClient(t, treeLimited(store, 16<<10), "alice")
	wantError(t, small.appendMsg(id, "one more"), 413, "too_large")
	wantError(t, small.do("POST", "/v1/trees/"+id+"/ops", `{"ops":[{"op":"label","node":"`+root+`","label":"`+strings.Repeat("m", 3000)+`"}]}`), 413, "too_large")
	before := storedBytes(store, id)
	if r := small.do("POST", "/v1/trees/"+id+"/ops", `{"ops":[{"op":"label","node":"`+root+`","label":"short"}]}`); r.status != 200 {
		t.Fatalf("a shorter label on a tree over its limit: %d %s", r.status, r.body)
	}
	if after := storedBytes(store, id); after >= before {
		t.Fatalf("the shorter label took the tree from %d to %d bytes", before, after)
	}
}

func TestACreateOverTheTreeLimitIsRefused(t *testing.T) {
	store := NewMemStore()
	c := newClient(t, treeLimited(store, 16<<10), "alice")
	r := c.do("POST", "/v1/trees", `{"messages":[{"role":"user","content":"`+strings.Repeat("x", 20000)+`"}]}`)
	wantError(t, r, 413, "too_large")
	if r := c.do("GET", "/v1/trees", ""); !strings.Contains(string(r.body), `"trees":[]`) {
		t.Fatalf("a refused create left a tree: %s", r.body)
	}
}

// TestPropertyNoWriteGrowsATreePastItsLimit: random writes of every kind
// that adds bytes (appends, regenerates, new branches, summaries, labels, a
// merge of another copy) on one tree under a limit: after each, the stored
// tree is at most the limit, or no larger than before the write; and every
// refusal came when the write would have passed it.
func TestPropertyNoWriteGrowsATreePastItsLimit(t *testing.T) {
	for seed := uint64(1); seed <= 4; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		store := NewMemStore()
		max := int64(24<<10 + rng.IntN(40<<10))
		c := newClient(t, treeLimited(store, max), "alice")
		id := c.create(`{"messages":[{"role":"user","content":"hi"}]}`)
		refusals := 0
		for i := 0; i < 300; i++ {
			var root, leaf string
			for k := range store.trees[id].nodes {
				leaf = k
				if root == "" {
					root = k
				}
			}
			text := strings.Repeat("w", rng.IntN(3000))
			var ops string
			switch rng.IntN(6) {
			case 0, 1:
				ops = `{"op":"append","message":{"role":"user","content":"` + text + `"}}`
			case 2:
				ops = `{"op":"regenerate","node":"` + leaf + `","message":{"role":"assistant","content":"` + text + `"}}`
			case 3:
				ops = `{"op":"branch","from":"` + root + `","name":"b` + strconv.Itoa(i) + `"}`
			case 4:
				ops = `{"op":"summarize","branch":"main","summary":"` + text + `"}`
			default:
				ops = `{"op":"label","node":"` + leaf + `","label":"` + text[:min(len(text), 4000)] + `"}`
			}
			before := storedBytes(store, id)
			r := c.do("POST", "/v1/trees/"+id+"/ops", `{"ops":[`+ops+`]}`)
			after := storedBytes(store, id)
			switch r.status {
			case 200:
				if after > max && after > before {
					t.Fatalf("seed %d, write %d (%s): the tree went from %d to %d bytes, past its limit of %d", seed, i, ops[:min(len(ops), 60)], before, after, max)
				}
			case 413:
				refusals++
				if after != before {
					t.Fatalf("seed %d: a refused write changed the tree", seed)
				}
			case 400, 404, 409:
				// a random op that does not apply (a regenerate of a root, a taken name)
			default:
				t.Fatalf("seed %d, write %d: %d %s", seed, i, r.status, r.body)
			}
		}
		if refusals == 0 {
			t.Fatalf("seed %d: 300 writes of up to 3 KB never reached a limit of %d", seed, max)
		}
	}
}

// Limits.Nodes bounds what one request brings (a created, imported or
// merged tree's nodes, a delta's rows), not the tree: a tree that appends took
// past that many nodes still takes a delta (before, 413 "the tree would have
// 62 nodes": a live() client with deltas could no longer push to it).
func TestADeltaGoesIntoATreeGrownPastTheNodeLimit(t *testing.T) {
	lim := DefaultLimits
	lim.Nodes = 50
	h := New(Config{Store: NewMemStore(), SigningKey: testKey, Limits: lim})
	c := newClient(t, h, "alice")
	id := c.create(`{"messages":[{"role":"user","content":"hi"}]}`)
	ops := make([]string, 60)
	for i := range ops {
		ops[i] = `{"op":"append","message":{"role":"user","content":"` + strconv.Itoa(i) + `"}}`
	}
	if r := c.do("POST", "/v1/trees/"+id+"/ops", `{"ops":[`+strings.Join(ops, ",")+`]}`); r.status != 200 {
		t.Fatalf("60 appends: %d %s", r.status, r.body)
	}
	delta, etag := deltaOf(t, c, id, appendText("one more, by delta"))
	if r := c.do("POST", "/v1/trees/"+id+"/delta", delta, "If-Match", etag); r.status != 200 {
		t.Fatalf("a delta of one node on a tree of 61: %d %s", r.status, r.body)
	}
	if r := c.do("GET", "/v1/trees/"+id+"/stats", ""); !strings.Contains(string(r.body), `"nodes":62`) {
		t.Fatalf("after the delta: %s", r.body)
	}
}
