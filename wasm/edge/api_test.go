//go:build !js || stock

package edge

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// Every answer says Cache-Control: private, no-store; a 401 says how to
// authenticate (WWW-Authenticate), naming a bad token as such.
func TestAnswersCarryCacheControlAndAuthChallenges(t *testing.T) {
	c := newClient(t, newTestHandler(NewMemStore()), "alice")
	id := c.create("")
	for _, r := range []reply{c.do("GET", "/v1/trees/"+id, ""), c.do("GET", "/v1/trees/nope", ""), c.do("GET", "/healthz", "")} {
		if r.header.Get("Cache-Control") != "private, no-store" {
			t.Fatalf("Cache-Control %q", r.header.Get("Cache-Control"))
		}
	}
	anon := &client{t: t, h: c.h}
	r := anon.do("GET", "/v1/trees", "")
	wantError(t, r, 401, CodeUnauthorized)
	if r.header.Get("WWW-Authenticate") != `Bearer realm="sessiontree"` {
		t.Fatalf("WWW-Authenticate %q", r.header.Get("WWW-Authenticate"))
	}
	r = anon.do("GET", "/v1/trees", "", "Authorization", "Bearer st1.x.1.y")
	if !strings.Contains(r.header.Get("WWW-Authenticate"), `error="invalid_token"`) {
		t.Fatalf("WWW-Authenticate for a bad token %q", r.header.Get("WWW-Authenticate"))
	}
}

// CORS: a configured origin gets Access-Control-Allow-Origin (and a preflight
// the methods and headers); any other origin gets none.
func TestCORSAnswersConfiguredOriginsOnly(t *testing.T) {
	h := New(Config{Store: NewMemStore(), SigningKey: testKey, CORSOrigins: []string{"https://app.example"}})
	c := newClient(t, h, "alice")
	r := c.do("GET", "/v1/trees", "", "Origin", "https://app.example")
	if r.header.Get("Access-Control-Allow-Origin") != "https://app.example" || !strings.Contains(r.header.Get("Access-Control-Expose-Headers"), "ETag") {
		t.Fatalf("allowed origin: %v", r.header)
	}
	r = c.do("GET", "/v1/trees", "", "Origin", "https://evil.example")
	if r.header.Get("Access-Control-Allow-Origin") != "" || r.status != 200 {
		t.Fatalf("another origin: %d %v", r.status, r.header)
	}
	pre := (&client{t: t, h: h}).do("OPTIONS", "/v1/trees/x/ops", "", "Origin", "https://app.example", "Access-Control-Request-Method", "POST")
	if pre.status != 204 || !strings.Contains(pre.header.Get("Access-Control-Allow-Headers"), "Idempotency-Key") ||
		!strings.Contains(pre.header.Get("Access-Control-Allow-Headers"), "If-Match") {
		t.Fatalf("preflight: %d %v", pre.status, pre.header)
	}
}

// With a rate limit, a tenant over it gets 429 with Retry-After; another
// tenant is not slowed by it; tokens come back with time.
func TestATenantOverItsRateGets429WithRetryAfter(t *testing.T) {
	now := time.Now().UnixMilli()
	h := New(Config{Store: NewMemStore(), SigningKey: testKey, RateLimit: 5, Now: func() int64 { return now }})
	a := newClient(t, h, "alice")
	ok := 0
	var last reply
	for i := 0; i < 20; i++ {
		if last = a.do("GET", "/v1/trees", ""); last.status == 200 {
			ok++
		}
	}
	if ok != 10 {
		t.Fatalf("%d requests passed, want the burst of 10", ok)
	}
	wantError(t, last, 429, "rate_limited")
	if s, err := strconv.Atoi(last.header.Get("Retry-After")); err != nil || s < 1 {
		t.Fatalf("Retry-After %q", last.header.Get("Retry-After"))
	}
	if r := newClient(t, h, "bob").do("GET", "/v1/trees", ""); r.status != 200 {
		t.Fatalf("another tenant: %d", r.status)
	}
	now += 1000
	if r := a.do("GET", "/v1/trees", ""); r.status != 200 {
		t.Fatalf("a second later: %d", r.status)
	}
}

