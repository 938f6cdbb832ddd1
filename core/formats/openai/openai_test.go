package openai_test

import (
	"strings"
	"testing"

	"github.com/sessiontree/sessiontree/core/formats/claudecode"
	"github.com/sessiontree/sessiontree/core/formats/internal/formattest"
	"github.com/sessiontree/sessiontree/core/formats/openai"
)

// Export writes the active branch's projection without the members importers
// add to keep their records: a Claude Code session with a fork exports as
// plain messages (testdata/projection.golden.json, read by eye).
func TestExportGolden(t *testing.T) {
	in := `{"type":"user","uuid":"u1","parentUuid":null,"timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"hi"}}
{"type":"assistant","uuid":"a2","parentUuid":"u1","timestamp":"2025-01-01T00:00:02.000Z","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"abandoned"}]}}
{"type":"file-history-snapshot","messageId":"x","snapshot":{}}
{"type":"assistant","uuid":"a3","parentUuid":"u1","timestamp":"2025-01-01T00:00:03.000Z","message":{"id":"m2","role":"assistant","content":[{"type":"text","text":"kept"}]}}
`
	tr, _, err := claudecode.Import([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	out, err := openai.Export(tr)
	if err != nil {
		t.Fatal(err)
	}
	const path = "testdata/projection.golden.json"
	formattest.Golden(t, path, out)
}

func TestImport(t *testing.T) {
	cases := []struct {
		name, input string
		nodes       int
		problem     string
	}{
		{"a messages array is one linear path", `[{"role":"user","content":"a"},{"role":"assistant","content":"b"}]`, 2, ""},
		{"an object with messages reads like the array", `{"messages":[{"role":"user","content":"a"}]}`, 1, ""},
		{"an element that is not a message is reported by index", `[{"role":"user","content":"a"},{"content":"no role"}]`, 1, "message 1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr, rep, err := openai.Import([]byte(c.input))
			if err != nil {
				t.Fatal(err)
			}
			var ps []string
			for _, p := range rep.Problems {
				ps = append(ps, p.String())
			}
			got := strings.Join(ps, "; ")
			if tr.Len() != c.nodes || (c.problem == "") != (got == "") || !strings.Contains(got, c.problem) {
				t.Fatalf("%d nodes, problems %q", tr.Len(), got)
			}
		})
	}
}

// The input is not kept: changing it after the import changes nothing.
func TestImportDoesNotAliasItsInput(t *testing.T) {
	in := []byte(`[{"role":"user","content":"a"}]`)
	tr, _, err := openai.Import(in)
	if err != nil {
		t.Fatal(err)
	}
	before := string(tr.Marshal())
	for i := range in {
		in[i] = ' '
	}
	if after := string(tr.Marshal()); after != before {
		t.Fatalf("the tree changed with its input:\n%s\n%s", before, after)
	}
}
