//go:build corpus

package provider_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sessiontree/sessiontree/core/formats"
	"github.com/sessiontree/sessiontree/core/formats/openai"
	"github.com/sessiontree/sessiontree/core/internal/corpus"
	. "github.com/sessiontree/sessiontree/core/provider"
)

// Every branch of every corpus file (shared/interop, shared/interop-new and
// shared/testdata, imported with the format its folder names) projects, for every API, with
// and without a budget, into a body that keeps every rule of schema_test.go.
// With PROVIDER_DUMP set to a folder, each body is written there too, and
// each file's openai export as <file>.openai-export.json (for a JSON-schema
// validator run outside the repository).
func TestCorpusProjectionsKeepTheAPIRules(t *testing.T) {
	dump := os.Getenv("PROVIDER_DUMP")
	files, unread, projections, empty, exports := 0, 0, 0, 0, 0
	var sum Report
	for _, p := range corpus.Files(t, "interop/*", "interop-new/*", "testdata/*") {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		tr, _, err := formats.Import(corpus.Format(p), data)
		if err != nil {
			t.Logf("%s: not imported: %v", p, err)
			unread++
			continue
		}
		files++
		// export("openai") is Chat Completions messages the API accepts.
		if out, _, err := openai.ExportReport(tr); err != nil {
			t.Errorf("%s: openai export: %v", p, err)
		} else if len(out) <= 2 {
			t.Errorf("%s: the openai export has no message (the API wants at least one)", p)
		} else {
			exports++
			if dump != "" {
				if err := os.WriteFile(filepath.Join(dump, filepath.Base(p)+".openai-export.json"), out, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if ps := CheckBody(OpenAIChat, []byte(`{"messages":`+string(out)+`}`)); len(ps) > 0 {
				t.Errorf("%s: the openai export breaks the API's rules:\n%s", p, strings.Join(first(ps, 5), "\n"))
			}
		}
		for _, br := range tr.Branches() {
			if br.Leaf == "" {
				continue
			}
			for _, api := range APIs {
				for _, budget := range []int{0, 2000} {
					req, err := ProjectTree(tr, br.Name, api, Options{Budget: budget})
					if err != nil {
						t.Errorf("%s %s %s: %v", p, br.Name, api, err)
						continue
					}
					projections++
					if req.Report.Sent == 0 {
						// A branch with nothing a model sees (a lone hidden
						// node): every message must have been dropped.
						empty++
						if req.Report.Dropped != req.Report.Messages {
							t.Errorf("%s %s %s: nothing written, yet not every message was dropped: %+v", p, br.Name, api, req.Report)
						}
						continue
					}
					if ps := CheckBody(api, req.Body()); len(ps) > 0 {
						t.Errorf("%s branch %s, %s budget %d:\n%s", p, br.Name, api, budget, strings.Join(first(ps, 5), "\n"))
					}
					if budget > 0 && !req.Report.OverBudget && req.Report.Tokens > budget {
						t.Errorf("%s %s %s: %d tokens over the budget %d", p, br.Name, api, req.Report.Tokens, budget)
					}
					if budget == 0 {
						add(&sum, req.Report)
					}
					if dump != "" {
						name := strings.NewReplacer("/", "_", " ", "_").Replace(filepath.Base(p) + "." + br.Name + "." + string(api) + "." + strconv.Itoa(budget) + ".json")
						if err := os.WriteFile(filepath.Join(dump, name), req.Body(), 0o644); err != nil {
							t.Fatal(err)
						}
					}
				}
			}
		}
	}
	t.Logf("%d openai exports keep the Chat Completions rules", exports)
	if exports < 54 {
		t.Errorf("%d openai exports checked, want every importable file of interop, interop-new and testdata (54)", exports)
	}
	t.Logf("%d files (%d not imported), %d projections (%d with nothing a model sees); without a budget: %d messages read, %d written, %d dropped, %d thinking left out, %d parts left out, %d orphan calls, %d orphan results, %d ids and %d names made legal",
		files, unread, projections, empty, sum.Messages, sum.Sent, sum.Dropped, sum.Thinking, sum.Parts, len(sum.OrphanCalls), len(sum.OrphanResults), sum.RenamedIDs, sum.RenamedTools)
}

func first(ps []string, n int) []string {
	if len(ps) > n {
		return append(ps[:n:n], "…")
	}
	return ps
}

func add(sum *Report, r Report) {
	sum.Messages += r.Messages
	sum.Sent += r.Sent
	sum.Dropped += r.Dropped
	sum.Thinking += r.Thinking
	sum.Parts += r.Parts
	sum.OrphanCalls = append(sum.OrphanCalls, r.OrphanCalls...)
	sum.OrphanResults = append(sum.OrphanResults, r.OrphanResults...)
	sum.RenamedIDs += r.RenamedIDs
	sum.RenamedTools += r.RenamedTools
}
