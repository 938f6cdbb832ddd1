package core

import (
	"errors"
	"strings"
	"testing"
)

// SPEC §4: one error type with a stable code; "messages name the offending id
// or name". Every operation that takes a node id answers an unknown one with
// not_found, and every one that takes a branch name an unknown name with
// branch_not_found, each naming what it was given and changing nothing.
func TestEveryOperationOfAnUnknownNodeOrBranchFailsWithItsCodeNamingIt(t *testing.T) {
	tr, ids := chain(t, "q", "a")
	tr.Branch(ids[0], "side", 3)
	tr.SwitchBranch(MainBranch)
	before := tr.Marshal()
	const node, name = "no-such-node", "no-such-branch"
	nodeOps := map[string]func() error{
		"Children":   func() error { _, err := tr.Children(node); return err },
		"Siblings":   func() error { _, _, err := tr.Siblings(node); return err },
		"Rewind":     func() error { _, err := tr.Rewind(node, 5); return err },
		"Branch":     func() error { _, err := tr.Branch(node, "new", 5); return err },
		"Label":      func() error { return tr.Label(node, "x") },
		"ClearLabel": func() error { return tr.ClearLabel(node) },
		"Checkout":   func() error { _, err := tr.Checkout(node, 5); return err },
		"Open":       func() error { _, err := tr.Open(node, 5); return err },
		"Edit":       func() error { _, err := tr.Edit(node, msg("user", "x"), 5); return err },
		"Regenerate": func() error { _, err := tr.Regenerate(node, msg("assistant", "x"), 5); return err },
	}
	branchOps := map[string]func() error{
		"SwitchBranch":       func() error { return tr.SwitchBranch(name) },
		"LinearProjectionOf": func() error { _, err := tr.LinearProjectionOf(name); return err },
		"PathOf":             func() error { _, err := tr.PathOf(name); return err },
		"SummarizeBranch":    func() error { return tr.SummarizeBranch(name, "s", "m", 5) },
		"RenderBranchText":   func() error { _, err := tr.RenderBranchText(name); return err },
		"StubSummary":        func() error { _, err := tr.StubSummary(name); return err },
		"SummaryInput":       func() error { _, _, err := tr.SummaryInput(name); return err },
		"DeleteBranch":       func() error { return tr.DeleteBranch(name) },
	}
	check := func(ops map[string]func() error, code Code, sentinel error, culprit string) {
		t.Helper()
		for op, f := range ops {
			err := f()
			if err == nil {
				t.Errorf("%s(%q) succeeded", op, culprit)
				continue
			}
			var e *Error
			if !errors.As(err, &e) || e.Code != code || !errors.Is(err, sentinel) {
				t.Errorf("%s(%q): want %s, got %v", op, culprit, code, err)
			}
			if !strings.Contains(err.Error(), `"`+culprit+`"`) {
				t.Errorf("%s(%q): the message does not name it: %v", op, culprit, err)
			}
		}
	}
	if _, ok := tr.Node(node); ok {
		t.Errorf("Node(%q) found an unknown id", node)
	}
	check(nodeOps, CodeNotFound, ErrNotFound, node)
	check(branchOps, CodeBranchNotFound, ErrBranchNotFound, name)
	if after := tr.Marshal(); string(after) != string(before) {
		t.Fatalf("a failed call changed the tree:\n%s\n%s", before, after)
	}
}
