package core

import (
	"bytes"
	"errors"
	"math/rand"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/sessiontree/sessiontree/core/rawjson"
)

// delta is what one copy hands another: the rows TakeChanges named.
func delta(tr *Tree) (root, active string, bs, ns []Fragment) {
	bs, ns = rowsNamed(tr, tr.TakeChanges())
	return tr.Root(), tr.ActiveBranch(), bs, ns
}

// rowsNamed is the rows of the branches and nodes c names (nil for one gone).
func rowsNamed(tr *Tree, c Changes) (bs, ns []Fragment) {
	for _, name := range c.Branches {
		row, _ := tr.BranchJSON(name)
		bs = append(bs, Fragment{Key: name, JSON: row})
	}
	for _, id := range c.Nodes {
		row, _ := tr.NodeJSON(id)
		ns = append(ns, Fragment{Key: id, JSON: row})
	}
	return bs, ns
}

// deltaDoc writes rows as the delta document ApplyDelta reads (the shape the
// edge worker pushes to live clients), with members of the sender's own.
func deltaDoc(root, active string, bs, ns []Fragment) []byte {
	doc := []byte(`{"type":"change","version":7,"root":`)
	doc = rawjson.AppendString(doc, root)
	doc = append(doc, `,"active":`...)
	doc = rawjson.AppendString(doc, active)
	part := func(name string, list []Fragment) {
		doc = append(doc, `,"`+name+`":{`...)
		var gone []string
		first := true
		for _, f := range list {
			if f.JSON == nil {
				gone = append(gone, f.Key)
				continue
			}
			if !first {
				doc = append(doc, ',')
			}
			first = false
			doc = rawjson.AppendString(doc, f.Key)
			doc = append(append(doc, ':'), f.JSON...)
		}
		doc = append(doc, `},"deleted_`+name+`":`...)
		doc = rawjson.AppendStrings(doc, gone)
	}
	part("nodes", ns)
	part("branches", bs)
	return append(doc, '}')
}

// randomStep changes tr as a user of a chat client does, including the rarer
// changes (deleted names, summaries, cleared labels, prunes, a merge of a
// diverged copy) whose records a delta must carry.
func randomStep(rng *rand.Rand, tr *Tree, step int) {
	ids, _ := tr.ActivePath()
	pick := func() string {
		if len(ids) == 0 {
			return "none"
		}
		return ids[rng.Intn(len(ids))]
	}
	at := int64(step + 10)
	bs := tr.Branches()
	some := bs[rng.Intn(len(bs))].Name
	var ops []Op
	switch rng.Intn(12) {
	case 0, 1, 2:
		ops = []Op{{Op: "append", Message: msg("user", "m"+strconv.Itoa(step))}}
	case 3:
		ops = []Op{{Op: "rewind", Node: pick()}}
	case 4:
		ops = []Op{{Op: "edit", Node: pick(), Message: msg("user", "e")}}
	case 5:
		ops = []Op{{Op: "label", Node: pick(), Label: "l" + strconv.Itoa(step)}}
	case 6:
		ops = []Op{{Op: "switch", Branch: some}}
	case 7:
		ops = []Op{{Op: "deleteBranch", Branch: some}}
	case 8:
		ops = []Op{{Op: "summarize", Branch: some, Summary: "s" + strconv.Itoa(step), ModelID: "m"}}
	case 9:
		ops = []Op{{Op: "clearLabel", Node: pick()}}
	case 10:
		tr.Prune()
		return
	case 11:
		// Another device worked on a copy; merging it in changes many records.
		other := tr.Clone()
		other.Apply([]Op{{Op: "rewind", Node: pick()}, {Op: "append", Message: msg("assistant", "far "+strconv.Itoa(step))}}, at)
		other.Apply([]Op{{Op: "deleteBranch", Branch: some}}, at+1)
		tr.Merge(other)
		return
	}
	tr.Apply(ops, at) // a failing op leaves the tree as it was
}

