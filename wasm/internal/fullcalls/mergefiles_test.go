package fullcalls

import (
	"encoding/binary"
	"encoding/json"
	"strings"
	"testing"

	"github.com/sessiontree/sessiontree/core"
)

// splitMerge reads a merge result: the report's JSON, then the tree (empty when
// the merge left ours as it was).
func splitMerge(t *testing.T, res []byte) (report, tree []byte) {
	t.Helper()
	n := binary.LittleEndian.Uint32(res)
	return res[4 : 4+n], res[4+n:]
}

// apart returns two copies of sample(t) edited apart: appends on both sides, a
// rewind, labels set on both at different times, a summary, a deleted name.
func apart(t *testing.T) (a, b *core.Tree) {
	t.Helper()
	a = sample(t)
	b = a.Clone()
	path, err := a.ActivePath()
	if err != nil {
		t.Fatal(err)
	}
	steps := []error{
		func() error {
			_, err := a.Append(core.Message(`{"role":"user","content":"from a"}`), 1700000010000)
			return err
		}(),
		a.LabelAt(path[0], "a's label", 1700000011000),
		func() error {
			_, err := b.Append(core.Message(`{"role":"user","content":"from b 😀"}`), 1700000012000)
			return err
		}(),
		func() error { _, err := b.Rewind(path[0], 1700000013000); return err }(),
		func() error {
			_, err := b.Append(core.Message(`{"role":"assistant","content":"b again"}`), 1700000014000)
			return err
		}(),
		b.LabelAt(path[0], "b's later label", 1700000015000),
		b.SummarizeBranch("branch-1", "b's summary", "", 1700000016000),
	}
	for i, err := range steps {
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	return a, b
}

// The main module swaps what merge returns into the live tree, so a merge
// through this module must leave exactly the tree core's Merge leaves.
func TestAMergeThroughTheModuleSavesTheBytesOfCoreMerge(t *testing.T) {
	a, b := apart(t)
	for _, pair := range [][2]*core.Tree{{a, b}, {b, a}} {
		ours, theirs := pair[0].Marshal(), pair[1].Marshal()
		res, ok := do("merge", ours, theirs)
		if !ok {
			t.Fatalf("merge: %s", res)
		}
		report, tree := splitMerge(t, res)
		want := pair[0].Clone()
		rep, err := want.Merge(pair[1])
		if err != nil {
			t.Fatal(err)
		}
		if string(tree) != string(want.Marshal()) {
			t.Errorf("the merged tree differs from core's:\n%s\n%s", tree, want.Marshal())
		}
		if string(report) != string(rep.AppendJSON(nil)) {
			t.Errorf("report %s, want %s", report, rep.AppendJSON(nil))
		}
		var r struct {
			NodesAdded []string
			Changed    bool
		}
		if err := json.Unmarshal(report, &r); err != nil || !r.Changed || len(r.NodesAdded) == 0 {
			t.Errorf("report %s: %v", report, err)
		}
	}
	// Either order gives the same bytes, the module's or core's.
	ab, _ := do("merge", a.Marshal(), b.Marshal())
	ba, _ := do("merge", b.Marshal(), a.Marshal())
	_, t1 := splitMerge(t, ab)
	_, t2 := splitMerge(t, ba)
	if string(t1) != string(t2) {
		t.Error("merge(a, b) and merge(b, a) differ")
	}
}

func TestAMergeThatLeavesOursAsItWasSendsNoTree(t *testing.T) {
	a, b := apart(t)
	merged := a.Clone()
	if _, err := merged.Merge(b); err != nil {
		t.Fatal(err)
	}
	for _, theirs := range [][]byte{merged.Marshal(), b.Marshal()} {
		res, ok := do("merge", merged.Marshal(), theirs)
		if !ok {
			t.Fatalf("merge: %s", res)
		}
		report, tree := splitMerge(t, res)
		if len(tree) != 0 || !strings.Contains(string(report), `"changed":false`) {
			t.Fatalf("merging what ours holds already: report %s and %d tree bytes", report, len(tree))
		}
	}
}

func TestMergeFailuresNameTheArgumentAtFault(t *testing.T) {
	ok := string(sample(t).Marshal())
	cases := []struct {
		args []string
		code string
		says string
	}{
		{nil, "invalid_input", "ours"},
		{[]string{ok}, "invalid_input", "theirs"},
		{[]string{"not json", ok}, "corrupt", ""},
		{[]string{ok, `{"format":"sessiontree","version":99}`}, "unsupported_version", "version"},
	}
	for _, c := range cases {
		args := make([][]byte, len(c.args))
		for i, a := range c.args {
			args[i] = []byte(a)
		}
		res, okk := do("merge", args...)
		var e struct{ Code, Message string }
		if okk || json.Unmarshal(res, &e) != nil || e.Code != c.code || !strings.Contains(e.Message, c.says) {
			t.Errorf("merge(%d args) = %s, want %s naming %q", len(c.args), res, c.code, c.says)
		}
	}
}

// The options argument reaches core's MergeWith: the same bytes as core's, and
// an unknown option is refused with its name.
func TestMergeOptionsThroughTheModuleAreCoreMergeWith(t *testing.T) {
	a := sample(t)
	b := a.Clone()
	if _, err := a.Append(core.Message(`{"role":"user","content":"tab a"}`), 1700000010000); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Append(core.Message(`{"role":"user","content":"tab b"}`), 1700000011000); err != nil {
		t.Fatal(err)
	}
	res, ok := do("merge", a.Marshal(), b.Marshal(), []byte("freshNames,keepPlace"))
	if !ok {
		t.Fatalf("merge: %s", res)
	}
	report, tree := splitMerge(t, res)
	want := a.Clone()
	rep, err := want.MergeWith(b, core.MergeOptions{FreshNames: true, KeepPlace: true})
	if err != nil {
		t.Fatal(err)
	}
	if string(tree) != string(want.Marshal()) || string(report) != string(rep.AppendJSON(nil)) {
		t.Errorf("differs from core's MergeWith:\n%s\n%s", tree, want.Marshal())
	}
	if strings.Contains(string(report), "~") || !strings.Contains(string(report), `"keptAs":"branch-2"`) {
		t.Errorf("report %s, want the conflict kept as branch-2 (sample has branch-1)", report)
	}
	if res, ok := do("merge", a.Marshal(), b.Marshal(), []byte("fresh")); ok || !strings.Contains(string(res), `no option \"fresh\"`) {
		t.Errorf("unknown option: %s", res)
	}
}
