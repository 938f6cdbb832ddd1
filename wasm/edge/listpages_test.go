//go:build !js || stock

package edge

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// Paging through the list while trees are created and deleted never fails
// and shows every tree that lived throughout exactly once: a page's "next"
// keeps its place when the tree it ends with is deleted before the next page
// is asked for (a sidebar loading page 2 while another tab deleted the last
// chat of page 1 got 400 for it).
func TestPagingOnWhileTheLastTreeOfEachPageIsDeleted(t *testing.T) {
	var tick atomic.Int64
	base := time.Now().UnixMilli()
	// Three creates a millisecond: the list orders trees created together
	// by id, which the places must keep too.
	clock := func() int64 { return base + tick.Add(1)/3 }
	c := newClient(t, New(Config{Store: NewMemStore(), SigningKey: testKey, Now: clock}), "alice")
	lived := map[string]bool{} // the trees made before the paging; false once deleted
	for i := 0; i < 20; i++ {
		lived[c.create("")] = true
	}
	seen := map[string]int{}
	after := ""
	for pages := 0; ; pages++ {
		if pages > 20 {
			t.Fatal("too many pages")
		}
		path := "/v1/trees?limit=3"
		if after != "" {
			path += "&after=" + after
		}
		r := c.do("GET", path, "")
		if r.status != 200 {
			t.Fatalf("page %d (after %s): %d %s", pages+1, after, r.status, r.body)
		}
		v := r.json(t)
		trees := v["trees"].([]any)
		for _, tr := range trees {
			seen[tr.(map[string]any)["id"].(string)]++
		}
		if v["next"] == nil {
			break
		}
		after = v["next"].(string)
		last := trees[len(trees)-1].(map[string]any)["id"].(string)
		if r := c.do("DELETE", "/v1/trees/"+last, ""); r.status != 204 {
			t.Fatalf("delete %s: %d %s", last, r.status, r.body)
		}
		if _, ok := lived[last]; ok {
			lived[last] = false
		}
		c.create("") // made during the paging: may be listed or not, once at most
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("tree %s was listed %d times", id, n)
		}
	}
	for id, alive := range lived {
		if alive && seen[id] != 1 {
			t.Errorf("tree %s lived throughout and was listed %d times", id, seen[id])
		}
	}
}

// "after" is the "next" of a page or a tree id: a cursor not exactly as the
// list writes it is 400 invalid_input naming it, and so is a tree id that
// names none of the tenant's trees; a well-formed cursor is a place in the
// list, whether or not its tree still lives.
func TestAfterIsACursorOrATreeID(t *testing.T) {
	var tick atomic.Int64
	base := time.Now().UnixMilli()
	h := New(Config{Store: NewMemStore(), SigningKey: testKey, Now: func() int64 { return base + tick.Add(1) }})
	c := newClient(t, h, "alice")
	a, b := c.create(""), c.create("")
	first := c.do("GET", "/v1/trees?limit=1", "").json(t)
	next := first["next"].(string)
	if !strings.Contains(next, a) || !strings.Contains(next, ".") {
		t.Fatalf("the first page's next: %q, want a cursor after %s", next, a)
	}
	ms, _, _ := strings.Cut(next, ".")
	id := strings.Repeat("0", 32)
	for _, bad := range []string{
		"nope", strings.ToUpper(a), a[:31], "1.", ".", "." + a, "1.x", "1." + a + ".", "1.." + a,
		"01." + a, "%2B1." + a, "-0." + a, "%201." + a, "1e3." + a, "0x1." + a, "1.5." + a,
		"9007199254740992." + a, "-9007199254740992." + a, "99999999999999999999." + a,
		ms + "." + strings.ToUpper(a), ms + "." + a[:31], ms + "." + a + "0",
		id, // a tree id that names no tree
	} {
		r := c.do("GET", "/v1/trees?after="+bad, "")
		wantError(t, r, 400, "invalid_input")
		if !strings.Contains(string(r.body), strings.NewReplacer("%20", " ", "%2B", "+").Replace(bad)) {
			t.Errorf("after=%q: the error does not name it: %s", bad, r.body)
		}
	}
	// The plain id of a listed tree is its place, as before cursors.
	if v := c.do("GET", "/v1/trees?after="+a, "").json(t); len(v["trees"].([]any)) != 1 {
		t.Fatalf("after the id of the first tree: %v", v)
	}
	// A cursor is a place whether or not its tree lives, and only a place:
	// another tenant's is a place in this tenant's list, naming no tree.
	if r := c.do("DELETE", "/v1/trees/"+a, ""); r.status != 204 {
		t.Fatalf("delete: %d %s", r.status, r.body)
	}
	v := c.do("GET", "/v1/trees?after="+next, "").json(t)
	if trees := v["trees"].([]any); len(trees) != 1 || trees[0].(map[string]any)["id"] != b {
		t.Fatalf("after the deleted first tree: %v", v)
	}
	wantError(t, c.do("GET", "/v1/trees?after="+a, ""), 400, "invalid_input")
	for _, place := range []string{"0." + id, "-9007199254740991." + id, "9007199254740991." + id} {
		if r := c.do("GET", "/v1/trees?after="+place, ""); r.status != 200 {
			t.Errorf("after=%s: %d %s", place, r.status, r.body)
		}
	}
	bob := newClient(t, h, "bob")
	wantError(t, bob.do("GET", "/v1/trees?after="+b, ""), 400, "invalid_input")
	if v := bob.do("GET", "/v1/trees?after="+next, "").json(t); len(v["trees"].([]any)) != 0 {
		t.Fatalf("bob's list after alice's cursor: %v", v)
	}
}
