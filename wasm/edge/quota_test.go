//go:build !js || stock

package edge

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"
)

// slowStore is a MemStore whose reads and creates take a moment, as a real
// database's round trips do: a quota checked apart from the create it
// admits lets every create of the moment through.
type slowStore struct{ *MemStore }

func (s slowStore) List(ctx context.Context, tenant string) ([]Meta, error) {
	time.Sleep(2 * time.Millisecond)
	return s.MemStore.List(ctx, tenant)
}

func (s slowStore) Create(ctx context.Context, w Write) error {
	time.Sleep(2 * time.Millisecond)
	return s.MemStore.Create(ctx, w)
}

// createAtOnce sends n creates of body at once and returns how many were
// made and how many were refused with 429 quota_exceeded.
func createAtOnce(t *testing.T, c *client, n int, body string) (made, refused int) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := c.do("POST", "/v1/trees", body)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case r.status == 201:
				made++
			case r.status == 429 && strings.Contains(string(r.body), `"quota_exceeded"`):
				refused++
			default:
				t.Errorf("create: %d %s", r.status, r.body)
			}
		}()
	}
	wg.Wait()
	return made, refused
}

func TestFiftyCreatesAtOnceMakeExactlyTheQuotaOfTrees(t *testing.T) {
	store := NewMemStore()
	h := New(Config{Store: slowStore{store}, SigningKey: testKey, Quota: Quota{Trees: 5}})
	c := newClient(t, h, "alice")
	if made, refused := createAtOnce(t, c, 50, ""); made != 5 || refused != 45 {
		t.Fatalf("50 creates at once under a quota of 5 trees: %d made, %d refused", made, refused)
	}
	if got, _ := store.List(context.Background(), "alice"); len(got) != 5 {
		t.Fatalf("the tenant holds %d trees, want 5", len(got))
	}
	// A create that fails gives its place back.
	if r := c.do("POST", "/v1/trees", "{"); r.status != 429 {
		t.Fatalf("at the quota, even a bad body is refused first: %d %s", r.status, r.body)
	}
	bob := newClient(t, h, "bob")
	if r := bob.do("POST", "/v1/trees", "{"); r.status != 400 {
		t.Fatalf("a bad create: %d %s", r.status, r.body)
	}
	if made, _ := createAtOnce(t, bob, 10, ""); made != 5 {
		t.Fatalf("after a failed create, bob made %d of his 5", made)
	}
}

func TestFiftyCreatesAtOnceStayUnderTheQuotaOfBytes(t *testing.T) {
	store := NewMemStore()
	body := `{"messages":[{"role":"user","content":"` + strings.Repeat("x", 100_000) + `"}]}`
	// Each tree takes a little more than its body: 4.5 bodies leave room for 5.
	h := New(Config{Store: slowStore{store}, SigningKey: testKey, Quota: Quota{Bytes: int64(len(body)) * 9 / 2}})
	c := newClient(t, h, "alice")
	if made, refused := createAtOnce(t, c, 50, body); made != 5 || refused != 45 {
		t.Fatalf("50 creates at once under a quota of 4.5 trees' bytes: %d made, %d refused", made, refused)
	}
	r := c.do("POST", "/v1/trees", body)
	if r.status != 429 || !strings.Contains(string(r.body), "bytes, over its quota") {
		t.Fatalf("over the bytes: %d %s", r.status, r.body)
	}
}
