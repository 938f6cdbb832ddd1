//go:build !js

package httpsuite

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

var httpClient = &http.Client{Timeout: 60 * time.Second}

type client struct {
	t       testing.TB
	token   string
	base    string // a worker of a test's own (limitedServer); "" for the suite's server
	retried bool
}

type reply struct {
	status int
	header http.Header
	body   []byte
}

func (c *client) do(method, path, body string, hdr ...string) reply {
	c.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	base := c.base
	if base == "" {
		base = server.URL
	}
	req, err := http.NewRequest(method, base+path, rd)
	if err != nil {
		c.t.Fatal(err)
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatalf("%s %s: reading the body: %v", method, path, err)
	}
	// wrangler dev's proxy answers this when its pooled connection to workerd
	// went stale (see staleProxy); the worker never saw the request (a double
	// write would fail the tests that count).
	if staleProxy(resp.StatusCode, b) && !c.retried {
		c.retried = true
		defer func() { c.retried = false }()
		return c.do(method, path, body, hdr...)
	}
	return reply{resp.StatusCode, resp.Header, b}
}

// staleProxy says whether an answer is wrangler dev's proxy failing to reach
// the worker on a stale connection, not the worker's: its fetch to workerd
// went out on a pooled keep-alive connection that workerd had closed (idle
// 5 s; sooner by workerd's clock while its thread is busy), and for any
// failed fetch of a path other than / the proxy answers this 503 (it retries
// GET and HEAD itself, never other methods). Seen under bursts whose
// connections of the last burst are about to be dropped (docs/edge.md,
// "Bursts of creates under wrangler dev"). The worker's own answers are JSON.
func staleProxy(status int, body []byte) bool {
	return status == 503 && strings.Contains(string(body), "restarted mid-request")
}

func (r reply) object(t testing.TB) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(r.body, &v); err != nil {
		t.Fatalf("not a JSON object (%v): %.300s", err, r.body)
	}
	return v
}

// wantError checks the status and the {"error":{"code","message"}} envelope.
func wantError(t testing.TB, r reply, status int, code string) {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d: %.300s", r.status, status, r.body)
	}
	var v struct {
		Error *struct{ Code, Message string }
	}
	if err := json.Unmarshal(r.body, &v); err != nil || v.Error == nil || v.Error.Message == "" ||
		(code != "" && v.Error.Code != code) {
		t.Fatalf("want an error envelope with code %q, got %.300s", code, r.body)
	}
}

func (c *client) create(body string) (id, etag string) {
	c.t.Helper()
	r := c.do("POST", "/v1/trees", body)
	if r.status != 201 {
		c.t.Fatalf("create: %d %.300s", r.status, r.body)
	}
	return r.object(c.t)["id"].(string), r.header.Get("ETag")
}

func appendBody(text string) string {
	return `{"ops":[{"op":"append","message":{"role":"user","content":` + strconv.Quote(text) + `}}]}`
}

func (c *client) projection(id string) []map[string]any {
	c.t.Helper()
	r := c.do("GET", "/v1/trees/"+id+"/projection", "")
	if r.status != 200 {
		c.t.Fatalf("projection: %d %.300s", r.status, r.body)
	}
	var p struct{ Messages []map[string]any }
	if err := json.Unmarshal(r.body, &p); err != nil {
		c.t.Fatal(err)
	}
	return p.Messages
}
