package treecalls

import (
	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/rawjson"
)

// Each edit takes its arguments in the JS method's order and returns what the
// core method returns, as text.

func appendMessage(r *Request) ([]byte, error) {
	msg, err := r.message(0)
	if err != nil {
		return nil, err
	}
	before, branch := r.tree.Version(), r.tree.ActiveBranch()
	id, err := r.tree.Append(msg, r.at)
	if err != nil {
		return nil, err
	}
	r.entry.list.noteKept(r.tree, before, branch, true)
	r.sent(msg)
	return text(id), nil
}

func rewind(r *Request) ([]byte, error) {
	id, err := r.str(0, "node")
	if err != nil {
		return nil, err
	}
	before := r.tree.Version()
	name, err := r.tree.Rewind(id, r.at)
	r.keptSince(before, err)
	return text(name), err
}

func branch(r *Request) ([]byte, error) {
	from, err := r.str(0, "from")
	if err != nil {
		return nil, err
	}
	name, err := r.str(1, "name")
	if err != nil {
		return nil, err
	}
	before := r.tree.Version()
	name, err = r.tree.Branch(from, name, r.at)
	r.keptSince(before, err)
	return []byte(name), err
}

func switchBranch(r *Request) ([]byte, error) {
	name, err := r.str(0, "branch")
	if err != nil {
		return nil, err
	}
	before := r.tree.Version()
	err = r.tree.SwitchBranch(name)
	r.keptSince(before, err)
	return nil, err
}

func label(r *Request) ([]byte, error) {
	id, err := r.str(0, "node")
	if err != nil {
		return nil, err
	}
	text, err := r.str(1, "label")
	if err != nil {
		return nil, err
	}
	before := r.tree.Version()
	err = r.tree.LabelAt(id, text, r.at)
	r.keptSince(before, err)
	return nil, err
}

func clearLabel(r *Request) ([]byte, error) {
	id, err := r.str(0, "node")
	if err != nil {
		return nil, err
	}
	before := r.tree.Version()
	err = r.tree.ClearLabelAt(id, r.at)
	r.keptSince(before, err)
	return nil, err
}

func checkout(r *Request) ([]byte, error) {
	id, err := r.str(0, "node")
	if err != nil {
		return nil, err
	}
	before := r.tree.Version()
	name, err := r.tree.Checkout(id, r.at)
	r.keptSince(before, err)
	return []byte(name), err
}

func open(r *Request) ([]byte, error) {
	id, err := r.str(0, "node")
	if err != nil {
		return nil, err
	}
	before := r.tree.Version()
	name, err := r.tree.Open(id, r.at)
	r.keptSince(before, err)
	return []byte(name), err
}

func edit(r *Request) ([]byte, error) {
	return sibling(r, (*core.Tree).Edit)
}

func regenerate(r *Request) ([]byte, error) {
	return sibling(r, (*core.Tree).Regenerate)
}

func sibling(r *Request, op func(*core.Tree, string, core.Message, int64) (string, error)) ([]byte, error) {
	id, err := r.nodeID(0, "node")
	if err != nil {
		return nil, err
	}
	msg, err := r.message(1)
	if err != nil {
		return nil, err
	}
	before := r.tree.Version()
	newID, err := op(r.tree, id, msg, r.at)
	if err != nil {
		return nil, err
	}
	r.keptSince(before, nil)
	r.sent(msg)
	return text(newID), nil
}

// keptSince tells the tree's list memo of a call that succeeded (err nil) and
// left every stored message as it was, made at version before (listMemo).
func (r *Request) keptSince(before uint64, err error) {
	if err == nil {
		r.entry.list.noteKept(r.tree, before, "", false)
	}
}

func deleteBranch(r *Request) ([]byte, error) {
	name, err := r.str(0, "branch")
	if err != nil {
		return nil, err
	}
	return nil, r.tree.DeleteBranchAt(name, r.at)
}

// apply runs argument 0, a JSON array of ops (core.ParseOps), atomically and
// returns the JSON array of per-op results.
func apply(r *Request) ([]byte, error) {
	b, err := r.arg(0, "ops")
	if err != nil {
		return nil, err
	}
	ops, err := core.ParseOps(append([]byte(nil), b...)) // messages keep these bytes
	if err != nil {
		return nil, err
	}
	results, err := r.tree.Apply(ops, r.at)
	if err != nil {
		return nil, err
	}
	return rawjson.AppendStrings(nil, results), nil
}
