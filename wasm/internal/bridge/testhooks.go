//go:build js && wasm && sessiontree_testhooks

package bridge

import "unsafe"

// Test hooks, only in modules built with -tags sessiontree_testhooks (make
// test-js builds them into js/test/build): js/test/memory-limit.mjs holds
// memory with them to put every later allocation past 2 GiB, and to bring the
// module to the 4 GiB limit of wasm32.

var held [][]byte

// stTestHold allocates n bytes and keeps them, checked by Room like any call's
// need, and returns their address (0 when Room refuses). n == 0 releases
// everything held.
//
//go:wasmexport st_test_hold
func stTestHold(n uint32) uint32 {
	if n == 0 {
		for _, h := range held {
			owe(cap(h))
		}
		held = nil
		return 0
	}
	if Room(int(n)) != nil {
		return 0
	}
	b := make([]byte, n)
	held = append(held, b)
	return uint32(uintptr(unsafe.Pointer(unsafe.SliceData(b))))
}
