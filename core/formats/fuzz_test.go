package formats_test

import (
	"errors"
	"testing"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/formats"
)

// fuzzImport: an import of any input fails with a *core.Error or gives a tree
// that validates, and that tree exports. Seeds: the named fixtures (corpus
// files are never seeds: the default run uses only files inside the repository).
func fuzzImport(f *testing.F, format string, seeds ...string) {
	for _, s := range seeds {
		f.Add(fixture(f, s))
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

func FuzzImportChatGPT(f *testing.F) {
	fuzzImport(f, "chatgpt", "chatgpt/forks.json", "chatgpt/fragment.json")
}

func FuzzImportOpenWebUI(f *testing.F) {
	fuzzImport(f, "openwebui", "openwebui/three-chats.json", "openwebui/regenerated.json")
}

func FuzzImportLibreChat(f *testing.F) {
	fuzzImport(f, "librechat", "librechat/nested-tree.json", "librechat/flat-branches.json")
}

func FuzzImportClaudeCode(f *testing.F) {
	fuzzImport(f, "claudecode", "claudecode/compact-after-rewind.jsonl", "claudecode/sidechain.jsonl", "claudecode/torn.jsonl")
}

func FuzzImportPi(f *testing.F) {
	fuzzImport(f, "pi", "pi/labels.jsonl", "pi/tools-compaction.jsonl")
}

func FuzzImportCodex(f *testing.F) {
	fuzzImport(f, "codex", "codex/rollout.jsonl", "codex/rollback.jsonl", "codex/malformed.jsonl")
}

func FuzzImportOpenAI(f *testing.F) {
	f.Add([]byte(`[{"role":"user","content":"hi"},{"role":"assistant","content":"yo"}]`))
	fuzzImport(f, "openai", "openai/tool-calls.json", "openai/messages-object.json")
}

func FuzzImportClaudeAI(f *testing.F) {
	fuzzImport(f, "claudeai", "claudeai/retries.json")
}

func FuzzImportSillyTavern(f *testing.F) {
	fuzzImport(f, "sillytavern", "sillytavern/swipes.jsonl")
}

func FuzzImportAuto(f *testing.F) {
	fuzzImport(f, "auto", "pi/labels.jsonl", "codex/subagent.jsonl", "claudecode/agent.jsonl", "librechat/linear.json", "claudeai/retries.json", "sillytavern/swipes.jsonl")
}