// A copy that applies another's deltas after each change is that copy, byte for
// byte: every record a change touches travels, and nothing else is needed.
func TestApplyRowsOfEveryChangeGivesTheSameTree(t *testing.T) {
	for seed := int64(1); seed <= 12; seed++ {
		rng := rand.New(rand.NewSource(seed))
		src := New(counterIDs())
		mustAppend(t, src, msg("user", "hello"), 1)
		dst := src.Clone()
		src.TakeChanges() // start recording
		for step := 0; step < 300; step++ {
			randomStep(rng, src, step)
			root, active, bs, ns := delta(src)
			var err error
			if step%2 == 0 {
				err = dst.ApplyRows(root, active, true, bs, ns)
			} else {
				err = dst.ApplyDelta(deltaDoc(root, active, bs, ns), true)
			}
			if err != nil {
				t.Fatalf("seed %d step %d: %v", seed, step, err)
			}
			if got, want := dst.Marshal(), src.Marshal(); !bytes.Equal(got, want) {
				t.Fatalf("seed %d step %d: the copy differs:\n%s\n%s", seed, step, got, want)
			}
			if problems := dst.Validate(); len(problems) > 0 {
				t.Fatalf("seed %d step %d: %v", seed, step, problems[0])
			}
		}
		// The copy behaves as the tree, not only prints as it (the two share
		// one id source, so the new ids differ; what the user sees does not).
		for _, tr := range []*Tree{src, dst} {
			if _, err := tr.Apply([]Op{{Op: "rewind", Node: tr.Root()}, {Op: "append", Message: msg("user", "after")}}, 1000); err != nil {
				t.Fatal(err)
			}
		}
		a, _ := src.LinearProjection()
		b, _ := dst.LinearProjection()
		if len(a) != len(b) || src.ActiveBranch() != dst.ActiveBranch() || len(src.Branches()) != len(dst.Branches()) {
			t.Fatalf("seed %d: the copies part after a rewind and an append", seed)
		}
	}
}

// Deltas batched over many changes apply as well as one per change.
func TestApplyRowsOfManyChangesAtOnce(t *testing.T) {
	rng := rand.New(rand.NewSource(99))
	src := New(counterIDs())
	mustAppend(t, src, msg("user", "hello"), 1)
	dst := src.Clone()
	src.TakeChanges()
	for round := 0; round < 20; round++ {
		for step := 0; step < 25; step++ {
			randomStep(rng, src, round*25+step)
		}
		root, active, bs, ns := delta(src)
		if err := dst.ApplyRows(root, active, true, bs, ns); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if !bytes.Equal(dst.Marshal(), src.Marshal()) {
			t.Fatalf("round %d: the copy differs", round)
		}
	}
}

// The copy that applies keeps its own active branch unless told to follow.
func TestApplyRowsKeepsTheLocalActiveBranch(t *testing.T) {
	src := New(counterIDs())
	a := mustAppend(t, src, msg("user", "a"), 1)
	mustAppend(t, src, msg("assistant", "b"), 2)
	dst := src.Clone()
	if _, err := dst.Branch(a, "mine", 3); err != nil {
		t.Fatal(err)
	}
	if err := dst.SwitchBranch("mine"); err != nil {
		t.Fatal(err)
	}
	src.TakeChanges()
	mustAppend(t, src, msg("user", "c"), 4)
	root, active, bs, ns := delta(src)
	if err := dst.ApplyRows(root, active, false, bs, ns); err != nil {
		t.Fatal(err)
	}
	if dst.ActiveBranch() != "mine" {
		t.Fatalf("active = %q, want mine", dst.ActiveBranch())
	}
	if got, _ := dst.LinearProjectionOf(MainBranch); len(got) != 3 {
		t.Fatalf("main has %d messages, want 3", len(got))
	}
	if b, ok := dst.LookupBranch("mine"); !ok || b.Leaf != a {
		t.Fatalf("the local branch moved: %+v", b)
	}
}

