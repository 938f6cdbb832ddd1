// Package fullcalls is what the full flavour of sessiontree's browser module
// (wasm/interchange, js/sessiontree-interchange.wasm) serves beyond the lean
// table of wasm/internal/treecalls: merge in place (core's Tree.Merge on the
// live tree), import into and export from a live tree (core/formats), and the
// stateless calls that read and return files (import, export, merge of
// .tree.json bytes), which the lean module's JavaScript uses when the full
// module is loaded beside it as a helper (initInterchange), the
// projections of a tree into model API requests (core/provider), live or saved,
// and a saved tree split into delta documents (core's Tree.DeltaParts).
package fullcalls

import "github.com/sessiontree/sessiontree/wasm/internal/treecalls"

// Full returns the full flavour's call table: the lean table, in its order
// (a lean call keeps its number), then the methods of this package.
func Full() []treecalls.Method {
	return append(treecalls.Lean(),
		// interchange.go, mergefiles.go: stateless, files in and out
		treecalls.Method{Name: "import", Run: importFile},
		treecalls.Method{Name: "export", Run: exportFile},
		treecalls.Method{Name: "merge", Run: mergeFiles},
		// intree.go: on live trees
		treecalls.Method{Name: "mergeTree", Need: treecalls.WholeTree, Run: mergeTree},
		treecalls.Method{Name: "importTree", Run: importTree},
		treecalls.Method{Name: "exportTree", Need: treecalls.WholeTree, Run: exportTree},
		// providers.go: request bodies for model APIs (core/provider)
		treecalls.Method{Name: "projectFile", Run: projectFile},
		treecalls.Method{Name: "projectTree", Need: treecalls.Tree, Run: projectTree},
		// importall.go: several conversations of one file
		treecalls.Method{Name: "importAll", Run: importAllFiles},
		treecalls.Method{Name: "importAllTrees", Run: importAllTrees},
		// importeach.go: a conversation a call
		treecalls.Method{Name: "importBegin", Run: importBegin},
		treecalls.Method{Name: "importNext", Run: importNext},
		treecalls.Method{Name: "importEnd", Run: importEnd},
		// parts.go: a tree too large for one request, as deltas (js/sync.js)
		treecalls.Method{Name: "deltaParts", Run: deltaParts},
	)
}
