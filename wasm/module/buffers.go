package main

import "unsafe"

// input is where JavaScript writes a call's arguments; output holds the last
// call's result until the next call. Both stay referenced from these globals, so
// the (non-moving) Go collector keeps their addresses valid for JavaScript.
var input, output []byte

// bigInput is the size above which the input buffer is released after a call,
// so one large load does not pin its bytes for the life of the page.
const bigInput = 4 << 20

// reserve grows the input buffer to at least n bytes.
func reserve(n int) []byte {
	if n < 256 {
		n = 256
	}
	if cap(input) < n {
		input = make([]byte, n)
	}
	input = input[:cap(input)]
	return input
}

// releaseBig drops an input buffer that a large call grew.
func releaseBig() {
	if cap(input) > bigInput {
		input = nil
	}
}

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
