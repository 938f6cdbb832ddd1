package main

import "strings"

// methods is the call table. JavaScript reads the names once ("methods", number
// 0) and calls by number, so the two sides cannot drift apart.
var methods []method

func init() {
	methods = []method{
		{"methods", false, listMethods},
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
		// formats.go
		{"import", false, importTree},
		// project.go
		{"project", true, project},
		// applyops.go
		{"applyOps", true, applyOps},
		{"export", true, exportTree},
		// merge.go
		{"merge", true, mergeTree},
	}
}

// listMethods returns the method names, one per line, in call-number order.
func listMethods(*request) ([]byte, error) {
	names := make([]string, len(methods))
	for i, m := range methods {
		names[i] = m.name
	}
	return []byte(strings.Join(names, "\n")), nil
}
