//go:build corpus

package chatgpt_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/sessiontree/sessiontree/core/formats"
	"github.com/sessiontree/sessiontree/core/formats/chatgpt"
	"github.com/sessiontree/sessiontree/core/formats/internal/formattest"
)

// Every conversations.json of both corpora imports with its own mapping (each
// entry with a message a node under its parent; an entry under the
// null-message root a root), main at the first conversation's current_node
// and every other conversation's current_node a branch leaf; ImportAll gives
// each conversation its own tree at its current_node; and exported to pi,
// Open WebUI or LibreChat the tree comes back whole.
func TestCorpusConversationsKeepTheirTreeAndCurrentNode(t *testing.T) {
	for _, f := range formattest.CorpusFiles(t, "chatgpt") {
		name := filepath.Base(f)
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var convs []conversation
		if err := json.Unmarshal(data, &convs); err != nil {
			t.Fatal(err)
		}
		tr, _, err := chatgpt.Import(data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		parents := map[string]string{}
		var leaves []string
		for _, c := range convs {
			for id, e := range c.Mapping {
				if e.Message == nil {
					continue
				}
				p := ""
				if e.Parent != nil {
					if pe, ok := c.Mapping[*e.Parent]; ok && pe.Message != nil {
						p = *e.Parent
					}
				}
				parents[id] = p
			}
			if _, ok := c.Mapping[c.CurrentNode]; !ok {
				c.CurrentNode = "" // a fragment (chatgpt-citations.json): main ends at its last leaf
			}
			leaves = append(leaves, c.CurrentNode)
		}
		formattest.Structure(t, name, tr, parents, leaves[0])
		for _, l := range leaves[1:] {
			found := l == ""
			for _, b := range tr.Branches() {
				found = found || b.Leaf == l
			}
			if !found {
				t.Errorf("%s: no branch ends at current_node %s", name, l)
			}
		}
		all, err := formats.ImportAll(data, formats.ChatGPT)
		if err != nil || len(all) != len(convs) {
			t.Fatalf("%s: ImportAll gave %d of %d conversations: %v", name, len(all), len(convs), err)
		}
		for i, c := range all {
			path, _ := c.Tree.ActivePath()
			if leaves[i] == "" && c.Tree.Len() > 0 {
				continue
			}
			if leaves[i] == "" {
				if len(c.Report.Problems) == 0 {
					t.Errorf("%s: conversation %d has no current_node but %d nodes and no problem", name, i, c.Tree.Len())
				}
				continue
			}
			if c.Title != convs[i].Title || len(path) == 0 || path[len(path)-1] != convs[i].CurrentNode {
				t.Errorf("%s: conversation %d: title %q, path ends %v, current_node %s", name, i, c.Title, path, convs[i].CurrentNode)
			}
		}
		formattest.CrossFormats(t, name, tr, formattest.Trees())
	}
}
