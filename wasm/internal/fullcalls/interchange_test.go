package fullcalls

import (
	"encoding/binary"
	"encoding/json"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/formats"
	"github.com/sessiontree/sessiontree/wasm/internal/bridge"
	"github.com/sessiontree/sessiontree/wasm/internal/treecalls"
)

// TestMain serves the full table, as wasm/interchange does.
func TestMain(m *testing.M) {
	treecalls.Serve(Full())
	m.Run()
}

// number returns the call number of method name, read from call 0 as
// JavaScript reads it (-1 when there is none).
func number(name string) int {
	res, _ := bridge.Do(0, 0, nil, 0)
	for i, n := range strings.Split(string(res), "\n") {
		if n == name {
			return i
		}
	}
	return -1
}

// do calls method name with no tree as JavaScript does and returns the result
// bytes and whether it succeeded.
func do(name string, args ...[]byte) ([]byte, bool) { return doOn(name, 0, args...) }

// doOn calls method name on the tree behind handle.
func doOn(name string, handle uint32, args ...[]byte) ([]byte, bool) {
	m := number(name)
	if m < 0 {
		panic("no method " + name)
	}
	var in []byte
	for _, a := range args {
		in = binary.LittleEndian.AppendUint32(in, uint32(len(a)))
		in = append(in, a...)
	}
	buf := bridge.Reserve(len(in))
	copy(buf, in)
	res, ok := bridge.Do(uint32(m), handle, buf[:len(in)], 1000)
	return append([]byte(nil), res...), ok
}

// splitImport reads an import result: the report's length, the report, the tree.
func splitImport(t *testing.T, res []byte) (formats.Report, []byte) {
	t.Helper()
	n := binary.LittleEndian.Uint32(res)
	var rep struct {
		Format                          string
		Records, Nodes, Roots, Branches int
		NotCarried                      []string
		Problems                        []struct {
			Line    int
			ID      *string
			Message string
		}
	}
	if err := json.Unmarshal(res[4:4+n], &rep); err != nil {
		t.Fatalf("report %q: %v", res[4:4+n], err)
	}
	out := formats.Report{Format: rep.Format, Records: rep.Records, Nodes: rep.Nodes, Roots: rep.Roots, Branches: rep.Branches, NotCarried: rep.NotCarried}
	for _, p := range rep.Problems {
		id := ""
		if p.ID != nil {
			id = *p.ID
		}
		out.Problems = append(out.Problems, formats.Problem{Line: p.Line, ID: id, Message: p.Message})
	}
	return out, res[4+n:]
}

// sample is a tree with a fork, a label and a summary, with fixed ids.
func sample(t *testing.T) *core.Tree {
	n := 0
	tr := core.New(core.WithIDSource(func() string { n++; return "id" + strconv.Itoa(n) }))
	a, _ := tr.Append(core.Message(`{"role":"user","content":"hi ünï 😀"}`), 1700000000000)
	b, _ := tr.Append(core.Message(`{"role":"assistant","content":"hello","x":1.50}`), 1700000001000)
	if _, err := tr.Rewind(a, 1700000002000); err != nil {
		t.Fatal(err)
	}
	if _, err := tr.Append(core.Message(`{"role":"assistant","content":"take two"}`), 1700000003000); err != nil {
		t.Fatal(err)
	}
	if err := tr.Label(a, "start"); err != nil {
		t.Fatal(err)
	}
	if err := tr.SummarizeBranch("branch-1", "the first answer", "model-x", 1700000004000); err != nil {
		t.Fatal(err)
	}
	_ = b
	return tr
}

// The full flavour is the lean module and more: every lean call keeps its
// number, so one JavaScript wrapper drives either.
func TestTheFullTableIsTheLeanTableThenMergeImportExportAndProjections(t *testing.T) {
	res, ok := do("methods")
	names := strings.Split(string(res), "\n")
	lean := treecalls.Lean()
	if !ok || len(names) != 1+len(lean)+14 || names[0] != "methods" {
		t.Fatalf("methods = %q", res)
	}
	for i, m := range lean {
		if names[1+i] != m.Name {
			t.Fatalf("call %d is %q in the full table, %q in the lean one", 1+i, names[1+i], m.Name)
		}
	}
	if got := strings.Join(names[1+len(lean):], " "); got != "import export merge mergeTree importTree exportTree projectFile projectTree importAll importAllTrees importBegin importNext importEnd deltaParts" {
		t.Fatalf("after the lean table: %s", got)
	}
}

