//go:build js && wasm

// Command interchange is sessiontree's second browser module, loaded only when
// a page exchanges trees with something else: the converters of core/formats
// (SPEC §7, import and export) and core.Merge (SPEC §3, for tabs, devices and
// the edge). Both are kept out of the main module (wasm/module) so that a chat
// client that never imports or syncs downloads less and starts faster.
//
// It is stateless: no tree lives here, every argument and result is a file.
// import reads another tool's file and returns the canonical .tree.json bytes
// the main module loads; export reads .tree.json bytes the main module saved
// and returns the file; merge reads two .tree.json files and returns their
// merge, which the main module swaps into the live tree (its "replace"). The
// call boundary is wasm/internal/bridge's, the same as the main module's.
package main

func main() {
	// The exports stay callable only while the program runs: never return.
	select {}
}
