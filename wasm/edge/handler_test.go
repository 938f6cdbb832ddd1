//go:build !js || stock

package edge

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

var testKey = []byte("0123456789abcdef0123456789abcdef")

type client struct {
	t     *testing.T
	h     http.Handler
	token string
}

func newClient(t *testing.T, h http.Handler, tenant string) *client {
	tok, err := IssueToken(testKey, tenant, time.Now().Unix()+3600)
	if err != nil {
		t.Fatal(err)
	}
	return &client{t: t, h: h, token: tok}
}

type reply struct {
	status int
	header http.Header
	body   []byte
}

func (r reply) json(t *testing.T) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(r.body, &v); err != nil {
		t.Fatalf("response is not JSON: %v: %s", err, r.body)
	}
	return v
}

func (c *client) do(method, path, body string, hdr ...string) reply {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	w := httptest.NewRecorder()
	c.h.ServeHTTP(w, req)
	b, _ := io.ReadAll(w.Result().Body)
	return reply{w.Code, w.Result().Header, b}
}

// wantError checks status and the {"error":{"code","message"}} shape.
func wantError(t *testing.T, r reply, status int, code string) {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d: %s", r.status, status, r.body)
	}
	var v struct {
		Error struct{ Code, Message string }
	}
	if err := json.Unmarshal(r.body, &v); err != nil || v.Error.Code != code || v.Error.Message == "" {
		t.Fatalf("want error code %q with a message, got %s", code, r.body)
	}
}

func (c *client) create(body string) string {
	c.t.Helper()
	r := c.do("POST", "/v1/trees", body)
	if r.status != 201 {
		c.t.Fatalf("create: %d %s", r.status, r.body)
	}
	return r.json(c.t)["id"].(string)
}

func (c *client) appendMsg(id, text string) reply {
	return c.do("POST", "/v1/trees/"+id+"/ops",
		`{"ops":[{"op":"append","message":{"role":"user","content":`+strconv.Quote(text)+`}}]}`)
}

func newTestHandler(s Store) *Handler {
	return New(Config{Store: s, SigningKey: testKey})
}

func TestEveryRouteWorksForItsTenant(t *testing.T) {
	c := newClient(t, newTestHandler(NewMemStore()), "alice")
	id := c.create(`{"messages":[{"role":"system","content":"be brief"},{"role":"user","content":"hi"}]}`)
	r := c.do("GET", "/v1/trees/"+id, "")
	if r.status != 200 || r.header.Get("ETag") == "" || !strings.Contains(string(r.body), `"format":"sessiontree"`) {
		t.Fatalf("get: %d %s", r.status, r.body)
	}
	if r2 := c.do("GET", "/v1/trees/"+id, "", "If-None-Match", r.header.Get("ETag")); r2.status != 304 {
		t.Fatalf("If-None-Match with the current ETag: %d", r2.status)
	}
	r = c.appendMsg(id, "more")
	if r.status != 200 {
		t.Fatalf("ops: %d %s", r.status, r.body)
	}
	res := r.json(t)["results"].([]any)
	if len(res) != 1 || res[0] == nil {
		t.Fatalf("ops results: %s", r.body)
	}
	r = c.do("GET", "/v1/trees/"+id+"/projection", "")
	msgs := r.json(t)["messages"].([]any)
	if r.status != 200 || len(msgs) != 3 || msgs[2].(map[string]any)["content"] != "more" {
		t.Fatalf("projection: %s", r.body)
	}
	wantError(t, c.do("GET", "/v1/trees/"+id+"/projection?branch=nope", ""), 404, "branch_not_found")
	if r = c.do("GET", "/v1/trees/"+id+"/export?format=sessiontree", ""); r.status != 200 {
		t.Fatalf("export: %d %s", r.status, r.body)
	}
	wantError(t, c.do("GET", "/v1/trees/"+id+"/export?format=nope", ""), 400, "invalid_input")
	if r = c.do("GET", "/v1/trees/"+id+"/export?format=openai", ""); r.status != 200 || !strings.Contains(string(r.body), `"more"`) {
		t.Fatalf("export to openai: %d %s", r.status, r.body)
	}
	if r = c.do("GET", "/v1/trees/"+id+"/export?format=markdown", ""); r.status != 200 || !strings.HasPrefix(r.header.Get("Content-Type"), "text/markdown") {
		t.Fatalf("export to markdown: %d %s %s", r.status, r.header.Get("Content-Type"), r.body)
	}
	r = c.do("GET", "/v1/trees", "")
	if trees := r.json(t)["trees"].([]any); len(trees) != 1 || trees[0].(map[string]any)["id"] != id {
		t.Fatalf("list: %s", r.body)
	}
	if r = c.do("DELETE", "/v1/trees/"+id, ""); r.status != 204 {
		t.Fatalf("delete: %d %s", r.status, r.body)
	}
	wantError(t, c.do("GET", "/v1/trees/"+id, ""), 404, "not_found")
	wantError(t, c.do("DELETE", "/v1/trees/"+id, ""), 404, "not_found")
}