// A delta the copy cannot take leaves it as it was, with a code saying why.
func TestApplyRowsRefusesWhatDoesNotFitAndChangesNothing(t *testing.T) {
	base := New(counterIDs())
	a := mustAppend(t, base, msg("user", "a"), 1)
	before := base.Marshal()
	node := func(id, parent, content string) Fragment {
		return Fragment{Key: id, JSON: []byte(`{"id":"` + id + `","parent":"` + parent + `","children":[],"message":{"role":"user","content":"` + content + `"},"created_at_ms":5}`)}
	}
	cases := []struct {
		name string
		bs   []Fragment
		ns   []Fragment
		code Code
		root string
	}{
		{"a row that is not JSON", nil, []Fragment{{Key: "x", JSON: []byte(`{"id":`)}}, CodeCorrupt, a},
		{"a node row of an unknown field", nil, []Fragment{{Key: "x", JSON: []byte(`{"id":"x","children":[],"message":{"role":"user"},"created_at_ms":1,"evil":1}`)}}, CodeCorrupt, a},
		{"a node whose parent neither copy has", nil, []Fragment{node("x", "missing", "hi")}, CodeConflict, a},
		{"a node that differs under the same id", nil, []Fragment{{Key: a, JSON: []byte(`{"id":"` + a + `","children":[],"message":{"role":"user","content":"not a"},"created_at_ms":1}`)}}, CodeConflict, a},
		{"a branch whose leaf neither copy has", []Fragment{{Key: "b", JSON: []byte(`{"name":"b","leaf":"nowhere","created_at_ms":1}`)}}, nil, CodeConflict, a},
		{"a removal of a node this copy still builds on", nil, []Fragment{{Key: a}}, CodeConflict, a},
		{"a root neither copy has", nil, nil, CodeConflict, "ghost"},
		// Found by FuzzApplyDelta: the row "n" held the node "00" whose parent
		// was "n", and the apply linked it under a node that was not there (a
		// nil dereference).
		{"a row keyed by another id than its node's", nil, []Fragment{{Key: "n", JSON: node("00", "n", "hi").JSON}}, CodeCorrupt, a},
		{"a node that is its own parent", nil, []Fragment{node("x", "x", "hi")}, CodeCorrupt, a},
		{"new nodes whose parents loop", nil, []Fragment{node("x", "y", "hi"), node("y", "z", "hi"), node("z", "x", "hi")}, CodeCorrupt, a},
		{"a root that has a parent", nil, []Fragment{node("x", a, "hi")}, CodeCorrupt, "x"},
		// Found by FuzzDeltaBody: the edge stored a tree with no "main".
		{"a removal of main", []Fragment{{Key: MainBranch}}, nil, CodeCorrupt, a},
		{"main made a deleted name", []Fragment{{Key: MainBranch, JSON: []byte(`{"name":"main","deleted_at_ms":3}`)}}, nil, CodeCorrupt, a},
		// Found by FuzzApplyRows: the row "main" held a branch named "00",
		// and the tree it left had a branch stored under another name than
		// its own (Validate: branch_name_mismatch).
		{"a row keyed by another name than its branch's", []Fragment{{Key: MainBranch, JSON: []byte(`{"name":"00","created_at_ms":0}`)}}, nil, CodeCorrupt, a},
		{"a new branch's row keyed by another name", []Fragment{{Key: "b", JSON: []byte(`{"name":"c","leaf":"` + a + `","created_at_ms":1}`)}}, nil, CodeCorrupt, a},
	}
	for _, c := range cases {
		err := base.ApplyRows(c.root, MainBranch, true, c.bs, c.ns)
		if e := (*Error)(nil); !errors.As(err, &e) || e.Code != c.code {
			t.Errorf("%s: err = %v, want %s", c.name, err, c.code)
		}
		if !bytes.Equal(base.Marshal(), before) {
			t.Fatalf("%s: the tree changed", c.name)
		}
	}
	// Removing a leaf the other copy pruned is fine.
	b := mustAppend(t, base, msg("user", "b"), 2)
	_ = b
}

