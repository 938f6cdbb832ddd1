package fullcalls

import (
	"encoding/binary"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/rawjson"
	"github.com/sessiontree/sessiontree/wasm/internal/bridge"
	"github.com/sessiontree/sessiontree/wasm/internal/treecalls"
)

// deltaParts reads argument 0, a .tree.json file, and returns its rows as
// delta documents of about argument 1 (a decimal number) bytes of node rows
// each, in the order they are to be applied (core's Tree.DeltaParts): each
// a little-endian uint32 length and the document.
func deltaParts(c *treecalls.Request) ([]byte, error) {
	data, err := c.Arg(0, "tree")
	if err != nil {
		return nil, err
	}
	limit, err := c.Str(1, "bytes")
	if err != nil {
		return nil, err
	}
	n, ok := rawjson.Atoi(limit)
	if !ok || n < 1 {
		return nil, bridge.Invalid(`"bytes" must be a positive integer`)
	}
	t, err := core.Unmarshal(data) // copies data
	if err != nil {
		return nil, err
	}
	defer scratch(t, len(data))
	parts := t.DeltaParts(n)
	size := 0
	for _, p := range parts {
		size += 4 + len(p)
	}
	out := make([]byte, 0, size)
	for _, p := range parts {
		out = binary.LittleEndian.AppendUint32(out, uint32(len(p)))
		out = append(out, p...)
	}
	return out, nil
}
