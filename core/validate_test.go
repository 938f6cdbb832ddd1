package core

import (
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func loadCorpus(t *testing.T, name string) ([]byte, error) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "corrupt", name))
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasSuffix(name, ".gz") {
		r, err := gzip.NewReader(strings.NewReader(string(b)))
		if err != nil {
			t.Fatal(err)
		}
		return io.ReadAll(r)
	}
	return b, nil
}

// messageSet lists every message text in the tree, for "nothing is lost".
func messageSet(tr *Tree) []string {
	var out []string
	for _, id := range tr.orderedIDs() {
		out = append(out, string(tr.nodes[id].msg))
	}
	for _, d := range tr.dups {
		out = append(out, string(d.msg))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func TestCorruptCorpusLoadsOrFailsCleanlyAndRepairLosesNoMessage(t *testing.T) {
	cases := map[string]struct {
		loads bool
		kinds []string // problems Validate must report
	}{
		"cycle.tree.json":                  {true, []string{ProblemCycle}},
		"dangling-parent.tree.json":        {true, []string{ProblemDanglingParent}},
		"dangling-leaf.tree.json":          {true, []string{ProblemDanglingLeaf}},
		"duplicate-id.tree.json":           {true, []string{ProblemDuplicateID}},
		"id-mismatch.tree.json":            {true, []string{ProblemIDMismatch}},
		"children-disagree.tree.json":      {true, []string{ProblemChildren}},
		"unknown-active.tree.json":         {true, []string{ProblemUnknownActive, ProblemMissingMain, ProblemBadSummary}},
		"bad-root.tree.json":               {true, []string{ProblemBadRoot}},
		"deep-chain-dangling.tree.json.gz": {true, []string{ProblemDanglingParent}},
		"invalid-utf8.tree.json":           {false, nil},
		"truncated.tree.json":              {false, nil},
		"newer-version.tree.json":          {false, nil},
		"message-not-object.tree.json":     {false, nil},
		"time-not-integer.tree.json":       {false, nil},
	}
	entries, _ := os.ReadDir(filepath.Join("testdata", "corrupt"))
	if len(entries) != len(cases) {
		t.Fatalf("corpus has %d files, test knows %d", len(entries), len(cases))
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			b, _ := loadCorpus(t, name)
			tr, err := Unmarshal(b)
			if !c.loads {
				if err == nil {
					t.Fatal("loaded")
				}
				if e, ok := err.(*Error); !ok || (e.Code != CodeCorrupt && e.Code != CodeUnsupportedVersion) {
					t.Fatalf("unclean failure %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			problems := tr.Validate()
			for _, k := range c.kinds {
				if !slices.ContainsFunc(problems, func(p Problem) bool { return p.Kind == k }) {
					t.Errorf("Validate missed %s: %+v", k, problems)
				}
			}
			// Projections fail closed on whatever is broken; none panics.
			for _, b := range tr.Branches() {
				if msgs, err := tr.LinearProjectionOf(b.Name); err == nil && len(msgs) > 0 {
					continue
				} else if err != nil {
					wantCode(t, err, CodeCorrupt)
				}
			}
			before := messageSet(tr)
			changes := tr.Repair()
			if len(changes) == 0 {
				t.Fatal("Repair reported no change")
			}
			if left := tr.Validate(); len(left) != 0 {
				t.Fatalf("after Repair: %+v", left)
			}
			if after := messageSet(tr); !slices.Equal(before, after) {
				t.Fatalf("Repair lost messages: %d → %d", len(before), len(after))
			}
			for _, b := range tr.Branches() {
				if _, err := tr.PathOf(b.Name); err != nil {
					t.Fatalf("branch %s still broken: %v", b.Name, err)
				}
			}
			back, err := Unmarshal(tr.Marshal())
			if err != nil || len(back.Validate()) != 0 {
				t.Fatalf("repaired tree does not round-trip: %v", err)
			}
		})
	}
}

func TestProjectionsFailClosedNamingWhatAndWhere(t *testing.T) {
	b, _ := loadCorpus(t, "cycle.tree.json")
	tr, _ := Unmarshal(b)
	_, err := tr.LinearProjection()
	wantCode(t, err, CodeCorrupt)
	if !strings.Contains(err.Error(), "cycle") || !strings.Contains(err.Error(), `"main"`) {
		t.Fatalf("error should say cycle and name the branch: %v", err)
	}
	b, _ = loadCorpus(t, "dangling-parent.tree.json")
	tr, _ = Unmarshal(b)
	_, err = tr.ActivePath()
	if err == nil || !strings.Contains(err.Error(), `"ghost"`) {
		t.Fatalf("error should name the missing parent: %v", err)
	}
}

func TestDuplicateIDsAreBothKeptByRepair(t *testing.T) {
	b, _ := loadCorpus(t, "duplicate-id.tree.json")
	tr, _ := Unmarshal(b)
	tr.Repair()
	if tr.Len() != 3 {
		t.Fatalf("%d nodes after repair, want 3 (both b's kept)", tr.Len())
	}
	kids, _ := tr.Children("a")
	if len(kids) != 2 {
		t.Fatalf("children of a: %v", kids)
	}
}

func TestAMillionDeepChainNeverRecurses(t *testing.T) {
	n := 1_000_000
	if testing.Short() || strings.HasPrefix(os.Getenv("GOARCH"), "wasm") || isWasm {
		n = 100_000
	}
	var sb strings.Builder
	sb.WriteString(`{"format":"sessiontree","version":1,"root":"0","active_branch":"main","branches":{"main":{"name":"main","leaf":"` + strconv.Itoa(n-1) + `","created_at_ms":0}},"nodes":{`)
	for i := 0; i < n; i++ {
		if i > 0 {
			sb.WriteByte(',')
		}
		id := strconv.Itoa(i)
		sb.WriteString(`"` + id + `":{"id":"` + id + `"`)
		if i > 0 {
			sb.WriteString(`,"parent":"` + strconv.Itoa(i-1) + `"`)
		}
		sb.WriteString(`,"children":[`)
		if i < n-1 {
			sb.WriteString(`"` + strconv.Itoa(i+1) + `"`)
		}
		sb.WriteString(`],"message":{"role":"user"},"created_at_ms":` + id + `}`)
	}
	sb.WriteString(`}}`)
	tr, err := Unmarshal([]byte(sb.String()))
	if err != nil {
		t.Fatal(err)
	}
	if p, err := tr.ActivePath(); err != nil || len(p) != n {
		t.Fatalf("path %d %v", len(p), err)
	}
	if len(tr.Validate()) != 0 || tr.Stats().Depth != n {
		t.Fatalf("validate %v depth %d", tr.Validate(), tr.Stats().Depth)
	}
	if _, err := tr.Checkout("0", 1); err != nil {
		t.Fatal(err)
	}
	// Close the chain into a cycle: every walk must stop with an error.
	tr.nodes["0"].parent = strconv.Itoa(n - 1)
	tr.nodes["0"].up = tr.nodes[strconv.Itoa(n-1)]
	if _, err := tr.ActivePath(); err == nil || !strings.Contains(err.Error(), "cycle") {
		t.Fatalf("cycle not detected: %v", err)
	}
	if len(tr.Validate()) == 0 {
		t.Fatal("Validate missed the cycle")
	}
	tr.Repair()
	if len(tr.Validate()) != 0 {
		t.Fatal("Repair did not fix the cycle")
	}
}

func TestAHundredMegabyteMessageIsKeptWhole(t *testing.T) {
	size := 100 << 20
	if testing.Short() || isWasm {
		size = 8 << 20
	}
	big := make([]byte, 0, size+64)
	big = append(big, `{"role":"user","content":"`...)
	for len(big) < size {
		big = append(big, "abcdefghij"...)
	}
	big = append(big, `"}`...)
	tr := New()
	if _, err := tr.Append(Message(big), 1); err != nil {
		t.Fatal(err)
	}
	back, err := Unmarshal(tr.Marshal())
	if err != nil {
		t.Fatal(err)
	}
	msgs, _ := back.LinearProjection()
	if len(msgs[0]) != len(big) {
		t.Fatalf("message is %d bytes, want %d", len(msgs[0]), len(big))
	}
}

// SPEC §3: Repair "reports each change". For every corrupt file of the corpus
// that loads, Repair's report names each problem Validate found: its kind (at
// the branch Validate named), or a change to its node that fixed it too (a
// root with a missing parent is no longer a bad root once it loses the
// parent), so a caller can tell the user what was fixed and where.
func TestRepairReportsAChangeForEveryProblemValidateFound(t *testing.T) {
	entries, _ := os.ReadDir(filepath.Join("testdata", "corrupt"))
	files := map[string][]byte{"unknownActive": []byte(unknownActive)}
	for _, e := range entries {
		b, _ := loadCorpus(t, e.Name())
		files[e.Name()] = b
	}
	for name, b := range files {
		tr, err := Unmarshal(b)
		if err != nil {
			continue
		}
		found := tr.Validate()
		fixed := tr.Repair()
		for _, p := range found {
			if !slices.ContainsFunc(fixed, func(c Problem) bool {
				return (c.Kind == p.Kind && (p.Branch == "" || c.Branch == p.Branch)) || (p.Node != "" && c.Node == p.Node)
			}) {
				t.Errorf("%s: Validate found %+v; Repair reported no such change: %+v", name, p, fixed)
			}
		}
	}
}

// SPEC §2: children are ordered by (created_at_ms, id), so two copies holding
// the same nodes list them the same way. A file that lists them in another
// order (each child there, with the right parent) is a problem Validate
// reports at the parent, and Repair puts the list in order, reporting it.
func TestChildrenListedOutOfOrderAreReportedAndRepairedIntoOrder(t *testing.T) {
	file := `{"format":"sessiontree","version":1,"root":"a","active_branch":"main","branches":{"main":{"name":"main","leaf":"b","created_at_ms":0}},"nodes":{` +
		`"a":{"id":"a","children":["c","b","d"],"message":{"role":"user"},"created_at_ms":1},` +
		`"b":{"id":"b","parent":"a","children":[],"message":{"role":"user"},"created_at_ms":2},` +
		`"c":{"id":"c","parent":"a","children":[],"message":{"role":"user"},"created_at_ms":3},` +
		`"d":{"id":"d","parent":"a","children":[],"message":{"role":"user"},"created_at_ms":3}}}`
	tr, err := Unmarshal([]byte(file))
	if err != nil {
		t.Fatal(err)
	}
	problems := tr.Validate()
	if len(problems) != 1 || problems[0].Kind != ProblemChildren || problems[0].Node != "a" {
		t.Fatalf("Validate: %+v, want the children of a out of order", problems)
	}
	fixed := tr.Repair()
	if len(fixed) != 1 || fixed[0].Kind != ProblemChildren || fixed[0].Node != "a" {
		t.Fatalf("Repair: %+v", fixed)
	}
	if kids, _ := tr.Children("a"); !slices.Equal(kids, []string{"b", "c", "d"}) || len(tr.Validate()) != 0 {
		t.Fatalf("children %v, problems %+v", kids, tr.Validate())
	}
}

// Validate reads the nodes through a list of them by key, not the map: for a
// tree not read from a file (no file order to take it from), its report must
// still list the problems in key order, the same every time, and name every
// one.
func TestValidateReportsInKeyOrderWhateverTheMapsOrder(t *testing.T) {
	tr, ids := chain(t, "a", "b", "c", "d", "e", "f", "g", "h")
	if tr.nodesInOrder() != nil {
		t.Fatal("a built tree has its nodes in key order: this test needs one that has not")
	}
	broken := []string{ids[6], ids[2], ids[4]}
	for _, id := range broken {
		tr.nodes[id].parent = "gone-" + id
	}
	want := slices.Clone(broken)
	slices.Sort(want)
	for round := 0; round < 20; round++ {
		var dangling []string
		for _, p := range tr.Validate() {
			if p.Kind == ProblemDanglingParent {
				dangling = append(dangling, p.Node)
			}
		}
		if !slices.Equal(dangling, want) {
			t.Fatalf("round %d: dangling parents reported as %v, want %v", round, dangling, want)
		}
	}
	for _, id := range broken {
		tr.nodes[id].parent = ids[slices.Index(ids, id)-1]
	}
	if p := tr.Validate(); p != nil {
		t.Fatalf("the mended tree has problems %v", p)
	}
}

// Repair checks a summary against the path as its own fixes leave it: a cycle
// a→c→b→a broken at a takes c (main's summary is as of c) off main's path
// a, b, and the summary is then moved to the leaf. Until Dec 6, night, the
// check walked the cycle's old links and kept it, and Validate reported it
// after Repair (an outside pass).
func TestRepairChecksSummariesOnThePathsItLeaves(t *testing.T) {
	file := `{"format":"sessiontree","version":1,"root":"a","active_branch":"main",` +
		`"branches":{"main":{"name":"main","leaf":"b","summary":{"summary":"s","node_id":"c","branch":"main","created_at_ms":1},"created_at_ms":0}},` +
		`"nodes":{` +
		`"a":{"id":"a","parent":"c","children":["b"],"message":{"role":"user"},"created_at_ms":1},` +
		`"b":{"id":"b","parent":"a","children":["c"],"message":{"role":"user"},"created_at_ms":2},` +
		`"c":{"id":"c","parent":"b","children":["a"],"message":{"role":"user"},"created_at_ms":3}}}`
	tr, err := Unmarshal([]byte(file))
	if err != nil {
		t.Fatal(err)
	}
	tr.Repair()
	if p := tr.Validate(); len(p) > 0 {
		t.Fatalf("Validate after Repair: %+v", p)
	}
	if _, err := tr.Prune(); err != nil {
		t.Fatalf("Prune after Repair: %v", err)
	}
}

// SPEC §3 (Validate lists a bad summary pointer): a summary whose node is a
// node, but not one on its branch's path (here below the branch's leaf), is
// reported, and Repair re-points it at the leaf.
func TestValidateReportsASummaryAsOfANodeOffItsBranch(t *testing.T) {
	file := `{"format":"sessiontree","version":1,"root":"a","active_branch":"main","branches":{` +
		`"main":{"name":"main","leaf":"b","created_at_ms":0},` +
		`"x":{"name":"x","leaf":"a","summary":{"summary":"s","node_id":"b","branch":"x","created_at_ms":3},"created_at_ms":0}},"nodes":{` +
		`"a":{"id":"a","children":["b"],"message":{"role":"user"},"created_at_ms":1},` +
		`"b":{"id":"b","parent":"a","children":[],"message":{"role":"assistant"},"created_at_ms":2}}}`
	tr, err := Unmarshal([]byte(file))
	if err != nil {
		t.Fatal(err)
	}
	ps := tr.Validate()
	if len(ps) != 1 || ps[0].Kind != ProblemBadSummary || ps[0].Branch != "x" {
		t.Fatalf("problems %+v", ps)
	}
	tr.Repair()
	if b, _ := tr.LookupBranch("x"); b.Summary == nil || b.Summary.NodeID != "a" || len(tr.Validate()) != 0 {
		t.Fatalf("after repair %+v, problems %+v", b.Summary, tr.Validate())
	}
}

// Repair breaks a cycle by making its oldest node a root (its doc), so the
// conversation reads from where it began.
func TestRepairBreaksACycleAtItsOldestNode(t *testing.T) {
	file := `{"format":"sessiontree","version":1,"root":"b","active_branch":"main","branches":{` +
		`"main":{"name":"main","leaf":"c","created_at_ms":0}},"nodes":{` +
		`"a":{"id":"a","parent":"c","children":["b"],"message":{"role":"user","content":"1"},"created_at_ms":1},` +
		`"b":{"id":"b","parent":"a","children":["c"],"message":{"role":"assistant","content":"2"},"created_at_ms":2},` +
		`"c":{"id":"c","parent":"b","children":["a"],"message":{"role":"user","content":"3"},"created_at_ms":3}}}`
	tr, err := Unmarshal([]byte(file))
	if err != nil {
		t.Fatal(err)
	}
	tr.Repair()
	if p := mustPath(t, tr, MainBranch); !slices.Equal(p, []string{"a", "b", "c"}) || tr.Root() != "a" {
		t.Fatalf("path %v, root %q; problems %+v", p, tr.Root(), tr.Validate())
	}
}

// SPEC §3 (Repair never drops a message): of two nodes with one id, only an
// exact copy is dropped. Two with the same parent, time and label whose
// messages differ by one byte are both kept, their texts intact.
func TestRepairKeepsADuplicateIDWhoseMessageDiffersByOneByte(t *testing.T) {
	file := `{"format":"sessiontree","version":1,"root":"a","active_branch":"main","branches":{` +
		`"main":{"name":"main","leaf":"a","created_at_ms":0}},"nodes":{` +
		`"a":{"id":"a","children":[],"message":{"role":"user","content":"yes"},"created_at_ms":1},` +
		`"a":{"id":"a","children":[],"message":{"role":"user","content":"yet"},"created_at_ms":1}}}`
	tr, err := Unmarshal([]byte(file), counterIDs())
	if err != nil {
		t.Fatal(err)
	}
	tr.Repair()
	var texts []string
	for _, h := range tr.Search("ye", 0) {
		n, _ := tr.Node(h.NodeID)
		texts = append(texts, n.Message.Text())
	}
	slices.Sort(texts)
	if tr.Len() != 2 || !slices.Equal(texts, []string{"yes", "yet"}) || len(tr.Validate()) != 0 {
		t.Fatalf("%d nodes, texts %v, problems %+v", tr.Len(), texts, tr.Validate())
	}
}
