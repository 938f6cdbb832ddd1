package treecalls

import "unsafe"

// The call's input and output buffers are wasm/internal/bridge's. This file
// holds the module's own result buffer.

// scratch is the reusable output buffer of project and text: JS reads a result before
// the next call, so one buffer serves every call. It is backed by uint64s so
// that its start is 8-byte aligned and JS can read the slots as a Uint32Array.
var scratch []byte

// grow returns scratch with room for n bytes, length 0.
func grow(n int) []byte {
	if cap(scratch) < n {
		words := make([]uint64, (n+7)/8)
		scratch = unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(words))), len(words)*8)
	}
	return scratch[:0]
}

// text returns s in the scratch buffer: the result of a call that returns an
// id or a name, without allocating.
func text(s string) []byte { return append(grow(len(s)), s...) }
