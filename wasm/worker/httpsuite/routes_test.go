//go:build !js

package httpsuite

import (
	"strings"
	"testing"
)

func TestEveryRouteServesItsTenant(t *testing.T) {
	c := &client{t: t, token: token(t, "routes")}
	id, etag := c.create(`{"messages":[{"role":"system","content":"be brief"},{"role":"user","content":"hi 👋 \u2028","n":1.50e+3}]}`)
	if etag == "" {
		t.Fatal("create sends no ETag")
	}
	r := c.do("GET", "/v1/trees/"+id, "")
	if r.status != 200 || r.header.Get("ETag") != etag || !strings.HasPrefix(string(r.body), `{"format":"sessiontree","version":1,`) {
		t.Fatalf("GET tree: %d %s %.300s", r.status, r.header.Get("ETag"), r.body)
	}
	if !strings.Contains(string(r.body), `"content":"hi 👋 \u2028","n":1.50e+3}`) {
		t.Fatalf("a message does not come back exactly as it went in: %s", r.body)
	}
	if r := c.do("GET", "/v1/trees/"+id, "", "If-None-Match", etag); r.status != 304 {
		t.Fatalf("If-None-Match with the current ETag: %d", r.status)
	}
	// The stored file comes back byte for byte when uploaded as a new tree.
	copyID, _ := c.create(string(r.body))
	if got := c.do("GET", "/v1/trees/"+copyID, "").body; string(got) != string(r.body) {
		t.Fatalf("an uploaded .tree.json changed:\n%s\n%s", r.body, got)
	}
	r = c.do("POST", "/v1/trees/"+id+"/ops", `{"ops":[
		{"op":"append","message":{"role":"assistant","content":"hello"}},
		{"op":"branch","from":"`+rootOf(t, c, id)+`","name":"__proto__"},
		{"op":"append","message":{"role":"user","content":"on a branch"}},
		{"op":"switch","branch":"main"}]}`)
	if r.status != 200 {
		t.Fatalf("ops: %d %s", r.status, r.body)
	}
	res := r.object(t)["results"].([]any)
	if len(res) != 4 || res[0] == nil || res[1] != "__proto__" || res[3] != nil {
		t.Fatalf("ops results: %s", r.body)
	}
	if r.header.Get("ETag") == etag || r.header.Get("ETag") == "" {
		t.Fatalf("the ETag did not change with a write: %q", r.header.Get("ETag"))
	}
	if msgs := c.projection(id); len(msgs) != 3 || msgs[2]["content"] != "hello" {
		t.Fatalf("projection of main: %v", msgs)
	}
	r = c.do("GET", "/v1/trees/"+id+"/projection?branch=__proto__", "")
	if r.status != 200 || !strings.Contains(string(r.body), "on a branch") {
		t.Fatalf("projection of a branch: %d %s", r.status, r.body)
	}
	wantError(t, c.do("GET", "/v1/trees/"+id+"/projection?branch=nope", ""), 404, "branch_not_found")
	r = c.do("GET", "/v1/trees/"+id+"/export?format=sessiontree", "")
	if r.status != 200 || !strings.Contains(string(r.body), `"__proto__":{"name":"__proto__"`) {
		t.Fatalf("export: %d %.300s", r.status, r.body)
	}
	wantError(t, c.do("GET", "/v1/trees/"+id+"/export?format=nope", ""), 400, "invalid_input")
	for _, f := range []string{"openai", "markdown"} {
		if r := c.do("GET", "/v1/trees/"+id+"/export?format="+f, ""); r.status != 200 || !strings.Contains(string(r.body), "hello") {
			t.Fatalf("export to %s: %d %.300s", f, r.status, r.body)
		}
	}
	r = c.do("POST", "/v1/trees/"+id+"/merge", string(r.body))
	if r.status != 200 {
		wantError(t, r, 501, "not_implemented")
	}
	r = c.do("GET", "/v1/trees", "")
	list := r.object(t)["trees"].([]any)
	if r.status != 200 || len(list) != 2 {
		t.Fatalf("list: %s", r.body)
	}
	if r := c.do("DELETE", "/v1/trees/"+copyID, ""); r.status != 204 {
		t.Fatalf("delete: %d %s", r.status, r.body)
	}
	wantError(t, c.do("GET", "/v1/trees/"+copyID, ""), 404, "not_found")
	wantError(t, c.do("DELETE", "/v1/trees/"+copyID, ""), 404, "not_found")
	if list := c.do("GET", "/v1/trees", "").object(t)["trees"].([]any); len(list) != 1 {
		t.Fatalf("a deleted tree is still listed: %v", list)
	}
	for _, body := range []string{"", "{}"} {
		id, _ := c.create(body)
		if msgs := c.projection(id); len(msgs) != 0 {
			t.Fatalf("an empty tree projects to %v", msgs)
		}
	}
}

