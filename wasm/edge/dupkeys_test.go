//go:build !js || stock

package edge

import (
	"strings"
	"testing"

	"github.com/sessiontree/sessiontree/core"
)

// A message that names a key twice would mean one thing to the page that
// shows it (JSON.parse keeps the last) and another to the model (core reads
// the first): every route refuses it, 400 invalid_input naming the key and
// where it is, and stores nothing (issue 23 §1, issue 25 item 6).
func TestEveryRouteRefusesAMessageThatNamesAKeyTwice(t *testing.T) {
	s := NewMemStore()
	c := newClient(t, newTestHandler(s), "alice")
	id := c.create(`{"messages":[{"role":"user","content":"hi"}]}`)
	dup := `{"role":"user","role":"assistant","content":[{"type":"text","text":"a","text":"b"}]}`
	file := `{"format":"sessiontree","version":1,"root":"n1","active_branch":"main","branches":{"main":{"name":"main","leaf":"n1","created_at_ms":1}},"nodes":{"n1":{"id":"n1","children":[],"message":` + dup + `,"created_at_ms":1}}}`
	tr, _ := core.Unmarshal([]byte(c.do("GET", "/v1/trees/"+id, "").body))
	root := tr.Root()
	delta, etag := deltaOf(t, c, id, appendText("x"))
	delta = strings.Replace(delta, `"role":"user"`, `"role":"user","role":"assistant"`, 1)
	before := s.RowWrites
	for _, w := range []struct{ name, method, path, body, where string }{
		{"create", "POST", "/v1/trees", `{"messages":[` + dup + `]}`, "$.messages[0].role"},
		{"create from a file", "POST", "/v1/trees", file, "$.nodes.n1.message.role"},
		{"import of a file", "POST", "/v1/trees?format=sessiontree", file, "$.nodes.n1.message.role"},
		{"append", "POST", "/v1/trees/" + id + "/ops", `{"ops":[{"op":"append","message":` + dup + `}]}`, "$.ops[0].message.role"},
		{"edit", "POST", "/v1/trees/" + id + "/ops", `{"ops":[{"op":"edit","node":"` + root + `","message":{"role":"user","content":[{"type":"text","text":"a","text":"b"}]}}]}`, "$.ops[0].message.content[0].text"},
		{"merge", "POST", "/v1/trees/" + id + "/merge", file, "$.nodes.n1.message.role"},
		{"delta", "POST", "/v1/trees/" + id + "/delta", delta, ".role"},
	} {
		r := c.do(w.method, w.path, w.body, "If-Match", etag)
		if w.name != "delta" {
			r = c.do(w.method, w.path, w.body)
		}
		wantError(t, r, 400, "invalid_input")
		if !strings.Contains(string(r.body), `key \"role\"`) && !strings.Contains(string(r.body), `key \"text\"`) {
			t.Errorf("%s: the 400 does not name the key: %s", w.name, r.body)
		}
		if !strings.Contains(string(r.body), w.where) {
			t.Errorf("%s: the 400 does not say where (%s): %s", w.name, w.where, r.body)
		}
	}
	if s.RowWrites != before {
		t.Fatalf("refused writes stored %d rows", s.RowWrites-before)
	}
	// A live socket's write is read as its envelope, and its body served by
	// the route, whose 400 above is then acked under the write's id.
	w, ack := ReadSocketWrite([]byte(`{"type":"write","id":"w1","route":"ops","body":{"ops":[{"op":"append","message":`+dup+`}]}}`), socketTree, "alice", "")
	if ack != nil || w.ID != "w1" {
		t.Fatalf("the envelope of a socket write was refused for its body: %s", ack)
	}
}
