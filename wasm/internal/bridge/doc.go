// Package bridge is the byte boundary between JavaScript and sessiontree's
// WebAssembly modules (wasm/module, the lean tree module; wasm/interchange, the
// full flavour with merge, import and export; their tables are
// wasm/internal/treecalls and wasm/internal/fullcalls). A module imports it,
// hands Serve its call table, and gets three WebAssembly exports:
//
//   - st_reserve(n) makes the input buffer hold at least n bytes and returns
//     its address; JavaScript writes a call's arguments there, each a
//     little-endian uint32 length and then that many bytes;
//   - st_call(method, handle, n, at) runs call number method on the n argument
//     bytes and returns the result's length, or -(length+1) when the result is
//     a {"code","message"} error (the codes of SPEC §4);
//   - st_out() returns the address of the result.
//
// Call number 0 is always "methods": the table's names, one per line, in
// call-number order, so JavaScript reads the numbers once and the two sides
// cannot drift apart. Every call is wrapped once with recover: no input,
// however broken, stops the Go program. No js.Value crosses, and an export
// costs well under a microsecond where a js.FuncOf call costs ~10–20 µs.
//
// Calls never overlap (JavaScript waits for each), so one Call, one argument
// list and the buffers are reused by every call.
package bridge
