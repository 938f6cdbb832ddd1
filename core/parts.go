package core

import "github.com/sessiontree/sessiontree/core/rawjson"

// DeltaParts writes the tree's rows (Rows) as delta documents (ApplyDelta)
// of about limit bytes of node rows each: every row exactly as Marshal
// writes it, the nodes parents first, so that no part names a parent the
// parts before it did not carry, and the branches and the active branch with
// the last part. Applied in order to an empty tree or to another copy, they
// bring it every row of this one: the form in which a tree too large for one
// request goes to the edge worker's /delta (js/sync.js). There is always at
// least one part; a limit below 1 puts one node in each part but the last.
//
// Nodes no walk from a parentless node reaches (a cycle of parents, which a
// loaded tree reports in Validate) go last, so nothing is left out: a copy
// refuses them as it refuses them in any delta.
func (t *Tree) DeltaParts(limit int) [][]byte {
	branches, nodes := t.Rows()
	at := make(map[string]int32, len(nodes))
	for i, f := range nodes {
		at[f.Key] = int32(i)
	}
	order := make([]int32, 0, len(nodes))
	seen := make([]bool, len(nodes))
	take := func(i int32) {
		if !seen[i] {
			seen[i] = true
			order = append(order, i)
		}
	}
	if i, ok := at[t.root]; ok {
		take(i) // the root first: a part's "root" names a node it carries
	}
	for i, f := range nodes {
		if _, ok := at[t.nodes[f.Key].parent]; !ok {
			take(int32(i))
		}
	}
	for k := 0; k < len(order); k++ {
		for _, c := range t.nodes[nodes[order[k]].Key].children {
			if i, ok := at[c]; ok && t.nodes[c].parent == nodes[order[k]].Key {
				take(i)
			}
		}
	}
	for i := range nodes {
		take(int32(i))
	}

	member := func(b []byte, f Fragment) []byte {
		b = rawjson.AppendString(b, f.Key)
		b = append(b, ':')
		return append(b, f.JSON...)
	}
	// part writes a delta of the node members in rows, and of the branches
	// with the active branch when last is set.
	part := func(rows []byte, last bool) []byte {
		b := append(make([]byte, 0, len(rows)+256), `{"root":`...)
		if t.root == "" {
			b = append(b, "null"...)
		} else {
			b = rawjson.AppendString(b, t.root)
		}
		active := ""
		if last {
			active = t.active
		}
		b = append(b, `,"active":`...)
		b = rawjson.AppendString(b, active)
		b = append(b, `,"deleted_nodes":[],"deleted_branches":[],"nodes":{`...)
		b = append(b, rows...)
		b = append(b, `},"branches":{`...)
		if last {
			for k, f := range branches {
				if k > 0 {
					b = append(b, ',')
				}
				b = member(b, f)
			}
		}
		return append(b, "}}"...)
	}
	var parts [][]byte
	var rows []byte
	size := 0
	for _, i := range order {
		tickBytes(len(nodes[i].JSON))
		if len(rows) > 0 {
			rows = append(rows, ',')
		}
		rows = member(rows, nodes[i])
		if size += len(nodes[i].JSON); size >= limit {
			parts = append(parts, part(rows, false))
			rows, size = rows[:0], 0
		}
	}
	return append(parts, part(rows, true))
}
