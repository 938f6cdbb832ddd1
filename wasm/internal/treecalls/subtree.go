package treecalls

import (
	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/rawjson"
)

// subtree returns core's Subtree as {"nodes":[…],"more":bool}: the nodes
// under a node without their messages, for a tree view (issue 16).
// Arguments: the top node ("" for every root), the depth bound ("" for none)
// and the limit (0 for none) in decimal, and "1" to fold chains into runs.
func subtree(r *Request) ([]byte, error) {
	from, err := r.str(0, "id")
	if err != nil {
		return nil, err
	}
	depth := -1
	if b, err := r.arg(1, "depth"); err != nil {
		return nil, err
	} else if len(b) > 0 {
		if depth, err = countArg(r, 1, "depth"); err != nil {
			return nil, err
		}
	}
	limit, err := countArg(r, 2, "limit")
	if err != nil {
		return nil, err
	}
	runs, err := r.arg(3, "runs")
	if err != nil {
		return nil, err
	}
	entries, more, err := r.tree.Subtree(from, depth, limit, string(runs) == "1")
	if err != nil {
		return nil, err
	}
	b := appendEntries(grow(256*len(entries)+64), entries)
	b = append(b, `,"more":`...)
	return append(appendBool(b, more), '}'), nil
}

// subtreeAround returns core's SubtreeAround as
// {"nodes":[…],"more":bool,"above":n}: a tree view's boxes around a message.
// Arguments: the node and the limit in decimal (0 for none).
func subtreeAround(r *Request) ([]byte, error) {
	near, err := r.str(0, "id")
	if err != nil {
		return nil, err
	}
	limit, err := countArg(r, 1, "limit")
	if err != nil {
		return nil, err
	}
	entries, above, more, err := r.tree.SubtreeAround(near, limit)
	if err != nil {
		return nil, err
	}
	b := appendEntries(grow(256*len(entries)+64), entries)
	b = append(b, `,"more":`...)
	b = appendBool(b, more)
	b = append(b, `,"above":`...)
	b = rawjson.AppendInt(b, int64(above))
	return append(b, '}'), nil
}

// appendEntries appends `{"nodes":[…]` (the object left open).
func appendEntries(b []byte, entries []core.TreeEntry) []byte {
	b = append(b, `{"nodes":[`...)
	for i := range entries {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendEntry(b, &entries[i])
	}
	return append(b, ']')
}

func appendBool(b []byte, v bool) []byte {
	if v {
		return append(b, "true"...)
	}
	return append(b, "false"...)
}

func appendEntry(b []byte, e *core.TreeEntry) []byte {
	b = append(b, `{"id":`...)
	b = rawjson.AppendString(b, e.ID)
	b = append(b, `,"parent":`...)
	b = appendOptString(b, e.Parent)
	b = append(b, `,"depth":`...)
	b = rawjson.AppendInt(b, int64(e.Depth))
	b = append(b, `,"childCount":`...)
	b = rawjson.AppendInt(b, int64(e.Children))
	b = append(b, `,"role":`...)
	b = rawjson.AppendString(b, e.Role)
	b = append(b, `,"preview":`...)
	b = rawjson.AppendString(b, e.Preview)
	b = append(b, `,"label":`...)
	b = appendOptString(b, e.Label)
	b = append(b, `,"branches":`...)
	b = rawjson.AppendStrings(b, e.Branches)
	b = append(b, `,"run":`...)
	b = rawjson.AppendInt(b, int64(e.Run))
	b = append(b, `,"last":`...)
	b = rawjson.AppendString(b, e.Last)
	return append(b, '}')
}

// onPath answers core's OnPath for the ids in its one argument, one per line,
// as one byte per id: '1' when it is on the active path, '0' when not.
func onPath(r *Request) ([]byte, error) {
	arg, err := r.arg(0, "ids")
	if err != nil {
		return nil, err
	}
	var ids []string
	if len(arg) > 0 {
		ids = lines(arg)
	}
	on, err := r.tree.OnPath(ids)
	if err != nil {
		return nil, err
	}
	b := grow(len(on))
	for _, v := range on {
		if v {
			b = append(b, '1')
		} else {
			b = append(b, '0')
		}
	}
	return b, nil
}

// pathIndex answers core's PathIndex for its one argument, in decimal.
func pathIndex(r *Request) ([]byte, error) {
	id, err := r.str(0, "id")
	if err != nil {
		return nil, err
	}
	i, err := r.tree.PathIndex(id)
	if err != nil {
		return nil, err
	}
	return rawjson.AppendInt(grow(12), int64(i)), nil
}
