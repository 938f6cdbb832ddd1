package fullcalls

import (
	"encoding/binary"
	"encoding/json"
	"testing"

	"github.com/sessiontree/sessiontree/core"
)

// fields splits importAll's result: a count, then per conversation three
// length-prefixed fields.
func fields(t *testing.T, res []byte) [][3][]byte {
	t.Helper()
	n := int(binary.LittleEndian.Uint32(res))
	res = res[4:]
	var out [][3][]byte
	for i := 0; i < n; i++ {
		var c [3][]byte
		for j := range c {
			l := int(binary.LittleEndian.Uint32(res))
			c[j], res = res[4:4+l], res[4+l:]
		}
		out = append(out, c)
	}
	if len(res) != 0 {
		t.Fatalf("%d bytes left over", len(res))
	}
	return out
}

// importAll gives each conversation of a conversations.json its title, its
// report and its tree; importAllTrees gives live trees' handles instead.
func TestImportAllFramesEachConversation(t *testing.T) {
	file := `[{"id":"a","title":"One","current_node":"a1","mapping":{"a1":{"id":"a1","message":{"id":"a1","author":{"role":"user"},"content":{"content_type":"text","parts":["hi"]}},"parent":null,"children":[]}}},` +
		`{"id":"b","title":"Two","current_node":"b1","mapping":{"b1":{"id":"b1","message":{"id":"b1","author":{"role":"user"},"content":{"content_type":"text","parts":["yo"]}},"parent":null,"children":[]}}}]`
	res, ok := do("importAll", []byte("auto"), []byte(file))
	if !ok {
		t.Fatalf("importAll failed: %s", res)
	}
	convs := fields(t, res)
	if len(convs) != 2 || string(convs[0][0]) != "One" || string(convs[1][0]) != "Two" {
		t.Fatalf("%q", convs)
	}
	var rep struct{ Format string }
	if err := json.Unmarshal(convs[1][1], &rep); err != nil || rep.Format != "chatgpt" {
		t.Fatalf("report %s: %v", convs[1][1], err)
	}
	tr, err := core.Unmarshal(convs[1][2])
	if err != nil || tr.Root() != "b1" {
		t.Fatalf("tree %s: %v", convs[1][2], err)
	}
	res, ok = do("importAllTrees", []byte("chatgpt"), []byte(file))
	if !ok || len(fields(t, res)) != 2 {
		t.Fatalf("importAllTrees: %s", res)
	}
	if res, ok := do("importAll", []byte("auto"), []byte(`{"version":4,"history":[]}`)); ok {
		t.Fatalf("a Chatbot UI export imported: %s", res)
	}
}
