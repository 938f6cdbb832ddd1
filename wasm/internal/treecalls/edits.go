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
	r.entry.list.noteAppend(r.tree, before, branch)
	r.sent(msg)
	return text(id), nil
}

func rewind(r *Request) ([]byte, error) {
	id, err := r.str(0, "node")
	if err != nil {
		return nil, err
	}
	name, err := r.tree.Rewind(id, r.at)
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
	name, err = r.tree.Branch(from, name, r.at)
	return []byte(name), err
}

func switchBranch(r *Request) ([]byte, error) {
	name, err := r.str(0, "branch")
	if err != nil {
		return nil, err
	}
	return nil, r.tree.SwitchBranch(name)
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
	return nil, r.tree.LabelAt(id, text, r.at)
}

func clearLabel(r *Request) ([]byte, error) {
	id, err := r.str(0, "node")
	if err != nil {
		return nil, err
	}
	return nil, r.tree.ClearLabelAt(id, r.at)
}

func checkout(r *Request) ([]byte, error) {
	id, err := r.str(0, "node")
	if err != nil {
		return nil, err
	}
	name, err := r.tree.Checkout(id, r.at)
	return []byte(name), err
}

func open(r *Request) ([]byte, error) {
	id, err := r.str(0, "node")
	if err != nil {
		return nil, err
	}
	name, err := r.tree.Open(id, r.at)
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
	newID, err := op(r.tree, id, msg, r.at)
	if err != nil {
		return nil, err
	}
	r.sent(msg)
	return text(newID), nil
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
