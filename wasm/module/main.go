//go:build js && wasm

// Command module is sessiontree's browser module: the core tree compiled to
// WebAssembly for js/sessiontree.js. It exports a byte-level call boundary
// (exports.go) and keeps every tree in Go, addressed by handles (handles.go).
package main

func main() {
	// The exports stay callable only while the program runs: never return.
	select {}
}
