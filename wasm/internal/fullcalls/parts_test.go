package fullcalls

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/sessiontree/sessiontree/core"
)

// deltaParts gives a saved tree as delta documents that, applied in order,
// give the tree again; bad arguments are refused with a code.
func TestDeltaPartsOfAFileGiveTheTreeAgain(t *testing.T) {
	file := sample(t).Marshal()
	res, ok := do("deltaParts", file, []byte("150"))
	if !ok {
		t.Fatalf("refused: %s", res)
	}
	into := core.New()
	parts := 0
	for len(res) > 0 {
		n := binary.LittleEndian.Uint32(res)
		if err := into.ApplyDelta(res[4:4+n], true); err != nil {
			t.Fatalf("part %d: %v", parts, err)
		}
		res = res[4+n:]
		parts++
	}
	if parts < 2 {
		t.Fatalf("%d parts of 150 bytes for a tree of %d", parts, len(file))
	}
	if got := into.Marshal(); !bytes.Equal(got, file) {
		t.Fatalf("the parts give\n%s\nnot\n%s", got, file)
	}
	for _, bad := range [][][]byte{
		{file, []byte("0")},
		{file, []byte("many")},
		{[]byte(`{"format":"sessiontree"`), []byte("100")},
		{file},
	} {
		res, ok := do("deltaParts", bad...)
		if ok || !strings.Contains(string(res), `"code"`) {
			t.Fatalf("%q: %s", bad[len(bad)-1], res)
		}
	}
}
