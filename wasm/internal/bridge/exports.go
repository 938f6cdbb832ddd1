//go:build js && wasm

package bridge

import "unsafe"

// stReserve makes the input buffer hold at least n bytes and returns its address.
//
//go:wasmexport st_reserve
func stReserve(n uint32) uint32 {
	return uint32(uintptr(unsafe.Pointer(unsafe.SliceData(Reserve(int(n))))))
}

// stCall runs call number method with the n argument bytes in the input buffer,
// the tree handle and at as the time. It returns the length of the result in
// the output buffer, or -(length+1) when the result is a {code,message} error.
//
//go:wasmexport st_call
func stCall(method, handle, n uint32, at float64) int32 {
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
