//go:build js && wasm

// Command formats is sessiontree's second browser module, loaded only when a
// page imports or exports another tool's file: the interchange converters of
// core/formats (SPEC §7) and the time parsing they need, kept out of the main
// module (wasm/module) so that a chat client that never imports starts faster.
//
// It is stateless: no tree lives here. import reads a file and returns the
// canonical .tree.json bytes the main module loads; export reads .tree.json
// bytes the main module saved and returns the file. The call boundary is
// wasm/internal/bridge's, the same as the main module's.
package main

func main() {
	// The exports stay callable only while the program runs: never return.
	select {}
}
