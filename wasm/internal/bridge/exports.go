//go:build js && wasm

package bridge

import (
	"runtime"
	"unsafe"
)

// calls counts st_call invocations; every yieldEvery-th yields (see stCall).
var calls uint32

const yieldEvery = 64

// stReserve makes the input buffer hold at least n bytes and returns its
// address, or 0 when the module's memory cannot take them; n == 0 tells the
// module its memory grew (see Reserve). Addresses and lengths cross as i32,
// which JavaScript reads signed: it reads them >>> 0.
//
//go:wasmexport st_reserve
func stReserve(n uint32) uint32 {
	buf := Reserve(int(n))
	if buf == nil {
		return 0 // the memory cannot take n more bytes: JavaScript throws too_large
	}
	return uint32(uintptr(unsafe.Pointer(unsafe.SliceData(buf))))
}

// stCall runs call number method with the n argument bytes in the input buffer,
// the tree handle and at as the time. It returns the length of the result in
// the output buffer, or -(length+1) when the result is a {code,message} error.
//
//go:wasmexport st_call
func stCall(method, handle, n uint32, at float64) int32 {
	if calls++; calls%yieldEvery == 0 && !tidyRunning.Load() {
		// Between exports nothing runs but JavaScript: main waits in select{},
		// so the garbage collector's background workers only get the CPU when a
		// call yields. Without this a cycle advances only through allocation
		// (mark assists), keeping write barriers on and the heap growing; a
		// yield every 64 calls (~1.5 µs each) lets cycles finish: 10k single
		// appends 34.6 → 32.3 ms and regenerate 6.6 → 5.0 ms (medians, Node).
		// Not while a tidy collection runs (tidy.go): its steps drive that
		// cycle, and here its mark worker would take, inside a user's call,
		// the share of the time it saved up while JavaScript ran.
		runtime.Gosched()
	}
	res, ok := Do(method, handle, input[:min(int(n), len(input))], at)
	output = res
	if !ok {
		return -int32(len(res)) - 1
	}
	return int32(len(res))
}

// stOut returns the address of the output buffer.
//
//go:wasmexport st_out
func stOut() uint32 {
	if len(output) == 0 {
		return 0
	}
	return uint32(uintptr(unsafe.Pointer(unsafe.SliceData(output))))
}