func TestRequestsWithoutABodyObjectAreServed(t *testing.T) {
	h := newTestHandler(NewMemStore())
	c := newClient(t, h, "alice")
	for _, method := range []string{"GET", "POST"} {
		req := httptest.NewRequest(method, "/v1/trees", nil)
		req.Body = nil
		if method == "GET" {
			req.Header.Set("Authorization", "Bearer "+c.token)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if want := map[string]int{"GET": 200, "POST": 401}[method]; w.Code != want {
			t.Fatalf("%s without a body: %d %s", method, w.Code, w.Body)
		}
	}
	req := httptest.NewRequest("POST", "/v1/trees", nil)
	req.Body = nil
	req.Header.Set("Authorization", "Bearer "+c.token)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	if w.Code != 201 {
		t.Fatalf("POST /v1/trees without a body: %d %s", w.Code, w.Body)
	}
}

func TestCreateTakesATreeFile(t *testing.T) {
	c := newClient(t, newTestHandler(NewMemStore()), "alice")
	src := c.create(`{"messages":[{"role":"user","content":"a"}]}`)
	file := string(c.do("GET", "/v1/trees/"+src, "").body)
	id := c.create(file)
	if got := string(c.do("GET", "/v1/trees/"+id, "").body); got != file {
		t.Fatalf("a stored .tree.json comes back byte for byte:\n%s\n%s", got, file)
	}
	for _, body := range []string{"", "{}", "  "} {
		c.create(body)
	}
	wantError(t, c.do("POST", "/v1/trees", `{"format":"sessiontree","version":9,"active_branch":"main","branches":{},"nodes":{}}`), 400, "unsupported_version")
	wantError(t, c.do("POST", "/v1/trees", `{"format":"sessiontree","version":1,"active_branch":"main","branches":{"main":{"name":"main","leaf":"x","created_at_ms":1}},"nodes":{}}`), 400, "corrupt")
}

func TestAuthIsRequiredAndTenantsAreIsolated(t *testing.T) {
	h := newTestHandler(NewMemStore())
	alice, bob := newClient(t, h, "alice"), newClient(t, h, "bob")
	id := alice.create("")
	anon := &client{t: t, h: h}
	wantError(t, anon.do("GET", "/v1/trees", ""), 401, CodeUnauthorized)
	bad := &client{t: t, h: h, token: alice.token + "x"}
	wantError(t, bad.do("GET", "/v1/trees/"+id, ""), 401, CodeUnauthorized)
	expired, _ := IssueToken(testKey, "alice", time.Now().Unix()-1)
	wantError(t, (&client{t: t, h: h, token: expired}).do("GET", "/v1/trees", ""), 401, CodeUnauthorized)
	forged, _ := IssueToken([]byte("another key, 16+ bytes long"), "alice", time.Now().Unix()+60)
	wantError(t, (&client{t: t, h: h, token: forged}).do("GET", "/v1/trees", ""), 401, CodeUnauthorized)
	for _, r := range []reply{
		bob.do("GET", "/v1/trees/"+id, ""),
		bob.appendMsg(id, "intrude"),
		bob.do("GET", "/v1/trees/"+id+"/projection", ""),
		bob.do("GET", "/v1/trees/"+id+"/export", ""),
		bob.do("DELETE", "/v1/trees/"+id, ""),
	} {
		wantError(t, r, 404, "not_found")
	}
	if r := bob.do("GET", "/v1/trees", ""); string(r.body) != "{\"trees\":[]}\n" {
		t.Fatalf("bob lists alice's tree: %s", r.body)
	}
	if r := alice.do("GET", "/v1/trees/"+id, ""); r.status != 200 || strings.Contains(string(r.body), "intrude") {
		t.Fatalf("alice's tree after bob: %d %s", r.status, r.body)
	}
}

func TestErrorsAreJSONWithCodes(t *testing.T) {
	h := newTestHandler(NewMemStore())
	c := newClient(t, h, "alice")
	id := c.create("")
	wantError(t, c.do("GET", "/v2/trees", ""), 404, "not_found")
	wantError(t, c.do("GET", "/v1/trees/"+id+"/nope", ""), 404, "not_found")
	wantError(t, c.do("GET", "/v1/trees/not-an-id", ""), 404, "not_found")
	r := c.do("PUT", "/v1/trees/"+id, "")
	wantError(t, r, 405, CodeMethodNotAllowed)
	if r.header.Get("Allow") != "GET, DELETE" {
		t.Fatalf("Allow: %q", r.header.Get("Allow"))
	}
	wantError(t, c.do("GET", "/v1/trees/"+id+"/ops", ""), 405, CodeMethodNotAllowed)
	wantError(t, c.do("POST", "/v1/trees", `{"messages":[`), 400, "invalid_input")
	wantError(t, c.do("POST", "/v1/trees/"+id+"/ops", `{"ops":[{"op":"append"`), 400, "invalid_input")
	wantError(t, c.do("POST", "/v1/trees/"+id+"/ops", `{"ops":[{"op":"fly"}]}`), 400, "invalid_input")
	wantError(t, c.do("POST", "/v1/trees/"+id+"/ops", `{"ops":[{"op":"rewind","node":"nope"}]}`), 404, "not_found")
	wantError(t, c.do("POST", "/v1/trees/"+id+"/merge", `{}`), 400, "corrupt")
}

func TestLimitsAnswer413TooLarge(t *testing.T) {
	h := newTestHandler(NewMemStore())
	c := newClient(t, h, "alice")
	id := c.create("")
	big := strings.Repeat("x", 1<<20)
	wantError(t, c.appendMsg(id, big), 413, "too_large")
	wantError(t, c.do("POST", "/v1/trees", `{"messages":[{"role":"user","content":"`+big+`"}]}`), 413, "too_large")
	huge := `{"messages":[` + strings.Repeat(`{"role":"user","content":"`+strings.Repeat("y", 1<<19)+`"},`, 17) + `{"role":"user"}]}`
	wantError(t, c.do("POST", "/v1/trees", huge), 413, "too_large")
	ops := strings.Repeat(`{"op":"append","message":{"role":"user"}},`, 1000) + `{"op":"append","message":{"role":"user"}}`
	wantError(t, c.do("POST", "/v1/trees/"+id+"/ops", `{"ops":[`+ops+`]}`), 413, "too_large")
	if r := c.do("GET", "/v1/trees/"+id+"/projection", ""); string(r.body) != "{\"branch\":\"main\",\"messages\":[]}\n" {
		t.Fatalf("a refused request left something behind: %s", r.body)
	}
	ok := strings.Repeat(`{"op":"append","message":{"role":"user"}},`, 999) + `{"op":"append","message":{"role":"user"}}`
	if r := c.do("POST", "/v1/trees/"+id+"/ops", `{"ops":[`+ok+`]}`); r.status != 200 {
		t.Fatalf("1,000 ops: %d %s", r.status, r.body)
	}
}

func TestOpsAreAllOrNothing(t *testing.T) {
	s := NewMemStore()
	c := newClient(t, newTestHandler(s), "alice")
	id := c.create("")
	before := c.do("GET", "/v1/trees/"+id, "")
	r := c.do("POST", "/v1/trees/"+id+"/ops", `{"ops":[{"op":"append","message":{"role":"user"}},{"op":"switch","branch":"nope"}]}`)
	wantError(t, r, 404, "branch_not_found")
	after := c.do("GET", "/v1/trees/"+id, "")
	if string(after.body) != string(before.body) || after.header.Get("ETag") != before.header.Get("ETag") {
		t.Fatalf("a failed batch changed the tree:\n%s\n%s", before.body, after.body)
	}
}

func TestIfMatchWithAStaleETagIs412(t *testing.T) {
	c := newClient(t, newTestHandler(NewMemStore()), "alice")
	id := c.create("")
	etag := c.do("GET", "/v1/trees/"+id, "").header.Get("ETag")
	op := `{"ops":[{"op":"append","message":{"role":"user","content":"a"}}]}`
	r := c.do("POST", "/v1/trees/"+id+"/ops", op, "If-Match", etag)
	if r.status != 200 {
		t.Fatalf("If-Match with the current ETag: %d %s", r.status, r.body)
	}
	wantError(t, c.do("POST", "/v1/trees/"+id+"/ops", op, "If-Match", etag), 412, CodePreconditionFail)
	if r2 := c.do("POST", "/v1/trees/"+id+"/ops", op, "If-Match", r.header.Get("ETag")); r2.status != 200 {
		t.Fatalf("If-Match with the new ETag: %d %s", r2.status, r2.body)
	}
}

// Two handlers over one store stand for two isolates, each with its cache.
func TestConcurrentWritersFromTwoIsolatesLoseNothing(t *testing.T) {
	s := NewMemStore()
	h1, h2 := newTestHandler(s), newTestHandler(s)
	id := newClient(t, h1, "alice").create("")
	const clients, each = 32, 10
	var wg sync.WaitGroup
	for i := 0; i < clients; i++ {
		h := h1
		if i%2 == 1 {
			h = h2
		}
		c := newClient(t, h, "alice")
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < each; j++ {
				if r := c.appendMsg(id, "c"+strconv.Itoa(i)+"-"+strconv.Itoa(j)); r.status != 200 {
					t.Errorf("append: %d %s", r.status, r.body)
				}
			}
		}()
	}
	wg.Wait()
	for _, h := range []*Handler{h1, h2} {
		r := newClient(t, h, "alice").do("GET", "/v1/trees/"+id+"/projection", "")
		var p struct{ Messages []struct{ Content string } }
		json.Unmarshal(r.body, &p)
		seen := map[string]int{}
		for _, m := range p.Messages {
			seen[m.Content]++
		}
		if len(p.Messages) != clients*each || len(seen) != clients*each {
			t.Fatalf("%d messages, %d distinct; want %d each", len(p.Messages), len(seen), clients*each)
		}
	}
}

