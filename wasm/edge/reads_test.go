//go:build !js || stock

package edge

import (
	"strings"
	"testing"
)

// Issue 25 §5: a read of an unchanged tree is served from what its version
// already serialized: GET and export share one serialization per version, a
// read with If-None-Match of the current ETag is 304 (the tree, a
// projection, an export), and a write makes the next read new.
func TestLargeReadsAreSerializedOncePerVersionAndAnswer304(t *testing.T) {
	h := New(Config{Store: NewMemStore(), SigningKey: testKey})
	c := newClient(t, h, "alice")
	id := c.create(`{"messages":[{"role":"user","content":"` + strings.Repeat("x", 100_000) + `"}]}`)
	first := c.do("GET", "/v1/trees/"+id, "")
	etag := first.header.Get("ETag")
	if first.status != 200 || etag == "" {
		t.Fatalf("get: %d", first.status)
	}
	e := h.cache.acquire(id)
	a, b := h.treeJSON(e.tree, id, e.meta.ETag), h.treeJSON(e.tree, id, e.meta.ETag)
	h.cache.release(e)
	if &a[0] != &b[0] || string(a) != string(first.body) {
		t.Fatalf("the tree was serialized again for its same version")
	}
	if x := c.do("GET", "/v1/trees/"+id+"/export", ""); string(x.body) != string(first.body) {
		t.Fatalf("the export differs from the GET of the same version")
	}
	for _, path := range []string{"", "/projection", "/export", "/projection?tail=1"} {
		if r := c.do("GET", "/v1/trees/"+id+path, "", "If-None-Match", etag); r.status != 304 || len(r.body) != 0 {
			t.Fatalf("GET %s with If-None-Match of the current ETag: %d", path, r.status)
		}
	}
	w := c.appendMsg(id, "more")
	if r := c.do("GET", "/v1/trees/"+id+"/projection", "", "If-None-Match", etag); r.status != 200 || !strings.Contains(string(r.body), "more") {
		t.Fatalf("a projection after a write, with the old ETag: %d", r.status)
	}
	if r := c.do("GET", "/v1/trees/"+id, ""); r.header.Get("ETag") != w.header.Get("ETag") || !strings.Contains(string(r.body), "more") {
		t.Fatalf("the GET after a write was served from the old version")
	}
}
