package edge

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// objectCall sends one request to a tree's object as its glue does: with the
// router's tenant header, and the client's name and If-Match when given.
func objectCall(t *testing.T, h *Handler, method, path, body, client, ifMatch string, heldMs int) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest(method, path, strings.NewReader(body))
	r.Header.Set(HeaderTenant, "alice")
	if path == "/v1/trees" {
		r.Header.Set(HeaderCreate, strings.Repeat("ab", 16))
	}
	if client != "" {
		r.Header.Set(ClientHeader, client)
	}
	if ifMatch != "" {
		r.Header.Set("If-Match", ifMatch)
	}
	if heldMs > 0 {
		r.Header.Set(HeaderHeld, strconv.Itoa(heldMs))
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

const appendOps = `{"ops":[{"op":"append","message":{"role":"user","content":"x"}}]}`

func newTurnsObject(t *testing.T, now *int64) (*Handler, string, string) {
	h := New(Config{Store: NewMemStore(), Role: RoleObject, Now: func() int64 { return *now }})
	c := objectCall(t, h, "POST", "/v1/trees", "", "", "", 0)
	if c.Code != 201 {
		t.Fatalf("create: %d %s", c.Code, c.Body)
	}
	return h, "/v1/trees/" + strings.Repeat("ab", 16) + "/ops", c.Header().Get("ETag")
}

func wantHeld(t *testing.T, what string, w *httptest.ResponseRecorder) {
	t.Helper()
	if w.Code != 503 || w.Header().Get(HeaderHold) == "" {
		t.Fatalf("%s: %d %q %s, want held", what, w.Code, w.Header().Get(HeaderHold), w.Body)
	}
}

func TestOnlyTheHeadOfTheLineIsServedAndTheOthersAreHeldWhateverTheirETag(t *testing.T) {
	now := int64(1_800_000_000_000)
	h, ops, v1 := newTurnsObject(t, &now)
	// b writes first; a, with the ETag it read before, loses: it is the head.
	b := objectCall(t, h, "POST", ops, appendOps, "b", v1, 0)
	if b.Code != 200 {
		t.Fatalf("b: %d %s", b.Code, b.Body)
	}
	v2 := b.Header().Get("ETag")
	if a := objectCall(t, h, "POST", ops, appendOps, "a", v1, 0); a.Code != 412 {
		t.Fatalf("a with a stale ETag: %d %s", a.Code, a.Body)
	}
	// b writes again at once with the current ETag: held, in line after a;
	// c, stale, is held too (no 412 that would only send it to read), and
	// so is a writer without a name.
	now += 5
	wantHeld(t, "b while a is due", objectCall(t, h, "POST", ops, appendOps, "b", v2, 0))
	wantHeld(t, "c while a is due", objectCall(t, h, "POST", ops, appendOps, "c", v1, 0))
	wantHeld(t, "a writer without a name", objectCall(t, h, "POST", ops, appendOps, "", v2, 0))
	// a, having read the tree again, writes: it goes in, and b is named next.
	a := objectCall(t, h, "POST", ops, appendOps, "a", v2, 0)
	if a.Code != 200 || a.Header().Get(HeaderNext) != "b" {
		t.Fatalf("a's turn: %d next %q %s", a.Code, a.Header().Get(HeaderNext), a.Body)
	}
	// b's held write, asked again, meets a's ETag: 412 at once (b is the
	// head); c is still held.
	if again := objectCall(t, h, "POST", ops, appendOps, "b", v2, 10); again.Code != 412 {
		t.Fatalf("b after a's write: %d %s", again.Code, again.Body)
	}
	wantHeld(t, "c while b is due", objectCall(t, h, "POST", ops, appendOps, "c", v1, 20))
	v3 := a.Header().Get("ETag")
	if w := objectCall(t, h, "POST", ops, appendOps, "b", v3, 0); w.Code != 200 || w.Header().Get(HeaderNext) != "c" {
		t.Fatalf("b's turn: %d next %q %s", w.Code, w.Header().Get(HeaderNext), w.Body)
	}
}

func TestAWriteIsHeldNoLongerThanHoldMaxAndAHeadThatWentAwayLosesItsPlace(t *testing.T) {
	now := int64(1_800_000_000_000)
	h, ops, etag := newTurnsObject(t, &now)
	if a := objectCall(t, h, "POST", ops, appendOps, "a", `"0-stale"`, 0); a.Code != 412 {
		t.Fatalf("a: %d %s", a.Code, a.Body)
	}
	b := objectCall(t, h, "POST", ops, appendOps, "b", etag, HoldMaxMs)
	if b.Code != 200 {
		t.Fatalf("b held for HoldMaxMs: %d %s", b.Code, b.Body)
	}
	wantHeld(t, "c while a is due", objectCall(t, h, "POST", ops, appendOps, "c", "*", 0))
	now += grantMs + 1 // a never came back after its 412
	if w := objectCall(t, h, "POST", ops, appendOps, "c", "*", 0); w.Code != 200 {
		t.Fatalf("c after a went away: %d %s", w.Code, w.Body)
	}
	// Without If-Match, nobody is held.
	if a := objectCall(t, h, "POST", ops, appendOps, "a", `"0-stale"`, 0); a.Code != 412 {
		t.Fatalf("a: %d", a.Code)
	}
	if w := objectCall(t, h, "POST", ops, appendOps, "b", "", 0); w.Code != http.StatusOK {
		t.Fatalf("b without If-Match: %d %s", w.Code, w.Body)
	}
}

// The clock stands still while an object runs (workerd holds it during a
// synchronous call, and a group of writes is one call): writers that join the
// line at the same millisecond keep the order they joined in. A head told its
// turn (its 412) stays the head when writers named earlier in the alphabet
// join after it, and its next write goes in at once instead of being held.
func TestTheLineKeepsTheOrderWritersJoinedInWhenTheClockStandsStill(t *testing.T) {
	now := int64(1_800_000_000_000) // never advanced in this test
	h, ops, v1 := newTurnsObject(t, &now)
	if w := objectCall(t, h, "POST", ops, appendOps, "w9", v1, 0); w.Code != 200 {
		t.Fatalf("w9: %d %s", w.Code, w.Body)
	}
	head := objectCall(t, h, "POST", ops, appendOps, "w5", v1, 0)
	if head.Code != 412 {
		t.Fatalf("w5, stale and first in line: %d, want its 412 at once", head.Code)
	}
	for _, c := range []string{"w1", "w2", "a0"} { // later, and earlier by name
		wantHeld(t, c, objectCall(t, h, "POST", ops, appendOps, c, v1, 0))
	}
	if w := objectCall(t, h, "POST", ops, appendOps, "w5", head.Header().Get("ETag"), 0); w.Code != 200 {
		t.Fatalf("the head's write with the current ETag: %d %s, want it in", w.Code, w.Body)
	} else if next := w.Header().Get(HeaderNext); next != "w1" {
		t.Fatalf("next after w5: %q, want w1, the first to join after it", next)
	}
}

// A held writer asks again within a couple of seconds, not only at
// HoldMaxMs: a head that was told its turn and went away holds the line for
// about its grant, and the next writer is served when it asks again.
func TestAHeadThatWentAwayHoldsTheLineForSecondsNotTheWholeHold(t *testing.T) {
	now := int64(1_800_000_000_000)
	h, ops, v1 := newTurnsObject(t, &now)
	b := objectCall(t, h, "POST", ops, appendOps, "b", v1, 0)
	if b.Code != 200 {
		t.Fatalf("b: %d", b.Code)
	}
	if a := objectCall(t, h, "POST", ops, appendOps, "a", v1, 0); a.Code != 412 {
		t.Fatalf("a: %d, want its 412 (the head)", a.Code) // a then goes away
	}
	c := objectCall(t, h, "POST", ops, appendOps, "c", b.Header().Get("ETag"), 0)
	wantHeld(t, "c behind a", c)
	step, _ := strconv.Atoi(c.Header().Get(HeaderHold))
	if step <= 0 || step > 2*grantMs {
		t.Fatalf("c is asked again after %d ms, want at most %d", step, 2*grantMs)
	}
	now += int64(step)
	if c := objectCall(t, h, "POST", ops, appendOps, "c", b.Header().Get("ETag"), step); c.Code != 200 {
		t.Fatalf("c asked again after a went away: %d %s, want its write in", c.Code, c.Body)
	}
}

// slowNet delays every request by a millisecond, as a network does: the
// writers of a test overlap as they do over HTTP.
type slowNet struct{ http.Handler }

func (s slowNet) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	time.Sleep(time.Millisecond)
	s.Handler.ServeHTTP(w, r)
}

