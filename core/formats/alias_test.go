package formats_test

import (
	"testing"

	"github.com/sessiontree/sessiontree/core/formats"
)

// No import keeps its input: overwriting the bytes after an import leaves the
// tree as it was, for every shared file.
func TestImportsDoNotAliasTheirInput(t *testing.T) {
	for _, f := range []string{"chatgpt/chatgpt-tree.json", "chatgpt/chatgpt-citations.json", "openwebui/openwebui-export.json",
		"librechat/librechat-tree.json", "librechat/librechat-opts-nonr-branches.json", "claudecode/dag_compact_after_rewind.jsonl",
		"claudecode/sidechain_integrated.jsonl", "codex/rollout-2026-01-02T03-04-05-11111111-1111-4111-8111-111111111111.jsonl"} {
		data := shared(t, f)
		tr, _, err := formats.Import("auto", data)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		before := string(tr.Marshal())
		for i := range data {
			data[i] = ' '
		}
		if after := string(tr.Marshal()); after != before {
			t.Fatalf("%s: the tree changed with its input", f)
		}
	}
}
