//go:build corpus

package openwebui_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/sessiontree/sessiontree/core/formats"
	"github.com/sessiontree/sessiontree/core/formats/internal/formattest"
	"github.com/sessiontree/sessiontree/core/formats/openwebui"
)

type owMessage struct {
	ParentID *string `json:"parentId"`
}

type owChat struct {
	History struct {
		CurrentID *string              `json:"currentId"`
		Messages  map[string]owMessage `json:"messages"`
	} `json:"history"`
}

// chats reads an Open WebUI export: an array of {chat} or bare chats, or one.
func chats(t *testing.T, data []byte) []owChat {
	var raw []json.RawMessage
	if json.Unmarshal(data, &raw) != nil {
		raw = []json.RawMessage{data}
	}
	var out []owChat
	for _, r := range raw {
		var wrapped struct{ Chat *owChat }
		var c owChat
		if json.Unmarshal(r, &wrapped) == nil && wrapped.Chat != nil {
			c = *wrapped.Chat
		} else if err := json.Unmarshal(r, &c); err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
	return out
}

// Every Open WebUI export of both corpora imports with its own tree (each
// message under its parentId; one whose parent is missing a root) and main at
// currentId — or, when currentId names no message (owcr-bad-test-1), at the
// latest leaf under a real root rather than an orphan; ImportAll gives each
// chat its own tree; and exported to pi, LibreChat or ChatGPT the tree comes
// back whole.
func TestCorpusChatsKeepTheirTreeAndCurrentMessage(t *testing.T) {
	for _, f := range formattest.CorpusFiles(t, "openwebui") {
		name := filepath.Base(f)
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		cs := chats(t, data)
		parents := map[string]string{}
		orphan := map[string]bool{}
		for _, c := range cs {
			for id, m := range c.History.Messages {
				p := ""
				if m.ParentID != nil {
					if _, ok := c.History.Messages[*m.ParentID]; ok {
						p = *m.ParentID
					} else {
						orphan[id] = true
					}
				}
				parents[id] = p
			}
		}
		tr, _, err := openwebui.Import(data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		leaf := ""
		if cur := cs[0].History.CurrentID; cur != nil {
			if _, ok := cs[0].History.Messages[*cur]; ok {
				leaf = *cur
			}
		}
		formattest.Structure(t, name, tr, parents, leaf)
		path, _ := tr.ActivePath()
		if orphan[path[0]] || (leaf == "" && len(path) < 2) {
			t.Errorf("%s: main is %v, under an orphan or one message long", name, path)
		}
		all, err := formats.ImportAll(data, formats.OpenWebUI)
		if err != nil || len(all) != len(cs) {
			t.Fatalf("%s: ImportAll gave %d of %d chats: %v", name, len(all), len(cs), err)
		}
		formattest.CrossFormats(t, name, tr, formattest.Trees())
	}
}
