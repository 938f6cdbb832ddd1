package treecalls

import (
	"strconv"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/rawjson"
)

// Rows: a store that keeps one record per node and per branch (IndexedDB, a
// SQL table) writes what a change touched, not the whole tree (issue 16).

// takeChanges returns the rows a store must write since the previous call, as
// JSON: {"all":bool,"root":id,"active":name,"branches":[[name,row|null]…],
// "nodes":[[id,row|null]…]}, a row the canonical JSON of the record (what
// .tree.json holds under its key) and null for a record removed. The first
// call on a tree answers every row ("all":true) and starts the recording;
// every later one only what changed (root and active are always there).
func takeChanges(r *Request) ([]byte, error) {
	t := r.tree
	if !r.entry.tracking {
		r.entry.tracking = true
		t.TakeChanges() // starts the recording
		branches, nodes := t.Rows()
		b := appendRowsHead(grow(0), t, true)
		b = appendFragments(b, "branches", branches)
		b = appendFragments(append(b, ','), "nodes", nodes)
		return append(b, '}'), nil
	}
	c := t.TakeChanges()
	b := appendRowsHead(grow(0), t, false)
	b = append(b, `"branches":[`...)
	for i, name := range c.Branches {
		row, ok := t.BranchJSON(name)
		b = appendRow(b, i, name, row, ok)
	}
	b = append(b, `],"nodes":[`...)
	for i, id := range c.Nodes {
		row, ok := t.NodeJSON(id)
		b = appendRow(b, i, id, row, ok)
	}
	return append(b, "]}"...), nil
}

func appendRowsHead(b []byte, t *core.Tree, all bool) []byte {
	b = append(b, `{"all":`...)
	b = strconv.AppendBool(b, all)
	b = append(b, `,"root":`...)
	b = rawjson.AppendString(b, t.Root())
	b = append(b, `,"active":`...)
	b = rawjson.AppendString(b, t.ActiveBranch())
	return append(b, ',')
}

func appendFragments(b []byte, name string, list []core.Fragment) []byte {
	b = append(append(append(b, '"'), name...), `":[`...)
	for i, f := range list {
		b = appendRow(b, i, f.Key, f.JSON, true)
	}
	return append(b, ']')
}

func appendRow(b []byte, i int, key string, row []byte, ok bool) []byte {
	if i > 0 {
		b = append(b, ',')
	}
	b = append(rawjson.AppendString(append(b, '['), key), ',')
	if ok {
		b = rawjson.AppendString(b, string(row))
	} else {
		b = append(b, "null"...)
	}
	return append(b, ']')
}

// fromRows makes a tree of stored rows: arguments root, active branch, the
// number of branch rows, then each branch's name and row, then each node's
// id and row (in any order). The tree is the one whose rows they are, and
// its save is byte for byte the file they came from (core.JoinRows).
func fromRows(r *Request) ([]byte, error) {
	root, err := r.str(0, "root")
	if err != nil {
		return nil, err
	}
	active, err := r.str(1, "active")
	if err != nil {
		return nil, err
	}
	nb, err := intArg(r, 2, "branch count")
	if err != nil {
		return nil, err
	}
	rest := r.args[3:]
	if nb < 0 || 2*nb > len(rest) || len(rest)%2 != 0 {
		return nil, invalid("fromRows: the rows must be name/row pairs, " + strconv.Itoa(nb) + " of them branches")
	}
	branches := make([]core.Fragment, nb)
	nodes := make([]core.Fragment, (len(rest)-2*nb)/2)
	for i := range branches {
		branches[i] = core.Fragment{Key: string(rest[2*i]), JSON: rest[2*i+1]}
	}
	rest = rest[2*nb:]
	for i := range nodes {
		nodes[i] = core.Fragment{Key: string(rest[2*i]), JSON: rest[2*i+1]}
	}
	file := core.JoinRows(root, active, branches, nodes)
	t, err := core.UnmarshalOwned(file)
	if err != nil {
		return nil, err
	}
	return handleResult(t, len(file)), nil
}
