package core

import (
	"bytes"
	"math/rand"
	"testing"

	"github.com/sessiontree/sessiontree/core/rawjson"
)

// A tree's delta parts, applied in order to an empty tree, or to one that took
// some of them before (a sync cut off), give that tree byte for byte. No part
// carries a node whose parent only a later part carries, and none but the
// last carries more than the limit and one row of node rows.
func TestDeltaPartsAppliedInOrderGiveTheTree(t *testing.T) {
	for seed := int64(1); seed <= 8; seed++ {
		rng := rand.New(rand.NewSource(seed))
		src := New(counterIDs())
		mustAppend(t, src, msg("user", "hello"), 1)
		for step := 0; step < 400; step++ {
			randomStep(rng, src, step)
		}
		want := src.Marshal()
		for _, limit := range []int{0, 300, 4000, 1 << 30} {
			parts := src.DeltaParts(limit)
			largest := 0
			for _, n := range src.nodes {
				b, _ := src.NodeJSON(n.id)
				largest = max(largest, len(b))
			}
			// A sync cut off after half the parts starts again from the first.
			half := New(counterIDs())
			for _, p := range parts[:len(parts)/2] {
				if err := half.ApplyDelta(p, true); err != nil {
					t.Fatal(err)
				}
			}
			for _, into := range []*Tree{New(counterIDs()), half} {
				carried := map[string]bool{}
				for k, p := range parts {
					ids, size := partNodes(t, p)
					if k < len(parts)-1 && size > limit+largest {
						t.Fatalf("seed %d limit %d: part %d has %d bytes of rows", seed, limit, k, size)
					}
					for id, parent := range ids {
						_, inTree := src.nodes[parent]
						_, here := ids[parent]
						if inTree && !here && !carried[parent] {
							t.Fatalf("seed %d limit %d: part %d carries %s before its parent %s", seed, limit, k, id, parent)
						}
					}
					for id := range ids {
						carried[id] = true
					}
					if err := into.ApplyDelta(p, true); err != nil {
						t.Fatalf("seed %d limit %d part %d of %d: %v", seed, limit, k, len(parts), err)
					}
				}
				if got := into.Marshal(); !bytes.Equal(got, want) {
					t.Fatalf("seed %d limit %d: the parts give another tree (%d bytes, want %d)", seed, limit, len(got), len(want))
				}
				if len(carried) != len(src.nodes) {
					t.Fatalf("seed %d limit %d: the parts carry %d of %d nodes", seed, limit, len(carried), len(src.nodes))
				}
			}
			if limit >= 1<<30 && len(parts) != 1 {
				t.Fatalf("seed %d: a tree under the limit went in %d parts", seed, len(parts))
			}
		}
	}
}

// An empty tree is one part, with its branches.
func TestDeltaPartsOfAnEmptyTree(t *testing.T) {
	src := New(counterIDs())
	parts := src.DeltaParts(100)
	if len(parts) != 1 {
		t.Fatalf("%d parts", len(parts))
	}
	into := New(counterIDs())
	if err := into.ApplyDelta(parts[0], true); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(into.Marshal(), src.Marshal()) {
		t.Fatalf("%s", parts[0])
	}
}

// partNodes reads a delta part's nodes: id → parent, and the bytes of their rows.
func partNodes(t *testing.T, part []byte) (map[string]string, int) {
	t.Helper()
	ids := map[string]string{}
	size := 0
	d := rawjson.NewDecoder(part)
	err := d.Object(func(key string) error {
		if key != "nodes" {
			_, err := d.Raw()
			return err
		}
		return d.Object(func(id string) error {
			raw, err := d.Raw()
			if err != nil {
				return err
			}
			size += len(raw)
			var parent string
			nd := rawjson.NewDecoder(raw)
			err = nd.Object(func(k string) error {
				if k == "parent" && !nd.Null() {
					var err error
					parent, err = nd.String()
					return err
				}
				_, err := nd.Raw()
				return err
			})
			ids[id] = parent
			return err
		})
	})
	if err != nil {
		t.Fatalf("%v: %s", err, part)
	}
	return ids, size
}

// Any file that loads as a sound tree goes in parts that rebuild it; no file
// that loads makes DeltaParts panic or leave a node out.
func FuzzDeltaParts(f *testing.F) {
	tr := New(counterIDs())
	mustAppend(f, tr, msg("user", "a"), 1)
	mustAppend(f, tr, msg("assistant", "b"), 2)
	f.Add(tr.Marshal(), 40)
	f.Add([]byte(`{"format":"sessiontree","version":1,"root":"a","active_branch":"main","branches":{"main":{"name":"main","leaf":"b"}},"nodes":{"a":{"id":"a","parent":"b","children":["b"],"message":{}},"b":{"id":"b","parent":"a","children":["a"],"message":{}}}}`), 1)
	f.Fuzz(func(t *testing.T, file []byte, limit int) {
		src, err := Unmarshal(file)
		if err != nil {
			return
		}
		parts := src.DeltaParts(limit % 4096)
		nodes := 0
		for _, p := range parts {
			ids, _ := partNodes(t, p)
			nodes += len(ids)
		}
		if nodes != len(src.nodes) {
			t.Fatalf("%d parts carry %d of %d nodes", len(parts), nodes, len(src.nodes))
		}
		if len(src.Validate()) > 0 {
			return
		}
		into := New(counterIDs())
		for k, p := range parts {
			if err := into.ApplyDelta(p, true); err != nil {
				t.Fatalf("part %d of %d: %v", k, len(parts), err)
			}
		}
		if got, want := into.Marshal(), src.Marshal(); !bytes.Equal(got, want) {
			t.Fatalf("the parts give\n%s\nnot\n%s", got, want)
		}
	})
}
