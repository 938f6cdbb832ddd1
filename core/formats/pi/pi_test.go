package pi_test

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/formats/internal/formattest"
	"github.com/sessiontree/sessiontree/core/formats/pi"
)

const header = `{"type":"session","version":3,"id":"s1","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/tmp"}` + "\n"

func msg(id, parent, role, text string) string {
	p := "null"
	if parent != "" {
		p = `"` + parent + `"`
	}
	return `{"type":"message","id":"` + id + `","parentId":` + p + `,"timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"` + role + `","content":[{"type":"text","text":"` + text + `"}]}}` + "\n"
}

func TestImport(t *testing.T) {
	cases := []formattest.Case{
		{"label entries become node labels",
			header + msg("e1", "", "user", "hi") + msg("e2", "e1", "assistant", "yo") +
				`{"type":"label","id":"l3","parentId":"e2","timestamp":"2025-01-01T00:00:02.000Z","targetId":"e1","label":"start"}` + "\n" + msg("e4", "l3", "user", "more"),
			func(t *testing.T, tr *core.Tree, _, notes string) {
				n, _ := tr.Node("e1")
				path, _ := tr.ActivePath()
				if n.Label != "start" || strings.Join(path, ",") != "e1,e2,e4" || !strings.Contains(notes, "1 label entry became a node label (its own id is not kept)") {
					t.Fatalf("label %q, path %v, notes %s", n.Label, path, notes)
				}
			}},
		{"a branch_summary is a user node and the summary of the branch it leaves",
			header + msg("e1", "", "user", "hi") + msg("e2", "e1", "assistant", "first") + msg("e3", "e1", "assistant", "second") +
				`{"type":"branch_summary","id":"b4","parentId":"e3","timestamp":"2025-01-01T00:00:03.000Z","fromId":"e2","summary":"tried the first"}` + "\n",
			func(t *testing.T, tr *core.Tree, _, _ string) {
				n, _ := tr.Node("b4")
				var sum string
				for _, b := range tr.Branches() {
					if b.Leaf == "e2" && b.Summary != nil {
						sum = b.Summary.Summary
					}
				}
				if n.Message.Role() != "user" || sum != "tried the first" {
					t.Fatalf("node %s, summary %q, branches %v", n.Message, sum, tr.Branches())
				}
			}},
		{"a compaction entry is a user node with its summary",
			header + msg("e1", "", "user", "hi") + `{"type":"compaction","id":"c2","parentId":"e1","timestamp":"2025-01-01T00:00:03.000Z","summary":"earlier work","firstKeptEntryId":"e1","tokensBefore":9}` + "\n",
			func(t *testing.T, tr *core.Tree, _, _ string) {
				n, _ := tr.Node("c2")
				if !strings.Contains(n.Message.Text(), "earlier work") {
					t.Fatalf("compaction node %s", n.Message)
				}
			}},
		{"a torn last line is reported and the rest kept",
			header + msg("e1", "", "user", "hi") + `{"type":"message","id":"e2"`,
			func(t *testing.T, tr *core.Tree, problems, _ string) {
				if tr.Len() != 1 || !strings.Contains(problems, "line 3: torn last line") {
					t.Fatalf("%d nodes, problems %s", tr.Len(), problems)
				}
			}},
		{"a dangling parent is reported with line and id",
			header + msg("e1", "", "user", "hi") + msg("e2", "nope", "user", "lost"),
			func(t *testing.T, tr *core.Tree, problems, _ string) {
				if tr.Len() != 2 || !strings.Contains(problems, `line 3 (e2): parent "nope" is not in the file`) {
					t.Fatalf("%d nodes, problems %s", tr.Len(), problems)
				}
			}},
		{"entries of other types are kept with the entry before them and their children hang on their parent",
			header + msg("e1", "", "user", "hi") + `{"type":"model_change","id":"m2","parentId":"e1","provider":"x","modelId":"y"}` + "\n" + msg("e3", "m2", "assistant", "yo"),
			func(t *testing.T, tr *core.Tree, _, _ string) {
				n, _ := tr.Node("e1")
				e3, _ := tr.Node("e3")
				if e3.Parent != "e1" || !bytes.Contains(n.Message, []byte(`"pi_after":[{"type":"model_change"`)) || !bytes.Contains(n.Message, []byte(`"pi_before":[{"type":"session"`)) {
					t.Fatalf("e3 parent %q, e1 %s", e3.Parent, n.Message)
				}
			}},
	}
	formattest.RunImports(t, pi.Import, cases)
}

