package treecalls

import (
	"encoding/binary"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/wasm/internal/bridge"
)

// TestMain serves the lean table, as wasm/module does.
func TestMain(m *testing.M) {
	Serve(Lean())
	m.Run()
}

// do calls method name like JavaScript does and returns the result text and
// whether it succeeded. served[i] is call number i+1.
func do(t *testing.T, name string, handle uint32, args ...string) (string, bool) {
	t.Helper()
	for i, m := range served {
		if m.Name == name {
			var in []byte
			for _, a := range args {
				in = binary.LittleEndian.AppendUint32(in, uint32(len(a)))
				in = append(in, a...)
			}
			buf := bridge.Reserve(len(in)) // the shared input buffer, as from JS
			copy(buf, in)
			res, ok := bridge.Do(uint32(i+1), handle, buf[:len(in)], 1000)
			return string(res), ok
		}
	}
	t.Fatalf("no method %q", name)
	return "", false
}

func must(t *testing.T, name string, handle uint32, args ...string) string {
	t.Helper()
	res, ok := do(t, name, handle, args...)
	if !ok {
		t.Fatalf("%s: %s", name, res)
	}
	return res
}

func code(t *testing.T, res string) string {
	t.Helper()
	var e struct{ Code, Message string }
	if err := json.Unmarshal([]byte(res), &e); err != nil || e.Code == "" || e.Message == "" {
		t.Fatalf("not a {code,message} envelope: %q", res)
	}
	return e.Code
}

func handleOf(t *testing.T, res string) uint32 {
	var h uint32
	for _, c := range res {
		if c < '0' || c > '9' {
			t.Fatalf("not a handle: %q", res)
		}
		h = h*10 + uint32(c-'0')
	}
	return h
}

func TestEveryMethodAnswersThroughTheBoundary(t *testing.T) {
	h := handleOf(t, must(t, "new", 0))
	a := must(t, "append", h, `{"role":"user","content":"hi 😀"}`)
	b := must(t, "append", h, `{ "role" : "assistant", "content":"yo", "x":1.50 }`)
	if got := must(t, "messages", h, a+"\n"+b); got != `[{"role":"user","content":"hi 😀"},{"role":"assistant","content":"yo","x":1.50}]` {
		t.Fatalf("messages keep their JSON compacted and exact: %s", got)
	}
	if got := must(t, "pathOf", h); got != a+"\n"+b {
		t.Fatalf("active path = %q", got)
	}
	kept := must(t, "rewind", h, a)
	if kept != "branch-1" || must(t, "pathOf", h, kept) != a+"\n"+b {
		t.Fatalf("rewind kept %q", kept)
	}
	if must(t, "hasBranches", h) != "1" || must(t, "activeBranch", h) != "main" {
		t.Fatal("hasBranches/activeBranch")
	}
	if got := must(t, "branch", h, a, "__proto__"); got != "__proto__" {
		t.Fatalf("branch = %q", got)
	}
	must(t, "switchBranch", h, "main")
	must(t, "label", h, a, "start")
	if !strings.Contains(must(t, "node", h, a), `"label":"start"`) {
		t.Fatal("label not in node")
	}
	must(t, "clearLabel", h, a)
	if must(t, "node", h, "missing") != "" {
		t.Fatal("a missing node is an empty result (null in JS)")
	}
	e := must(t, "edit", h, a, `{"role":"user","content":"again"}`)
	r := must(t, "regenerate", h, b, `{"role":"assistant","content":"other"}`)
	if must(t, "checkout", h, b) == "" || must(t, "children", h, a) == "" || !strings.Contains(must(t, "siblings", h, e), `"index":`) {
		t.Fatal("navigation")
	}
	must(t, "summarizeBranch", h, "branch-1", "a summary", "model-x")
	if !strings.Contains(must(t, "branches", h), `"modelId":"model-x"`) {
		t.Fatal("summary not listed")
	}
	if !strings.Contains(must(t, "summaryInput", h, "branch-1"), `"text":"user: hi 😀\nassistant: yo"`) {
		t.Fatal("summaryInput text")
	}
	if !strings.Contains(must(t, "stubSummary", h, "branch-1"), "2 turns, unsummarized") {
		t.Fatal("stub")
	}
	must(t, "summarizeBranchAsOf", h, "branch-1", b, "newer", "")
	must(t, "renderBranchText", h, "main")
	if !strings.Contains(must(t, "spliceForLinearExport", h), `"summaries":[`) {
		t.Fatal("splice")
	}
	must(t, "switchBranch", h, "main")
	must(t, "deleteBranch", h, "__proto__")
	if got := must(t, "apply", h, `[{"op":"append","message":{"role":"user","content":"z"}},{"op":"switch","branch":"main"}]`); !strings.HasPrefix(got, `["`) || !strings.HasSuffix(got, `",""]`) {
		t.Fatalf("apply = %s", got)
	}
	if must(t, "validate", h) != "[]" || must(t, "repair", h) != "[]" {
		t.Fatal("a tree built by operations has no problems")
	}
	must(t, "prune", h)
	if !strings.Contains(must(t, "search", h, "HI", "0"), a) || !strings.Contains(must(t, "stats", h), `"nodes":`) {
		t.Fatal("search/stats")
	}
	saved := must(t, "save", h)
	h2 := handleOf(t, must(t, "load", 0, saved))
	if must(t, "save", h2) != saved {
		t.Fatal("save(load(b)) != b")
	}
	h3 := handleOf(t, must(t, "clone", h))
	if must(t, "save", h3) != saved {
		t.Fatal("clone differs")
	}
	h4 := handleOf(t, must(t, "fromLinear", 0, `[{"role":"user","content":"a"},{"role":"assistant","content":"b"}]`))
	if strings.Count(must(t, "pathOf", h4), "\n") != 1 {
		t.Fatal("fromLinear path")
	}
	_ = r
	for _, x := range []uint32{h, h2, h3, h4} {
		must(t, "free", x)
		if res, ok := do(t, "save", x); ok || code(t, res) != "invalid_input" || !strings.Contains(res, "freed") {
			t.Fatalf("a freed handle: %s", res)
		}
	}
}

