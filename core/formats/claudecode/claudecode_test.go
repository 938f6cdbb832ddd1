package claudecode_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/formats/claudecode"
	"github.com/sessiontree/sessiontree/core/formats/internal/formattest"
)

func line(typ, uuid, parent, extra string) string {
	p := "null"
	if parent != "" {
		p = `"` + parent + `"`
	}
	return `{"type":"` + typ + `","uuid":"` + uuid + `","parentUuid":` + p + `,"timestamp":"2025-01-01T00:00:0` + uuid[len(uuid)-1:] + `.000Z"` + extra + "}\n"
}

func user(uuid, parent, text string) string {
	return line("user", uuid, parent, `,"message":{"role":"user","content":"`+text+`"}`)
}

func assistant(uuid, parent, msgID, text string) string {
	return line("assistant", uuid, parent, `,"message":{"id":"`+msgID+`","role":"assistant","content":[{"type":"text","text":"`+text+`"}]}`)
}

func roots(t *core.Tree) []string {
	if t.Root() == "" {
		return nil
	}
	r, _, _ := t.Siblings(t.Root())
	return r
}

func TestImport(t *testing.T) {
	cases := []formattest.Case{
		{"a torn last line is reported with its number and the rest kept",
			user("u1", "", "hi") + assistant("a2", "u1", "m1", "yo") + `{"type":"user","uuid":"u3","parentUuid":"a2","mess`,
			func(t *testing.T, tr *core.Tree, rep, _ string) {
				if tr.Len() != 2 || !strings.Contains(rep, "line 3: torn last line") {
					t.Fatalf("%d nodes, problems %s", tr.Len(), rep)
				}
			}},
		{"a malformed line in the middle is reported and the lines after it kept",
			user("u1", "", "hi") + "not json\n" + assistant("a2", "u1", "m1", "yo"),
			func(t *testing.T, tr *core.Tree, rep, _ string) {
				if tr.Len() != 2 || !strings.Contains(rep, "line 2: malformed line") {
					t.Fatalf("%d nodes, problems %s", tr.Len(), rep)
				}
			}},
		{"a dangling parent is reported with line and id and the node kept as a root",
			user("u1", "", "hi") + user("u2", "gone", "orphan"),
			func(t *testing.T, tr *core.Tree, rep, _ string) {
				if tr.Len() != 2 || len(roots(tr)) != 2 || !strings.Contains(rep, `line 2 (u2): parent "gone" is not in the file`) {
					t.Fatalf("%d nodes, roots %v, problems %s", tr.Len(), roots(tr), rep)
				}
			}},
		{"several roots stay several roots",
			user("u1", "", "one") + user("u2", "", "two"),
			func(t *testing.T, tr *core.Tree, rep, _ string) {
				if len(roots(tr)) != 2 || rep != "" {
					t.Fatalf("roots %v, problems %s", roots(tr), rep)
				}
			}},
		{"a compact_boundary is a root and main continues after it",
			user("u1", "", "old") + assistant("a2", "u1", "m1", "old answer") +
				line("system", "c3", "", `,"subtype":"compact_boundary","content":"Conversation compacted","logicalParentUuid":"a2"`) +
				user("s4", "c3", "summary of before") + user("u5", "s4", "new"),
			func(t *testing.T, tr *core.Tree, _ string, notes string) {
				path, _ := tr.ActivePath()
				if len(roots(tr)) != 2 || strings.Join(path, ",") != "c3,s4,u5" || !strings.Contains(notes, "compact_boundary") {
					t.Fatalf("roots %v, active path %v, notes %s", roots(tr), path, notes)
				}
				n, _ := tr.Node("c3")
				if n.Message.Role() != "system" || !bytes.Contains(n.Message, []byte(`"logicalParentUuid":"a2"`)) {
					t.Fatalf("boundary message %s", n.Message)
				}
				if len(tr.Branches()) != 2 {
					t.Fatalf("the pre-compaction history has no branch: %v", tr.Branches())
				}
			}},
		{"sidechain lines are nodes and main ends at the last non-sidechain line",
			user("u1", "", "task") + line("user", "s2", "", `,"isSidechain":true,"message":{"role":"user","content":"sub"}`) +
				line("assistant", "s3", "s2", `,"isSidechain":true,"message":{"role":"assistant","content":"sub done"}`) + assistant("a4", "u1", "m1", "done") +
				line("assistant", "s5", "s3", `,"isSidechain":true,"message":{"role":"assistant","content":"late"}`),
			func(t *testing.T, tr *core.Tree, _ string, _ string) {
				b, _ := tr.LookupBranch(core.MainBranch)
				if tr.Len() != 5 || len(roots(tr)) != 2 || b.Leaf != "a4" {
					t.Fatalf("%d nodes, roots %v, main at %s", tr.Len(), roots(tr), b.Leaf)
				}
			}},
		{"assistant lines sharing message.id stay one node each, in their chain",
			user("u1", "", "q") + assistant("a2", "u1", "m1", "part one") + assistant("a3", "a2", "m1", "part two"),
			func(t *testing.T, tr *core.Tree, _ string, notes string) {
				path, _ := tr.ActivePath()
				if strings.Join(path, ",") != "u1,a2,a3" || !strings.Contains(notes, "1 assistant lines sharing a message.id") {
					t.Fatalf("path %v, notes %s", path, notes)
				}
			}},
		{"lines without uuid are kept with the node before them",
			user("u1", "", "q") + `{"type":"file-history-snapshot","messageId":"x","snapshot":{}}` + "\n",
			func(t *testing.T, tr *core.Tree, _ string, notes string) {
				n, _ := tr.Node("u1")
				if tr.Len() != 1 || !bytes.Contains(n.Message, []byte(`"claudecode_after":[{"type":"file-history-snapshot"`)) {
					t.Fatalf("%d nodes, message %s", tr.Len(), n.Message)
				}
			}},
		{"a message without a string role is reported and kept with the node before it",
			user("u1", "", "q") + line("user", "u2", "u1", `,"message":{"content":"no role"}`),
			func(t *testing.T, tr *core.Tree, rep string, _ string) {
				n, _ := tr.Node("u1")
				if tr.Len() != 1 || !strings.Contains(rep, "line 2 (u2)") || !bytes.Contains(n.Message, []byte(`no role`)) {
					t.Fatalf("%d nodes, problems %s, message %s", tr.Len(), rep, n.Message)
				}
			}},
		{"spaced JSON lines read like compact ones",
			`{"type": "user", "uuid": "u1", "parentUuid": null, "message": {"role": "user", "content": "hi"}}` + "\n",
			func(t *testing.T, tr *core.Tree, _ string, _ string) {
				n, _ := tr.Node("u1")
				if string(n.Message) != `{"role":"user","content":"hi","claudecode":{"type":"user","uuid":"u1","parentUuid":null,"message":0}}` {
					t.Fatalf("message %s", n.Message)
				}
			}},
	}
	formattest.RunImports(t, claudecode.Import, cases)
}

