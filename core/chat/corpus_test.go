//go:build corpus

package chat_test

import (
	"os"
	"testing"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/chat"
	"github.com/sessiontree/sessiontree/core/formats"
	"github.com/sessiontree/sessiontree/core/internal/corpus"
)

// corpusTrees imports every file of shared/interop and shared/testdata with
// the format its folder names ("auto" for foreign/), calling fn with each
// tree; a file no importer reads is logged and counted.
func corpusTrees(t *testing.T, fn func(path string, tr *core.Tree)) (files, unread int) {
	for _, p := range corpus.Files(t, "interop/*", "testdata/*") {
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
		fn(p, tr)
	}
	return files, unread
}

// Every node message of every corpus file reads into parts of known kinds:
// no part is left Other, every tool call has an id and JSON arguments, and
// every result names the call it answers.
func TestCorpusEveryMessageReads(t *testing.T) {
	nodes := 0
	kinds := map[chat.Kind]int{}
	files, unread := corpusTrees(t, func(path string, tr *core.Tree) {
		_, rows := tr.Rows()
		for _, r := range rows {
			n, _ := tr.Node(r.Key)
			nodes++
			tu := chat.Read(n.Message)
			for _, p := range tu.Parts {
				kinds[p.Kind]++
				switch {
				case p.Kind == chat.Other:
					t.Errorf("%s %s: part left Other: %.200s", path, n.ID, p.Raw)
				case p.Kind == chat.ToolCall && (p.CallID == "" || p.Name == ""):
					t.Errorf("%s %s: call without id or name", path, n.ID)
				case p.Kind == chat.ToolResult && p.CallID == "":
					t.Errorf("%s %s: result without a call id", path, n.ID)
				}
			}
		}
	})
	t.Logf("%d files (%d not imported), %d nodes; parts: text %d, thinking %d, calls %d, results %d, images %d, other %d",
		files, unread, nodes, kinds[chat.Text], kinds[chat.Thinking], kinds[chat.ToolCall], kinds[chat.ToolResult], kinds[chat.Image], kinds[chat.Other])
}
