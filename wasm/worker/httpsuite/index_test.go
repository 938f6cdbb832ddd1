//go:build !js

package httpsuite

import (
	"testing"
	"time"
)

// The list (D1's index of trees, kept by each tree's object) shows each
// tree's title, its nodes and the bytes its object's storage takes, and
// follows the tree's writes.
func TestTheListShowsTitlesAndSizesKeptByTheObjects(t *testing.T) {
	c := &client{t: t, token: token(t, "index-titles")}
	id, _ := c.create(`{"messages":[{"role":"system","content":"be brief"},{"role":"user","content":"Plan a trip\nto Lisbon"}]}`)
	entry := func() map[string]any {
		for _, v := range c.do("GET", "/v1/trees", "").object(t)["trees"].([]any) {
			if m := v.(map[string]any); m["id"] == id {
				return m
			}
		}
		t.Fatalf("tree %s is not listed", id)
		return nil
	}
	m := entry()
	if m["title"] != "Plan a trip to Lisbon" || m["nodes"] != float64(2) || !(m["bytes"].(float64) > 0) {
		t.Fatalf("after create: %v", m)
	}
	before := m["bytes"].(float64)
	if r := c.do("POST", "/v1/trees/"+id+"/ops", appendBody("a longer follow-up question about trains and ferries")); r.status != 200 {
		t.Fatalf("append: %d %s", r.status, r.body)
	}
	// Writes after the first update the index within 100 ms (coalesced).
	for end := time.Now().Add(5 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if m = entry(); m["nodes"] == float64(3) {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("the index did not follow the append: %v", m)
		}
	}
	if m["title"] != "Plan a trip to Lisbon" || m["bytes"].(float64) < before {
		t.Fatalf("after the append: %v (bytes before %v)", m, before)
	}
}
