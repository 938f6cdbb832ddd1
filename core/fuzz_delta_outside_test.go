package core

import (
	"bytes"
	"testing"
)

// FuzzDeltaPartsRebuild: DeltaParts of any sound loaded tree, applied in order
// to an empty tree, brings it every row (parts.go's promise); and any delta
// applied to any loaded tree either is refused leaving it unchanged, or leaves
// a sound tree that saves and loads back byte for byte.
func FuzzDeltaPartsRebuild(f *testing.F) {
	for i, file := range outsideSeedFiles() {
		f.Add(file, int16(i*37%300), []byte(`{"active":"main","root":null}`))
	}
	f.Fuzz(func(t *testing.T, file []byte, limit int16, delta []byte) {
		src, err := Unmarshal(file)
		if err != nil || len(src.Validate()) > 0 {
			return
		}
		dst := New()
		for i, p := range src.DeltaParts(int(limit)) {
			if err := dst.ApplyDelta(p, true); err != nil {
				t.Fatalf("part %d refused: %v\n%s", i, err, p)
			}
		}
		if got, want := dst.Marshal(), src.Marshal(); !bytes.Equal(got, want) {
			t.Fatalf("rebuilt from parts differs:\n%s", treeDiff(got, want))
		}
		before := src.Marshal()
		err = src.ApplyDelta(delta, true)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("uncoded %v", err)
			}
			if !bytes.Equal(src.Marshal(), before) {
				t.Fatal("refused delta changed the tree")
			}
			return
		}
		if p := src.Validate(); len(p) > 0 {
			t.Fatalf("accepted delta left problems %+v", p)
		}
		saved := src.Marshal()
		back, err := Unmarshal(saved)
		if err != nil || !bytes.Equal(back.Marshal(), saved) {
			t.Fatalf("accepted delta left a tree that does not reload: %v", err)
		}
	})
}
