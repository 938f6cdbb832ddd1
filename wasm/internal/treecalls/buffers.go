package treecalls

import "github.com/sessiontree/sessiontree/wasm/internal/bridge"

// The call's input buffer and its reusable result buffer are
// wasm/internal/bridge's (Reserve, Out). This file holds the small one of ids
// and names.

// short is the reusable result buffer of calls that return an id or a branch
// name: JS reads a result before the next call, so one buffer serves every
// call, and such a call never touches the large result buffer (bridge.Out),
// which a save between appends then keeps.
var short []byte

// grow returns the reusable result buffer with room for n bytes, length 0.
func grow(n int) []byte { return bridge.Out(n) }

// text returns s in the short buffer: the result of a call that returns an id
// or a name, without allocating.
func text(s string) []byte {
	if cap(short) < len(s) {
		short = make([]byte, 0, max(64, len(s)))
	}
	return append(short[:0], s...)
}
