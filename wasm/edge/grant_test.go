//go:build !js || stock

package edge

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// tenantBytes is what tenant's trees take as stored in store, in all.
func tenantBytes(store *MemStore, tenant string) int64 {
	store.mu.Lock()
	defer store.mu.Unlock()
	var n int64
	for _, t := range store.trees {
		if t.meta.Tenant == tenant {
			n += t.bytes()
		}
	}
	return n
}

// Before grants, the bytes quota was checked at creates only: a tenant
// created small trees under it and then grew each by appends without bound.
// Four trees grown at once by writers racing each other: the tenant's trees
// never take more than its quota, each refusal is 429 quota_exceeded naming
// the bytes and stores nothing, and a deleted tree makes room again.
func TestATenantsTreesGrowOnlyWithinItsQuotaOfBytes(t *testing.T) {
	store := NewMemStore()
	const quota = 200 << 10
	h := New(Config{Store: slowStore{store}, SigningKey: testKey, Quota: Quota{Bytes: quota}})
	c := newClient(t, h, "alice")
	ids, leaves := make([]string, 4), make([]string, 4)
	for i := range ids {
		ids[i] = c.create(`{"messages":[{"role":"system","content":"be brief"}]}`)
	}
	var mu sync.Mutex
	made, refused := 0, 0
	var wg sync.WaitGroup
	for k, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 40; i++ {
				r := c.appendMsg(id, strconv.Itoa(i)+strings.Repeat(" words", 400))
				mu.Lock()
				switch {
				case r.status == 200:
					made++
					leaves[k] = r.json(t)["results"].([]any)[0].(string)
				case r.status == 429 && strings.Contains(string(r.body), `"quota_exceeded"`) && strings.Contains(string(r.body), `"limit":"bytes"`) &&
					strings.Contains(string(r.body), "nothing was stored"):
					refused++
				default:
					t.Errorf("append: %d %s", r.status, r.body)
				}
				if got := tenantBytes(store, "alice"); got > quota {
					t.Errorf("the tenant's trees take %d bytes, past its quota of %d", got, quota)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if refused == 0 {
		t.Fatalf("160 appends of 2.4 KB each went into trees under a quota of %d bytes", quota)
	}
	if got := tenantBytes(store, "alice"); got < quota-8<<10 {
		t.Fatalf("refused with the tenant's trees at %d bytes, with room under %d", got, quota)
	}
	t.Logf("%d appends went in, %d were refused; the trees take %d bytes of %d", made, refused, tenantBytes(store, "alice"), quota)
	// Each tree's size, as the Handler counted it write by write, is exact.
	metas, _ := store.List(context.Background(), "alice", Cursor{}, maxListPage)
	for _, m := range metas {
		if got := storedBytes(store, m.ID); m.Bytes != got {
			t.Errorf("tree %s: counted %d bytes, its rows take %d", m.ID, m.Bytes, got)
		}
	}
	// Whatever does not grow a tree still goes in: a label on the leaf of a
	// tree that took an append (the racing writers may have filled the quota
	// before one tree took any).
	k := slices.IndexFunc(leaves, func(leaf string) bool { return leaf != "" })
	if k < 0 {
		t.Fatal("no tree took an append")
	}
	if r := c.do("POST", "/v1/trees/"+ids[k]+"/ops", `{"ops":[{"op":"label","node":"`+leaves[k]+`","label":"x"}]}`); r.status != 200 {
		t.Fatalf("a label on a tree at its tenant's quota: %d %s", r.status, r.body)
	}
	// Another tenant is not held back by this one.
	bob := newClient(t, h, "bob")
	if r := bob.appendMsg(bob.create(`{"messages":[]}`), strings.Repeat("b", 50_000)); r.status != 200 {
		t.Fatalf("another tenant's append: %d %s", r.status, r.body)
	}
	// A deleted tree gives its bytes back.
	freed := storedBytes(store, ids[1])
	if r := c.do("DELETE", "/v1/trees/"+ids[1], ""); r.status != 204 {
		t.Fatalf("delete: %d %s", r.status, r.body)
	}
	if r := c.appendMsg(ids[0], strings.Repeat("a", int(freed)/2)); r.status != 200 {
		t.Fatalf("an append after a delete made room: %d %s", r.status, r.body)
	}
}

// A grant is the tree's as long as it lives: it counts against creates too,
// and no grant passes the quota.
func TestAGrantCountsAgainstTheTenantsCreates(t *testing.T) {
	store := NewMemStore()
	const quota = 100 << 10
	h := New(Config{Store: store, SigningKey: testKey, Quota: Quota{Bytes: quota}})
	c := newClient(t, h, "alice")
	id := c.create(`{"messages":[]}`)
	ctx := context.Background()
	if _, ok, err := store.Grant(ctx, "alice", id, quota+1, Quota{Bytes: quota}); ok || err != nil {
		t.Fatalf("a grant past the quota: ok %v, %v", ok, err)
	}
	if _, ok, err := store.Grant(ctx, "alice", id, quota, Quota{Bytes: quota}); !ok || err != nil {
		t.Fatalf("a grant of the whole quota: ok %v, %v", ok, err)
	}
	if r := c.do("POST", "/v1/trees", `{"messages":[]}`); r.status != 429 || !strings.Contains(string(r.body), "over its quota") {
		t.Fatalf("a create with the tenant's quota granted: %d %s", r.status, r.body)
	}
	if r := c.appendMsg(id, strings.Repeat("g", 10_000)); r.status != 200 {
		t.Fatalf("an append within the tree's grant: %d %s", r.status, r.body)
	}
	if r := c.do("DELETE", "/v1/trees/"+id, ""); r.status != 204 {
		t.Fatalf("delete: %d %s", r.status, r.body)
	}
	if r := c.do("POST", "/v1/trees", `{"messages":[]}`); r.status != 201 {
		t.Fatalf("a create once the granted tree is deleted: %d %s", r.status, r.body)
	}
}
