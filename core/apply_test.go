package core

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

func TestApplyRunsABatchAndReturnsOneResultPerOp(t *testing.T) {
	tr := New(counterIDs())
	ops, err := ParseOps([]byte(`[
		{"op":"append","message":{"role":"user","content":"q"},"at":1},
		{"op":"append","message":{"role":"assistant","content":"a"}},
		{"op":"rewind","node":"n1","at":3},
		{"op":"branch","from":"n1","name":"idea"},
		{"op":"switch","branch":"main"},
		{"op":"label","node":"n1","label":"start"},
		{"op":"clearLabel","node":"n1"},
		{"op":"checkout","node":"n2"},
		{"op":"edit","node":"n1","message":{"role":"user","content":"q2"}},
		{"op":"regenerate","node":"n2","message":{"role":"assistant","content":"a2"}},
		{"op":"summarize","branch":"idea","summary":"s","modelId":"m"},
		{"op":"switch","branch":"main"},
		{"op":"deleteBranch","branch":"idea"}
	]`))
	if err != nil {
		t.Fatal(err)
	}
	res, err := tr.Apply(ops, 100)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"n1", "n2", "branch-1", "idea", "", "", "", "branch-1", "n3", "n4", "", "", ""}
	if strings.Join(res, ",") != strings.Join(want, ",") {
		t.Fatalf("results %q\nwant    %q", res, want)
	}
	if n, _ := tr.Node("n2"); n.CreatedAtMs != 100 {
		t.Fatalf("an op without at should use now: %d", n.CreatedAtMs)
	}
}

func TestApplyOfAFailingBatchChangesNothing(t *testing.T) {
	tr, ids := chain(t, "q", "a")
	tr.Label(ids[0], "keep")
	before := tr.Marshal()
	ops := []Op{
		{Op: "append", Message: msg("user", "x")},
		{Op: "rewind", Node: ids[0]},
		{Op: "branch", From: ids[0], Name: "new"},
		{Op: "label", Node: ids[0], Label: "changed"},
		{Op: "summarize", Branch: "new", Summary: "s"},
		{Op: "edit", Node: ids[1], Message: msg("assistant", "e")},
		{Op: "switch", Branch: "does-not-exist"},
	}
	_, err := tr.Apply(ops, 5)
	wantCode(t, err, CodeBranchNotFound)
	if !strings.Contains(err.Error(), "op 6 (switch)") {
		t.Fatalf("error should name the op: %v", err)
	}
	if after := tr.Marshal(); !bytes.Equal(before, after) {
		t.Fatalf("failed batch changed the tree:\n%s\n%s", before, after)
	}
	// The tree keeps working, and fresh names are unaffected by the rollback.
	if name, _ := tr.Rewind(ids[0], 6); name != "branch-1" {
		t.Fatalf("fresh name after rollback %q", name)
	}
}

// A failed batch moves neither the version nor any feed: it changed nothing.
// Before Dec 5 it moved the version (a sync client then took the tree for
// edited, and pulled and merged instead of applying the next delta) and left
// rows of what never happened in every feed (a node that never existed, to be
// deleted; events naming it).
func TestApplyOfAFailingBatchMovesNeitherTheVersionNorAFeed(t *testing.T) {
	// Two like trees, each with a change not yet taken (it stays in every feed).
	build := func() (*Tree, []string) {
		tr, ids := chain(t, "q", "a")
		tr.TakeChanges()
		tr.TakeWatched()
		tr.TakeSynced()
		mustAppend(t, tr, msg("user", "pending"), 3)
		return tr, ids
	}
	tr, ids := build()
	like, _ := build()
	ops := []Op{
		{Op: "append", Message: msg("user", "x")},
		{Op: "rewind", Node: ids[0]},
		{Op: "label", Node: ids[1], Label: "l"},
		{Op: "branch", From: ids[0], Name: "new"},
		{Op: "switch", Branch: "does-not-exist"},
	}
	if _, err := tr.Apply(ops, 5); err == nil {
		t.Fatal("the batch should fail")
	}
	if tr.Version() != like.Version() {
		t.Fatalf("version %d after a failed batch, %d without it", tr.Version(), like.Version())
	}
	for _, f := range []func(*Tree) Changes{(*Tree).TakeChanges, (*Tree).TakeWatched, (*Tree).TakeSynced} {
		if got, want := f(tr), f(like); !reflect.DeepEqual(got, want) {
			t.Errorf("a feed after a failed batch: %+v, without it %+v", got, want)
		}
	}
	if _, err := tr.Apply(ops[:4], 6); err != nil {
		t.Fatal(err)
	}
	if tr.Version() == like.Version() {
		t.Fatal("a batch that went in should move the version")
	}
}

