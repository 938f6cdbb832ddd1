package core

import (
	"bytes"
	"strconv"
	"testing"
)

// marshalPieces joins what a MarshalCursor writes in pieces of size bytes, and
// counts them.
func marshalPieces(t *testing.T, tr *Tree, size int) ([]byte, int) {
	t.Helper()
	c := tr.MarshalInPieces()
	var all []byte
	for n := 1; ; n++ {
		piece, more, err := c.Next(nil, size)
		if err != nil {
			t.Fatal(err)
		}
		if len(piece) == 0 {
			t.Fatalf("piece %d is empty", n)
		}
		all = append(all, piece...)
		if !more {
			if rest, more, err := c.Next(nil, size); len(rest) != 0 || more || err != nil {
				t.Fatalf("after the last piece: %q, %v, %v", rest, more, err)
			}
			return all, n
		}
	}
}

// The pieces of a MarshalCursor are Marshal's bytes, whatever their size: a
// tree with branches, labels, summaries and forks, an empty tree, a loaded
// file saved unchanged (its nodes in one piece) and changed.
func TestMarshalInPiecesWritesMarshalsBytes(t *testing.T) {
	empty := New(counterIDs())
	tr, ids := chain(t, "q", "a", "q2")
	tr.Rewind(ids[1], 10)
	mustAppend(t, tr, Message(`{"role":"user","content":"é 😀 \u2028 \"quoted\""}`), 11)
	tr.Label(ids[0], "start ✓")
	tr.Branch(ids[0], "__proto__", 12)
	tr.SummarizeBranch("branch-1", "the first try", "m-1", 13)
	for i := range 300 {
		mustAppend(t, tr, msg("user", "message "+strconv.Itoa(i)), int64(20+i))
	}
	loaded, err := Unmarshal(tr.Marshal())
	if err != nil {
		t.Fatal(err)
	}
	for name, x := range map[string]*Tree{"empty": empty, "forked": tr, "loaded": loaded} {
		want := x.Marshal()
		for _, size := range []int{0, 1, 100, 4096, 1 << 20} {
			got, n := marshalPieces(t, x, size)
			if !bytes.Equal(got, want) {
				t.Fatalf("%s, pieces of %d: %d pieces\n%s\nwant\n%s", name, size, n, got, want)
			}
			if name == "forked" && size <= 1 && n != len(x.nodes) {
				t.Fatalf("%s, pieces of %d: %d pieces for %d nodes (one node a piece)", name, size, n, len(x.nodes))
			}
			if name == "forked" && size == 1<<20 && n != 1 {
				t.Fatalf("%s: %d pieces of 1 MiB for %d bytes", name, n, len(want))
			}
		}
	}
	mustAppend(t, loaded, msg("user", "after"), 400)
	if got, _ := marshalPieces(t, loaded, 100); !bytes.Equal(got, loaded.Marshal()) {
		t.Fatal("a loaded tree changed since: its pieces are not Marshal's bytes")
	}
}

// A tree changed between two pieces fails the next one: the pieces would not
// make one file.
func TestMarshalInPiecesRefusesATreeChangedMeanwhile(t *testing.T) {
	tr, _ := chain(t, "a", "b", "c", "d")
	c := tr.MarshalInPieces()
	if _, more, err := c.Next(nil, 1); err != nil || !more {
		t.Fatalf("first piece: more %v, %v", more, err)
	}
	mustAppend(t, tr, msg("user", "e"), 50)
	_, more, err := c.Next(nil, 1)
	wantCode(t, err, CodeInvalidInput)
	if more {
		t.Fatal("more after a refusal")
	}
}