// The fast path (message built straight from the line) and the general one
// (members split and joined) give the same message, so export's check that a
// record gives its node back holds for both.
func TestFastAndGeneralPathsAgree(t *testing.T) {
	in := user("u1", "", "hi") + assistant("a2", "u1", "m1", `say \"hi\" \u00e9`)
	fast, _, err := claudecode.Import([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	// An escaped key sends a line down the general path.
	slow, _, err := claudecode.Import([]byte(strings.ReplaceAll(in, `"timestamp"`, `"\u0074imestamp"`)))
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"u1", "a2"} {
		f, _ := fast.Node(id)
		s, _ := slow.Node(id)
		want := strings.ReplaceAll(string(f.Message), `"timestamp"`, `"timestamp"`)
		if string(s.Message) != want || f.CreatedAtMs != s.CreatedAtMs {
			t.Fatalf("%s: fast %s (%d) general %s (%d)", id, f.Message, f.CreatedAtMs, s.Message, s.CreatedAtMs)
		}
	}
}

// Export then import gives the tree back, node for node.
func TestExportImportGivesTheTreeBack(t *testing.T) {
	in := user("u1", "", "q") + assistant("a2", "u1", "m1", "one") + assistant("a3", "u1", "m2", "two") +
		`{"type":"summary","summary":"s","leafUuid":"a3"}` + "\n"
	tr, _, err := claudecode.Import([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	out, err := claudecode.Export(tr)
	if err != nil {
		t.Fatal(err)
	}
	back, _, err := claudecode.Import(out)
	if err != nil {
		t.Fatal(err)
	}
	a := tr.Marshal()
	b := back.Marshal()
	if !bytes.Equal(a, b) {
		t.Fatalf("round trip differs:\n%s\n%s", a, b)
	}
}

// The input is not kept: changing it after the import changes nothing.
func TestImportDoesNotAliasItsInput(t *testing.T) {
	in := []byte(user("u1", "", "hi") + assistant("a2", "u1", "m1", "yo"))
	tr, _, err := claudecode.Import(in)
	if err != nil {
		t.Fatal(err)
	}
	before := tr.Marshal()
	for i := range in {
		in[i] = 'x'
	}
	after := tr.Marshal()
	if !bytes.Equal(before, after) {
		t.Fatal("the tree changed with its input")
	}
}
