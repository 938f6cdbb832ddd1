//go:build corpus

package sillytavern_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessiontree/sessiontree/core/formats"
	"github.com/sessiontree/sessiontree/core/formats/internal/formattest"
	"github.com/sessiontree/sessiontree/core/formats/sillytavern"
	"github.com/sessiontree/sessiontree/core/internal/corpus"
)

// Every SillyTavern chat of the corpus (interop-new/sillytavern) is detected,
// imports as a chain of its messages (one node per swipe, main at the last
// line), keeps its header, writes its lines back with the same values, and
// exported to every tree format comes back whole.
func TestCorpusChatsKeepTheirLines(t *testing.T) {
	for _, f := range corpus.Files(t, "interop-new/sillytavern") {
		name := filepath.Base(f)
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if d := formats.Detect(data); d != formats.SillyTavern {
			t.Fatalf("%s: detected as %q", name, d)
		}
		tr, rep, err := sillytavern.Import(data)
		if err != nil || len(rep.Problems) > 0 {
			t.Fatalf("%s: %v %v", name, err, rep.Problems)
		}
		want := strings.Split(strings.TrimSpace(string(data)), "\n")
		path, _ := tr.ActivePath()
		if len(path) != len(want)-1 || tr.Len() != len(want)-1 {
			t.Fatalf("%s: %d nodes, a path of %d, for %d messages", name, tr.Len(), len(path), len(want)-1)
		}
		out, err := sillytavern.Export(tr)
		if err != nil {
			t.Fatal(err)
		}
		got := strings.Split(strings.TrimSpace(string(out)), "\n")
		for i := range want {
			var a, b map[string]any
			_ = json.Unmarshal([]byte(want[i]), &a)
			_ = json.Unmarshal([]byte(got[i]), &b)
			delete(b, "sessiontree")
			if md, ok := b["chat_metadata"].(map[string]any); ok {
				delete(md, "sessiontree") // where the export keeps its extension
				if _, had := a["chat_metadata"]; !had && len(md) == 0 {
					delete(b, "chat_metadata")
				}
			}
			if ja, _ := json.Marshal(a); string(ja) != string(mustJSON(b)) {
				t.Errorf("%s line %d:\n%s\n%s", name, i+1, want[i], got[i])
			}
		}
		formattest.CrossFormats(t, name, tr, formattest.Trees())
	}
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}
