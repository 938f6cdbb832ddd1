package main

// methods is the call table: methods[i] is call number i+1 (number 0 is the
// bridge's "methods", the names in order). JavaScript reads the names once and
// calls by number, so the two sides cannot drift apart. Import, export and
// merge are not here: they live in the interchange module (wasm/interchange),
// which hands trees over as .tree.json bytes (load, save and replace).
var methods []method

func init() {
	methods = []method{
		// lifecycle.go
		{"new", false, newTree},
		{"fromLinear", false, fromLinear},
		{"load", false, load},
		{"free", false, free},
		{"clone", true, clone},
		{"save", true, save},
		// edits.go
		{"append", true, appendMessage},
		{"rewind", true, rewind},
		{"branch", true, branch},
		{"switchBranch", true, switchBranch},
		{"label", true, label},
		{"clearLabel", true, clearLabel},
		{"checkout", true, checkout},
		{"edit", true, edit},
		{"regenerate", true, regenerate},
		{"deleteBranch", true, deleteBranch},
		{"apply", true, apply},
		// reads.go
		{"node", true, nodeOf},
		{"children", true, children},
		{"siblings", true, siblings},
		{"branches", true, branches},
		{"activeBranch", true, activeBranch},
		{"hasBranches", true, hasBranches},
		{"pathOf", true, pathOf},
		{"messages", true, messagesOf},
		// summaries.go
		{"summarizeBranch", true, summarizeBranch},
		{"summaryInput", true, summaryInput},
		{"summarizeBranchAsOf", true, summarizeBranchAsOf},
		{"stubSummary", true, stubSummary},
		{"renderBranchText", true, renderBranchText},
		{"spliceForLinearExport", true, splice},
		// maintenance.go
		{"validate", true, validate},
		{"repair", true, repair},
		{"prune", true, prune},
		{"search", true, search},
		{"stats", true, stats},
		// project.go
		{"project", true, project},
		// applyops.go
		{"applyOps", true, applyOps},
		// replace.go
		{"replace", true, replace},
	}
	serve()
}
