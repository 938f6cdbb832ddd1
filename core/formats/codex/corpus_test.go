//go:build corpus

package codex_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/formats"
	"github.com/sessiontree/sessiontree/core/formats/codex"
	"github.com/sessiontree/sessiontree/core/internal/corpus"
	"github.com/sessiontree/sessiontree/core/rawjson"
)

// corpusFiles lists the corpus files of dirs, foreign ones left out.
func corpusFiles(t testing.TB, dirs ...string) []string {
	var out []string
	for _, f := range corpus.Files(t, dirs...) {
		if !strings.Contains(f, "/foreign/") {
			out = append(out, f)
		}
	}
	return out
}

// What each rollout is, counted from the file: its messages and tool calls
// and outputs (events that repeat a response_item are not counted twice), one
// line of work ending at its last message.
var rollouts = map[string]struct {
	nodes int
	main  string
}{
	"ccl-rollout-22222222-parent.jsonl":                                      {3, "line-5"},
	"ccl-rollout-44444444-legacy.jsonl":                                      {2, "line-3"}, // the pre-2025 format: was an empty tree
	"ccl-rollout-55555555-archived.jsonl":                                    {1, "line-2"},
	"codemie-rollout-2026-05-11T11-26-55.jsonl":                              {221, "line-384"}, // 17 messages, 102 calls, 102 outputs
	"codemie-rollout-2026-05-11T13-28-45.jsonl":                              {82, "line-99"},
	"codemie-turn-2.jsonl":                                                   {8, "line-23"},
	"codemie-turn-spawn-skill.jsonl":                                         {5, "line-10"},
	"rollout-2026-01-02T03-04-05-11111111-1111-4111-8111-111111111111.jsonl": {8, "line-13"},
	"rollout-2026-01-03T04-05-10-33333333-3333-4333-8333-333333333333.jsonl": {4, "line-5"},
	"rollout-66666666-6666-4666-8666-666666666666.jsonl":                     {1, "line-2"}, // its broken last line reported
}

// Every rollout is detected, imports with its own conversation, and its
// export is read by Codex's rules line for line.
func TestCorpusRolloutsImportAndExport(t *testing.T) {
	for _, f := range corpusFiles(t, "interop/codex", "testdata/codex") {
		name := filepath.Base(f)
		t.Run(name, func(t *testing.T) {
			data, _ := os.ReadFile(f)
			if d := formats.Detect(data); d != "codex" {
				t.Fatalf("detected as %q", d)
			}
			tr, _, err := codex.Import(data)
			if err != nil {
				t.Fatal(err)
			}
			want, ok := rollouts[name]
			main, _ := tr.LookupBranch(core.MainBranch)
			if !ok || tr.Len() != want.nodes || main.Leaf != want.main || len(tr.Branches()) != 1 {
				t.Fatalf("%d nodes, main at %s, %d branches; want %+v", tr.Len(), main.Leaf, len(tr.Branches()), want)
			}
			out, err := codex.Export(tr)
			if err != nil {
				t.Fatal(err)
			}
			if errs := rolloutErrors(out); len(errs) > 0 {
				t.Fatalf("Codex would not read %v", errs)
			}
		})
	}
}

// A codex export of every file of both corpora, whatever its format, is
// read by Codex's rules; tool calls, results and reasoning are items, never
// placeholder text; and it is at most 1.3 times the size of the same tree
// exported in its own format.
func TestCorpusEveryFormatExportsToRolloutsCodexReads(t *testing.T) {
	accepted, total := 0, 0
	for _, f := range corpusFiles(t, "interop/*", "testdata/*") {
		format := filepath.Base(filepath.Dir(f))
		data, _ := os.ReadFile(f)
		tr, _, err := formats.Import(format, data)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		total++
		out, err := codex.Export(tr)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if errs := rolloutErrors(out); len(errs) > 0 {
			t.Errorf("%s: Codex would not read %v", filepath.Base(f), errs[0])
			continue
		}
		accepted++
		if bytes.Contains(out, []byte(`"text":"[tool_use]`)) || bytes.Contains(out, []byte(`"text":"[tool_result]`)) || bytes.Contains(out, []byte(`"text":"[thinking]`)) {
			t.Errorf("%s: placeholder text in the export", filepath.Base(f))
		}
		if format == "claudecode" {
			// every tool use on the active path is a function_call item
			uses := 0
			path, _ := tr.LinearProjection()
			for _, m := range path {
				if c, ok := rawjson.Lookup(m, "content"); ok {
					uses += bytes.Count(c, []byte(`"type":"tool_use"`))
				}
			}
			if calls := bytes.Count(out, []byte(`"payload":{"type":"function_call",`)); calls != uses {
				t.Errorf("%s: %d function_call items for %d tool uses", filepath.Base(f), calls, uses)
			}
		}
		if format != "codex" {
			own, err := formats.Export(tr, format)
			if err == nil && float64(len(out)) > 1.3*float64(len(own)) {
				t.Errorf("%s: codex export %d bytes, %.2f times its own format's", filepath.Base(f), len(out), float64(len(out))/float64(len(own)))
			}
		}
	}
	t.Logf("codex exports Codex's rules read: %d / %d files", accepted, total)
}