func rootOf(t *testing.T, c *client, id string) string {
	return c.do("GET", "/v1/trees/"+id, "").object(t)["root"].(string)
}

func TestTokensAreRequiredAndTenantsIsolated(t *testing.T) {
	alice := &client{t: t, token: token(t, "alice")}
	bob := &client{t: t, token: token(t, "bob")}
	id, _ := alice.create(`{"messages":[{"role":"user","content":"secret"}]}`)
	for _, c := range []*client{{t: t}, {t: t, token: alice.token + "x"}, {t: t, token: "st1.YWxpY2U.9999999999.AAAA"}, {t: t, token: "garbage"}} {
		wantError(t, c.do("GET", "/v1/trees", ""), 401, "unauthorized")
		wantError(t, c.do("GET", "/v1/trees/"+id, ""), 401, "unauthorized")
		wantError(t, c.do("POST", "/v1/trees/"+id+"/ops", appendBody("x")), 401, "unauthorized")
	}
	for _, r := range []reply{
		bob.do("GET", "/v1/trees/"+id, ""),
		bob.do("POST", "/v1/trees/"+id+"/ops", appendBody("intrusion")),
		bob.do("GET", "/v1/trees/"+id+"/projection", ""),
		bob.do("GET", "/v1/trees/"+id+"/export", ""),
		bob.do("POST", "/v1/trees/"+id+"/merge", "{}"),
		bob.do("DELETE", "/v1/trees/"+id, ""),
	} {
		wantError(t, r, 404, "not_found")
	}
	if r := bob.do("GET", "/v1/trees", ""); strings.Contains(string(r.body), id) || r.status != 200 {
		t.Fatalf("bob's list shows alice's tree: %s", r.body)
	}
	if msgs := alice.projection(id); len(msgs) != 1 || msgs[0]["content"] != "secret" {
		t.Fatalf("alice's tree after bob's attempts: %v", msgs)
	}
}

func TestErrorsAreJSONWithStatusAndCode(t *testing.T) {
	c := &client{t: t, token: token(t, "errors")}
	id, _ := c.create("")
	wantError(t, c.do("GET", "/nope", ""), 404, "not_found")
	wantError(t, c.do("GET", "/v1/treesx", ""), 404, "not_found")
	wantError(t, c.do("GET", "/v1/trees/"+id+"/nope", ""), 404, "not_found")
	wantError(t, c.do("GET", "/v1/trees/"+id+"/ops/x", ""), 404, "not_found")
	wantError(t, c.do("GET", "/v1/trees/0123456789abcdef0123456789abcdef", ""), 404, "not_found")
	for _, tc := range []struct{ method, path, allow string }{
		{"PUT", "/v1/trees", "GET, POST"},
		{"POST", "/v1/trees/" + id, "GET, DELETE"},
		{"GET", "/v1/trees/" + id + "/ops", "POST"},
		{"GET", "/v1/trees/" + id + "/merge", "POST"},
		{"DELETE", "/v1/trees/" + id + "/projection", "GET"},
		{"PATCH", "/v1/trees/" + id + "/export", "GET"},
	} {
		r := c.do(tc.method, tc.path, "")
		wantError(t, r, 405, "method_not_allowed")
		if r.header.Get("Allow") != tc.allow {
			t.Fatalf("%s %s: Allow %q, want %q", tc.method, tc.path, r.header.Get("Allow"), tc.allow)
		}
	}
	wantError(t, c.do("POST", "/v1/trees", `{"messages":[{"role":"user"`), 400, "invalid_input")
	wantError(t, c.do("POST", "/v1/trees/"+id+"/ops", `{"ops":[`), 400, "invalid_input")
	wantError(t, c.do("POST", "/v1/trees/"+id+"/ops", `{"ops":[{"op":"rewind","node":"missing"}]}`), 404, "not_found")
}

