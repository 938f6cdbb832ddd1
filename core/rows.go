package core

import (
	"slices"
	"strings"

	"github.com/sessiontree/sessiontree/core/rawjson"
)

// Fragment is one member of the "branches" or "nodes" object of a .tree.json:
// its key and its canonical JSON value, as BranchJSON and NodeJSON return it.
// Storage that keeps one row per node and per branch stores fragments.
type Fragment struct {
	Key  string
	JSON []byte
}

// Rows splits the tree into the fragments of its branches and of its nodes,
// each list ordered by key: the rows of a freshly stored tree.
func (t *Tree) Rows() (branches, nodes []Fragment) {
	keys := t.branchKeys()
	branches = make([]Fragment, 0, len(keys))
	for _, name := range keys {
		branches = append(branches, Fragment{Key: name, JSON: t.appendBranchJSON(nil, name)})
	}
	nodes = make([]Fragment, 0, len(t.nodes))
	// The nodes' JSON is written into shared blocks of rowsBlock bytes, each
	// fragment a full slice of its own bytes (an append to one copies it):
	// a buffer per node, grown as it was written, made 100,000 nodes
	// allocate 2.7 times their JSON in 600,000 objects, each one more for
	// the collector to mark (issue 25: its marks held the worker's thread).
	var block []byte
	for _, id := range t.sortedKeys() {
		tick()
		n := t.nodes[id]
		if need := n.jsonSizeHint(); cap(block)-len(block) < need {
			block = make([]byte, 0, max(rowsBlock, need))
		}
		start := len(block)
		block = n.appendJSON(block) // a hint too small only copies the block
		nodes = append(nodes, Fragment{Key: id, JSON: block[start:len(block):len(block)]})
	}
	return branches, nodes
}

// rowsBlock is the size of the blocks Rows writes its nodes' JSON into.
const rowsBlock = 256 << 10

// jsonSizeHint is about the size of n's appendJSON: exact for ids, children
// and a label that need no escapes, with room for the numbers.
func (n *node) jsonSizeHint() int {
	size := 128 + 2*len(n.id) + 2*len(n.parent) + len(n.msg) + 2*len(n.labelText())
	for _, c := range n.children {
		size += 2*len(c) + 3
	}
	return size
}

// JoinRows writes the .tree.json of a tree kept as rows: its root ("" for none),
// its active branch and the fragments of its branches and nodes, in any order.
// For the rows of a tree, the result is that tree's Marshal, byte for byte;
// Unmarshal reads it back, and reports fragments that are not valid JSON as
// CodeCorrupt.
func JoinRows(root, active string, branches, nodes []Fragment) []byte {
	byKey := func(a, b Fragment) int { return strings.Compare(a.Key, b.Key) }
	if !slices.IsSortedFunc(branches, byKey) {
		branches = append([]Fragment(nil), branches...)
		sortFunc(branches, byKey)
	}
	if !slices.IsSortedFunc(nodes, byKey) {
		nodes = append([]Fragment(nil), nodes...)
		sortFunc(nodes, byKey)
	}
	return rowsFile(root, active, branches, nodes)
}

// rowsFile writes the .tree.json around fragments in their order (the loader
// takes members in any order; JoinRows sorts them first, as Marshal writes).
func rowsFile(root, active string, branches, nodes []Fragment) []byte {
	size := 128 + len(root) + len(active)
	for _, f := range branches {
		size += len(f.Key) + len(f.JSON) + 8
	}
	for _, f := range nodes {
		size += len(f.Key) + len(f.JSON) + 8
	}
	buf := make([]byte, 0, size)
	buf = append(buf, `{"format":"sessiontree","version":`...)
	buf = rawjson.AppendInt(buf, FormatVersion)
	if root != "" {
		buf = append(buf, `,"root":`...)
		buf = rawjson.AppendString(buf, root)
	}
	buf = append(buf, `,"active_branch":`...)
	buf = rawjson.AppendString(buf, active)
	buf = append(buf, `,"branches":`...)
	buf = appendFragments(buf, branches)
	buf = append(buf, `,"nodes":`...)
	buf = appendFragments(buf, nodes)
	return append(buf, '}')
}

func appendFragments(buf []byte, list []Fragment) []byte {
	buf = append(buf, '{')
	for i, f := range list {
		if i > 0 {
			buf = append(buf, ',')
		}
		tickBytes(len(f.JSON)) // a large tree's first load: megabytes copied
		buf = rawjson.AppendString(buf, f.Key)
		buf = append(buf, ':')
		buf = append(buf, f.JSON...)
	}
	return append(buf, '}')
}
