//go:build corpus

package pi_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessiontree/sessiontree/core/formats/internal/formattest"
	"github.com/sessiontree/sessiontree/core/formats/pi"
)

type entry struct {
	Type     string          `json:"type"`
	ID       *string         `json:"id"`
	ParentID *string         `json:"parentId"`
	Version  *int            `json:"version"`
	Message  json.RawMessage `json:"message"`
}

// expected reads a pi session as pi's SessionManager does (pi-mono 83378aa,
// session-manager.ts): entries in order, a version 1 file migrated (each
// entry under the one before it), the leaf the last entry. It returns each
// node's parent (message, branch_summary and compaction entries are nodes;
// the children of other entries hang on their parent) and the active leaf.
func expected(t *testing.T, data []byte) (map[string]string, string) {
	var es []entry
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var e entry
		if json.Unmarshal(sc.Bytes(), &e) == nil {
			es = append(es, e)
		}
	}
	v := 3
	if len(es) > 0 && es[0].Type == "session" {
		v = 1
		if es[0].Version != nil {
			v = *es[0].Version
		}
	}
	const hex = "0123456789abcdef"
	parentOf := map[string]string{}
	isNode := map[string]bool{}
	var order []string
	prev := ""
	for i, e := range es {
		if e.Type == "session" {
			continue
		}
		id, parent := "", ""
		if v < 2 {
			b := []byte("00000000")
			for j, n := 7, i; j >= 0 && n > 0; j, n = j-1, n>>4 {
				b[j] = hex[n&15]
			}
			id, parent, prev = string(b), prev, string(b)
		} else if e.ID != nil {
			id = *e.ID
			if e.ParentID != nil {
				parent = *e.ParentID
			}
		}
		if id == "" {
			continue
		}
		parentOf[id] = parent
		order = append(order, id)
		isNode[id] = e.Type == "branch_summary" || e.Type == "compaction" || (e.Type == "message" && len(e.Message) > 0 && e.Message[0] == '{')
	}
	resolve := func(id string) string {
		for i := 0; i < len(order) && id != "" && !isNode[id]; i++ {
			p, ok := parentOf[id]
			if !ok {
				return ""
			}
			id = p
		}
		if !isNode[id] {
			return ""
		}
		return id
	}
	parents := map[string]string{}
	for _, id := range order {
		if isNode[id] {
			parents[id] = resolve(parentOf[id])
		}
	}
	leaf := ""
	if len(order) > 0 {
		leaf = resolve(order[len(order)-1])
	}
	return parents, leaf
}

// Every pi session of both corpora imports with pi's own tree (a version 1
// file migrated as pi migrates it: one chain, not one root per message) and
// opens at pi's leaf; its pi export ends at that leaf; and exported to Open
// WebUI, LibreChat or ChatGPT it comes back whole.
func TestCorpusSessionsKeepTheirTreeAndLeaf(t *testing.T) {
	for _, f := range formattest.CorpusFiles(t, "pi") {
		name := filepath.Base(f)
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		tr, rep, err := pi.Import(data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		parents, leaf := expected(t, data)
		formattest.Structure(t, name, tr, parents, leaf)
		out, _ := pi.Export(tr)
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		var last entry
		_ = json.Unmarshal([]byte(lines[len(lines)-1]), &last)
		if last.ID == nil || !strings.HasPrefix(lines[0], `{"type":"session"`) {
			t.Errorf("%s: the export's last line has no id or its first is no header", name)
		}
		formattest.CrossFormats(t, name, tr, formattest.Trees())
		t.Logf("%s: %d nodes, %d roots, %d branches", name, rep.Nodes, rep.Roots, rep.Branches)
	}
}
