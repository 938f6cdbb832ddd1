package main

import (
	"strconv"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/rawjson"
)

// mergeTree merges another tree into this one: arguments "handle" and a tree's
// handle, or "json" and a .tree.json file. It returns the report as JSON.
func mergeTree(r *request) ([]byte, error) {
	kind, err := r.str(0, "kind")
	if err != nil {
		return nil, err
	}
	arg, err := r.arg(1, "other")
	if err != nil {
		return nil, err
	}
	var other *core.Tree
	switch kind {
	case "handle":
		h, err := strconv.ParseUint(string(arg), 10, 32)
		e := trees[uint32(h)]
		if err != nil || e == nil {
			return nil, invalid("the other SessionTree was freed; merge a live tree or its saved JSON")
		}
		other = e.tree
	case "json":
		if other, err = core.Unmarshal(arg); err != nil {
			return nil, err
		}
	default:
		return nil, invalid("merge: unknown kind " + string(rawjson.AppendString(nil, kind)))
	}
	rep, err := r.tree.Merge(other)
	if err != nil {
		return nil, err
	}
	return rep.AppendJSON(nil), nil
}
