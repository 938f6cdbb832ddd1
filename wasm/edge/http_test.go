//go:build !js || stock

package edge

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// The Handler's Header keys its fields as net/http does, so that a Header
// shared with net/http (ServeHTTP) finds what either side set.
func TestHeaderKeysAreCanonicalAsNetHTTPKeysThem(t *testing.T) {
	for _, k := range []string{
		"content-type", "CONTENT-TYPE", "Content-Type", "if-match", "x-sessiontree-object",
		"X-SESSIONTREE-TURN", "sessiontree-client", "a", "-", "-x-", "www-authenticate",
		"accept_encoding", "x-1-2", "", "with space", "ünïcode", "colon:", "Etag", "ETag",
		"x--y", "cache-control", "0x-y", "~a.b",
	} {
		if got, want := canonicalKey(k), http.CanonicalHeaderKey(k); got != want {
			t.Errorf("canonicalKey(%q) = %q, net/http keys it %q", k, got, want)
		}
	}
	h := Header{}
	h.Set("if-match", `"1-a"`)
	h.Add("VARY", "Origin")
	h.Add("vary", "Accept-Encoding")
	nh := http.Header(h)
	if nh.Get("If-Match") != `"1-a"` || len(nh.Values("Vary")) != 2 {
		t.Errorf("net/http does not find the fields set: %v", nh)
	}
	h.Del("Vary")
	if h.Get("vary") != "" || len(h) != 1 {
		t.Errorf("Del left %v", h)
	}
}

// ServeHTTP serves a net/http request through the Handler's own types (every
// other native test goes through it too): the answer's fields, status and
// body reach the client.
func TestServeHTTPCarriesARequestAndItsAnswer(t *testing.T) {
	h := New(Config{Store: NewMemStore(), SigningKey: []byte("k")})
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/healthz", nil))
	if w.Code != http.StatusOK || w.Body.Len() == 0 || w.Header().Get("Cache-Control") != "private, no-store" {
		t.Errorf("GET /healthz: %d %q, Cache-Control %q", w.Code, w.Body.String(), w.Header().Get("Cache-Control"))
	}
	w = httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/v1/trees", nil))
	if w.Code != http.StatusUnauthorized || w.Header().Get("WWW-Authenticate") == "" {
		t.Errorf("GET /v1/trees without a token: %d, WWW-Authenticate %q", w.Code, w.Header().Get("WWW-Authenticate"))
	}
}

// A body handed over whole (NewRequest, as the worker does) is read without
// a copy and held to the same limit as one read from a stream.
func TestABodyHandedOverWholeKeepsTheBodyLimit(t *testing.T) {
	key := []byte("0123456789abcdef0123")
	lim := DefaultLimits
	lim.Body = 1000
	h := New(Config{Store: NewMemStore(), SigningKey: key, Limits: lim})
	tok, _ := IssueToken(key, "alice", time.Now().Unix()+3600)
	for _, tc := range []struct {
		n    int
		want int
	}{{900, http.StatusCreated}, {1001, http.StatusRequestEntityTooLarge}} {
		body := `{"messages":[{"role":"user","content":"` + strings.Repeat("x", tc.n-len(`{"messages":[{"role":"user","content":""}]}`)) + `"}]}`
		r, err := NewRequest(http.MethodPost, "/v1/trees", []byte(body))
		if err != nil {
			t.Fatal(err)
		}
		r.ContentLength = -1 // as if its length were not known: the body itself is measured
		r.Header.Set("Authorization", "Bearer "+tok)
		w := NewRecorder()
		h.Serve(w, r)
		if w.Status() != tc.want {
			t.Errorf("a body of %d bytes under a limit of 1,000: %d %s, want %d", len(body), w.Status(), w.Bytes(), tc.want)
		}
	}
}

// The worker hands over a body cut one byte past the limit (its glue reads no
// more), so its length is no measure of what the client sent: a 9 MB body was
// refused as "the body is 8388609 bytes" (an outside pass, Dec 7).
func TestABodyCutAtTheLimitIsRefusedWithoutAMadeUpSize(t *testing.T) {
	key := []byte("0123456789abcdef0123")
	lim := DefaultLimits
	lim.Body = 1000
	h := New(Config{Store: NewMemStore(), SigningKey: key, Limits: lim})
	tok, _ := IssueToken(key, "alice", time.Now().Unix()+3600)
	r, err := NewRequest(http.MethodPost, "/v1/trees", []byte(strings.Repeat(" ", 1001)))
	if err != nil {
		t.Fatal(err)
	}
	r.Header.Set("Authorization", "Bearer "+tok)
	w := NewRecorder()
	h.Serve(w, r)
	if w.Status() != http.StatusRequestEntityTooLarge || strings.Contains(string(w.Bytes()), "1001") {
		t.Errorf("a body cut at 1,001 bytes under a limit of 1,000: %d %s", w.Status(), w.Bytes())
	}
}
