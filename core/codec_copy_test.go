package core

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
)

// sameSave fails unless Marshal (which may copy the loaded file's nodes)
// writes what a clone, never loaded, writes node by node.
func sameSave(t *testing.T, what string, tr *Tree) {
	t.Helper()
	want := tr.Clone().Marshal()
	if got := tr.Marshal(); !bytes.Equal(got, want) {
		t.Fatalf("%s: Marshal copied\n%s\nwriting each node gives\n%s", what, got, want)
	}
	if head, nodes, ok := tr.MarshalParts([]byte("x")); ok != (tr.canonicalNodes() != nil) {
		t.Fatalf("%s: MarshalParts says %v", what, ok)
	} else if ok {
		if got := append(append(head[1:], nodes...), '}'); !bytes.Equal(got, want) {
			t.Fatalf("%s: MarshalParts gives\n%s\nwriting each node gives\n%s", what, got, want)
		}
	}
	if size := tr.MarshalSize(); size < len(want)-len(tr.branchKeys())*4096 {
		t.Fatalf("%s: MarshalSize %d is far under the file's size", what, size)
	}
}

// A loaded file Marshal would have written keeps its "nodes" object for the
// saves after it, until a node changes: the save copies it then, and saves
// byte for byte what writing each node saves, through every change to the
// nodes (appends, edits, regenerates, labels, rewinds, deleted branches, a
// prune, another copy's rows, a merge, a repair) and with the branch-only
// changes after which it still copies (a branch made at a node, a switch, a
// summary).
func TestASaveCopiesTheLoadedFilesNodesUntilANodeChanges(t *testing.T) {
	copied := 0
	defer func() {
		if copied < 10 {
			t.Errorf("only %d of 40 trees had their nodes copied", copied)
		}
	}()
	for seed := range uint64(40) {
		r := rand.New(rand.NewPCG(seed, 26))
		i := 0
		tr := New(WithIDSource(func() string { i++; return "n" + strconv.Itoa(1000+i) }))
		g := &opGen{r: r, deletes: seed%2 == 0}
		for range 30 + r.IntN(60) {
			tr.Apply([]Op{g.op(tr)}, 1)
		}
		data := tr.Marshal()
		lt, err := Unmarshal(data)
		if err != nil {
			t.Fatal(err)
		}
		if lt.canonicalNodes() == nil && plainLabels(lt) {
			t.Fatalf("seed %d: a file Marshal wrote is not taken as Marshal's", seed)
		}
		if !bytes.Equal(lt.Marshal(), data) {
			t.Fatalf("seed %d: the loaded tree does not save its file", seed)
		}
		// Branch-only changes keep the copy.
		p, _ := lt.ActivePath()
		home := lt.ActiveBranch()
		if _, err := lt.Branch(p[len(p)/2], "", 5); err != nil {
			t.Fatal(err)
		}
		lt.SwitchBranch(home)
		lt.SummarizeBranch(home, "so far", "m", 6)
		if lt.canonicalNodes() == nil && plainLabels(lt) {
			t.Fatalf("seed %d: a branch, a switch or a summary dropped the copy", seed)
		}
		if plainLabels(lt) {
			copied++
		}
		sameSave(t, "seed "+strconv.Itoa(int(seed))+" after branch changes", lt)
		other, _ := Unmarshal(data)
		for step := range 12 {
			what := "seed " + strconv.Itoa(int(seed)) + " step " + strconv.Itoa(step)
			switch k := r.IntN(10); {
			case k < 6:
				lt.Apply([]Op{g.op(lt)}, int64(10+step))
			case k == 6:
				lt.Prune()
			case k == 7:
				// Another copy's rows: appends and a label made there.
				other.TakeChanges() // starts recording
				for range 3 {
					other.Apply([]Op{g.op(other)}, int64(20+step))
				}
				root, active, bs, ns := delta(other)
				lt.ApplyRows(root, active, false, bs, ns)
			case k == 8:
				lt.Merge(other)
			default:
				lt.Repair()
			}
			sameSave(t, what, lt)
			back, err := Unmarshal(lt.Marshal())
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			sameSave(t, what+", loaded again", back)
		}
	}
}

// plainLabels says whether every label of tr is one fastNode reads (printable
// ASCII, no quote or backslash): a file with another is written node by node.
func plainLabels(tr *Tree) bool {
	for _, n := range tr.nodes {
		for _, c := range []byte(n.labelText()) {
			if c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
				return false
			}
		}
	}
	return true
}

// A file laid out otherwise than Marshal writes it (white space, an escaped
// id, "-0", an explicit "label_at_ms":0, keys out of order) is not copied: its
// save is Marshal's own.
func TestASaveWritesTheNodesOfAFileMarshalDidNotWrite(t *testing.T) {
	tr, err := FromLinear([]Message{Message(`{"role":"user","content":"q"}`), Message(`{"role":"assistant","content":"a"}`), Message(`{"role":"user","content":"b"}`)}, 0)
	if err != nil {
		t.Fatal(err)
	}
	ids, _ := tr.ActivePath()
	tr.Label(ids[1], "l")
	keys := slices.Sorted(slices.Values(ids))
	data := string(tr.Marshal())
	if lt, _ := Unmarshal([]byte(data)); lt.canonicalNodes() == nil {
		t.Fatal("Marshal's own file is not taken as Marshal's")
	}
	for _, c := range []struct{ what, from, to string }{
		{"a space after a colon", `"children":[`, `"children": [`},
		{"a space between nodes", `},"` + keys[1] + `":{`, `}, "` + keys[1] + `":{`},
		{"white space before the nodes' end", `}}}`, "}\n}}"},
		{"an escaped key", `"` + ids[2] + `":{`, `"` + ids[2][:len(ids[2])-1] + `\u00` + strconv.FormatInt(int64(ids[2][len(ids[2])-1]), 16) + `":{`},
		{"-0", `"created_at_ms":0}`, `"created_at_ms":-0}`},
		{"an explicit zero label time", `,"label":"l","created_at_ms"`, `,"label":"l","label_at_ms":0,"created_at_ms"`},
	} {
		m := bytes.Replace([]byte(data), []byte(c.from), []byte(c.to), 1)
		if string(m) == data {
			t.Fatalf("%s: the file has no %q", c.what, c.from)
		}
		lt, err := Unmarshal(m)
		if err != nil {
			t.Fatalf("%s: %v", c.what, err)
		}
		if lt.canonicalNodes() != nil {
			t.Fatalf("%s: taken as Marshal's", c.what)
		}
		sameSave(t, c.what, lt)
	}
}
