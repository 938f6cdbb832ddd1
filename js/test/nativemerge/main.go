// Command nativemerge merges two .tree.json files natively, the second into the
// first (core's Tree.Merge), and writes one JSON object: {"tree": the merged
// canonical .tree.json, "report": the merge report as the JS API returns it}.
// The JS tests compare it with t.merge through sessiontree-interchange.wasm.
//
//	go run ./js/test/nativemerge ours.tree.json theirs.tree.json
package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/sessiontree/sessiontree/core"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: nativemerge ours.tree.json theirs.tree.json")
		os.Exit(2)
	}
	var trees [2]*core.Tree
	for i, name := range os.Args[1:] {
		data, err := os.ReadFile(name)
		if err == nil {
			trees[i], err = core.Unmarshal(data)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
			os.Exit(1)
		}
	}
	rep, err := trees[0].Merge(trees[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	out := map[string]any{"tree": string(trees[0].Marshal()), "report": json.RawMessage(rep.AppendJSON(nil))}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