// A delta that names no root (its copy had none when it was taken) leaves the
// root over the nodes this copy keeps: the tree stays sound (found by
// FuzzApplyDelta: {"active":""} emptied the root of a tree with nodes).
func TestApplyDeltaWithoutARootKeepsThisCopysRoot(t *testing.T) {
	tr := New(counterIDs())
	a := mustAppend(t, tr, msg("user", "a"), 1)
	mustAppend(t, tr, msg("user", "b"), 2)
	for _, doc := range []string{`{"active":""}`, `{"active":"main","root":null}`} {
		if err := tr.ApplyDelta([]byte(doc), true); err != nil {
			t.Fatalf("%s: %v", doc, err)
		}
		if tr.Root() != a {
			t.Fatalf("%s: root %q, want %q", doc, tr.Root(), a)
		}
		if probs := tr.Validate(); len(probs) > 0 {
			t.Fatalf("%s: problems %+v", doc, probs)
		}
	}
}

// When the other copy deleted the branch this copy is on and names no branch
// that stands, this copy goes to main: its active branch always exists.
func TestApplyDeltaThatDeletesTheActiveBranchLeavesMainActive(t *testing.T) {
	tr := New(counterIDs())
	a := mustAppend(t, tr, msg("user", "a"), 1)
	if _, err := tr.Branch(a, "side", 2); err != nil {
		t.Fatal(err)
	}
	if err := tr.SwitchBranch("side"); err != nil {
		t.Fatal(err)
	}
	if err := tr.ApplyDelta([]byte(`{"active":"gone","deleted_branches":["side"]}`), false); err != nil {
		t.Fatal(err)
	}
	if tr.ActiveBranch() != MainBranch {
		t.Fatalf("active %q, want main", tr.ActiveBranch())
	}
	if probs := tr.Validate(); len(probs) > 0 {
		t.Fatalf("problems %+v", probs)
	}
}

// A local message the other copy has not seen survives a delta that rewrites
// their common parent's record.
func TestApplyRowsKeepsLocalChildren(t *testing.T) {
	src := New(counterIDs())
	a := mustAppend(t, src, msg("user", "a"), 1)
	dst, err := Unmarshal(src.Marshal(), WithIDSource(func() string { return "local" }))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dst.Branch(a, "mine", 2); err != nil {
		t.Fatal(err)
	}
	dst.SwitchBranch("mine")
	mustAppend(t, dst, msg("user", "only here"), 3)
	src.TakeChanges()
	mustAppend(t, src, msg("user", "from there"), 4)
	root, active, bs, ns := delta(src)
	if err := dst.ApplyRows(root, active, false, bs, ns); err != nil {
		t.Fatal(err)
	}
	kids, _ := dst.Children(a)
	if len(kids) != 2 {
		t.Fatalf("children of a = %v, want the local and the remote one", kids)
	}
	if problems := dst.Validate(); len(problems) > 0 {
		t.Fatal(problems)
	}
}

// Rows whose decoding must not panic or hang, whatever they hold.
func FuzzApplyRows(f *testing.F) {
	f.Add([]byte(`{"id":"n9","parent":"n1","children":[],"message":{"role":"user","content":"x"},"created_at_ms":9}`), []byte(`{"name":"main","leaf":"n9","created_at_ms":1}`))
	f.Add([]byte(`{"id":"n1"}`), []byte(`{"name":"gone","deleted_at_ms":3}`))
	f.Fuzz(func(t *testing.T, node, br []byte) {
		tr := New(counterIDs())
		tr.Append(msg("user", "a"), 1)
		tr.Append(msg("user", "b"), 2)
		before := tr.Marshal()
		err := tr.ApplyRows(tr.Root(), MainBranch, true, []Fragment{{Key: "main", JSON: br}}, []Fragment{{Key: "n9", JSON: node}})
		if err != nil && !bytes.Equal(tr.Marshal(), before) {
			t.Fatal("a refused delta changed the tree")
		}
		if probs := tr.Validate(); err == nil && len(probs) > 0 {
			t.Fatalf("accepted rows left problems: %+v", probs)
		}
		tr.LinearProjection()
	})
}

