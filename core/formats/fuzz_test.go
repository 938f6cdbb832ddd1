package formats_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/formats"
)

// fuzzImport: an import of any input fails with a *core.Error or gives a tree
// that validates, and that tree exports.
func fuzzImport(f *testing.F, format string, seeds ...string) {
	for _, s := range seeds {
		if data, err := os.ReadFile(s); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, _, err := formats.Import(format, data)
		if err != nil {
			var e *core.Error
			if !errors.As(err, &e) {
				t.Fatalf("error is not a *core.Error: %v", err)
			}
			return
		}
		if ps := tr.Validate(); len(ps) > 0 {
			t.Fatalf("imported tree has problems: %v", ps)
		}
		if format == "auto" {
			return
		}
		if _, err := formats.Export(tr, format); err != nil && format != "codex" && format != "openai" {
			t.Fatalf("export of an import failed: %v", err)
		}
	})
}

func sharedPath(rel string) string {
	return filepath.Join("..", "..", "..", "shared", "testdata", rel)
}

func FuzzImportChatGPT(f *testing.F) {
	fuzzImport(f, "chatgpt", sharedPath("chatgpt/chatgpt-tree.json"), sharedPath("chatgpt/chatgpt-citations.json"))
}

func FuzzImportOpenWebUI(f *testing.F) {
	fuzzImport(f, "openwebui", sharedPath("openwebui/openwebui-export.json"))
}

func FuzzImportLibreChat(f *testing.F) {
	fuzzImport(f, "librechat", sharedPath("librechat/librechat-tree.json"), sharedPath("librechat/librechat-opts-nonr-branches.json"))
}

func FuzzImportClaudeCode(f *testing.F) {
	fuzzImport(f, "claudecode", sharedPath("claudecode/dag_compact_after_rewind.jsonl"), sharedPath("claudecode/sidechain_integrated.jsonl"), "testdata/torn.claudecode.jsonl")
}

func FuzzImportPi(f *testing.F) {
	fuzzImport(f, "pi", "testdata/labels.pi.jsonl")
}

func FuzzImportCodex(f *testing.F) {
	fuzzImport(f, "codex", sharedPath("codex/rollout-2026-01-02T03-04-05-11111111-1111-4111-8111-111111111111.jsonl"), "testdata/rollback.codex.jsonl")
}

func FuzzImportOpenAI(f *testing.F) {
	f.Add([]byte(`[{"role":"user","content":"hi"},{"role":"assistant","content":"yo"}]`))
	fuzzImport(f, "openai")
}

func FuzzImportAuto(f *testing.F) {
	fuzzImport(f, "auto", "testdata/labels.pi.jsonl")
}
