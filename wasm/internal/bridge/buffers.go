package bridge

import "unsafe"

// The call's buffers. input is where JavaScript writes a call's arguments;
// output is the module's reusable result buffer (Out). Both stay referenced
// from these globals, so the (non-moving) Go collector keeps their addresses
// valid for JavaScript between st_reserve, st_call and st_out.
//
// Memory that only grows (issue 15): WebAssembly memory never shrinks, and the
// collector's background work only runs when Go has the thread, so garbage
// from large arguments and results piled up between collections (a 100k-node
// load + projection + free grew the module ~230 MB a round). So large buffers
// are reused rather than dropped, a load keeps the input buffer as the tree's
// storage instead of copying it (TakeInput), and what large buffers do become
// garbage is counted (debt) and collected before the next large call (see
// memory.go).
var (
	input  []byte
	output []byte // the last call's result, until the next call
	outBuf []byte // the reusable result buffer handed out by Out; 8-byte aligned
	taken  bool   // the call took the input buffer (TakeInput)
	outAsk = -1   // the most this call asked of Out; -1: it did not
	// bigHeld: a buffer of bigCall bytes or more was reserved for the next
	// call, and the collector is held until that call ends (settle).
	bigHeld bool
)

// bigBuffer is the size above which a buffer that a call used less than a
// quarter of is released after the call (its bytes counted as debt), so that
// one large load does not pin its size for the life of the page while a run of
// large calls of similar size reuses one buffer. The JS side knows it
// (BIG_INPUT in js/sessiontree.js): it drops its cached address then.
const bigBuffer = 4 << 20

// Reserve grows the input buffer to at least n bytes and returns it, whole, or
// nil when the module's memory cannot hold n more bytes (see Room). Tests
// write a call's arguments into it as JavaScript does. JavaScript asks for
// nothing (n == 0) when it found that a call grew the module's memory past
// 64 MB, perhaps while it writes a call's arguments: then the buffer stays as
// it is, and the garbage counted since the last collection is collected when
// it would cover many more growths (Room with growCollect). (A call with no
// arguments asks for nothing too: it gets a buffer all the same.)
func Reserve(n int) []byte {
	if n == 0 {
		if !tidyRunning.Load() { // else the tidy's cycle frees it, in idle slices
			_ = Room(growCollect)
		}
		if input != nil {
			return input[:cap(input)]
		}
	}
	if n < 256 {
		n = 256
	}
	if n >= bigCall && !bigHeld {
		// A call given this much (a file to load, a large import) allocates
		// mostly what stays live: the collector waits until it ends (settle).
		bigHeld = true
		HoldCollector()
	}
	if cap(input) > bigBuffer && n <= bigBuffer {
		// JavaScript keeps the address of a buffer it asked no more than
		// bigBuffer bytes of for later calls, and only drops the address of
		// a larger one after each call (settle may release or hand over a
		// large buffer). So a small request never gets the large buffer: had
		// it, settle would release it after this call while JavaScript went on
		// writing the next calls' arguments into freed memory.
		owe(cap(input))
		input = nil
	}
	if cap(input) < n {
		// What it holds is not needed (JavaScript writes after this): drop
		// it first, so that a collection before a large buffer can reuse it.
		if input != nil {
			owe(cap(input))
			input = nil
		}
		if Room(n) != nil {
			return nil
		}
		input = make([]byte, n)
	}
	input = input[:cap(input)]
	return input
}

// TakeInput hands a large input buffer over to the running call, which keeps
// it (a tree loaded from it keeps its bytes, with no copy): the next call gets
// a new one, and views of it that the call was given stay valid for good. It
// reports false, and hands nothing over, for a buffer of bigBuffer bytes or
// less: JavaScript keeps writing into those, so the call must copy what it
// keeps (which costs little at that size).
func TakeInput() bool {
	taken = cap(input) > bigBuffer
	return taken
}

// Out returns the reusable result buffer with room for n bytes, length 0. A
// call's result may be built in it: it is valid until the next call. Its start
// is 8-byte aligned, so JavaScript can read 32-bit words of it in place.
func Out(n int) []byte {
	outAsk = max(outAsk, n)
	if cap(outBuf) < n {
		if outBuf != nil {
			owe(cap(outBuf))
			outBuf = nil
		}
		if n > bigBuffer {
			// A large result grows by a little at a time (a save after each
			// append): an eighth more room saves a new buffer each time. Room
			// collects the old one first when it is worth it.
			n += n / 8
			_ = Room(n)
		}
		words := make([]uint64, (n+7)/8)
		outBuf = unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(words))), len(words)*8)
	}
	return outBuf[:0]
}

// KeepOut makes b, a result grown by appending to Out's buffer (which may have
// moved it), the reusable result buffer.
func KeepOut(b []byte) {
	if cap(b) > cap(outBuf) {
		if outBuf != nil {
			owe(cap(outBuf))
		}
		outBuf = b[:0]
	}
}

// settle runs after every call, n the argument bytes it was given: it drops a
// taken input buffer, and a large input or result buffer that this call used
// less than a quarter of (a call that did not use Out leaves that one be).
func settle(n int) {
	if bigHeld {
		bigHeld = false
		ReleaseCollector()
	}
	Settled()
	if taken {
		taken, input = false, nil
	} else if cap(input) > bigBuffer && n < cap(input)/4 {
		owe(cap(input))
		input = nil
	}
	if outAsk >= 0 && cap(outBuf) > bigBuffer && outAsk < cap(outBuf)/4 {
		owe(cap(outBuf))
		outBuf = nil
	}
	outAsk = -1
}
