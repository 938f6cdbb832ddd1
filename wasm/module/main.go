//go:build js && wasm

// Command module is sessiontree's lean browser module, js/sessiontree.wasm:
// the core tree compiled to WebAssembly for js/sessiontree.js, with every tree
// method of wasm/internal/treecalls (Lean) and neither merge nor the formats of
// core/formats, which the full flavour (wasm/interchange) adds. The call
// boundary is wasm/internal/bridge's.
package main

import (
	"github.com/sessiontree/sessiontree/wasm/internal/gcpace"
	"github.com/sessiontree/sessiontree/wasm/internal/treecalls"
)

func main() {
	// A large load holds the collector, so that an open's slices, a large
	// call and the first calls after them do not mark the whole heap.
	gcpace.Install()
	treecalls.Serve(treecalls.Lean())
	// The exports stay callable only while the program runs: never return.
	select {}
}
