//go:build js && wasm

package main

import "unsafe"

// The boundary with JavaScript is three WebAssembly exports over Go-owned byte
// buffers: JS writes a call's arguments into the input buffer (st_reserve), runs
// st_call, and reads the result from the output buffer (st_out). An export costs
// well under a microsecond where a js.FuncOf call costs ~10–20 µs, and no
// js.Value crosses, so no JavaScript value can make Go panic.

// stReserve makes the input buffer hold at least n bytes and returns its address.
//
//go:wasmexport st_reserve
func stReserve(n uint32) uint32 {
	return uint32(uintptr(unsafe.Pointer(unsafe.SliceData(reserve(int(n))))))
}

// stCall runs method on the tree behind handle with the n argument bytes in the
// input buffer and at as the time. It returns the length of the result in the
// output buffer, or -(length+1) when the result is a {code,message} error.
//
//go:wasmexport st_call
func stCall(method, handle, n uint32, at float64) int32 {
	res, ok := call(method, handle, input[:min(int(n), len(input))], at)
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
