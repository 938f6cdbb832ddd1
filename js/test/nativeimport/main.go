// Command nativeimport imports each file named on the command line with
// core/formats natively ("auto") and writes one JSON object per line:
// {"file": name, "tree": the canonical .tree.json, "format": detected}. The JS
// tests compare it with the same files imported through
// sessiontree-interchange.wasm and loaded by the main module.
package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/sessiontree/sessiontree/core/formats"
)

func main() {
	enc := json.NewEncoder(os.Stdout)
	for _, name := range os.Args[1:] {
		data, err := os.ReadFile(name)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		t, rep, err := formats.Import("auto", data)
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
			os.Exit(1)
		}
		if err := enc.Encode(map[string]any{"file": name, "tree": string(t.Marshal()), "format": rep.Format, "nodes": rep.Nodes}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}
