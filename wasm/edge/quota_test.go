//go:build !js || stock

package edge

import (
	"context"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// slowStore is a MemStore whose reads and creates take a moment, as a real
// database's round trips do: a quota checked apart from the create it
// admits lets every create of the moment through.
type slowStore struct{ *MemStore }

func (s slowStore) List(ctx context.Context, tenant string, after Cursor, limit int) ([]Meta, error) {
	time.Sleep(2 * time.Millisecond)
	return s.MemStore.List(ctx, tenant, after, limit)
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
	if got, _ := store.List(context.Background(), "alice", Cursor{}, maxListPage); len(got) != 5 {
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
	// Each tree takes a little more than its body: 4.5 bodies leave room
	// for 4 (a fifth would take the tenant past its quota).
	h := New(Config{Store: slowStore{store}, SigningKey: testKey, Quota: Quota{Bytes: int64(len(body)) * 9 / 2}})
	c := newClient(t, h, "alice")
	if made, refused := createAtOnce(t, c, 50, body); made != 4 || refused != 46 {
		t.Fatalf("50 creates at once under a quota of 4.5 trees' bytes: %d made, %d refused", made, refused)
	}
	r := c.do("POST", "/v1/trees", body)
	if r.status != 429 || !strings.Contains(string(r.body), `"limit":"bytes"`) {
		t.Fatalf("over the bytes: %d %s", r.status, r.body)
	}
}

// A create's place under the bytes quota is the size its tree takes as
// stored, not its body's: a {"messages":[…]} body of short messages stores
// rows about twelve times its size (each node's id, links and time), and
// creates racing each other, each counted at its body, took the tenant far
// past its quota (24 at once under 4 MiB: 17 MB). A create that would take
// the tenant past its quota is refused, 429 quota_exceeded with
// "limit":"bytes", and stores nothing.
func TestCreatesOfShortMessagesAtOnceStayWithinTheQuotaOfBytes(t *testing.T) {
	store := NewMemStore()
	body := `{"messages":[` + strings.TrimSuffix(strings.Repeat(`{"role":"user"},`, 6000), ",") + `]}`
	const quota = 2 << 20
	h := New(Config{Store: slowStore{store}, SigningKey: testKey, Quota: Quota{Bytes: quota}})
	c := newClient(t, h, "alice")
	made, refused := createAtOnce(t, c, 16, body)
	held := tenantBytes(store, "alice")
	if held > quota {
		t.Fatalf("16 creates of a %d-byte body at once: %d made; the tenant's trees take %d bytes, past its quota of %d", len(body), made, held, quota)
	}
	one := held / int64(max(made, 1))
	if made == 0 || held+one <= quota {
		t.Fatalf("%d made, %d refused, taking %d bytes: room for another tree of %d under %d", made, refused, held, one, quota)
	}
	// One more, alone, with the tenant under its quota but no room for the
	// tree: refused, naming the bytes.
	r := c.do("POST", "/v1/trees", body)
	wantError(t, r, 429, "quota_exceeded")
	if !strings.Contains(string(r.body), `"limit":"bytes"`) {
		t.Fatalf("a create that would pass the quota: %s", r.body)
	}
	if got := tenantBytes(store, "alice"); got != held {
		t.Fatalf("a refused create changed what the tenant holds: %d, was %d", got, held)
	}
}

// Creates in flight must not refuse each other for their estimates: four
// reservations at a body's estimate, then their grants of a tree's rows one
// after another, two trees' worth of room. Each grant counted the other
// reservations at their estimates, so after the first, none fitted (one tree
// made where two fit: the clean-clone run on Dec 8, with the machine busy).
// A grant now counts the grants made and the reservations made before it.
func TestGrantsOfCreatesInFlightMakeAsManyTreesAsFit(t *testing.T) {
	s := NewMemStore()
	ctx := context.Background()
	const estimate, rows = 112 << 10, 942 << 10
	q := Quota{Bytes: 2*rows + 100<<10}
	ids := []string{"a", "b", "c", "d"}
	for _, id := range ids {
		if _, ok, err := s.Reserve(ctx, "alice", id, estimate, q); !ok || err != nil {
			t.Fatalf("reserve %s: %v %v", id, ok, err)
		}
	}
	var granted, refused []string
	for _, id := range ids {
		if _, ok, err := s.Grant(ctx, "alice", id, rows, q); err != nil {
			t.Fatal(err)
		} else if ok {
			granted = append(granted, id)
		} else {
			refused = append(refused, id)
		}
	}
	for _, id := range refused { // their requests end after the others' grants
		s.Release(ctx, "alice", id)
	}
	if len(granted) != 2 {
		t.Fatalf("granted %v: two trees' worth of room, want two", granted)
	}
	if u := s.usage("alice", ""); u.Bytes > q.Bytes {
		t.Fatalf("the tenant holds %d bytes past its quota %d", u.Bytes, q.Bytes)
	}
	// Granted in the other order: the newest first, while the others are
	// still estimates made before it, then the rest.
	s = NewMemStore()
	for _, id := range ids {
		s.Reserve(ctx, "alice", id, estimate, q)
	}
	granted = granted[:0]
	for i := len(ids) - 1; i >= 0; i-- {
		if _, ok, _ := s.Grant(ctx, "alice", ids[i], rows, q); ok {
			granted = append(granted, ids[i])
		} else {
			s.Release(ctx, "alice", ids[i])
		}
	}
	if len(granted) != 2 {
		t.Fatalf("granted %v, newest first: want two", granted)
	}
	if u := s.usage("alice", ""); u.Bytes > q.Bytes {
		t.Fatalf("the tenant holds %d bytes past its quota %d", u.Bytes, q.Bytes)
	}
}

// In the worker the router's glue reserves a create's place before its body
// is read, at its body's size and a little more, and hands the reservation
// to the tree's object (HeaderGrant). The object refuses a tree that takes
// more, saying what it takes (HeaderNeed), and keeps the tree it built: its
// glue raises the reservation if the quota leaves the room and sends the
// same create again, which stores that tree without building it again.
func TestAnObjectRefusesACreatePastItsReservationAndKeepsItsTreeForTheCallAgain(t *testing.T) {
	now := int64(1_800_000_000_000)
	h := New(Config{Store: NewMemStore(), Role: RoleObject, Now: func() int64 { return now }})
	id := strings.Repeat("cd", 16)
	body := `{"messages":[` + strings.TrimSuffix(strings.Repeat(`{"role":"user"},`, 100), ",") + `]}`
	call := func(grant string) *httptest.ResponseRecorder {
		r := httptest.NewRequest("POST", "/v1/trees", strings.NewReader(body))
		r.Header.Set(HeaderTenant, "alice")
		r.Header.Set(HeaderCreate, id)
		r.Header.Set(HeaderGrant, grant)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	first := call(strconv.Itoa(len(body)) + " 1000000")
	need, _ := strconv.Atoi(first.Header().Get(HeaderNeed))
	if first.Code != 429 || need <= len(body) || !strings.Contains(first.Body.String(), `"limit":"bytes"`) {
		t.Fatalf("a create past its reservation: %d need %q %s", first.Code, first.Header().Get(HeaderNeed), first.Body)
	}
	if first.Header().Get(HeaderRows) != "" {
		t.Fatalf("a refused create reports rows: %q", first.Header().Get(HeaderRows))
	}
	now += 5000
	again := call(strconv.Itoa(need) + " 1000000")
	if again.Code != 201 || again.Header().Get(HeaderRows) != strconv.Itoa(need) {
		t.Fatalf("the create sent again with its need reserved: %d rows %q %s", again.Code, again.Header().Get(HeaderRows), again.Body)
	}
	if h.KeptBytes() != 0 {
		t.Fatalf("the built create is still kept: %d bytes", h.KeptBytes())
	}
	// The tree is the one the first call built (its time is that call's).
	g := httptest.NewRequest("GET", "/v1/trees/"+id, nil)
	g.Header.Set(HeaderTenant, "alice")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, g)
	if !strings.Contains(w.Body.String(), `"created_at_ms":1800000000000`) || strings.Contains(w.Body.String(), `"created_at_ms":1800000005000`) {
		t.Fatalf("the tree stored was built again: %.300s", w.Body)
	}
}
