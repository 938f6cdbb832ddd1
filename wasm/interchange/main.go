//go:build js && wasm

// Command interchange is the full flavour of sessiontree's browser module,
// js/sessiontree-interchange.wasm: every tree method of the lean module
// (wasm/module) plus merge in place, import and export (core.Merge and
// core/formats, wasm/internal/fullcalls), which the lean module leaves out so
// that a chat client that never imports or syncs downloads less and starts
// faster.
//
// It runs two ways. Loaded by init() as the main module, it holds the trees
// and t.merge, SessionTree.import and t.export run in it. Loaded by
// initInterchange() beside the lean module, it is a stateless helper: import
// returns the .tree.json bytes the lean module loads, export reads bytes the
// lean module saved, and merge reads two saved trees and returns their merge,
// which the lean module swaps into the live tree (its "replace").
package main

import (
	"github.com/sessiontree/sessiontree/wasm/internal/fullcalls"
	"github.com/sessiontree/sessiontree/wasm/internal/gcpace"
	"github.com/sessiontree/sessiontree/wasm/internal/treecalls"
)

func main() {
	// A large load holds the collector, so that an open's slices, a large
	// call and the first calls after them do not mark the whole heap.
	gcpace.Install()
	treecalls.Serve(fullcalls.Full())
	// The exports stay callable only while the program runs: never return.
	select {}
}
