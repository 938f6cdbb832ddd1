package fullcalls

import (
	"encoding/binary"
	"strconv"
	"strings"
	"testing"
)

// load makes a live tree of a .tree.json file through the lean "load".
func load(t *testing.T, file []byte) uint32 {
	t.Helper()
	res, ok := do("load", file)
	h, err := strconv.ParseUint(string(res), 10, 32)
	if !ok || err != nil {
		t.Fatalf("load: %s", res)
	}
	return uint32(h)
}

func save(t *testing.T, h uint32) string {
	t.Helper()
	res, ok := doOn("save", h)
	if !ok {
		t.Fatalf("save: %s", res)
	}
	return string(res)
}

// A merge in place must leave the tree the stateless merge returns (core's
// Merge), whether the other copy is a live tree or its file, in either order.
func TestAMergeInPlaceLeavesTheTreeAndReportOfCoreMerge(t *testing.T) {
	a, b := apart(t)
	for _, pair := range [][2][]byte{{a.Marshal(), b.Marshal()}, {b.Marshal(), a.Marshal()}} {
		want, ok := do("merge", pair[0], pair[1])
		if !ok {
			t.Fatalf("merge: %s", want)
		}
		report, tree := splitMerge(t, want)
		for _, kind := range []string{"handle", "json"} {
			ours := load(t, pair[0])
			other := pair[1]
			if kind == "handle" {
				other = []byte(strconv.FormatUint(uint64(load(t, pair[1])), 10))
			}
			rep, ok := doOn("mergeTree", ours, []byte(kind), other)
			if !ok || string(rep) != string(report) {
				t.Fatalf("mergeTree(%s) = %s, want %s", kind, rep, report)
			}
			if got := save(t, ours); got != string(tree) {
				t.Fatalf("mergeTree(%s) left\n%s\nwant\n%s", kind, got, tree)
			}
		}
	}
}

func TestAMergeInPlaceRefusesAFreedTreeAndAnUnknownKind(t *testing.T) {
	a, b := apart(t)
	ours, theirs := load(t, a.Marshal()), load(t, b.Marshal())
	before := save(t, ours)
	doOn("free", theirs)
	cases := []struct {
		args []string
		says string
	}{
		{[]string{"handle", strconv.FormatUint(uint64(theirs), 10)}, "freed"},
		{[]string{"handle", "x"}, "freed"},
		{[]string{"file", "{}"}, "unknown kind"},
		{[]string{"json"}, "other"},
		{[]string{"json", "not json"}, ""},
	}
	for _, c := range cases {
		args := make([][]byte, len(c.args))
		for i, s := range c.args {
			args[i] = []byte(s)
		}
		if res, ok := doOn("mergeTree", ours, args...); ok || !strings.Contains(string(res), c.says) {
			t.Errorf("mergeTree(%q) = %s, want an error naming %q", c.args, res, c.says)
		}
	}
	if save(t, ours) != before {
		t.Fatal("a refused merge changed the tree")
	}
}

// importTree and exportTree are import and export on live trees: the same
// report and tree, the same file.
func TestImportIntoAndExportFromALiveTreeGiveWhatTheFileCallsGive(t *testing.T) {
	saved := sample(t).Marshal()
	file, ok := do("export", []byte("claudecode"), saved)
	if !ok {
		t.Fatalf("export: %s", file)
	}
	h := load(t, saved)
	if got, ok := doOn("exportTree", h, []byte("claudecode")); !ok || string(got) != string(file) {
		t.Fatalf("exportTree = %s", got)
	}
	want, _ := do("import", []byte("auto"), file)
	got, ok := do("importTree", []byte("auto"), file)
	if !ok {
		t.Fatalf("importTree: %s", got)
	}
	n := binary.LittleEndian.Uint32(got)
	if string(got[:4+n]) != string(want[:4+n]) {
		t.Fatalf("reports differ: %s, %s", got[4:4+n], want[4:4+n])
	}
	h2, err := strconv.ParseUint(string(got[4+n:]), 10, 32)
	if err != nil || save(t, uint32(h2)) != string(want[4+n:]) {
		t.Fatalf("the imported tree (handle %q) differs from import's", got[4+n:])
	}
	if res, ok := doOn("exportTree", h, []byte("nope")); ok || !strings.Contains(string(res), "nope") {
		t.Fatalf("exportTree(nope) = %s", res)
	}
	if res, ok := do("importTree", []byte("nope"), []byte("[]")); ok {
		t.Fatalf("importTree of junk = %s", res)
	}
}