func TestAnAppendWritesOnlyTheRowsItTouches(t *testing.T) {
	s := NewMemStore()
	c := newClient(t, newTestHandler(s), "alice")
	var b strings.Builder
	b.WriteString(`{"messages":[`)
	for i := 0; i < 2000; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"role":"user","content":"m` + strconv.Itoa(i) + `"}`)
	}
	b.WriteString(`]}`)
	id := c.create(b.String())
	before := s.RowWrites
	c.appendMsg(id, "one more")
	if n := s.RowWrites - before; n != 3 {
		t.Fatalf("an append on a 2,000-node tree wrote %d rows; want 3 (new node, parent, branch)", n)
	}
}

func TestACachedTreeSeesWritesOfAnotherIsolate(t *testing.T) {
	s := NewMemStore()
	a, b := newClient(t, newTestHandler(s), "alice"), newClient(t, newTestHandler(s), "alice")
	id := a.create(`{"messages":[{"role":"user","content":"a"}]}`)
	a.do("GET", "/v1/trees/"+id, "")
	r := b.appendMsg(id, "from b")
	newID := r.json(t)["results"].([]any)[0].(string)
	if got := a.do("GET", "/v1/trees/"+id+"/projection", ""); !strings.Contains(string(got.body), "from b") {
		t.Fatalf("isolate a serves a stale tree: %s", got.body)
	}
	// an op naming a node that only the other isolate has seen
	b.appendMsg(id, "b again")
	if r := a.do("POST", "/v1/trees/"+id+"/ops", `{"ops":[{"op":"rewind","node":"`+newID+`"}]}`); r.status != 200 {
		t.Fatalf("rewind to a node written by another isolate: %d %s", r.status, r.body)
	}
}

func TestTokensRoundTrip(t *testing.T) {
	tok, err := IssueToken(testKey, "alice", 2000)
	if err != nil {
		t.Fatal(err)
	}
	if tenant, err := VerifyToken(testKey, tok, 1999); err != nil || tenant != "alice" {
		t.Fatalf("VerifyToken: %q %v", tenant, err)
	}
	if _, err := VerifyToken(testKey, tok, 2000); err == nil {
		t.Fatal("an expired token verified")
	}
	for _, bad := range []string{"", "st1", "st1.a.b.c", tok[:len(tok)-2], strings.Replace(tok, "st1", "st2", 1)} {
		if _, err := VerifyToken(testKey, bad, 0); err == nil {
			t.Fatalf("%q verified", bad)
		}
	}
	if _, err := IssueToken(testKey, "no spaces", 1); err == nil {
		t.Fatal("a bad tenant name was accepted")
	}
}

// The list shows each tree's title (its first user message) and its count
// of nodes, kept current by every write.
func TestTheListShowsEachTreesTitleAndSize(t *testing.T) {
	c := newClient(t, newTestHandler(NewMemStore()), "alice")
	id := c.create(`{"messages":[{"role":"system","content":"be brief"},{"role":"user","content":"How do I\nfork a branch?"}]}`)
	empty := c.create("")
	list := func() map[string]map[string]any {
		out := map[string]map[string]any{}
		for _, v := range c.do("GET", "/v1/trees", "").json(t)["trees"].([]any) {
			m := v.(map[string]any)
			out[m["id"].(string)] = m
		}
		return out
	}
	got := list()
	if got[id]["title"] != "How do I fork a branch?" || got[id]["nodes"] != float64(2) {
		t.Fatalf("after create: %v", got[id])
	}
	if got[empty]["title"] != "" || got[empty]["nodes"] != float64(0) {
		t.Fatalf("an empty tree: %v", got[empty])
	}
	if r := c.appendMsg(empty, "a first question"); r.status != 200 {
		t.Fatalf("append: %d %s", r.status, r.body)
	}
	if r := c.appendMsg(id, "more"); r.status != 200 {
		t.Fatalf("append: %d %s", r.status, r.body)
	}
	got = list()
	if got[empty]["title"] != "a first question" || got[empty]["nodes"] != float64(1) || got[id]["nodes"] != float64(3) {
		t.Fatalf("after appends: %v %v", got[empty], got[id])
	}
}
