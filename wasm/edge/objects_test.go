//go:build !js || stock

package edge

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// fabric does in Go what glue/isolate.mjs does on the platform: a router
// answers every request first; when it names an object, the request goes to
// that object (one Handler and store per name, made on first use) with the
// router's X-Sessiontree- headers and no other header of that prefix. A
// write an object holds for an earlier writer's turn (HeaderHold) is asked
// again, as the glue does, when a write names its place next (HeaderNext) or
// after the hold, with its place in line (HeaderTurn).
type fabric struct {
	t       *testing.T
	router  *Handler
	index   *MemStore
	mu      sync.Mutex
	objects map[string]*Handler
	stores  map[string]*MemStore
	held    map[string][]chan struct{} // place in line → its held writes' wakers
	woken   map[string]bool            // places named before their write waited
}

func newFabric(t *testing.T) *fabric {
	f := &fabric{t: t, index: NewMemStore(), objects: map[string]*Handler{}, stores: map[string]*MemStore{}, held: map[string][]chan struct{}{}, woken: map[string]bool{}}
	f.router = New(Config{Store: f.index, SigningKey: testKey, Role: RoleRouter})
	return f
}

func (f *fabric) object(name string) *Handler {
	f.mu.Lock()
	defer f.mu.Unlock()
	if h := f.objects[name]; h != nil {
		return h
	}
	s := NewMemStore()
	h := New(Config{Store: s, Role: RoleObject, OnWrite: f.index.Index})
	f.objects[name], f.stores[name] = h, s
	return h
}

func (f *fabric) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rec := httptest.NewRecorder()
	f.router.ServeHTTP(rec, r.Clone(r.Context()))
	name := rec.Header().Get(HeaderObject)
	if name == "" {
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		w.Write(rec.Body.Bytes())
		return
	}
	start, place := time.Now(), ""
	for {
		fwd := r.Clone(r.Context())
		fwd.Body = io.NopCloser(bytes.NewReader(body))
		for k := range fwd.Header {
			if strings.HasPrefix(strings.ToLower(k), "x-sessiontree-") {
				fwd.Header.Del(k)
			}
		}
		for k, v := range rec.Header() {
			if strings.HasPrefix(strings.ToLower(k), "x-sessiontree-") && k != HeaderObject {
				fwd.Header[k] = v
			}
		}
		if place != "" {
			fwd.Header.Set(HeaderHeld, strconv.FormatInt(max(1, time.Since(start).Milliseconds()), 10))
			fwd.Header.Set(HeaderTurn, place)
		}
		out := httptest.NewRecorder()
		f.object(name).ServeHTTP(out, fwd)
		hold, _ := strconv.Atoi(out.Header().Get(HeaderHold))
		if hold == 0 {
			if next := out.Header().Get(HeaderNext); next != "" {
				f.wake(next)
			}
			for k, v := range out.Header() {
				w.Header()[k] = v
			}
			w.WriteHeader(out.Code)
			w.Write(out.Body.Bytes())
			return
		}
		woken := make(chan struct{}, 1)
		place = out.Header().Get(HeaderTurn)
		f.mu.Lock()
		if f.held[place] == nil && f.woken[place] { // named before it waited
			woken <- struct{}{}
		}
		delete(f.woken, place)
		f.held[place] = append(f.held[place], woken)
		f.mu.Unlock()
		select {
		case <-woken:
		case <-time.After(time.Duration(hold) * time.Millisecond):
		}
	}
}

// wake asks the writes held at place again.
func (f *fabric) wake(place string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, c := range f.held[place] {
		c <- struct{}{}
	}
	f.woken[place] = f.held[place] == nil // the glue is one thread; here the write may wait a moment later
	delete(f.held, place)
}