// A delta document that is not one is refused with a code, changing nothing.
func TestApplyDeltaRefusesWhatIsNotADelta(t *testing.T) {
	tr := New(counterIDs())
	mustAppend(t, tr, msg("user", "a"), 1)
	before := tr.Marshal()
	for _, doc := range []string{``, `[]`, `{"active":"main"`, `{"root":"n1"}`, `{"active":"main","nodes":{"x":[]}}`,
		`{"active":"main","active":"main"}`, `{"active":"main","deleted_nodes":[1]}`, `{"active":"main"} x`} {
		err := tr.ApplyDelta([]byte(doc), true)
		if e := (*Error)(nil); !errors.As(err, &e) || e.Code != CodeCorrupt {
			t.Errorf("%s: err = %v, want corrupt", doc, err)
		}
		if !bytes.Equal(tr.Marshal(), before) {
			t.Fatalf("%s: the tree changed", doc)
		}
	}
	if err := tr.ApplyDelta([]byte(`{"type":"change","active":"main","root":null,"extra":{"a":[1]}}`), false); err != nil {
		t.Fatalf("an empty delta: %v", err)
	}
}

func FuzzApplyDelta(f *testing.F) {
	f.Add([]byte(`{"active":"main","root":"n1","nodes":{"n3":{"id":"n3","parent":"n2","children":[],"message":{"role":"user"},"created_at_ms":3}},"deleted_nodes":[],"branches":{},"deleted_branches":["x"]}`))
	// main's leaf removed, main left as it is: accepted until Dec 5, which left
	// main's leaf pointing at nothing.
	f.Add([]byte(`{"active":"main","root":"n1","deleted_nodes":["n2"]}`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		tr := New(counterIDs())
		tr.Append(msg("user", "a"), 1)
		tr.Append(msg("user", "b"), 2)
		before := tr.Marshal()
		err := tr.ApplyDelta(doc, true)
		if err != nil && !bytes.Equal(tr.Marshal(), before) {
			t.Fatal("a refused delta changed the tree")
		}
		// An accepted delta leaves a sound tree: nothing for Validate to report,
		// and a file that loads back to the same bytes.
		if probs := tr.Validate(); err == nil && len(probs) > 0 {
			t.Fatalf("an accepted delta left problems: %+v", probs)
		}
		if err == nil {
			back, lerr := Unmarshal(tr.Marshal())
			if lerr != nil || !bytes.Equal(back.Marshal(), tr.Marshal()) {
				t.Fatalf("an accepted delta left a tree that does not load back: %v", lerr)
			}
		}
		tr.LinearProjection()
	})
}

// A removal of a node that a branch of this copy still ends at is a conflict
// when the rows leave that branch as it is: this copy missed the feed that
// deleted the branch in the other (found by a random run of the JS API, where
// the apply left the branch's leaf pointing at nothing: dangling_leaf).
func TestApplyRowsRefusesToRemoveTheLeafOfABranchThisCopyKeeps(t *testing.T) {
	src := New(counterIDs())
	q := mustAppend(t, src, msg("user", "q"), 1)
	mustAppend(t, src, msg("assistant", "first"), 2)
	kept, err := src.Rewind(q, 3)
	if err != nil {
		t.Fatal(err)
	}
	mustAppend(t, src, msg("assistant", "second"), 4)
	dst := src.Clone()
	src.TakeChanges() // start recording
	if err := src.DeleteBranchAt(kept, 5); err != nil {
		t.Fatal(err)
	}
	src.TakeChanges() // the feed that deleted the branch: dst never gets it
	if removed, err := src.Prune(); err != nil || len(removed) != 1 {
		t.Fatalf("prune removed %v (%v), want the first reply", removed, err)
	}
	before := dst.Marshal()
	root, active, bs, ns := delta(src)
	// The prune's rows carry the deletion again (its leaf removed, as a
	// deletion of the whole instance, see forgetRemovedLeaves): without that
	// row they leave the branch as it is.
	bs = slices.DeleteFunc(bs, func(f Fragment) bool { return f.Key == kept })
	err = dst.ApplyRows(root, active, false, bs, ns)
	if e := (*Error)(nil); !errors.As(err, &e) || e.Code != CodeConflict || !bytes.Contains([]byte(e.Message), []byte(quote(kept))) {
		t.Fatalf("err = %v, want a conflict naming %q", err, kept)
	}
	if !bytes.Equal(dst.Marshal(), before) || len(dst.Validate()) != 0 {
		t.Fatal("the refused rows changed the tree or left it unsound")
	}
	// With the deletion's feed too, the same removal goes in.
	dst2 := dst.Clone()
	src2 := dst.Clone()
	src2.TakeChanges()
	if err := src2.DeleteBranchAt(kept, 5); err != nil {
		t.Fatal(err)
	}
	if _, err := src2.Prune(); err != nil {
		t.Fatal(err)
	}
	root, active, bs, ns = delta(src2)
	if err := dst2.ApplyRows(root, active, false, bs, ns); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(dst2.Marshal(), src2.Marshal()) {
		t.Fatal("the whole delta did not give the same tree")
	}
}

