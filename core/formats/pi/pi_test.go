package pi_test

import (
	"bytes"
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
				if n.Label != "start" || strings.Join(path, ",") != "e1,e2,e4" || !strings.Contains(notes, "label entries") {
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
