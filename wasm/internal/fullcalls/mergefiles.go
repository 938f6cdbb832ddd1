package fullcalls

import (
	"bytes"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/wasm/internal/treecalls"
)

// mergeFiles merges argument 1 ("theirs", a .tree.json file) into argument 0
// ("ours", another) as Tree.Merge does (SPEC §3), and returns a little-endian
// uint32 length, the merge report as JSON (core.MergeReport.AppendJSON: what
// changed in ours), and then the merged tree's canonical .tree.json bytes, or
// nothing when they are exactly ours: then the caller keeps its tree as it is
// (the echo of a merge between tabs costs no reload).
func mergeFiles(c *treecalls.Request) ([]byte, error) {
	a, err := c.Arg(0, "ours")
	if err != nil {
		return nil, err
	}
	b, err := c.Arg(1, "theirs")
	if err != nil {
		return nil, err
	}
	ours, err := core.Unmarshal(a) // copies a
	if err != nil {
		return nil, err
	}
	theirs, err := core.Unmarshal(b)
	if err != nil {
		return nil, err
	}
	rep, err := ours.Merge(theirs)
	if err != nil {
		return nil, err
	}
	out := sealReport(rep.AppendJSON(make([]byte, 4, 256)))
	merged := ours.Marshal()
	if bytes.Equal(merged, a) {
		return out, nil
	}
	return append(out, merged...), nil
}