// TakeOver, the every-row delta: the rows' tree replaces the copy, keeping
// the copy's later labels and its own branch where the rows hold it; rows that
// do not make a sound tree (none at all, a part of a feed) are CodeCorrupt.
func TestTakeOverKeepsLaterLabelsAndRefusesWhatIsNotAWholeTree(t *testing.T) {
	src := New(counterIDs())
	q := mustAppend(t, src, msg("user", "q"), 1)
	a := mustAppend(t, src, msg("assistant", "a"), 2)
	side, err := src.Rewind(q, 3)
	if err != nil {
		t.Fatal(err)
	}
	mustAppend(t, src, msg("assistant", "b"), 4)
	rows := src.Marshal() // the other copy's every row, before the labels below

	mine := src.Clone()
	if err := mine.SwitchBranch(side); err != nil {
		t.Fatal(err)
	}
	if err := mine.LabelAt(q, "kept", 50); err != nil {
		t.Fatal(err)
	}
	if err := mine.ClearLabelAt(a, 60); err != nil {
		t.Fatal(err)
	}
	next, err := Unmarshal(rows)
	if err != nil {
		t.Fatal(err)
	}
	if err := next.TakeOver(mine, side); err != nil {
		t.Fatal(err)
	}
	if n, _ := next.Node(q); n.Label != "kept" {
		t.Fatalf("the later label went: %+v", n)
	}
	if row, _ := next.NodeJSON(a); !bytes.Contains(row, []byte(`"label_at_ms":60`)) {
		t.Fatalf("the later clear went: %s", row)
	}
	if next.ActiveBranch() != side {
		t.Fatalf("active %q, want this copy's %q", next.ActiveBranch(), side)
	}
	if !bytes.Equal(next.Marshal(), mustReload(t, next.Marshal())) {
		t.Fatal("the tree taken over does not save as it loads")
	}

	for _, file := range []string{
		`{"format":"sessiontree","version":1,"active_branch":"main","branches":{},"nodes":{}}`,
		`{"format":"sessiontree","version":1,"root":"` + q + `","active_branch":"main","branches":{"main":{"name":"main","leaf":"` + a + `","created_at_ms":0}},"nodes":{}}`,
	} {
		part, err := Unmarshal([]byte(file))
		if err != nil {
			t.Fatal(err)
		}
		before := mine.Marshal()
		err = part.TakeOver(mine, "")
		if e := (*Error)(nil); !errors.As(err, &e) || e.Code != CodeCorrupt {
			t.Fatalf("%s: err = %v, want corrupt", file, err)
		}
		if !bytes.Equal(mine.Marshal(), before) {
			t.Fatal("a refused take-over changed the copy")
		}
	}
}

func mustReload(t *testing.T, file []byte) []byte {
	t.Helper()
	back, err := Unmarshal(file)
	if err != nil {
		t.Fatal(err)
	}
	return back.Marshal()
}