// Issue 25 §3: 32 plain HTTP clients appending with If-Match and reading
// the tree again on 412, none of them sending ClientHeader: each gets a write
// in within 5 s, first come first served: nobody writes a third time before
// the last has written once.
func TestPlainIfMatchWritersWithoutANameAllGetTurns(t *testing.T) {
	f := newFabric(t)
	c := newClient(t, slowNet{f}, "alice")
	id := c.create("")
	const writers = 32
	var mu sync.Mutex
	var order []int // the writer of each write that went in
	first := make([]time.Duration, writers)
	var ready, wg sync.WaitGroup
	ready.Add(writers)
	begin := make(chan struct{})
	var start time.Time
	for i := 0; i < writers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			etag := c.do("GET", "/v1/trees/"+id, "").header.Get("ETag")
			ready.Done()
			<-begin
			for wrote := 0; wrote < 3 && time.Since(start) < 5*time.Second; {
				r := c.do("POST", "/v1/trees/"+id+"/ops", appendOps, "If-Match", etag)
				switch r.status {
				case 200:
					mu.Lock()
					order = append(order, i)
					if wrote == 0 {
						first[i] = time.Since(start)
					}
					mu.Unlock()
					wrote++
					etag = r.header.Get("ETag")
				case 412:
					etag = c.do("GET", "/v1/trees/"+id, "").header.Get("ETag")
				default:
					t.Errorf("append: %d %s", r.status, r.body)
					return
				}
			}
		}()
	}
	ready.Wait()
	start = time.Now()
	close(begin)
	wg.Wait()
	counts := make([]int, writers)
	seen := 0
	for _, w := range order {
		if counts[w]++; counts[w] == 1 {
			seen++
		} else if counts[w] == 3 && seen < writers {
			t.Errorf("writer %d wrote a third time when %d of %d had written once", w, seen, writers)
		}
	}
	for i, d := range first {
		if d == 0 {
			t.Errorf("writer %d got no write in within 5 s", i)
		}
	}
	t.Logf("%d writes; the last first write after %v", len(order), slices.Max(first))
}
