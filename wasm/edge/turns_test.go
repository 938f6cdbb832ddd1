//go:build !js || stock

package edge

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
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
// writers of a test overlap as they do over HTTP. It numbers the requests
// as they reach the server, after the delay: seq counts them, and arrived
// keeps the number of each writer's first write (headerTestWriter), so that
// a test can tell the order in which writers came from the order in which
// their goroutines happened to run.
type slowNet struct {
	http.Handler
	seq     *atomic.Int64
	mu      *sync.Mutex
	arrived map[string]int64
}

// headerTestWriter names a test's writer to slowNet; the server ignores it.
const headerTestWriter = "X-Test-Writer"

func newSlowNet(h http.Handler) slowNet {
	return slowNet{h, new(atomic.Int64), new(sync.Mutex), map[string]int64{}}
}

func (s slowNet) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	time.Sleep(time.Millisecond)
	n := s.seq.Add(1)
	if who := r.Header.Get(headerTestWriter); who != "" && r.Method == "POST" {
		s.mu.Lock()
		if _, ok := s.arrived[who]; !ok {
			s.arrived[who] = n
		}
		s.mu.Unlock()
	}
	s.Handler.ServeHTTP(w, r)
}

// etagVersion is the version an ETag names ("7-3fa2…": 7): the order in
// which the writes went in.
func etagVersion(t *testing.T, etag string) int64 {
	t.Helper()
	s := strings.TrimPrefix(strings.Trim(etag, `W/"`), `"`)
	if i := strings.IndexByte(s, '-'); i > 0 {
		s = s[:i]
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatalf("ETag %q names no version", etag)
	}
	return v
}

// Issue 25 §3: 32 plain HTTP clients appending with If-Match and reading
// the tree again on 412, none of them sending ClientHeader: each gets a write
// in within 5 s, first come first served: a writer that came for its third
// write does not get it before every writer that had come earlier (its first
// write reached the server before the third one was asked for) has written
// once. Order is the server's: arrivals as slowNet numbers them, writes by
// the version of the ETag they made, so a goroutine the scheduler starts
// late is not taken for a writer that was passed over.
func TestPlainIfMatchWritersWithoutANameAllGetTurns(t *testing.T) {
	f := newFabric(t)
	net := newSlowNet(f)
	c := newClient(t, net, "alice")
	id := c.create("")
	const writers = 32
	var mu sync.Mutex
	firstV := make([]int64, writers) // the version of each writer's first write
	thirdV := make([]int64, writers) // of its third
	asked3 := make([]int64, writers) // slowNet's count when it asked for its third
	first := make([]time.Duration, writers)
	var ready, wg sync.WaitGroup
	ready.Add(writers)
	begin := make(chan struct{})
	var start time.Time
	for i := 0; i < writers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			who := strconv.Itoa(i)
			etag := c.do("GET", "/v1/trees/"+id, "").header.Get("ETag")
			ready.Done()
			<-begin
			for wrote := 0; wrote < 3 && time.Since(start) < 5*time.Second; {
				r := c.do("POST", "/v1/trees/"+id+"/ops", appendOps, "If-Match", etag, headerTestWriter, who)
				switch r.status {
				case 200:
					etag = r.header.Get("ETag")
					v := etagVersion(t, etag)
					mu.Lock()
					switch wrote {
					case 0:
						first[i], firstV[i] = time.Since(start), v
					case 1:
						asked3[i] = net.seq.Load() // its next write comes after this
					case 2:
						thirdV[i] = v
					}
					mu.Unlock()
					wrote++
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
	for w := range writers {
		if thirdV[w] == 0 {
			continue
		}
		for x := range writers {
			came, ok := net.arrived[strconv.Itoa(x)]
			if ok && came < asked3[w] && (firstV[x] == 0 || firstV[x] > thirdV[w]) {
				t.Errorf("writer %d wrote a third time (version %d) before writer %d, which came earlier, wrote once (version %d)",
					w, thirdV[w], x, firstV[x])
			}
		}
	}
	for i, d := range first {
		if d == 0 {
			t.Errorf("writer %d got no write in within 5 s", i)
		}
	}
	t.Logf("the last first write after %v", slices.Max(first))
}

// A writer's turn ends with its write's answer, whatever it is: the head of
// the line whose write failed (a switch to a missing branch, 404; a body
// that is not JSON, 400; a label over its limit, 413) names the next writer
// and lets it in at once. Before, only a write that went in ended a turn: a
// head named by the write before it, its write failed, kept its place for
// turnKeepMs (30 s), and every other If-Match writer was held HoldMaxMs
// (10 s) behind it.
func TestAHeadWhoseWriteFailsEndsItsTurnAndTheNextWriterGoesIn(t *testing.T) {
	for _, fail := range []struct{ what, body string }{
		{"a switch to a missing branch", `{"ops":[{"op":"switch","branch":"nowhere"}]}`},
		{"a body that is not JSON", `{"ops":[`},
		{"a label over its limit", `{"ops":[{"op":"label","node":"x","label":"` + strings.Repeat("l", 4097) + `"}]}`},
	} {
		t.Run(fail.what, func(t *testing.T) {
			now := int64(1_800_000_000_000)
			h, ops, v1 := newTurnsObject(t, &now)
			b := objectCall(t, h, "POST", ops, appendOps, "b", v1, 0)
			if b.Code != 200 {
				t.Fatalf("b: %d %s", b.Code, b.Body)
			}
			// a lost (the head); c and then d wait behind it.
			if a := objectCall(t, h, "POST", ops, appendOps, "a", v1, 0); a.Code != 412 {
				t.Fatalf("a: %d %s", a.Code, a.Body)
			}
			wantHeld(t, "c behind a", objectCall(t, h, "POST", ops, appendOps, "c", v1, 0))
			wantHeld(t, "d behind c", objectCall(t, h, "POST", ops, appendOps, "d", v1, 0))
			a := objectCall(t, h, "POST", ops, appendOps, "a", b.Header().Get("ETag"), 0)
			if a.Code != 200 || a.Header().Get(HeaderNext) != "c" {
				t.Fatalf("a's turn: %d next %q", a.Code, a.Header().Get(HeaderNext))
			}
			etag := a.Header().Get("ETag")
			// c, woken, writes at the current ETag, and its write fails.
			w := objectCall(t, h, "POST", ops, fail.body, "c", etag, 10)
			if w.Code < 400 || w.Code == 412 || w.Code == 503 {
				t.Fatalf("c's failing write: %d %s", w.Code, w.Body)
			}
			if next := w.Header().Get(HeaderNext); next != "d" {
				t.Fatalf("c's failed write (%d) names %q next, want d", w.Code, next)
			}
			if d := objectCall(t, h, "POST", ops, appendOps, "d", etag, 20); d.Code != 200 {
				t.Fatalf("d, at the current ETag after c's write failed: %d %q %s", d.Code, d.Header().Get(HeaderHold), d.Body)
			}
		})
	}
}
