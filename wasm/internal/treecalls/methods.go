package treecalls

// Lean returns the lean module's call table (wasm/module): every tree method,
// without merge, import or export, so that the module links neither core.Merge
// nor core/formats. Served, methods[i] is call number i+1 (number 0 is the
// bridge's "methods", the names in order): JavaScript reads the names once and
// calls by number, so the two sides cannot drift apart. The full flavour
// (wasm/internal/fullcalls, wasm/interchange) serves this table with more
// methods after it, so a lean call keeps its number in both.
func Lean() []Method {
	return []Method{
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
		{"open", true, open},
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
		// project.go: windows of a path
		{"pathLength", true, pathLength},
		{"window", true, window},
		{"slotBytes", true, slotBytes},
		// rows.go
		{"takeChanges", true, takeChanges},
		{"watch", true, watch},
		{"applyChanges", true, applyChanges},
		{"helperRows", true, helperRows},
		// subtree.go
		{"subtree", true, subtree},
		{"onPath", true, onPath},
		{"pathIndex", true, pathIndex},
		// loadslices.go
		{"loadBegin", false, loadBegin},
		{"loadStep", false, loadStep},
		{"loadCancel", false, loadCancel},
		{"tidy", false, tidy},
		// reads.go: a sidebar's branches
		{"recentBranches", true, recentBranches},
		{"branchCount", true, branchCount},
		{"switchers", true, switchers},
		// subtree.go: a tree view around a message
		{"subtreeAround", true, subtreeAround},
	}
}