func TestParseOpsNamesTheOpAndFieldAtFault(t *testing.T) {
	for in, want := range map[string]string{
		`{}`:                                     "array",
		`[1]`:                                    "op 0",
		`[{"op":"fly"}]`:                         `unknown op "fly"`,
		`[{"op":"append"}]`:                      `needs "message"`,
		`[{"op":"append","message":{}}]`:         `"role"`,
		`[{"op":"append","message":{"role":1}}]`: `"role"`,
		`[{"op":"edit","node":"a","message":{"content":"x","role":["user"]}}]`: `"role"`,
		`[{"op":"rewind","node":1}]`:                  `"node" must be a string`,
		`[{"op":"rewind","node":"a","x":1}]`:          `unknown field "x"`,
		`[{"op":"rewind","node":"a","at":1.5}]`:       `"at"`,
		`[{"op":"switch","branch":"a","node":"b"}]`:   `takes no field "node"`,
		`[{"op":"switch","branch":"a","branch":"b"}]`: "duplicate",
		`[{"op":"switch","branch":"a"}] x`:            "after",
	} {
		_, err := ParseOps([]byte(in))
		wantCode(t, err, CodeInvalidInput)
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %q should mention %q", in, err, want)
		}
	}
}

// SPEC §5: ops take the methods' arguments, and the methods check them
// without coercing. An optional argument (a branch's "name", a summary's
// "modelId") is left out or null for none, as the methods take undefined or
// null; an empty string is not a name or a model (SPEC §2: names are
// non-empty) and fails with invalid_input, as t.branch(id, "") does. Before
// Dec 5 an op's empty name made a fresh branch-N and an empty modelId was
// taken for none, while its null name was refused.
func TestAnOpsOptionalArgumentIsAbsentNullOrANonEmptyStringAsInItsMethod(t *testing.T) {
	for _, in := range []string{
		`[{"op":"branch","from":"n1","name":""}]`,
		`[{"op":"summarize","branch":"main","summary":"s","modelId":""}]`,
	} {
		_, err := ParseOps([]byte(in))
		wantCode(t, err, CodeInvalidInput)
		if !strings.Contains(err.Error(), "must be a non-empty string") {
			t.Errorf("%s: %v", in, err)
		}
	}
	tr := New(counterIDs())
	mustAppend(t, tr, msg("user", "q"), 1)
	ops, err := ParseOps([]byte(`[
		{"op":"branch","from":"n1","name":null},
		{"op":"branch","from":"n1"},
		{"op":"summarize","branch":"main","summary":"s","modelId":null},
		{"op":"summarize","branch":"branch-1","summary":"s"}
	]`))
	if err != nil {
		t.Fatal(err)
	}
	res, err := tr.Apply(ops, 2)
	if err != nil || res[0] != "branch-1" || res[1] != "branch-2" {
		t.Fatalf("%q %v", res, err)
	}
	for _, name := range []string{MainBranch, "branch-1"} {
		if b, _ := tr.LookupBranch(name); b.Summary == nil || b.Summary.ModelID != "" {
			t.Fatalf("%s: summary %+v, want one without a model", name, b.Summary)
		}
	}
}

