package fullcalls

import (
	"bytes"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/rawjson"
	"github.com/sessiontree/sessiontree/wasm/internal/bridge"
	"github.com/sessiontree/sessiontree/wasm/internal/treecalls"
)

// mergeFiles merges argument 1 ("theirs", a .tree.json file) into argument 0
// ("ours", another) as Tree.MergeWith does (SPEC §3) with the options of
// argument 2, if any (see mergeOptions), and returns a little-endian
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
	opts, err := mergeOptions(c, 2)
	if err != nil {
		return nil, err
	}
	defer scratch(theirs, len(b))
	defer scratch(ours, len(a))
	rep, err := ours.MergeWith(theirs, opts)
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

// mergeOptions reads argument i, when there is one, as the names of the
// MergeOptions set, separated by commas ("freshNames,keepPlace"; "" for none).
func mergeOptions(c *treecalls.Request, i int) (core.MergeOptions, error) {
	var opts core.MergeOptions
	arg, err := c.Arg(i, "options")
	if err != nil {
		return opts, nil // absent: the defaults
	}
	for _, name := range bytes.Split(arg, []byte(",")) {
		switch string(name) {
		case "":
		case "freshNames":
			opts.FreshNames = true
		case "keepPlace":
			opts.KeepPlace = true
		default:
			return opts, bridge.Invalid("merge has no option " + string(rawjson.AppendString(nil, string(name))) + " (it takes freshNames and keepPlace)")
		}
	}
	return opts, nil
}