// With a router and one object per tree, the API of SPEC §6 is the same: a
// tree is created, written, read, listed, merged and deleted; another tenant
// cannot reach it; a header of the router's own forged by a client changes nothing.
func TestARouterAndOneObjectPerTreeServeTheSameAPI(t *testing.T) {
	f := newFabric(t)
	c := newClient(t, f, "alice")
	id := c.create(`{"messages":[{"role":"user","content":"hi"}]}`)
	if len(f.objects) != 1 || f.objects[ObjectName("alice", id)] == nil {
		t.Fatalf("objects: %v", f.objects)
	}
	r := c.appendMsg(id, "more")
	if r.status != 200 {
		t.Fatalf("append: %d %s", r.status, r.body)
	}
	got := c.do("GET", "/v1/trees/"+id, "")
	if got.status != 200 || got.header.Get("ETag") != r.header.Get("ETag") {
		t.Fatalf("get: %d %s", got.status, got.body)
	}
	list := c.do("GET", "/v1/trees", "").json(t)["trees"].([]any)
	if len(list) != 1 || list[0].(map[string]any)["etag"] != r.header.Get("ETag") {
		t.Fatalf("the list does not show the tree at its ETag: %v", list)
	}
	if m := c.do("POST", "/v1/trees/"+id+"/merge", string(got.body)); m.status != 200 {
		t.Fatalf("merge: %d %s", m.status, m.body)
	}
	bob := newClient(t, f, "bob")
	wantError(t, bob.do("GET", "/v1/trees/"+id, ""), 404, "not_found")
	wantError(t, bob.do("GET", "/v1/trees/"+id, "", HeaderTenant, "alice"), 404, "not_found")
	wantError(t, bob.appendMsg(id, "intruder"), 404, "not_found")
	if msgs := c.do("GET", "/v1/trees/"+id+"/projection", "").json(t)["messages"].([]any); len(msgs) != 2 {
		t.Fatalf("projection: %v", msgs)
	}
	// An object reached without its router's headers serves nothing.
	anon := &client{t: t, h: f.object(ObjectName("alice", id))}
	wantError(t, anon.do("GET", "/v1/trees/"+id, ""), 500, CodeInternal)
	if d := c.do("DELETE", "/v1/trees/"+id, ""); d.status != 204 {
		t.Fatalf("delete: %d %s", d.status, d.body)
	}
	if list := c.do("GET", "/v1/trees", "").json(t)["trees"].([]any); len(list) != 0 {
		t.Fatalf("the list still shows a deleted tree: %v", list)
	}
	wantError(t, c.do("GET", "/v1/trees/"+id, ""), 404, "not_found")
}

// A create retried with its Idempotency-Key reaches the same object (the id
// is derived from tenant and key) and gets the same answer: one tree.
func TestACreateRetriedWithItsKeyMakesOneTree(t *testing.T) {
	f := newFabric(t)
	c := newClient(t, f, "alice")
	a := c.do("POST", "/v1/trees", `{"messages":[]}`, "Idempotency-Key", "new-chat-1")
	b := c.do("POST", "/v1/trees", `{"messages":[]}`, "Idempotency-Key", "new-chat-1")
	if a.status != 201 || string(a.body) != string(b.body) || b.header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("%d %s / %d %s", a.status, a.body, b.status, b.body)
	}
	if list := c.do("GET", "/v1/trees", "").json(t)["trees"].([]any); len(list) != 1 {
		t.Fatalf("%d trees", len(list))
	}
	other := newClient(t, f, "bob").do("POST", "/v1/trees", `{"messages":[]}`, "Idempotency-Key", "new-chat-1")
	if other.status != 201 || other.json(t)["id"] == a.json(t)["id"] {
		t.Fatalf("another tenant's key gave the same tree: %s", other.body)
	}
}