func TestErrorsCarryTheirCodeAndName(t *testing.T) {
	h := handleOf(t, must(t, "new", 0))
	cases := []struct {
		method, want, names string
		args                []string
	}{
		{"rewind", "not_found", "ghost", []string{"ghost"}},
		{"switchBranch", "branch_not_found", "nope", []string{"nope"}},
		{"summarizeBranch", "empty_branch", "main", []string{"main", "s", ""}},
		{"append", "invalid_input", "role", []string{`{"content":"no role"}`}},
		{"append", "invalid_input", "", []string{`{"role":"user","content":"\udc00"}`}},
		{"load", "corrupt", "", []string{`{"format":"nope"}`}},
		{"load", "unsupported_version", "version", []string{`{"format":"sessiontree","version":99}`}},
		{"label", "invalid_input", "label", []string{"x"}},
		{"apply", "invalid_input", "op 0", []string{`[{"op":"fly"}]`}},
	}
	for _, c := range cases {
		res, ok := do(t, c.method, h, c.args...)
		if ok || code(t, res) != c.want || !strings.Contains(res, c.names) {
			t.Errorf("%s(%q) = %s, want code %s naming %q", c.method, c.args, res, c.want, c.names)
		}
	}
	a := must(t, "append", h, `{"role":"user"}`)
	must(t, "branch", h, a, "idea")
	if res, _ := do(t, "branch", h, a, "idea"); code(t, res) != "branch_exists" {
		t.Errorf("branch exists: %s", res)
	}
	if res, _ := do(t, "deleteBranch", h, "idea"); code(t, res) != "conflict" {
		t.Errorf("deleting the active branch: %s", res)
	}
	long := strings.Repeat("x", 5000)
	if res, _ := do(t, "label", h, a, long); code(t, res) != "too_large" {
		t.Errorf("long label: %s", res)
	}
}

func TestNoInputStopsTheModule(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	h := handleOf(t, must(t, "new", 0))
	must(t, "append", h, `{"role":"user"}`)
	for i := range 1000 {
		in := make([]byte, rng.IntN(40))
		for j := range in {
			in[j] = byte(rng.IntN(256))
		}
		m := uint32(rng.IntN(len(served) + 4))
		if m >= 1 && m <= uint32(len(served)) && served[m-1].Name == "free" {
			continue
		}
		handle := []uint32{0, h, 999999}[rng.IntN(3)]
		at := []float64{0, 1.5, -1, 1e300}[rng.IntN(4)]
		res, ok := bridge.Do(m, handle, in, at)
		if !ok {
			code(t, string(res))
		}
		_ = i
	}
	if got := must(t, "append", h, `{"role":"user","content":"still here"}`); got == "" {
		t.Fatal("the module stopped working")
	}
}

