//go:build !js

package httpsuite

import (
	"encoding/json"
	"strings"
	"testing"
)

// Paging through the list in D1 while the last tree of each page is deleted
// (and a tree made) before the next page is asked for never fails, and shows
// every tree that lived throughout exactly once: "next" is a place in the
// list (creation time and id), which a deleted tree keeps; its plain id,
// the "next" before, was 400 once the tree was gone.
func TestPagingOnWhileTheLastTreeOfEachPageIsDeletedInD1(t *testing.T) {
	c := &client{t: t, token: token(t, "pages-deleted")}
	lived := map[string]bool{} // the trees made before the paging; false once deleted
	for i := 0; i < 14; i++ {
		id, _ := c.create("")
		lived[id] = true
	}
	seen := map[string]int{}
	after := ""
	for pages := 0; ; pages++ {
		if pages > 14 {
			t.Fatal("too many pages")
		}
		r := c.do("GET", "/v1/trees?limit=3&after="+after, "")
		if r.status != 200 {
			t.Fatalf("page %d (after %s): %d %.300s", pages+1, after, r.status, r.body)
		}
		var page struct {
			Trees []struct{ ID string }
			Next  string
		}
		if err := json.Unmarshal(r.body, &page); err != nil {
			t.Fatalf("page %d: %v", pages+1, err)
		}
		for _, tr := range page.Trees {
			seen[tr.ID]++
		}
		if page.Next == "" {
			break
		}
		after = page.Next
		last := page.Trees[len(page.Trees)-1].ID
		if r := c.do("DELETE", "/v1/trees/"+last, ""); r.status != 204 {
			t.Fatalf("delete %s: %d %.300s", last, r.status, r.body)
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
	// A cursor must be exactly as "next" writes it: anything else is 400
	// naming it, never a 500 from D1.
	ms, id, _ := strings.Cut(after, ".")
	for _, bad := range []string{"01." + id, ms + "." + strings.ToUpper(id), "9007199254740992." + id, ms + ".x", ms} {
		r := c.do("GET", "/v1/trees?after="+bad, "")
		wantError(t, r, 400, "invalid_input")
		if !strings.Contains(string(r.body), bad) {
			t.Errorf("after=%s: the error does not name it: %s", bad, r.body)
		}
	}
}