// The main module loads what import returns and saves what export reads, so a
// file through this module must give exactly the tree core/formats gives.
func TestImportGivesTheTreeCoreFormatsGivesByteForByte(t *testing.T) {
	tr := sample(t)
	saved := tr.Marshal()
	for _, name := range append([]string{formats.SessionTree}, formats.Names...) {
		if name == formats.Markdown {
			continue // export only
		}
		file, err := formats.Export(tr, name)
		if err != nil {
			t.Fatalf("export %s: %v", name, err)
		}
		for _, as := range []string{name, "auto"} {
			res, ok := do("import", []byte(as), file)
			if !ok {
				t.Fatalf("import %s as %s: %s", name, as, res)
			}
			rep, tree := splitImport(t, res)
			want, wantRep, err := formats.Import(name, file)
			if err != nil {
				t.Fatal(err)
			}
			if name == formats.OpenAI || name == formats.Codex {
				// No ids in the file: fresh random ids on each import. The
				// messages and the report must still agree.
				got, err := core.Unmarshal(tree)
				if err != nil {
					t.Fatalf("%s: the main module could not load the tree: %v", name, err)
				}
				g, _ := got.LinearProjection()
				w, _ := want.LinearProjection()
				if len(g) != len(w) || string(g[len(g)-1]) != string(w[len(w)-1]) {
					t.Errorf("%s: the projections differ", name)
				}
			} else if string(tree) != string(want.Marshal()) {
				t.Errorf("%s as %s: the tree differs from core/formats':\n%s\n%s", name, as, tree, want.Marshal())
			}
			if rep.Format != wantRep.Format || rep.Nodes != wantRep.Nodes || rep.Roots != wantRep.Roots ||
				rep.Branches != wantRep.Branches || rep.Records != wantRep.Records ||
				strings.Join(rep.NotCarried, "|") != strings.Join(wantRep.NotCarried, "|") || len(rep.Problems) != len(wantRep.Problems) {
				t.Errorf("%s as %s: report %+v, want %+v", name, as, rep, wantRep)
			}
		}
		// And export reads the saved tree to the same file.
		got, ok := do("export", []byte(name), saved)
		if !ok || string(got) != string(file) {
			t.Errorf("export %s through the module differs: %s", name, got)
		}
	}
	md, ok := do("export", []byte("markdown"), saved)
	if !ok || !strings.Contains(string(md), "take two") {
		t.Fatalf("markdown: %s", md)
	}
}

func TestAReportListsWhatItCouldNotRead(t *testing.T) {
	file := "{\"type\":\"session\",\"version\":3,\"id\":\"s\",\"timestamp\":\"2026-01-01T00:00:00Z\",\"cwd\":\"/\"}\n" +
		"{\"type\":\"message\",\"id\":\"a\",\"parentId\":null,\"timestamp\":\"2026-01-01T00:00:01Z\",\"message\":{\"role\":\"user\",\"content\":\"hi\"}}\n" +
		"{\"type\":\"mess"
	res, ok := do("import", []byte("pi"), []byte(file))
	if !ok {
		t.Fatalf("a torn last line is reported, not fatal: %s", res)
	}
	rep, _ := splitImport(t, res)
	if len(rep.Problems) != 1 || rep.Problems[0].Line != 3 || rep.Nodes != 1 {
		t.Fatalf("report = %+v", rep)
	}
}

func TestFailuresAreCodesNamingWhatIsWrong(t *testing.T) {
	cases := []struct {
		method string
		args   []string
		code   string
		says   string
	}{
		{"import", nil, "invalid_input", "format"},
		{"import", []string{"chatgpt"}, "invalid_input", "text"},
		{"import", []string{"nope", "[]"}, "invalid_input", "nope"},
		{"export", []string{"nope", string(sample(t).Marshal())}, "invalid_input", "nope"},
		{"export", []string{"openai"}, "invalid_input", "tree"},
		{"export", []string{"openai", `{"format":"sessiontree","version":99}`}, "unsupported_version", "version"},
		{"export", []string{"openai", "not json"}, "corrupt", ""},
	}
	for _, c := range cases {
		args := make([][]byte, len(c.args))
		for i, a := range c.args {
			args[i] = []byte(a)
		}
		res, ok := do(c.method, args...)
		var e struct{ Code, Message string }
		if ok || json.Unmarshal(res, &e) != nil || e.Code != c.code || !strings.Contains(e.Message, c.says) {
			t.Errorf("%s(%q) = %s, want %s naming %q", c.method, c.args, res, c.code, c.says)
		}
	}
}

func TestNoInputStopsTheModule(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	names := append([]string{"auto", "sessiontree"}, formats.Names...)
	const alphabet = "{}[]\":,0a\n\\u\x00\xff"
	for range 1000 {
		junk := make([]byte, rng.IntN(60))
		for j := range junk {
			junk[j] = alphabet[rng.IntN(len(alphabet))]
		}
		var res []byte
		var ok bool
		if rng.IntN(3) == 2 {
			res, ok = do("merge", sample(t).Marshal(), junk)
		} else {
			res, ok = do([]string{"import", "export"}[rng.IntN(2)], []byte(names[rng.IntN(len(names))]), junk)
		}
		if !ok {
			var e struct{ Code, Message string }
			if json.Unmarshal(res, &e) != nil || e.Code == "" || e.Message == "" {
				t.Fatalf("not a {code,message} envelope: %q", res)
			}
		}
	}
	if res, ok := do("export", []byte("openai"), sample(t).Marshal()); !ok || !strings.Contains(string(res), "take two") {
		t.Fatalf("the module stopped working: %s", res)
	}
}