func TestAPanicBecomesAnError(t *testing.T) {
	Serve(append(Lean(), Method{"boom", NoTree, func(*Request) ([]byte, error) { panic("kaboom") }}))
	defer Serve(Lean())
	res, ok := do(t, "boom", 0)
	if ok || code(t, res) != "corrupt" || !strings.Contains(res, "kaboom") {
		t.Fatalf("panic = %s", res)
	}
}

// A call that panics on a tree half-way leaves the tree as far as it got: the
// tree then fails closed (only save and validate answer, to rescue what it
// holds), so a change feed never stores the half-done change and no call
// builds on it; other trees go on.
func TestATreeACallPanickedOnFailsClosed(t *testing.T) {
	Serve(append(Lean(), Method{"halfway", Tree, func(r *Request) ([]byte, error) {
		if _, err := r.tree.Append(core.Message(`{"role":"user","content":"half"}`), 1); err != nil {
			return nil, err
		}
		panic("kaboom")
	}}))
	defer Serve(Lean())
	h := handleOf(t, must(t, "new", 0))
	other := handleOf(t, must(t, "new", 0))
	must(t, "append", h, `{"role":"user","content":"before"}`)
	if res, ok := do(t, "halfway", h); ok || code(t, res) != "corrupt" || !strings.Contains(res, "kaboom") {
		t.Fatalf("the panic = %s", res)
	}
	for _, call := range [][]string{{"append", `{"role":"user","content":"after"}`}, {"takeChanges"}, {"project"}} {
		res, ok := do(t, call[0], h, call[1:]...)
		if ok || code(t, res) != "corrupt" || !strings.Contains(res, "halfway") {
			t.Fatalf("%s after the panic = %v %s", call[0], ok, res)
		}
	}
	if got := must(t, "save", h); !strings.Contains(got, "before") {
		t.Fatalf("save after the panic: %s", got)
	}
	must(t, "validate", h)
	if got := must(t, "append", other, `{"role":"user","content":"still here"}`); got == "" {
		t.Fatal("another tree stopped working")
	}
	must(t, "free", h)
}

func TestMessagesAreCopiedOutOfTheInputBuffer(t *testing.T) {
	h := handleOf(t, must(t, "new", 0))
	id := must(t, "append", h, `{"role":"user","content":"first"}`)
	must(t, "append", h, `{"role":"user","content":"XXXXX"}`) // reuses the same input bytes
	if got := must(t, "messages", h, id); got != `[{"role":"user","content":"first"}]` {
		t.Fatalf("stored message changed with the input buffer: %s", got)
	}
}

// The lean module must not carry merge or the formats (issue 3's size target):
// its table has no method that needs them.
func TestTheLeanTableHasNoMergeImportOrExport(t *testing.T) {
	for _, m := range Lean() {
		switch m.Name {
		case "merge", "mergeTree", "import", "importTree", "export", "exportTree":
			t.Errorf("the lean table has %q", m.Name)
		}
	}
}

// A method whose memory grows with the whole tree (Need WholeTree or Save)
// asks room for twice the tree's estimated size before it runs, and is
// refused with too_large, the tree as it was, when the module cannot take it;
// a method that works on a part of the tree asks none.
func TestAMethodThatWorksOnTheWholeTreeAsksRoomForItFirst(t *testing.T) {
	h := handleOf(t, must(t, "fromLinear", 0, `[{"role":"user","content":"a"},{"role":"assistant","content":"b"}]`))
	defer must(t, "free", h)
	e := trees[h]
	size := e.size
	for _, m := range Lean() {
		if m.Need == NoTree || m.Name == "free" {
			continue
		}
		e.size = 3 << 30 // as if it were 3 GiB: twice that does not fit in 4 GiB
		res, ok := do(t, m.Name, h)
		e.size = size
		tooLarge := !ok && code(t, res) == "too_large"
		if tooLarge != (m.Need >= WholeTree) {
			t.Errorf("%s (need %d) on a tree estimated at 3 GiB: %s", m.Name, m.Need, res)
		}
	}
	if got := must(t, "pathLength", h); got != "2" {
		t.Fatalf("the tree changed: %s messages", got)
	}
}
