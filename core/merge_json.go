package core

import "github.com/sessiontree/sessiontree/core/rawjson"

// AppendJSON appends the report as the JS API and the worker return it:
// {"nodesAdded":[…],"labelsChanged":[…],"branchesAdded":[…],"branchesMoved":[…],
// "branchesDeleted":[…],"summariesChanged":[…],"conflicts":[{"kind","node",
// "branch","keptAs","message"}…],"activeBranch":…,"activeChanged":…,"changed":…}.
func (r MergeReport) AppendJSON(buf []byte) []byte {
	list := func(key string, l []string) {
		buf = append(buf, '"')
		buf = append(buf, key...)
		buf = append(buf, `":`...)
		if l == nil {
			l = []string{}
		}
		buf = rawjson.AppendStrings(buf, l)
		buf = append(buf, ',')
	}
	buf = append(buf, '{')
	list("nodesAdded", r.NodesAdded)
	list("labelsChanged", r.LabelsChanged)
	list("branchesAdded", r.BranchesAdded)
	list("branchesMoved", r.BranchesMoved)
	list("branchesDeleted", r.BranchesDeleted)
	list("summariesChanged", r.SummariesChanged)
	buf = append(buf, `"conflicts":[`...)
	for i, c := range r.Conflicts {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, `{"kind":`...)
		buf = rawjson.AppendString(buf, c.Kind)
		buf = append(buf, `,"node":`...)
		buf = rawjson.AppendString(buf, c.Node)
		buf = append(buf, `,"branch":`...)
		buf = rawjson.AppendString(buf, c.Branch)
		buf = append(buf, `,"keptAs":`...)
		buf = rawjson.AppendString(buf, c.KeptAs)
		buf = append(buf, `,"message":`...)
		buf = rawjson.AppendString(buf, c.Message)
		buf = append(buf, '}')
	}
	buf = append(buf, `],"activeBranch":`...)
	buf = rawjson.AppendString(buf, r.ActiveBranch)
	buf = append(buf, `,"activeChanged":`...)
	buf = strconvBool(buf, r.ActiveChanged)
	buf = append(buf, `,"changed":`...)
	buf = strconvBool(buf, r.Changed())
	return append(buf, '}')
}

func strconvBool(buf []byte, b bool) []byte {
	if b {
		return append(buf, "true"...)
	}
	return append(buf, "false"...)
}