// A delta of nothing, and a merge of a copy that holds nothing new, move
// neither the version nor a feed: nothing changed. Before Dec 5 both moved the
// version and told every listener of a change of the root or active branch,
// and a sync client that applied an empty delta took its tree for edited.
func TestNothingAppliedOrMergedMovesNeitherTheVersionNorAFeed(t *testing.T) {
	tr, _ := chain(t, "q", "a")
	tr.Branch(tr.Root(), "side", 3)
	copyOf := tr.Clone()
	tr.TakeChanges()
	tr.TakeWatched()
	tr.TakeSynced()
	v := tr.Version()
	if err := tr.ApplyRows(tr.Root(), tr.ActiveBranch(), false, nil, nil); err != nil {
		t.Fatal(err)
	}
	if rep, err := tr.Merge(copyOf); err != nil || rep.Changed() {
		t.Fatalf("%+v %v", rep, err)
	}
	if tr.Version() != v {
		t.Fatalf("version %d, was %d", tr.Version(), v)
	}
	for _, c := range []Changes{tr.TakeChanges(), tr.TakeWatched(), tr.TakeSynced()} {
		if len(c.Nodes)+len(c.Branches) > 0 || c.Meta || c.All {
			t.Errorf("a feed after nothing changed: %+v", c)
		}
	}
}

// An every-row delta whose node differs from this copy's under the same id
// (its message, parent or time) is refused as a delta of some rows is
// (CodeConflict: merge instead), and the copy stays as it was. Before Dec 5
// the other copy's content went over this one's, and the sync feed then named
// a node a synced copy refused.
func TestTakeOverRefusesANodeThatDiffersUnderItsID(t *testing.T) {
	mine := New(counterIDs())
	q := mustAppend(t, mine, msg("user", "mine"), 1)
	before := mine.Marshal()
	for _, other := range []string{
		strings.Replace(string(before), `"content":"mine"`, `"content":"theirs"`, 1),
		strings.Replace(string(before), `"created_at_ms":1`, `"created_at_ms":5`, 1),
	} {
		if other == string(before) {
			t.Fatal("the other copy should differ")
		}
		next, err := Unmarshal([]byte(other))
		if err != nil {
			t.Fatal(err)
		}
		err = next.TakeOver(mine, "")
		wantCode(t, err, CodeConflict)
		if !strings.Contains(err.Error(), quote(q)) {
			t.Fatalf("the error should name the node: %v", err)
		}
		if !bytes.Equal(mine.Marshal(), before) {
			t.Fatal("a refused delta changed the copy")
		}
	}
}

// Rows that change nothing change nothing: a delta delivered twice, and a
// copy's every row applied to that copy, move neither the version nor a feed,
// while the first delivery moves both. Before Dec 5 each branch row was put in
// whole and told of, and every delta of a row told of the root and active
// branch too: a sync client that got a part of a delta twice took its tree
// for edited, and every listener heard of a change.
func TestRowsThatChangeNothingMoveNeitherTheVersionNorAFeed(t *testing.T) {
	quiet := func(what string, tr *Tree, v uint64) {
		t.Helper()
		if tr.Version() != v {
			t.Fatalf("%s: version %d, was %d", what, tr.Version(), v)
		}
		for _, c := range []Changes{tr.TakeChanges(), tr.TakeWatched(), tr.TakeSynced()} {
			if len(c.Nodes)+len(c.Branches) > 0 || c.Meta || c.All {
				t.Fatalf("%s: a feed after nothing changed: %+v", what, c)
			}
		}
	}
	for seed := int64(1); seed <= 6; seed++ {
		rng := rand.New(rand.NewSource(seed))
		src := New(counterIDs())
		mustAppend(t, src, msg("user", "hello"), 1)
		dst := src.Clone()
		src.TakeChanges()
		dst.TakeChanges()
		dst.TakeWatched()
		dst.TakeSynced()
		for step := 0; step < 150; step++ {
			randomStep(rng, src, step)
			root, active, bs, ns := delta(src)
			before := dst.Marshal()
			v := dst.Version()
			if err := dst.ApplyRows(root, active, true, bs, ns); err != nil {
				t.Fatalf("seed %d step %d: %v", seed, step, err)
			}
			if c := dst.TakeChanges(); !bytes.Equal(before, dst.Marshal()) && (dst.Version() == v || len(c.Nodes)+len(c.Branches) == 0 && !c.Meta) {
				t.Fatalf("seed %d step %d: the copy changed, and neither the version nor the feed says so", seed, step)
			}
			dst.TakeWatched()
			dst.TakeSynced()
			v = dst.Version()
			if err := dst.ApplyRows(root, active, true, bs, ns); err != nil {
				t.Fatalf("seed %d step %d, again: %v", seed, step, err)
			}
			quiet("seed "+strconv.FormatInt(seed, 10)+" step "+strconv.Itoa(step)+", the same delta again", dst, v)
			if err := dst.ApplyDelta(deltaDoc(root, active, bs, ns), true); err != nil {
				t.Fatal(err)
			}
			quiet("the same delta document again", dst, v)
		}
		all, nodes := dst.Rows()
		v := dst.Version()
		if err := dst.ApplyRows(dst.Root(), dst.ActiveBranch(), false, all, nodes); err != nil {
			t.Fatal(err)
		}
		quiet("a copy's every row applied to it", dst, v)
	}
}

