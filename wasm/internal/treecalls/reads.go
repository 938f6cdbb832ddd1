package treecalls

import (
	"bytes"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/rawjson"
)

// nodeOf returns the node as JSON, or nothing at all when there is none (JS: null).
func nodeOf(r *Request) ([]byte, error) {
	id, err := r.str(0, "node")
	if err != nil {
		return nil, err
	}
	n, ok := r.tree.Node(id)
	if !ok {
		return nil, nil
	}
	return appendNode(nil, n), nil
}

func children(r *Request) ([]byte, error) {
	id, err := r.str(0, "node")
	if err != nil {
		return nil, err
	}
	ids, err := r.tree.Children(id)
	return rawjson.AppendStrings(nil, ids), err
}

func siblings(r *Request) ([]byte, error) {
	id, err := r.str(0, "node")
	if err != nil {
		return nil, err
	}
	ids, i, err := r.tree.Siblings(id)
	if err != nil {
		return nil, err
	}
	b := append([]byte(`{"siblings":`), rawjson.AppendStrings(nil, ids)...)
	b = append(b, `,"index":`...)
	b = rawjson.AppendInt(b, int64(i))
	return append(b, '}'), nil
}

// switchers answers core's Switcher for the ids in its one argument, one per
// line: a JSON array of [label or null, siblings, index] per id, null for an
// id that is not a node (a chat view's redraw: one call for the screen).
func switchers(r *Request) ([]byte, error) {
	arg, err := r.arg(0, "ids")
	if err != nil {
		return nil, err
	}
	b := []byte{'['}
	if len(arg) > 0 {
		for i, id := range lines(arg) {
			if i > 0 {
				b = append(b, ',')
			}
			label, count, index, err := r.tree.Switcher(id)
			if ce, ok := err.(*core.Error); ok && ce.Code == core.CodeNotFound { // core returns *core.Error unwrapped; errors.As would link reflectlite (~7 KB gzipped)
				b = append(b, "null"...)
				continue
			} else if err != nil {
				return nil, err
			}
			b = append(b, '[')
			if label == "" {
				b = append(b, "null"...)
			} else {
				b = rawjson.AppendString(b, label)
			}
			b = append(b, ',')
			b = rawjson.AppendInt(b, int64(count))
			b = append(b, ',')
			b = rawjson.AppendInt(b, int64(index))
			b = append(b, ']')
		}
	}
	return append(b, ']'), nil
}

func branches(r *Request) ([]byte, error) {
	b := []byte{'['}
	for i, br := range r.tree.Branches() {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendBranch(b, br)
	}
	return append(b, ']'), nil
}

// recentBranches returns at most argument 0 (a count) branches: the active
// one, then the others by their last use (core's RecentBranches).
func recentBranches(r *Request) ([]byte, error) {
	limit, err := countArg(r, 0, "limit")
	if err != nil {
		return nil, err
	}
	b := []byte{'['}
	for i, br := range r.tree.RecentBranches(limit) {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendBranch(b, br)
	}
	return append(b, ']'), nil
}

func branchCount(r *Request) ([]byte, error) {
	return rawjson.AppendInt(nil, int64(r.tree.BranchCount())), nil
}

func activeBranch(r *Request) ([]byte, error) { return []byte(r.tree.ActiveBranch()), nil }

func hasBranches(r *Request) ([]byte, error) {
	if r.tree.HasBranches() {
		return []byte{'1'}, nil
	}
	return []byte{'0'}, nil
}

// pathOf returns the ids of argument 0's branch (the active one when there is
// no argument), one per line. JS pairs them with the messages it caches, so a
// projection moves ids, not message JSON.
func pathOf(r *Request) ([]byte, error) {
	var ids []string
	var err error
	if len(r.args) == 0 {
		ids, err = r.tree.ActivePath()
	} else {
		ids, err = r.tree.PathOf(string(r.args[0]))
	}
	if err != nil {
		return nil, err
	}
	return appendLines(nil, ids), nil
}

// messagesOf returns the messages of the ids in argument 0 (one per line) as a
// JSON array: what the JS message cache lacks.
func messagesOf(r *Request) ([]byte, error) {
	list, err := r.arg(0, "ids")
	if err != nil {
		return nil, err
	}
	b := []byte{'['}
	for i := 0; len(list) > 0; i++ {
		line := list
		if j := bytes.IndexByte(list, '\n'); j >= 0 {
			line, list = list[:j], list[j+1:]
		} else {
			list = nil
		}
		n, ok := r.tree.Node(string(line))
		if !ok {
			return nil, &core.Error{Code: core.CodeNotFound, Message: "no node with id " + string(rawjson.AppendString(nil, string(line)))}
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, n.Message...)
	}
	return append(b, ']'), nil
}
