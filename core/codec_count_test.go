package core

import (
	"bytes"
	"testing"
)

// Loading sizes its slabs by counting "children" keys while copying the input:
// the count is exact across the copy's chunk boundaries.
func TestCloneCountingCountsAcrossChunkBoundaries(t *testing.T) {
	for _, shift := range []int{0, 1, 5, 10, 11, 12} {
		pad := bytes.Repeat([]byte{'x'}, 64<<10-shift)
		data := append(append(append([]byte{}, pad...), childrenKey...), pad...)
		data = append(data, childrenKey...)
		out, n := cloneCounting(data, childrenKey)
		if n != 2 || !bytes.Equal(out, data) {
			t.Fatalf("shift %d: counted %d, copy equal %v; want 2, true", shift, n, bytes.Equal(out, data))
		}
		if len(data) > 0 && &out[0] == &data[0] {
			t.Fatalf("shift %d: the result aliases the input", shift)
		}
	}
}
