//go:build !js

package httpsuite

import (
	"fmt"
	"strings"
	"testing"
)

// A large tree's delete goes in pieces (its tree row in one transaction with
// the kept key, its rows 1,024 a statement after it) and is all done: the tree
// is gone, the delete's retry is answered from its key, the list no longer
// has it, and the tenant's other tree of as many rows still reads whole.
func TestALargeTreesDeleteInPiecesLeavesNothingAndItsRetryIsAnswered(t *testing.T) {
	c := &client{t: t, token: token(t, "bigdelete")}
	var b strings.Builder
	b.WriteString(`{"messages":[`)
	for i := 0; i < 3000; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"role":"user","content":"m%d %s"}`, i, strings.Repeat("d", 300))
	}
	b.WriteString(`]}`)
	id, etag := c.create(b.String())
	keep, _ := c.create(b.String())
	if r := c.do("DELETE", "/v1/trees/"+id, "", "If-Match", etag, "Idempotency-Key", "big-del"); r.status != 204 {
		t.Fatalf("delete of a 3,000-node tree: %d %.300s", r.status, r.body)
	}
	if r := c.do("DELETE", "/v1/trees/"+id, "", "If-Match", etag, "Idempotency-Key", "big-del"); r.status != 204 {
		t.Fatalf("its retry: %d %.300s", r.status, r.body)
	}
	wantError(t, c.do("GET", "/v1/trees/"+id, ""), 404, "not_found")
	wantError(t, c.do("GET", "/v1/trees/"+id+"/stats", ""), 404, "not_found")
	if r := c.do("GET", "/v1/trees", ""); strings.Contains(string(r.body), id) || !strings.Contains(string(r.body), keep) {
		t.Fatalf("the list after the delete: %.500s", r.body)
	}
	if msgs := c.projection(keep); len(msgs) != 3000 {
		t.Fatalf("the other tree reads %d messages, want 3,000", len(msgs))
	}
}
