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

// SPEC §2: ids are non-empty strings of at most 256 bytes without control
// characters, and the id source is injectable. What an injected source
// returns is held to the same rule (an id it makes must load back from the
// file it is saved in), and ids it returns that are in use are skipped: an
// append, an edit or a batch fails cleanly rather than store a bad id or
// overwrite a node, and adds nothing.
func TestAnIDSourceIsHeldToTheIDRulesAndItsUsedIDsAreSkipped(t *testing.T) {
	for _, bad := range []string{"", strings.Repeat("x", 257), "a\nb", "a\x00", "\u0085", "\xff"} {
		next := "q"
		tr := New(WithIDSource(func() string { return next }))
		q := mustAppend(t, tr, msg("user", "q"), 1)
		next = bad
		before := tr.Marshal()
		_, err := tr.Append(msg("user", "x"), 2)
		wantCode(t, err, CodeInvalidInput)
		_, err = tr.Edit(q, msg("user", "x"), 2)
		wantCode(t, err, CodeInvalidInput)
		_, err = tr.Apply([]Op{{Op: "append", Message: msg("user", "x")}}, 2)
		wantCode(t, err, CodeInvalidInput)
		if after := tr.Marshal(); string(after) != string(before) {
			t.Fatalf("id %q: a refused id changed the tree:\n%s", bad, after)
		}
		// The same tree takes a good id afterwards.
		next = strings.Repeat("y", 256)
		if id, err := tr.Append(msg("user", "x"), 3); err != nil || id != next {
			t.Fatalf("id %q: then a good id: %q %v", bad, id, err)
		}
	}

	// Used ids are skipped; a source that returns nothing else fails with
	// conflict instead of looping for ever or replacing a node.
	src := []string{"a", "a", "b", "a", "b", "c"}
	tr := New(WithIDSource(func() string {
		if len(src) == 0 {
			return "c"
		}
		id := src[0]
		src = src[1:]
		return id
	}))
	var got []string
	for range 3 {
		got = append(got, mustAppend(t, tr, msg("user", "x"), 1))
	}
	if strings.Join(got, ",") != "a,b,c" {
		t.Fatalf("ids %v, want a,b,c (each used id skipped)", got)
	}
	before := tr.Marshal()
	_, err := tr.Append(msg("user", "x"), 2)
	wantCode(t, err, CodeConflict)
	if after := tr.Marshal(); string(after) != string(before) || tr.Len() != 3 {
		t.Fatalf("a source of used ids changed the tree:\n%s", after)
	}
}
