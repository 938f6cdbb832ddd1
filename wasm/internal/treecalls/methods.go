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
		{"new", NoTree, newTree},
		{"fromLinear", NoTree, fromLinear},
		{"load", NoTree, load},
		{"free", NoTree, free},
		{"clone", WholeTree, clone},
		{"save", Save, save},
		// edits.go
		{"append", Tree, appendMessage},
		{"rewind", Tree, rewind},
		{"branch", Tree, branch},
		{"switchBranch", Tree, switchBranch},
		{"label", Tree, label},
		{"clearLabel", Tree, clearLabel},
		{"checkout", Tree, checkout},
		{"open", Tree, open},
		{"edit", Tree, edit},
		{"regenerate", Tree, regenerate},
		{"deleteBranch", Tree, deleteBranch},
		{"apply", Tree, apply},
		// reads.go
		{"node", Tree, nodeOf},
		{"children", Tree, children},
		{"siblings", Tree, siblings},
		{"branches", Tree, branches},
		{"activeBranch", Tree, activeBranch},
		{"hasBranches", Tree, hasBranches},
		{"pathOf", Tree, pathOf},
		{"messages", WholeTree, messagesOf},
		// summaries.go
		{"summarizeBranch", Tree, summarizeBranch},
		{"summaryInput", WholeTree, summaryInput},
		{"summarizeBranchAsOf", Tree, summarizeBranchAsOf},
		{"stubSummary", Tree, stubSummary},
		{"renderBranchText", WholeTree, renderBranchText},
		{"spliceForLinearExport", WholeTree, splice},
		// maintenance.go
		{"validate", WholeTree, validate},
		{"repair", WholeTree, repair},
		{"prune", WholeTree, prune},
		{"search", WholeTree, search},
		{"stats", Tree, stats},
		// project.go
		{"project", WholeTree, project},
		// applyops.go
		{"applyOps", Tree, applyOps},
		// replace.go
		{"replace", WholeTree, replace},
		// project.go: windows of a path
		{"pathLength", Tree, pathLength},
		{"window", Tree, window},
		{"slotBytes", Tree, slotBytes},
		// rows.go
		{"takeChanges", WholeTree, takeChanges},
		{"watch", Tree, watch},
		{"applyChanges", Tree, applyChanges},
		{"helperRows", Tree, helperRows},
		// subtree.go
		{"subtree", Tree, subtree},
		{"onPath", Tree, onPath},
		{"pathIndex", Tree, pathIndex},
		// loadslices.go
		{"loadBegin", NoTree, loadBegin},
		{"loadStep", NoTree, loadStep},
		{"loadCancel", NoTree, loadCancel},
		{"tidy", NoTree, tidy},
		// reads.go: a sidebar's branches
		{"recentBranches", Tree, recentBranches},
		{"branchCount", Tree, branchCount},
		{"switchers", Tree, switchers},
		// subtree.go: a tree view around a message
		{"subtreeAround", Tree, subtreeAround},
	}
}
