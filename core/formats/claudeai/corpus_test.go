//go:build corpus

package claudeai_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/sessiontree/sessiontree/core/formats"
	"github.com/sessiontree/sessiontree/core/formats/claudeai"
	"github.com/sessiontree/sessiontree/core/formats/internal/formattest"
	"github.com/sessiontree/sessiontree/core/internal/corpus"
)

// Every claude.ai export of the corpora (interop-new/claudeai and the one
// interop/foreign held before this format) imports with its own tree: each
// message under its parent_message_uuid (the root parent, or none in an older
// export, as the file orders them), main at the first conversation's
// current_leaf_message_uuid or newest leaf; ImportAll gives one tree per
// conversation; and exported to every tree format it comes back whole.
func TestCorpusConversationsKeepTheirTree(t *testing.T) {
	files := corpus.Files(t, "interop-new/claudeai")
	files = append(files, filepath.Join(corpus.Dir(), "interop", "foreign", "owi-importer-claude_thinking_example.json"))
	for _, f := range files {
		name := filepath.Base(f)
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var convs []struct {
			Messages *[]struct {
				UUID    string           `json:"uuid"`
				Parent  *json.RawMessage `json:"parent_message_uuid"`
				Created string           `json:"created_at"`
			} `json:"chat_messages"`
		}
		if err := json.Unmarshal(data, &convs); err != nil {
			t.Fatal(err)
		}
		parents := map[string]string{}
		withMessages := 0
		for _, c := range convs {
			if c.Messages == nil || len(*c.Messages) == 0 {
				continue
			}
			withMessages++
			prev := ""
			for _, m := range *c.Messages {
				p := prev
				if m.Parent != nil {
					p = ""
					if s := string(*m.Parent); s != `"`+claudeai.RootParent+`"` && s != "null" {
						_ = json.Unmarshal(*m.Parent, &p)
					}
				}
				parents[m.UUID] = p
				prev = m.UUID
			}
		}
		if d := formats.Detect(data); d != formats.ClaudeAI {
			t.Fatalf("%s: detected as %q", name, d)
		}
		tr, _, err := claudeai.Import(data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		formattest.Structure(t, name, tr, parents, "")
		all, err := formats.ImportAll(data, formats.Auto)
		if err != nil || len(all) != len(convs) {
			t.Fatalf("%s: ImportAll gave %d of %d conversations: %v", name, len(all), len(convs), err)
		}
		nonEmpty := 0
		for _, c := range all {
			if c.Tree.Len() > 0 {
				nonEmpty++
			}
		}
		if nonEmpty != withMessages {
			t.Errorf("%s: %d conversations with messages, %d trees", name, withMessages, nonEmpty)
		}
		formattest.CrossFormats(t, name, tr, formattest.Trees())
	}
}