// A rate under half a request a second (SESSIONTREE_RATE_LIMIT=0.2: one
// every 5 s) still lets a request through when its time comes: its burst is
// one request. Before, the burst was twice the rate, 0.4 of a request, never
// a whole one, and every request of every tenant was 429 for good.
func TestARateUnderHalfARequestASecondLetsOneThroughAtItsPace(t *testing.T) {
	now := time.Now().UnixMilli()
	h := New(Config{Store: NewMemStore(), SigningKey: testKey, RateLimit: 0.2, Now: func() int64 { return now }})
	a := newClient(t, h, "alice")
	if r := a.do("GET", "/v1/trees", ""); r.status != 200 {
		t.Fatalf("a first request: %d %s", r.status, r.body)
	}
	r := a.do("GET", "/v1/trees", "")
	wantError(t, r, 429, "rate_limited")
	if s, err := strconv.Atoi(r.header.Get("Retry-After")); err != nil || s < 5 || s > 6 {
		t.Fatalf("Retry-After %q, want 5 s (rounded up)", r.header.Get("Retry-After"))
	}
	now += 5000
	if r := a.do("GET", "/v1/trees", ""); r.status != 200 {
		t.Fatalf("5 s later: %d %s", r.status, r.body)
	}
}

// ?tail=N&skip=M answers a window of the path, with its length and start.
func TestAProjectionWindowIsTheTailOfThePath(t *testing.T) {
	c := newClient(t, newTestHandler(NewMemStore()), "alice")
	var msgs []string
	for i := 0; i < 10; i++ {
		msgs = append(msgs, `{"role":"user","content":"m`+strconv.Itoa(i)+`"}`)
	}
	id := c.create(`{"messages":[` + strings.Join(msgs, ",") + `]}`)
	v := c.do("GET", "/v1/trees/"+id+"/projection?tail=3&skip=2", "").json(t)
	got := v["messages"].([]any)
	if len(got) != 3 || got[0].(map[string]any)["content"] != "m5" || got[2].(map[string]any)["content"] != "m7" ||
		v["length"] != 10.0 || v["start"] != 5.0 {
		t.Fatalf("window: %v", v)
	}
	v = c.do("GET", "/v1/trees/"+id+"/projection?tail=50", "").json(t)
	if len(v["messages"].([]any)) != 10 || v["start"] != 0.0 {
		t.Fatalf("a window past the root: %v", v)
	}
	wantError(t, c.do("GET", "/v1/trees/"+id+"/projection?tail=0", ""), 400, "invalid_input")
	wantError(t, c.do("GET", "/v1/trees/"+id+"/projection?tail=2&skip=-1", ""), 400, "invalid_input")
}

// An export of an unchanged tree is the same bytes (kept with its ETag), a
// changed tree is rendered again, and If-None-Match with the ETag is 304.
func TestAnExportIsKeptUntilTheTreeChanges(t *testing.T) {
	c := newClient(t, newTestHandler(NewMemStore()), "alice")
	id := c.create(`{"messages":[{"role":"user","content":"one"}]}`)
	a := c.do("GET", "/v1/trees/"+id+"/export?format=markdown", "")
	b := c.do("GET", "/v1/trees/"+id+"/export?format=markdown", "")
	if a.status != 200 || string(a.body) != string(b.body) || a.header.Get("Content-Type") != b.header.Get("Content-Type") {
		t.Fatalf("two exports differ: %s / %s", a.body, b.body)
	}
	if r := c.do("GET", "/v1/trees/"+id+"/export?format=markdown", "", "If-None-Match", a.header.Get("ETag")); r.status != 304 {
		t.Fatalf("If-None-Match: %d", r.status)
	}
	if j := c.do("GET", "/v1/trees/"+id+"/export", ""); !strings.Contains(string(j.body), `"format":"sessiontree"`) {
		t.Fatalf("another format from the cache: %s", j.body)
	}
	c.appendMsg(id, "two")
	if r := c.do("GET", "/v1/trees/"+id+"/export?format=markdown", ""); !strings.Contains(string(r.body), "two") {
		t.Fatalf("a stale export after a write: %s", r.body)
	}
}