// A node or a branch an op names is a non-empty string: "" is invalid_input,
// as the JS methods and the Go API's callers refuse it, not a look-up that
// finds nothing (not_found, branch_not_found), which it was until Dec 6 (a
// random run of the JS API found t.switchBranch("") and
// t.apply([{op:"switch",branch:""}]) answering different codes).
func TestAnOpNamingNoNodeOrBranchIsInvalidInputAsItsMethodIs(t *testing.T) {
	for _, in := range []string{
		`[{"op":"rewind","node":""}]`,
		`[{"op":"branch","from":""}]`,
		`[{"op":"switch","branch":""}]`,
		`[{"op":"label","node":"","label":"x"}]`,
		`[{"op":"clearLabel","node":""}]`,
		`[{"op":"checkout","node":""}]`,
		`[{"op":"edit","node":"","message":{"role":"user"}}]`,
		`[{"op":"regenerate","node":"","message":{"role":"user"}}]`,
		`[{"op":"summarize","branch":"","summary":"s"}]`,
		`[{"op":"deleteBranch","branch":""}]`,
	} {
		_, err := ParseOps([]byte(in))
		wantCode(t, err, CodeInvalidInput)
		if err == nil || !strings.Contains(err.Error(), `must be a non-empty string`) {
			t.Errorf("%s: %v", in, err)
		}
	}
}

// After a failed batch that made and used a branch, appends go to the branch
// that is active again (the memo of the active branch does not outlive it).
func TestApplyOfAFailingBatchLeavesAppendsOnTheActiveBranch(t *testing.T) {
	tr, ids := chain(t, "a", "b")
	_, err := tr.Apply([]Op{
		{Op: "branch", From: ids[0], Name: "x"},
		{Op: "append", Message: msg("user", "on x")},
		{Op: "rewind", Node: "missing"},
	}, 5)
	if err == nil {
		t.Fatal("the batch should fail")
	}
	id := mustAppend(t, tr, msg("user", "c"), 6)
	if p := mustPath(t, tr, MainBranch); p[len(p)-1] != id || len(p) != 3 {
		t.Fatalf("main is %v, want a, b and the new node", p)
	}
	if _, ok := tr.LookupBranch("x"); ok {
		t.Fatal("branch x outlived the failed batch")
	}
	// A branch removed and made again under the active name is the one used.
	if _, err := tr.Branch(ids[0], "y", 7); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, tr, msg("user", "on y"), 8)
	if err := tr.SwitchBranch(MainBranch); err != nil {
		t.Fatal(err)
	}
	if err := tr.DeleteBranch("y"); err != nil {
		t.Fatal(err)
	}
	if _, err := tr.Branch(ids[1], "y", 9); err != nil {
		t.Fatal(err)
	}
	id = mustAppend(t, tr, msg("user", "on the new y"), 10)
	if p := mustPath(t, tr, "y"); len(p) != 3 || p[2] != id {
		t.Fatalf("y is %v", p)
	}
}

// SPEC §3: every operation that records a time takes it as an argument; in
// a batch, an op's own "at" is its time and nowMs is only for ops without.
func TestAnOpsOwnTimeIsTheTimeItRecords(t *testing.T) {
	tr := New(counterIDs())
	ops, err := ParseOps([]byte(`[{"op":"append","message":{"role":"user"},"at":5},{"op":"append","message":{"role":"assistant"}}]`))
	if err != nil {
		t.Fatal(err)
	}
	ids, err := tr.Apply(ops, 100)
	if err != nil {
		t.Fatal(err)
	}
	first, _ := tr.Node(ids[0])
	second, _ := tr.Node(ids[1])
	if first.CreatedAtMs != 5 || second.CreatedAtMs != 100 {
		t.Fatalf("times %d and %d, want 5 and 100", first.CreatedAtMs, second.CreatedAtMs)
	}
}
