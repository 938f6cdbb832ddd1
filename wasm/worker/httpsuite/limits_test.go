//go:build !js

package httpsuite

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/sessiontree/sessiontree/wasm/worker/devserver"
)

// limited is a second worker, with small limits (SESSIONTREE_EGRESS_RATE
// 1 MiB/s, SESSIONTREE_MAX_TREES 3, SESSIONTREE_MAX_TREE_BYTES 3 MiB).
var limited = &extraServer{name: "limited", vars: map[string]string{"SESSIONTREE_EGRESS_RATE": fmt.Sprint(1 << 20), "SESSIONTREE_MAX_TREES": "3",
	"SESSIONTREE_FANOUT_RATE": "4", "SESSIONTREE_MAX_TREE_BYTES": fmt.Sprint(limitedTreeBytes)}}

const limitedTreeBytes = 3 << 20

// A tree takes writes until its stored rows would pass
// SESSIONTREE_MAX_TREE_BYTES: then 413 too_large naming the limit, and
// nothing stored (the ETag and the tree as read stay); reads and writes that
// do not grow it go on. Batches of 1.2 MB, so each is stored in slices ahead
// of its transaction (the staged rows), and the last one is weighed exactly.
func TestATreeTakesNoWriteThatPassesItsLimit(t *testing.T) {
	s := limitedServer(t)
	c := &client{t: t, token: token(t, "size-fay"), base: s.URL}
	id, _ := c.create(`{"messages":[{"role":"user","content":"hi"}]}`)
	var ops strings.Builder
	batch := func(i int) string {
		ops.Reset()
		ops.WriteString(`{"ops":[`)
		for j := 0; j < 300; j++ {
			if j > 0 {
				ops.WriteString(",")
			}
			fmt.Fprintf(&ops, `{"op":"append","message":{"role":"user","content":"%d.%d %s"}}`, i, j, strings.Repeat("w", 4000))
		}
		ops.WriteString(`]}`)
		return ops.String()
	}
	refused := false
	for i := 0; i < 6 && !refused; i++ {
		before := c.do("GET", "/v1/trees/"+id, "")
		r := c.do("POST", "/v1/trees/"+id+"/ops", batch(i))
		switch r.status {
		case 200:
			if i >= 3 {
				t.Fatalf("batch %d of 1.2 MB went into a tree of at most %d bytes", i, limitedTreeBytes)
			}
		case 413:
			wantError(t, r, 413, "too_large")
			if !strings.Contains(string(r.body), fmt.Sprintf("at most %d", limitedTreeBytes)) || !strings.Contains(string(r.body), "nothing was stored") {
				t.Fatalf("the refusal should name the limit: %.300s", r.body)
			}
			if i < 2 {
				t.Fatalf("batch %d refused, with room for it: %.300s", i, r.body)
			}
			after := c.do("GET", "/v1/trees/"+id, "")
			if after.header.Get("ETag") != before.header.Get("ETag") || len(after.body) != len(before.body) {
				t.Fatalf("a refused batch changed the tree: ETag %s → %s, %d → %d bytes",
					before.header.Get("ETag"), after.header.Get("ETag"), len(before.body), len(after.body))
			}
			refused = true
		default:
			t.Fatalf("batch %d: %d %.300s", i, r.status, r.body)
		}
	}
	if !refused {
		t.Fatal("six batches of 1.2 MB went into a tree of at most 3 MiB")
	}
	if r := c.do("GET", "/v1/trees/"+id+"/projection", ""); r.status != 200 {
		t.Fatalf("a read of a tree at its limit: %d %.200s", r.status, r.body)
	}
}

func limitedServer(t *testing.T) *devserver.Server { return limited.get(t) }

// A tenant at its quota of trees (SESSIONTREE_MAX_TREES) gets 429
// quota_exceeded for a create or an import, and nothing is made; a retried
// create that went in is still answered; after a delete it creates again;
// another tenant is not held by it.
func TestATenantAtItsQuotaOfTreesCannotCreateMore(t *testing.T) {
	s := limitedServer(t)
	do := func(tok, method, path, body string, hdr ...string) (int, string) {
		req, _ := http.NewRequest(method, s.URL+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+tok)
		for i := 0; i+1 < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		resp, err := httpClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	dora := token(t, "quota-dora")
	var first string
	for i := 0; i < 3; i++ {
		code, body := do(dora, "POST", "/v1/trees", "", "Idempotency-Key", fmt.Sprint("create-", i))
		if code != 201 {
			t.Fatalf("create %d under the quota: %d %s", i, code, body)
		}
		if i == 0 {
			first = body[strings.Index(body, `"id":"`)+6:][:32]
		}
	}
	for _, c := range []struct{ path, body string }{{"/v1/trees", ""}, {"/v1/trees?format=openai", `[{"role":"user","content":"hi"}]`}} {
		code, body := do(dora, "POST", c.path, c.body)
		if code != 429 || !strings.Contains(body, `"quota_exceeded"`) || !strings.Contains(body, "3 trees") {
			t.Fatalf("POST %s at the quota: %d %s", c.path, code, body)
		}
	}
	if code, body := do(dora, "POST", "/v1/trees", "", "Idempotency-Key", "create-1"); code != 201 || !strings.Contains(body, `"id"`) {
		t.Fatalf("the retry of a create that went in, at the quota: %d %s", code, body)
	}
	if code, body := do(dora, "GET", "/v1/trees", ""); code != 200 || strings.Count(body, `"id"`) != 3 {
		t.Fatalf("the list at the quota: %d %s", code, body)
	}
	if code, body := do(dora, "POST", "/v1/trees", "", "X-Sessiontree-Usage", "0 0", "X-Sessiontree-Quota", "9 0"); code != 429 {
		t.Fatalf("a client's own quota headers were believed: %d %s", code, body)
	}
	if code, body := do(token(t, "quota-eve"), "POST", "/v1/trees", ""); code != 201 {
		t.Fatalf("another tenant: %d %s", code, body)
	}
	if code, body := do(dora, "DELETE", "/v1/trees/"+first, ""); code != 204 {
		t.Fatalf("delete: %d %s", code, body)
	}
	if code, body := do(dora, "POST", "/v1/trees", ""); code != 201 {
		t.Fatalf("a create after a delete: %d %s", code, body)
	}
}