func TestLimitsAnswer413AndLeaveNothingBehind(t *testing.T) {
	c := &client{t: t, token: token(t, "limits")}
	id, etag := c.create("")
	big := strings.Repeat("x", 1<<20)
	wantError(t, c.do("POST", "/v1/trees/"+id+"/ops", appendBody(big)), 413, "too_large")
	wantError(t, c.do("POST", "/v1/trees", `{"messages":[{"role":"user","content":"`+big+`"}]}`), 413, "too_large")
	body := `{"messages":[` + strings.Repeat(`{"role":"user","content":"`+strings.Repeat("y", 1<<19)+`"},`, 17) + `{"role":"user"}]}`
	wantError(t, c.do("POST", "/v1/trees", body), 413, "too_large")
	ops := `{"ops":[` + strings.Repeat(`{"op":"append","message":{"role":"user"}},`, 1000) + `{"op":"append","message":{"role":"user"}}]}`
	wantError(t, c.do("POST", "/v1/trees/"+id+"/ops", ops), 413, "too_large")
	if r := c.do("GET", "/v1/trees/"+id, ""); r.header.Get("ETag") != etag {
		t.Fatalf("a refused request changed the tree: %s", r.body)
	}
	ok := `{"ops":[` + strings.Repeat(`{"op":"append","message":{"role":"user"}},`, 999) + `{"op":"append","message":{"role":"user"}}]}`
	if r := c.do("POST", "/v1/trees/"+id+"/ops", ok); r.status != 200 {
		t.Fatalf("1,000 ops: %d %.300s", r.status, r.body)
	}
	if msgs := c.projection(id); len(msgs) != 1000 {
		t.Fatalf("1,000 appends stored %d messages", len(msgs))
	}
	if list := c.do("GET", "/v1/trees", "").object(t)["trees"].([]any); len(list) != 1 {
		t.Fatalf("a refused create left a tree behind: %v", list)
	}
}

func TestABatchIsAllOrNothing(t *testing.T) {
	c := &client{t: t, token: token(t, "atomic")}
	id, etag := c.create(`{"messages":[{"role":"user","content":"a"}]}`)
	before := c.do("GET", "/v1/trees/"+id, "").body
	r := c.do("POST", "/v1/trees/"+id+"/ops", `{"ops":[
		{"op":"append","message":{"role":"user","content":"b"}},
		{"op":"branch","from":"`+rootOf(t, c, id)+`","name":"x"},
		{"op":"label","node":"nope","label":"l"}]}`)
	wantError(t, r, 404, "not_found")
	after := c.do("GET", "/v1/trees/"+id, "")
	if string(after.body) != string(before) || after.header.Get("ETag") != etag {
		t.Fatalf("a failed batch left something behind:\n%s\n%s", before, after.body)
	}
}

func TestIfMatchWithAStaleETagIs412(t *testing.T) {
	c := &client{t: t, token: token(t, "ifmatch")}
	id, etag := c.create("")
	r := c.do("POST", "/v1/trees/"+id+"/ops", appendBody("first"), "If-Match", etag)
	if r.status != 200 {
		t.Fatalf("If-Match with the current ETag: %d %s", r.status, r.body)
	}
	wantError(t, c.do("POST", "/v1/trees/"+id+"/ops", appendBody("stale"), "If-Match", etag), 412, "precondition_failed")
	if msgs := c.projection(id); len(msgs) != 1 {
		t.Fatalf("a 412 write was applied: %v", msgs)
	}
	if r := c.do("POST", "/v1/trees/"+id+"/ops", appendBody("second"), "If-Match", r.header.Get("ETag")); r.status != 200 {
		t.Fatalf("If-Match with the new ETag: %d %s", r.status, r.body)
	}
}