func TestExportImportGivesTheTreeBack(t *testing.T) {
	in := header + msg("e1", "", "user", "hi") + msg("e2", "e1", "assistant", "first") + msg("e3", "e1", "assistant", "second") +
		`{"type":"label","id":"l4","parentId":"e3","targetId":"e2","label":"keep"}` + "\n"
	tr, _, err := pi.Import([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	out, err := pi.Export(tr)
	if err != nil {
		t.Fatal(err)
	}
	back, _, err := pi.Import(out)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := tr.Marshal(), back.Marshal(); !bytes.Equal(a, b) {
		t.Fatalf("round trip differs:\n%s\n%s", a, b)
	}
}

// lines splits a JSONL export into its lines.
func lines(b []byte) []string {
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// pi's SessionManager (pi-mono 83378aa, packages/coding-agent/src/core/
// session-manager.ts: _buildIndex) opens a session at its last entry and
// loadEntriesFromFile drops a file whose first line is not a "session" header
// with a string id. So an export's first line is the header, which carries the
// branches, and its last line is the active leaf (or an entry under it).
func TestAnExportOpensInPiAtTheActiveLeaf(t *testing.T) {
	n := 0
	tr := core.New(core.WithIDSource(func() string { n++; return "n" + string(rune('0'+n)) }))
	a, _ := tr.Append(core.Message(`{"role":"user","content":"hi"}`), 1000)
	b, _ := tr.Append(core.Message(`{"role":"assistant","content":"first"}`), 2000)
	if _, err := tr.Rewind(a, 3000); err != nil {
		t.Fatal(err)
	}
	c, _ := tr.Append(core.Message(`{"role":"assistant","content":"second"}`), 4000)
	if err := tr.SwitchBranch("branch-1"); err != nil {
		t.Fatal(err)
	}
	out, err := pi.Export(tr)
	if err != nil {
		t.Fatal(err)
	}
	ls := lines(out)
	if !strings.HasPrefix(ls[0], `{"type":"session","version":3,"id":`) || !strings.Contains(ls[0], `"sessiontree":{"synthetic":true,"active_branch":"branch-1"`) {
		t.Fatalf("header %s", ls[0])
	}
	if !strings.Contains(ls[len(ls)-1], `"id":"`+b+`"`) {
		t.Fatalf("last line is not the active leaf %s:\n%s", b, out)
	}
	back, _, err := pi.Import(out)
	if err != nil {
		t.Fatal(err)
	}
	if !sameTree(back, tr) {
		t.Fatalf("round trip:\n%s\n%s", tr.Marshal(), back.Marshal())
	}
	_ = c
}

// A forest (a Claude Code compaction makes one) is written with the root that
// holds the active leaf last, so pi still opens at that leaf; the tree's first
// root stays the first line, so the import gives the same tree back.
func TestAForestEndsWithTheActiveLeaf(t *testing.T) {
	tr := core.New()
	for _, id := range []string{"r1", "r2"} {
		if err := tr.InsertNode(id, "", core.Message(`{"role":"user","content":"`+id+`"}`), "", 1000); err != nil {
			t.Fatal(err)
		}
	}
	_ = tr.InsertNode("r1a", "r1", core.Message(`{"role":"assistant","content":"after r1"}`), "", 2000)
	_ = tr.InsertNode("r2a", "r2", core.Message(`{"role":"assistant","content":"after r2"}`), "", 2000)
	_ = tr.SetBranch(core.MainBranch, "r1a", 0)
	_ = tr.SetBranch("other", "r2a", 0)
	out, err := pi.Export(tr)
	if err != nil {
		t.Fatal(err)
	}
	ls := lines(out)
	if !strings.Contains(ls[1], `"id":"r1"`) || !strings.Contains(ls[len(ls)-1], `"id":"r1a"`) {
		t.Fatalf("order:\n%s", out)
	}
	back, _, _ := pi.Import(out)
	if !sameTree(back, tr) {
		t.Fatalf("round trip:\n%s\n%s", tr.Marshal(), back.Marshal())
	}
}

// pi migrates a version 1 file (no id, no parentId: pi-mono's own sessions of
// 2025, e.g. test/fixtures/large-session.jsonl) by giving each entry an id and
// the entry before it as parent, turning a compaction's firstKeptEntryIndex
// into firstKeptEntryId and setting the header's version to 3
// (session-manager.ts migrateV1ToV2, migrateV2ToV3 at pi-mono 83378aa). The
// import does the same: one chain, not one root per message.
func TestAVersion1SessionIsMigratedAsPiMigratesIt(t *testing.T) {
	in := `{"type":"session","id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/"}` + "\n" +
		`{"type":"message","timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"a"}]}}` + "\n" +
		`{"type":"model_change","timestamp":"2025-01-01T00:00:02.000Z","provider":"p","modelId":"m"}` + "\n" +
		`{"type":"message","timestamp":"2025-01-01T00:00:03.000Z","message":{"role":"assistant","content":[{"type":"text","text":"b"}]}}` + "\n" +
		`{"type":"compaction","timestamp":"2025-01-01T00:00:04.000Z","summary":"s","firstKeptEntryIndex":3,"tokensBefore":1}` + "\n" +
		`{"type":"message","timestamp":"2025-01-01T00:00:05.000Z","message":{"role":"user","content":[{"type":"text","text":"c"}]}}` + "\n"
	tr, rep, err := pi.Import([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	path, _ := tr.ActivePath()
	if strings.Join(path, ",") != "00000001,00000003,00000004,00000005" || rep.Roots != 1 {
		t.Fatalf("path %v, %d roots", path, rep.Roots)
	}
	comp, _ := tr.Node("00000004")
	first, _ := tr.Node("00000001")
	if !bytes.Contains(comp.Message, []byte(`"firstKeptEntryId":"00000003"`)) || bytes.Contains(comp.Message, []byte("firstKeptEntryIndex")) ||
		!bytes.Contains(first.Message, []byte(`"pi_before":[{"type":"session","id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/","version":3}]`)) ||
		!strings.Contains(strings.Join(rep.NotCarried, ";"), "version 1 session, migrated") {
		t.Fatalf("compaction %s\nfirst %s\nnotes %v", comp.Message, first.Message, rep.NotCarried)
	}
	out, _ := pi.Export(tr)
	back, _, _ := pi.Import(out)
	if !sameTree(back, tr) || !strings.HasPrefix(string(out), `{"type":"session","id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/","version":3,"sessiontree":`) {
		t.Fatalf("export:\n%s", out)
	}
}

// Version 2 named the role of extension messages hookMessage; pi calls it
// custom since version 3 (migrateV2ToV3).
func TestAVersion2HookMessageBecomesCustom(t *testing.T) {
	in := `{"type":"session","version":2,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/"}` + "\n" +
		`{"type":"message","id":"a","parentId":null,"timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"hookMessage","content":"x"}}` + "\n"
	tr, _, err := pi.Import([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	n, _ := tr.Node("a")
	if n.Message.Role() != "custom" {
		t.Fatalf("message %s", n.Message)
	}
}

// A message of another shape is written as a pi message (content parts, a
// timestamp) and the original is kept in the entry's "sessiontree" member,
// without a second copy of the text the entry holds.
func TestAForeignMessageIsWrittenAsAPiMessage(t *testing.T) {
	long := strings.TrimSpace(strings.Repeat("a long answer ", 20))
	tr := core.New()
	_ = tr.InsertNode("u", "", core.Message(`{"role":"user","content":"hi","other":{"k":1}}`), "", 1000)
	_ = tr.InsertNode("a", "u", core.Message(`{"role":"assistant","content":"`+long+`","other":{"k":2}}`), "", 2000)
	_ = tr.SetBranch(core.MainBranch, "a", 0)
	out, err := pi.Export(tr)
	if err != nil {
		t.Fatal(err)
	}
	ls := lines(out)
	if !strings.Contains(ls[2], `"message":{"role":"assistant","content":[{"type":"text","text":"`+long+`"}],"api":"","provider":"","model":"","usage":`+zeroUsage+`,"stopReason":"stop","timestamp":2000}`) ||
		strings.Count(ls[2], long) != 1 {
		t.Fatalf("entry %s", ls[2])
	}
	back, _, _ := pi.Import(out)
	if !sameTree(back, tr) {
		t.Fatalf("round trip:\n%s\n%s", tr.Marshal(), back.Marshal())
	}
}

var clock = regexp.MustCompile(`,"used":\d+`)

// sameTree compares trees by their .tree.json but for the branches' "used"
// clock, which no format carries (see core/formats/roundtrip_test.go).
func sameTree(a, b *core.Tree) bool {
	return clock.ReplaceAllString(string(a.Marshal()), "") == clock.ReplaceAllString(string(b.Marshal()), "")
}

const zeroUsage = `{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}}`

// pi's footer (pi-mono 83378aa, packages/coding-agent/src/modes/interactive/
// components/footer.ts, and the same code in @mariozechner/pi-coding-agent
// 0.73.1, run on every export) and AgentSession's session stats add up
// usage.input, usage.output, usage.cacheRead, usage.cacheWrite and
// usage.cost.total of every assistant message of a session, unchecked: an
// assistant message without a usage stops pi showing the session. pi-ai's
// AssistantMessage also has api, provider, model and stopReason. A reply of
// another tool is written with them, its tokens unknown (0), and comes back
// as it was.
func TestAForeignReplyHasTheUsagePisFooterAddsUp(t *testing.T) {
	tr := core.New()
	_ = tr.InsertNode("u", "", core.Message(`{"role":"user","content":"ls"}`), "", 1000)
	_ = tr.InsertNode("a", "u", core.Message(`{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"ls","arguments":"{}"}}]}`), "", 2000)
	_ = tr.SetBranch(core.MainBranch, "a", 0)
	out, err := pi.Export(tr)
	if err != nil {
		t.Fatal(err)
	}
	var e struct {
		Message struct {
			API, Provider, Model *string
			StopReason           string
			Usage                *struct {
				Input, Output, CacheRead, CacheWrite, TotalTokens *float64
				Cost                                              *struct{ Total *float64 }
			}
		}
	}
	if err := json.Unmarshal([]byte(lines(out)[2]), &e); err != nil {
		t.Fatal(err)
	}
	m := e.Message
	u := m.Usage
	if m.API == nil || m.Provider == nil || m.Model == nil || m.StopReason != "toolUse" || u == nil || u.Input == nil || u.Output == nil ||
		u.CacheRead == nil || u.CacheWrite == nil || u.TotalTokens == nil || u.Cost == nil || u.Cost.Total == nil {
		t.Fatalf("entry %s", lines(out)[2])
	}
	back, _, _ := pi.Import(out)
	if !sameTree(back, tr) {
		t.Fatalf("round trip:\n%s\n%s", tr.Marshal(), back.Marshal())
	}
}

// pi resumes a session at its last entry of any type. After navigating back
// with /tree and changing the model, that entry is a model_change under the
// node navigated to; main ended at the last message instead.
func TestMainEndsWhereTheLastEntryOfAnyTypeIs(t *testing.T) {
	for _, c := range []struct {
		name, last, want string
	}{
		{"a model change", `{"type":"model_change","id":"e5","parentId":"e2","timestamp":"2025-01-01T00:00:05.000Z","provider":"anthropic","modelId":"claude-sonnet-4"}`, "e2"},
		{"a label", `{"type":"label","id":"e5","parentId":"e1","timestamp":"2025-01-01T00:00:05.000Z","targetId":"e3","label":"A"}`, "e1"},
		{"a chain of non-messages", `{"type":"model_change","id":"e5","parentId":"e2","timestamp":"2025-01-01T00:00:05.000Z","provider":"anthropic","modelId":"m"}` + "\n" +
			`{"type":"thinking_level_change","id":"e6","parentId":"e5","timestamp":"2025-01-01T00:00:06.000Z","thinkingLevel":"high"}`, "e2"},
		{"a message", msg("e5", "e2", "user", "follow-up B"), "e5"},
	} {
		file := header + msg("e1", "", "user", "hi") + msg("e2", "e1", "assistant", "first answer") +
			msg("e3", "e2", "user", "follow-up A") + msg("e4", "e3", "assistant", "answer A") + c.last + "\n"
		tr, _, err := pi.Import([]byte(file))
		if err != nil {
			t.Fatal(err)
		}
		main, _ := tr.LookupBranch(core.MainBranch)
		if main.Leaf != c.want {
			t.Errorf("%s last: main ends at %q, want %q", c.name, main.Leaf, c.want)
		}
		named := false
		for _, b := range tr.Branches() {
			named = named || b.Leaf == "e4"
		}
		if !named {
			t.Errorf("%s last: e4 is on no branch", c.name)
		}
	}
}
