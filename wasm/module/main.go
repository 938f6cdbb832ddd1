//go:build js && wasm

// Command module is sessiontree's lean browser module, js/sessiontree.wasm:
// the core tree compiled to WebAssembly for js/sessiontree.js, with every tree
// method of wasm/internal/treecalls (Lean) and neither merge nor the formats of
// core/formats, which the full flavour (wasm/interchange) adds. The call
// boundary is wasm/internal/bridge's.
package main

import "github.com/sessiontree/sessiontree/wasm/internal/treecalls"

func main() {
	treecalls.Serve(treecalls.Lean())
	// The exports stay callable only while the program runs: never return.
	select {}
}
