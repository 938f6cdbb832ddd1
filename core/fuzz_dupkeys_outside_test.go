package core

import (
	"bytes"
	"errors"
	"testing"
)

// FuzzUnmarshalKeepDuplicateKeys: what loads with KeepDuplicateKeys saves back
// byte for byte; with a duplicate_key problem every projection fails closed
// (corrupt) and Merge refuses it; Repair leaves a clean tree that reloads
// without the option.
func FuzzUnmarshalKeepDuplicateKeys(f *testing.F) {
	f.Add([]byte(`{"format":"sessiontree","version":1,"root":"a","active_branch":"main","branches":{"main":{"name":"main","leaf":"a","created_at_ms":1}},"nodes":{"a":{"id":"a","children":[],"message":{"role":"user","role":"assistant","content":[{"type":"text","text":"x","text":"y"}]},"created_at_ms":1}}}`))
	f.Add([]byte(`{"format":"sessiontree","version":1,"root":"a","active_branch":"main","branches":{"main":{"name":"main","leaf":"b","created_at_ms":1},"x":{"name":"x","leaf":"a","created_at_ms":1}},"nodes":{"a":{"id":"a","children":["b"],"message":{"role":"user","r\u006fle":"u"},"created_at_ms":1},"b":{"id":"b","parent":"a","children":[],"message":{"role":"assistant","content":"hi","content":"ho"},"created_at_ms":2}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := Unmarshal(data, KeepDuplicateKeys())
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("uncoded %v", err)
			}
			return
		}
		saved := tr.Marshal()
		if back, err := Unmarshal(saved, KeepDuplicateKeys()); err != nil || !bytes.Equal(back.Marshal(), saved) {
			t.Fatalf("does not reload byte-equal: %v", err)
		}
		dup := false
		for _, p := range tr.Validate() {
			if p.Kind == ProblemDuplicateKey {
				dup = true
			}
		}
		if dup {
			if _, err := tr.LinearProjection(); err == nil {
				// only when the active path holds a dup: check via PathOf
				path, _ := tr.ActivePath()
				for _, id := range path {
					if tr.keyDups[id] != "" {
						t.Fatalf("projection through a duplicate key at %s did not fail", id)
					}
				}
			}
			if _, err := Merge(tr, New()); err == nil || !errors.Is(err, ErrCorrupt) {
				t.Fatalf("merge of a tree with duplicate keys: %v", err)
			}
		}
		tr.Repair()
		if p := tr.Validate(); len(p) > 0 {
			t.Fatalf("after repair: %+v", p)
		}
		out := tr.Marshal()
		back, err := Unmarshal(out)
		if err != nil {
			t.Fatalf("repaired tree does not load without the option: %v", err)
		}
		if !bytes.Equal(back.Marshal(), out) {
			t.Fatal("repaired tree not byte-stable")
		}
	})
}
