package core

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// FuzzUnmarshal: no input panics or hangs the loader; whatever loads validates
// or repairs to a clean tree, and re-saves byte-stably; a save that copies the
// file's nodes writes what writing each node writes.
func FuzzUnmarshal(f *testing.F) {
	tr, ids := chain(f, "q", "a", "b")
	tr.Rewind(ids[0], 9)
	tr.Label(ids[1], "l")
	tr.SummarizeBranch("branch-1", "s", "m", 3)
	f.Add(tr.Marshal())
	f.Add(New().Marshal())
	entries, _ := os.ReadDir(filepath.Join("testdata", "corrupt"))
	for _, e := range entries {
		if b, err := os.ReadFile(filepath.Join("testdata", "corrupt", e.Name())); err == nil && len(b) < 4096 {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := Unmarshal(data)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error without a code: %v", err)
			}
			return
		}
		for _, b := range tr.Branches() {
			tr.LinearProjectionOf(b.Name)
			tr.StubSummary(b.Name)
		}
		sameSave(t, "the file as loaded", tr)
		tr.SpliceForLinearExport()
		tr.Stats()
		problems := tr.Validate()
		saved := tr.Marshal()
		if len(problems) == 0 {
			back, err := Unmarshal(saved)
			if err != nil || !bytes.Equal(back.Marshal(), saved) {
				t.Fatalf("valid tree does not round-trip: %v", err)
			}
		}
		tr.Repair()
		if p := tr.Validate(); len(p) != 0 {
			t.Fatalf("after Repair: %+v", p)
		}
		if _, err := Unmarshal(tr.Marshal()); err != nil {
			t.Fatalf("repaired tree does not reload: %v", err)
		}
	})
}

// FuzzOps: any operation sequence, from any seed, keeps the tree valid.
func FuzzOps(f *testing.F) {
	for _, s := range []uint64{1, 2, 3, 42} {
		f.Add(s, uint8(40))
	}
	f.Fuzz(func(t *testing.T, seed uint64, n uint8) {
		g := &opGen{r: rand.New(rand.NewPCG(seed, 1)), deletes: seed%2 == 0}
		tr := New(counterIDs())
		for step := range int(n) {
			tr.Apply([]Op{g.op(tr)}, 1)
			if step%8 == 0 {
				checkInvariants(t, seed, step, tr, g.deletes)
			}
		}
		checkInvariants(t, seed, int(n), tr, g.deletes)
	})
}

// FuzzParseOps: the op decoder never panics and reports coded errors.
func FuzzParseOps(f *testing.F) {
	f.Add([]byte(`[{"op":"append","message":{"role":"user","content":"x"},"at":1}]`))
	f.Add([]byte(`[{"op":"branch","from":"a","name":"__proto__"},{"op":"summarize","branch":"b","summary":"s","modelId":null}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		ops, err := ParseOps(data)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error without a code: %v", err)
			}
			return
		}
		tr := New(counterIDs())
		tr.Apply(ops, 1)
		if p := tr.Validate(); len(p) != 0 {
			t.Fatalf("%+v", p)
		}
	})
}
