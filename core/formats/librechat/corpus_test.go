//go:build corpus

package librechat_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/sessiontree/sessiontree/core/formats/internal/formattest"
	"github.com/sessiontree/sessiontree/core/formats/librechat"
)

type message struct {
	MessageID       string    `json:"messageId"`
	ParentMessageID *string   `json:"parentMessageId"`
	Children        []message `json:"children"`
}

// Every LibreChat export of both corpora, flat or nested, imports with its
// own tree (each message under its parentMessageId or the message it is
// nested in, several roots kept); main ends at a leaf, the last message of
// the file followed down (LibreChat keeps no current message); and exported
// to pi, Open WebUI or ChatGPT the tree comes back whole.
func TestCorpusExportsKeepTheirTree(t *testing.T) {
	for _, f := range formattest.CorpusFiles(t, "librechat") {
		name := filepath.Base(f)
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var file struct{ Messages []message }
		if err := json.Unmarshal(data, &file); err != nil {
			t.Fatal(err)
		}
		parents := map[string]string{}
		var walk func(ms []message, parent string)
		walk = func(ms []message, parent string) {
			for _, m := range ms {
				p := parent
				if p == "" && m.ParentMessageID != nil && *m.ParentMessageID != librechat.NoParent {
					p = *m.ParentMessageID
				}
				parents[m.MessageID] = p
				walk(m.Children, m.MessageID)
			}
		}
		walk(file.Messages, "")
		tr, _, err := librechat.Import(data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		formattest.Structure(t, name, tr, parents, "")
		path, _ := tr.ActivePath()
		if n, _ := tr.Node(path[len(path)-1]); len(n.Children) != 0 {
			t.Errorf("%s: main ends at %s, which is no leaf", name, n.ID)
		}
		formattest.CrossFormats(t, name, tr, formattest.Trees())
	}
}