// One object applies writes one at a time: 32 writers with If-Match, each
// re-reading on 412, all get their writes in, and none is lost.
func TestWritersOnOneObjectAllGetIn(t *testing.T) {
	f := newFabric(t)
	c := newClient(t, f, "alice")
	id := c.create("")
	var wg sync.WaitGroup
	for i := 0; i < 32; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 4; j++ {
				for {
					etag := c.do("GET", "/v1/trees/"+id, "").header.Get("ETag")
					r := c.do("POST", "/v1/trees/"+id+"/ops", `{"ops":[{"op":"append","message":{"role":"user"}}]}`, "If-Match", etag)
					if r.status == 200 {
						break
					}
					if r.status != 412 {
						t.Errorf("append: %d %s", r.status, r.body)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	if msgs := c.do("GET", "/v1/trees/"+id+"/projection", "").json(t)["messages"].([]any); len(msgs) != 128 {
		t.Fatalf("%d messages, want 128", len(msgs))
	}
}

// A create at the tenant's quota (the glue's HeaderQuota and HeaderUsage) is
// 429 quota_exceeded and makes nothing; under it, or a retry of a create that
// went in, is answered as usual; a handler that is no object ignores them.
func TestACreateOverTheTenantsQuotaIsRefused(t *testing.T) {
	obj := New(Config{Store: NewMemStore(), Role: RoleObject})
	create := func(h *Handler, id, quota, usage, key string) *httptest.ResponseRecorder {
		r := httptest.NewRequest("POST", "/v1/trees", strings.NewReader(`{"messages":[{"role":"user","content":"hi"}]}`))
		r.Header.Set(HeaderTenant, "alice")
		r.Header.Set(HeaderCreate, id)
		r.Header.Set(HeaderQuota, quota)
		r.Header.Set(HeaderUsage, usage)
		if key != "" {
			r.Header.Set("Idempotency-Key", key)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	id := func(c byte) string { return strings.Repeat(string(c), 32) }
	if w := create(obj, id('a'), "2 0", "1 5000", "k1"); w.Code != 201 {
		t.Fatalf("under the quota: %d %s", w.Code, w.Body)
	}
	for _, c := range []struct{ quota, usage string }{{"2 0", "2 5000"}, {"0 4096", "1 4096"}, {"2 4096", "7 9999"}} {
		w := create(obj, id('b'), c.quota, c.usage, "")
		if w.Code != 429 || !strings.Contains(w.Body.String(), `"quota_exceeded"`) {
			t.Fatalf("quota %q, usage %q: %d %s", c.quota, c.usage, w.Code, w.Body)
		}
	}
	if w := create(obj, id('a'), "2 0", "2 5000", "k1"); w.Code != 201 || w.Header().Get("Idempotent-Replayed") != "true" {
		t.Fatalf("the retry of a create that went in, at the quota: %d %s", w.Code, w.Body)
	}
	for i, bad := range []string{"", "2", "x y", "-1 0", "2 0 0"} {
		if w := create(obj, id("cdef0"[i]), bad, "9 9", ""); w.Code != 201 {
			t.Fatalf("quota header %q: %d %s", bad, w.Code, w.Body)
		}
	}
	plain := New(Config{Store: NewMemStore(), SigningKey: testKey})
	c := newClient(t, plain, "alice")
	if r := c.do("POST", "/v1/trees", "", HeaderQuota, "1 0", HeaderUsage, "5 0"); r.status != 201 {
		t.Fatalf("a handler that is no object: %d %s", r.status, r.body)
	}
}

// A create sent with an Idempotency-Key goes to the object the key names
// (createID), so that a retry finds the kept answer. A day later that answer
// is gone but the tree is not: the same key's create reaches an object that
// holds a tree, and was answered 500 for as long as the tree lived. It is
// 409 conflict naming the tree (the key made it; a new key makes a new
// tree), and the tree is unchanged.
func TestACreateWithAKeyWhoseAnswerExpiredIs409NamingItsTree(t *testing.T) {
	now := int64(1_800_000_000_000)
	clock := func() int64 { return now }
	router := New(Config{Store: NewMemStore(), SigningKey: testKey, Role: RoleRouter, Now: clock})
	objects := map[string]*Handler{}
	create := func(key, body string) *httptest.ResponseRecorder {
		tok, err := IssueToken(testKey, "alice", now/1000+3600)
		if err != nil {
			t.Fatal(err)
		}
		r := httptest.NewRequest("POST", "/v1/trees", strings.NewReader(body))
		r.Header.Set("Authorization", "Bearer "+tok)
		r.Header.Set("Idempotency-Key", key)
		routed := httptest.NewRecorder()
		router.ServeHTTP(routed, r)
		name := routed.Header().Get(HeaderObject)
		if objects[name] == nil {
			objects[name] = New(Config{Store: NewMemStore(), Role: RoleObject, Now: clock})
		}
		fwd := httptest.NewRequest("POST", "/v1/trees", strings.NewReader(body))
		fwd.Header.Set("Idempotency-Key", key)
		for _, k := range []string{HeaderTenant, HeaderCreate, HeaderExpires} {
			fwd.Header.Set(k, routed.Header().Get(k))
		}
		w := httptest.NewRecorder()
		objects[name].ServeHTTP(w, fwd)
		return w
	}
	body := `{"messages":[{"role":"user","content":"hi"}]}`
	first := create("conversation-42", body)
	if first.Code != 201 {
		t.Fatalf("create: %d %s", first.Code, first.Body)
	}
	id := strings.TrimPrefix(first.Header().Get("Location"), "/v1/trees/")
	if again := create("conversation-42", body); again.Code != 201 || again.Header().Get("Idempotent-Replayed") != "true" {
		t.Fatalf("the same create within a day: %d %s", again.Code, again.Body)
	}
	now += IdemKeepMs + 60_000
	for _, b := range []string{body, `{"messages":[{"role":"user","content":"another"}]}`} {
		w := create("conversation-42", b)
		if w.Code != 409 || !strings.Contains(w.Body.String(), `"conflict"`) || !strings.Contains(w.Body.String(), id) {
			t.Fatalf("the key's create a day later: %d %s, want 409 conflict naming %s", w.Code, w.Body, id)
		}
	}
	if w := create("conversation-43", body); w.Code != 201 {
		t.Fatalf("a new key's create: %d %s", w.Code, w.Body)
	}
}