// What ApplyRows tells the feed is exactly what it changed: the rows of the
// copy that differ after the delta, no more (a row it already held) and no
// fewer (a record an earlier row of the same delta changed, such as a
// family's kept summaries moving to another of its names).
func TestApplyRowsTellsTheRowsItChangedAndNoOthers(t *testing.T) {
	rowsOf := func(fs []Fragment) map[string][]byte {
		m := make(map[string][]byte, len(fs))
		for _, f := range fs {
			m[f.Key] = f.JSON
		}
		return m
	}
	differ := func(a, b map[string][]byte) []string {
		var out []string
		for k, v := range a {
			if w, ok := b[k]; !ok || !bytes.Equal(v, w) {
				out = append(out, k)
			}
		}
		for k := range b {
			if _, ok := a[k]; !ok {
				out = append(out, k)
			}
		}
		slices.Sort(out)
		return out
	}
	for seed := int64(1); seed <= 8; seed++ {
		rng := rand.New(rand.NewSource(seed))
		src := New(counterIDs())
		mustAppend(t, src, msg("user", "hello"), 1)
		dst := src.Clone()
		src.TakeChanges()
		dst.TakeChanges()
		for step := 0; step < 300; step++ {
			randomStep(rng, src, step)
			root, active, bs, ns := delta(src)
			b0, n0 := dst.Rows()
			if err := dst.ApplyRows(root, active, true, bs, ns); err != nil {
				t.Fatalf("seed %d step %d: %v", seed, step, err)
			}
			b1, n1 := dst.Rows()
			c := dst.TakeChanges()
			if want := differ(rowsOf(b0), rowsOf(b1)); !slices.Equal(c.Branches, want) && len(c.Branches)+len(want) > 0 {
				t.Fatalf("seed %d step %d: the feed names the branches %q, the rows that changed are %q", seed, step, c.Branches, want)
			}
			if want := differ(rowsOf(n0), rowsOf(n1)); !slices.Equal(c.Nodes, want) && len(c.Nodes)+len(want) > 0 {
				t.Fatalf("seed %d step %d: the feed names the nodes %q, the rows that changed are %q", seed, step, c.Nodes, want)
			}
		}
	}
}

// Equal says what Marshal's bytes say, without writing them: two copies that
// a random run keeps equal, then parts, then brings together again.
func TestEqualIsWhatMarshalSays(t *testing.T) {
	for seed := int64(1); seed <= 6; seed++ {
		rng := rand.New(rand.NewSource(seed))
		src := New(counterIDs())
		mustAppend(t, src, msg("user", "hello"), 1)
		dst := src.Clone()
		src.TakeChanges()
		for step := 0; step < 200; step++ {
			randomStep(rng, src, step)
			if got, want := src.Equal(dst), bytes.Equal(src.Marshal(), dst.Marshal()); got != want || dst.Equal(src) != want {
				t.Fatalf("seed %d step %d: Equal %v, the files equal %v", seed, step, got, want)
			}
			if step%3 != 0 {
				root, active, bs, ns := delta(src)
				if err := dst.ApplyRows(root, active, true, bs, ns); err != nil {
					t.Fatal(err)
				}
				if !src.Equal(dst) || !dst.Equal(src) {
					t.Fatalf("seed %d step %d: not Equal after the delta", seed, step)
				}
			}
		}
	}
}
