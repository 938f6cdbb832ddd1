//go:build !js

package httpsuite

import (
	"strconv"
	"sync"
	"testing"

	"github.com/sessiontree/sessiontree/core"
)

// syncDevice is one offline device's sync: pull the stored tree, merge it into
// the local copy, push the result to /merge with If-Match, and on 412 again.
func syncDevice(t *testing.T, c *client, id string, local *core.Tree) {
	for attempt := 0; attempt < 50; attempt++ {
		r := c.do("GET", "/v1/trees/"+id, "")
		if r.status != 200 {
			t.Errorf("pull: %d %s", r.status, r.body)
			return
		}
		remote, err := core.Unmarshal(r.body)
		if err != nil {
			t.Errorf("pull: %v", err)
			return
		}
		if _, err := local.Merge(remote); err != nil {
			t.Errorf("merge: %v", err)
			return
		}
		p := c.do("POST", "/v1/trees/"+id+"/merge", string(local.Marshal()), "If-Match", r.header.Get("ETag"))
		switch p.status {
		case 200:
			return
		case 412:
			continue
		default:
			t.Errorf("push: %d %s", p.status, p.body)
			return
		}
	}
	t.Errorf("sync did not get through in 50 attempts")
}

func TestTwoSyncClientsPushingConcurrentlyConvergeWithNothingLost(t *testing.T) {
	c := &client{t: t, token: token(t, "merge-tenant")}
	id, _ := c.create(`{"messages":[{"role":"user","content":"start"}]}`)
	base, err := core.Unmarshal(c.do("GET", "/v1/trees/"+id, "").body)
	if err != nil {
		t.Fatal(err)
	}
	devices := []*core.Tree{base.Clone(), base.Clone()}
	var wg sync.WaitGroup
	for d, local := range devices {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 6 {
				m := core.Message(`{"role":"user","content":"device ` + strconv.Itoa(d) + ` turn ` + strconv.Itoa(i) + `"}`)
				if _, err := local.Append(m, int64(100+i)); err != nil {
					t.Error(err)
				}
				syncDevice(t, c, id, local)
			}
		}()
	}
	wg.Wait()
	for _, local := range devices {
		syncDevice(t, c, id, local)
	}
	stored, err := core.Unmarshal(c.do("GET", "/v1/trees/"+id, "").body)
	if err != nil {
		t.Fatal(err)
	}
	if stored.Len() != 13 {
		t.Fatalf("the stored tree has %d nodes, want 13 (1 + 6 from each device)", stored.Len())
	}
	for d, local := range devices {
		if string(local.Marshal()) != string(stored.Marshal()) {
			t.Fatalf("device %d did not converge with the stored tree", d)
		}
	}
	if p := stored.Validate(); len(p) > 0 {
		t.Fatalf("%+v", p)
	}
}
