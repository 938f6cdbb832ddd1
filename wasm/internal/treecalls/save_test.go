package treecalls

import (
	"encoding/binary"
	"strconv"
	"strings"
	"testing"

	"github.com/sessiontree/sessiontree/wasm/internal/bridge"
)

// saveAt is a save call at at (SaveInParts, SaveInPieces, SaveNextPiece).
func saveAt(t *testing.T, handle uint32, at float64) (string, bool) {
	t.Helper()
	for i, m := range served {
		if m.Name == "save" {
			res, ok := bridge.Do(uint32(i+1), handle, bridge.Reserve(0)[:0], at)
			return string(res), ok
		}
	}
	t.Fatal("no save")
	return "", false
}

// savedInPieces joins the pieces of a save in pieces, and counts them.
func savedInPieces(t *testing.T, h uint32) (string, int) {
	t.Helper()
	var all strings.Builder
	res, ok := saveAt(t, h, SaveInPieces)
	for n := 1; ; n++ {
		if !ok || len(res) < 8 || res[0] != 1 {
			t.Fatalf("piece %d: %.80q", n, res)
		}
		all.WriteString(res[8:])
		if binary.LittleEndian.Uint32([]byte(res[4:8])) == 0 {
			return all.String(), n
		}
		res, ok = saveAt(t, h, SaveNextPiece)
	}
}

// A save in pieces writes what save writes, through pieces of about a MiB;
// any other call in between ends it, and a next piece with none under way is
// refused.
func TestASaveInPiecesIsTheSaveThroughASmallBuffer(t *testing.T) {
	msgs := make([]string, 6000)
	for i := range msgs {
		msgs[i] = `{"role":"user","content":"message ` + strconv.Itoa(i) + ` ` + strings.Repeat("a sentence of an ordinary chat reply, ", 6) + `"}`
	}
	h := handleOf(t, must(t, "fromLinear", 0, "["+strings.Join(msgs, ",")+"]"))
	want := must(t, "save", h)
	got, n := savedInPieces(t, h)
	if got != want {
		t.Fatalf("the pieces are not the save: %d bytes in %d pieces, want %d", len(got), n, len(want))
	}
	if n != len(want)/pieceSize+1 || n < 2 {
		t.Fatalf("%d pieces for %d bytes", n, len(want))
	}
	if trees[h].size != len(want) {
		t.Fatalf("the tree's size %d after its save in pieces, want %d", trees[h].size, len(want))
	}
	// A call between two pieces ends the save.
	if res, ok := saveAt(t, h, SaveInPieces); !ok || res[4] != 1 {
		t.Fatalf("first piece: %.40q", res)
	}
	must(t, "pathLength", h)
	if res, ok := saveAt(t, h, SaveNextPiece); ok || code(t, res) != "invalid_input" {
		t.Fatalf("a next piece after another call: %.80q", res)
	}
	// A small tree is one piece; a loaded one unchanged is answered in parts.
	small := handleOf(t, must(t, "fromLinear", 0, `[{"role":"user","content":"hi"}]`))
	if got, n := savedInPieces(t, small); n != 1 || got != must(t, "save", small) {
		t.Fatalf("a small tree: %d pieces, %q", n, got)
	}
	loaded := handleOf(t, must(t, "load", 0, want))
	if res, ok := saveAt(t, loaded, SaveInPieces); !ok || res[0] != 0 {
		t.Fatalf("a loaded tree unchanged: %.40q, want its parts", res)
	}
}

// save() (SaveInParts) of a tree whose file passes bigPiece comes in pieces of
// that size, which JavaScript joins, not in one result buffer of the file's
// size; a smaller file comes whole.
func TestASaveOfAFilePastBigPieceComesInPieces(t *testing.T) {
	msgs := make([]string, 0, 40000)
	for i := 0; len(msgs) < cap(msgs); i++ {
		msgs = append(msgs, `{"role":"user","content":"message `+strconv.Itoa(i)+` ✨ `+strings.Repeat("a sentence of an ordinary chat reply, ", 6)+`"}`)
	}
	h := handleOf(t, must(t, "fromLinear", 0, "["+strings.Join(msgs, ",")+"]"))
	must(t, "append", h, `{"role":"assistant","content":"changed since"}`)
	want := must(t, "save", h) // at 0: whole
	if len(want) <= bigPiece+bigPiece/4 {
		t.Fatalf("the file is %d bytes: the test proves nothing", len(want))
	}
	var all strings.Builder
	res, ok := saveAt(t, h, SaveInParts)
	n := 1
	for ; ; n++ {
		if !ok || len(res) < 8 || res[0] != 1 {
			t.Fatalf("piece %d: %.80q", n, res)
		}
		if len(res)-8 > bigPiece+4096 {
			t.Fatalf("piece %d has %d bytes", n, len(res)-8)
		}
		all.WriteString(res[8:])
		if binary.LittleEndian.Uint32([]byte(res[4:8])) == 0 {
			break
		}
		res, ok = saveAt(t, h, SaveNextPiece)
	}
	if all.String() != want || n != len(want)/bigPiece+1 {
		t.Fatalf("%d pieces of %d bytes, want the save's %d bytes", n, all.Len(), len(want))
	}
	small := handleOf(t, must(t, "fromLinear", 0, `[{"role":"user","content":"hi"}]`))
	if res, ok := saveAt(t, small, SaveInParts); !ok || res[0] != '{' {
		t.Fatalf("a small tree: %.40q, want the file whole", res)
	}
}
