//go:build !js

package httpsuite

import (
	"strings"
	"testing"
)

// Over wrangler dev: a message that names a key twice, at any depth, is
// refused by every write route with 400 invalid_input naming the key and
// where it is, and changes nothing (issue 23 §1, issue 25 item 6).
func TestAMessageNamingAKeyTwiceIsRefusedByEveryRoute(t *testing.T) {
	c := &client{t: t, token: token(t, "dupkeys")}
	id, etag := c.create(`{"messages":[{"role":"user","content":"a"}]}`)
	root := rootOf(t, c, id)
	dup := `{"role":"user","role":"assistant","content":"hi"}`
	file := `{"format":"sessiontree","version":1,"root":"n1","active_branch":"main","branches":{"main":{"name":"main","leaf":"n1","created_at_ms":1}},"nodes":{"n1":{"id":"n1","children":[],"message":` + dup + `,"created_at_ms":1}}}`
	for _, w := range []struct{ name, path, body, where string }{
		{"create", "/v1/trees", `{"messages":[` + dup + `]}`, `$.messages[0].role`},
		{"create from a file", "/v1/trees", file, `$.nodes.n1.message.role`},
		{"import", "/v1/trees?format=sessiontree", file, `$.nodes.n1.message.role`},
		{"append", "/v1/trees/" + id + "/ops", `{"ops":[{"op":"append","message":` + dup + `}]}`, `$.ops[0].message.role`},
		{"edit, in a part", "/v1/trees/" + id + "/ops", `{"ops":[{"op":"edit","node":"` + root + `","message":{"role":"user","content":[{"type":"text","text":"a","text":"b"}]}}]}`, `$.ops[0].message.content[0].text`},
		{"merge", "/v1/trees/" + id + "/merge", file, `$.nodes.n1.message.role`},
	} {
		r := c.do("POST", w.path, w.body)
		wantError(t, r, 400, "invalid_input")
		if !strings.Contains(string(r.body), "twice") || !strings.Contains(string(r.body), w.where) {
			t.Errorf("%s: the 400 does not name the key and %s: %s", w.name, w.where, r.body)
		}
	}
	if r := c.do("GET", "/v1/trees/"+id, ""); r.header.Get("ETag") != etag {
		t.Fatalf("a refused write changed the tree: %s", r.body)
	}
	if list := c.do("GET", "/v1/trees", "").object(t)["trees"].([]any); len(list) != 1 {
		t.Fatalf("a refused create left a tree behind: %v", list)
	}
}
