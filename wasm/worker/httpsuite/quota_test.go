//go:build !js

package httpsuite

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sessiontree/sessiontree/wasm/worker/devserver"
	"github.com/sessiontree/sessiontree/wasm/worker/internal/wsclient"
)

// quotaBody is the create of the bytes test: one message of 256 KiB. Its
// tree's rows take a little more than that (its keys, ids and times), so a
// quota of 4.8 bodies holds exactly 4 such trees: a fifth would take the
// tenant past it, and is refused (edge.reserveRows). (Until creates were
// counted at their trees' size, the fifth went in: the quota was checked
// only against what the tenant held already.)
var quotaBody = `{"messages":[{"role":"user","content":"` + strings.Repeat("q", 256<<10) + `"}]}`

// quotaServer is a third worker, with SESSIONTREE_MAX_TREES 5,
// SESSIONTREE_MAX_BYTES 4.8 quotaBodies and live sockets at most 3 a tree and
// 5 a tenant, started by the first test that needs it and stopped after the suite.
var quota = &extraServer{name: "quota", vars: map[string]string{"SESSIONTREE_MAX_TREES": "5", "SESSIONTREE_MAX_BYTES": fmt.Sprint(len(quotaBody) * 48 / 10),
	"SESSIONTREE_MAX_SOCKETS_PER_TREE": "3", "SESSIONTREE_MAX_SOCKETS_PER_TENANT": "5"}}

func quotaServer(t *testing.T) *devserver.Server { return quota.get(t) }

// createsAtOnce sends n creates of body for tok at once to s and counts the
// trees made and the creates refused 429 quota_exceeded; any other answer
// fails the test unless body is bad (its 400s are not counted). Each create
// has its own Idempotency-Key, so it is sent again, safely, when wrangler
// dev's proxy could not reach the worker (staleProxy) or the connection was
// reset (the proxy gives up on a request whose body it has not read yet);
// those are counted in retried, never as answers.
func createsAtOnce(t *testing.T, s *devserver.Server, tok string, n int, body string) (made, refused int) {
	made, refused, retried := createsAtOnceRetried(t, s, tok, n, body, createTries)
	if retried > 0 {
		t.Logf("%d creates at once: %d sent again (wrangler dev's proxy on a stale connection)", n, retried)
	}
	return made, refused
}

// createTries is how often a create is sent at most: under a burst, the
// proxy may pick a second stale connection for the retry.
const createTries = 4

var createKeys atomic.Int64

func createsAtOnceRetried(t *testing.T, s *devserver.Server, tok string, n int, body string, tries int) (made, refused, retried int) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	run := time.Now().UnixNano()
	for i := 0; i < n; i++ {
		wg.Add(1)
		key := fmt.Sprintf("burst-%d-%d", run, createKeys.Add(1))
		go func() {
			defer wg.Done()
			for try := 1; ; try++ {
				req, _ := http.NewRequest("POST", s.URL+"/v1/trees", strings.NewReader(body))
				req.Header.Set("Authorization", "Bearer "+tok)
				req.Header.Set("Idempotency-Key", key)
				resp, err := httpClient.Do(req)
				var b []byte
				if err == nil {
					b, err = io.ReadAll(resp.Body)
					resp.Body.Close()
				}
				if (err != nil || staleProxy(resp.StatusCode, b)) && try < tries {
					mu.Lock()
					retried++
					mu.Unlock()
					continue
				}
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				defer mu.Unlock()
				switch {
				case resp.StatusCode == 201:
					made++
				case resp.StatusCode == 429 && strings.Contains(string(b), `"quota_exceeded"`):
					refused++
				case resp.StatusCode == 400 && body == "{":
				default:
					t.Errorf("create: %d %.300s", resp.StatusCode, b)
				}
				return
			}
		}()
	}
	wg.Wait()
	return made, refused, retried
}

func listed(t *testing.T, s *devserver.Server, tok string) int {
	req, _ := http.NewRequest("GET", s.URL+"/v1/trees", nil)
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := httpClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return strings.Count(string(b), `"etag"`)
}

// Issue 25 §2: with SESSIONTREE_MAX_TREES=5, 30 creates at once made 30 trees.
func TestFiftyCreatesAtOnceUnderAQuotaOfFiveMakeExactlyFive(t *testing.T) {
	s := quotaServer(t)
	tok := token(t, "quota-race-trees")
	if made, refused := createsAtOnce(t, s, tok, 50, ""); made != 5 || refused != 45 {
		t.Fatalf("50 creates at once, a quota of 5 trees: %d made, %d refused", made, refused)
	}
	if n := listed(t, s, tok); n != 5 {
		t.Fatalf("the list holds %d trees, want 5", n)
	}
	// A refused or failed create leaves no place taken: another tenant's
	// bad create, then its good ones.
	other := token(t, "quota-race-other")
	if made, _ := createsAtOnce(t, s, other, 3, "{"); made != 0 {
		t.Fatalf("bad creates made %d trees", made)
	}
	if made, _ := createsAtOnce(t, s, other, 8, ""); made != 5 {
		t.Fatalf("after 3 failed creates, %d of 5 made", made)
	}
}

func TestFiftyCreatesAtOnceUnderAQuotaOfBytesMakeExactlyWhatFits(t *testing.T) {
	s := quotaServer(t)
	tok := token(t, "quota-race-bytes")
	if made, refused := createsAtOnce(t, s, tok, 50, quotaBody); made != 4 || refused != 46 {
		log := s.Log()
		t.Fatalf("50 creates of %d bytes at once, a quota of 4.8 of them: %d made, %d refused; the worker's log ends:\n%s",
			len(quotaBody), made, refused, log[max(0, len(log)-3000):])
	}
	if n := listed(t, s, tok); n != 4 {
		t.Fatalf("the list holds %d trees, want 4", n)
	}
}

// A create was counted under the bytes quota at its body's size (RESERVE),
// while a {"messages":[…]} body of short messages stores rows about twelve
// times its size: creates of 3,000 messages without content at once (a 48 KB
// body, a tree of 471 KB) made 5 trees, 2.4 MB under a quota of 1.26 MB. Now the
// tree's object refuses a tree past its reservation, and its glue raises the
// reservation to the tree's size only if the quota leaves the room (RAISE):
// the tenant's trees stay within the quota, and a create that would pass it
// is 429 "limit":"bytes".
func TestCreatesOfShortMessagesAtOnceStayWithinTheQuotaOfBytes(t *testing.T) {
	s := quotaServer(t)
	tok := token(t, "quota-short-messages")
	quota := int64(len(quotaBody) * 48 / 10)
	body := `{"messages":[` + strings.TrimSuffix(strings.Repeat(`{"role":"user"},`, 3000), ",") + `]}`
	made, refused := createsAtOnce(t, s, tok, 12, body)
	time.Sleep(500 * time.Millisecond) // the objects' index rows are written within 100 ms of their writes
	held := listedBytes(t, s, tok)
	t.Logf("12 creates of a %d-byte body at once: %d made, %d refused; the trees take %d bytes under a quota of %d", len(body), made, refused, held, quota)
	if made == 0 || held > quota {
		t.Fatalf("%d made: the trees take %d bytes, a quota of %d", made, held, quota)
	}
	if one := held / int64(made); held+one <= quota {
		t.Fatalf("%d made, taking %d bytes: room for another tree of %d under %d", made, held, one, quota)
	}
	c := &client{t: t, token: tok, base: s.URL}
	r := c.do("POST", "/v1/trees", body)
	wantError(t, r, 429, "quota_exceeded")
	if !strings.Contains(string(r.body), `"limit":"bytes"`) {
		t.Fatalf("a create that would take the tenant past its quota: %s", r.body)
	}
	// One that fits goes in, in a second call of its object (the tree
	// takes more than its body and the slack reserved with it).
	if r := c.do("POST", "/v1/trees", `{"messages":[`+strings.TrimSuffix(strings.Repeat(`{"role":"user"},`, 1000), ",")+`]}`); r.status != 201 {
		t.Fatalf("a create of 1,000 short messages with room for it: %d %.300s", r.status, r.body)
	}
}

// CI (make test-worker) failed in the test above: many of the 50 creates were
// answered 503 "Your worker restarted mid-request" by wrangler dev's proxy.
// Not the worker's memory: the isolate was never restarted (its Go heap stayed
// at about 20 MB, 100 creates of 256 KiB at once included) and 50 creates of
// 1 KB failed alike. The proxy sent them on keep-alive connections to workerd
// that workerd had just closed as idle (docs/edge.md, "Bursts of creates
// under wrangler dev"): a burst a few seconds after the last one finds them.
// Rounds of 50 and 100 creates of 256 KiB at once, each a new tenant, a few
// seconds apart: every create is made or refused 429 quota_exceeded, once
// the proxy's failures to reach the worker are sent again; the worker itself
// answers nothing else, and the quota holds in every round.
func TestRoundsOfBigCreatesAtOnceAreMadeOrRefusedNeverFailed(t *testing.T) {
	s := quotaServer(t)
	retried := 0
	for round, n := range []int{50, 100, 50, 100} {
		if round > 0 {
			// the connections of the last round are a few seconds from
			// being dropped as idle: the window the CI failure fell in
			time.Sleep(3 * time.Second)
		}
		tok := token(t, fmt.Sprintf("quota-rounds-%d", round))
		t0 := time.Now()
		made, refused, r := createsAtOnceRetried(t, s, tok, n, quotaBody, createTries)
		t.Logf("round %d: %d creates at once answered in %v, %d sent again", round+1, n, time.Since(t0).Round(time.Millisecond), r)
		retried += r
		if made != 4 || refused != n-4 {
			log := s.Log()
			t.Fatalf("round %d, %d creates of %d bytes at once, a quota of 4.8 of them: %d made, %d refused; the worker's log ends:\n%s",
				round+1, n, len(quotaBody), made, refused, log[max(0, len(log)-3000):])
		}
		if got := listed(t, s, tok); got != 4 {
			t.Fatalf("round %d: the list holds %d trees, want 4", round+1, got)
		}
	}
	t.Logf("4 rounds: %d creates sent again after wrangler dev's proxy failed to reach the worker", retried)
}

// listedBytes is the sum of the "bytes" of tok's trees in the list of s.
func listedBytes(t *testing.T, s *devserver.Server, tok string) int64 {
	c := &client{t: t, token: tok, base: s.URL}
	r := c.do("GET", "/v1/trees", "")
	var list struct {
		Trees []struct {
			Bytes int64 `json:"bytes"`
		} `json:"trees"`
	}
	if r.status != 200 || json.Unmarshal(r.body, &list) != nil {
		t.Fatalf("the list: %d %.300s", r.status, r.body)
	}
	var n int64
	for _, tr := range list.Trees {
		n += tr.Bytes
	}
	return n
}

// Before grants, the bytes quota was checked at creates only: a tenant made
// small trees under it and grew them by appends without bound. Under a quota
// of 4.8 quotaBodies (1.26 MB), three writers on each of two trees append
// 50 KB at once (the object's glue runs them in groups) until each is refused
// twice: the trees never take more than the quota, as the list says; every
// refusal is 429 quota_exceeded saying "limit":"bytes"; a large write alone is
// refused too; and a deleted tree makes room.
func TestATenantsTreesGrowOnlyWithinItsQuotaOfBytes(t *testing.T) {
	s := quotaServer(t)
	tok := token(t, "quota-grow")
	c := &client{t: t, token: tok, base: s.URL}
	quota := int64(len(quotaBody) * 48 / 10)
	ids := make([]string, 2)
	for i := range ids {
		ids[i], _ = c.create(`{"messages":[{"role":"system","content":"be brief"}]}`)
	}
	var made, refused atomic.Int64
	var wg sync.WaitGroup
	for _, id := range ids {
		for w := 0; w < 3; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i, no := 0, 0; i < 40 && no < 2; i++ {
					r := c.do("POST", "/v1/trees/"+id+"/ops", fmt.Sprintf(`{"ops":[{"op":"append","message":{"role":"user","content":"%d.%d %s"}}]}`,
						w, i, strings.Repeat("g", 50_000)))
					switch {
					case r.status == 200:
						made.Add(1)
					case r.status == 429 && strings.Contains(string(r.body), `"quota_exceeded"`) && strings.Contains(string(r.body), `"limit":"bytes"`):
						refused.Add(1)
						no++
					default:
						t.Errorf("append: %d %.300s", r.status, r.body)
						return
					}
				}
			}()
		}
	}
	wg.Wait()
	time.Sleep(500 * time.Millisecond) // the objects' index rows are written within 100 ms of their writes
	held := listedBytes(t, s, tok)
	t.Logf("%d appends of 50 KB went in, %d refused; the trees take %d bytes under a quota of %d", made.Load(), refused.Load(), held, quota)
	if refused.Load() == 0 || held > quota {
		t.Fatalf("%d appends of 50 KB went in and %d were refused: the trees take %d bytes, a quota of %d", made.Load(), refused.Load(), held, quota)
	}
	if made.Load() < 15 {
		t.Fatalf("only %d appends of 50 KB went in under a quota of %d", made.Load(), quota)
	}
	big := fmt.Sprintf(`{"ops":[{"op":"append","message":{"role":"user","content":"%s"}}]}`, strings.Repeat("b", 300_000))
	wantError(t, c.do("POST", "/v1/trees/"+ids[0]+"/ops", big), 429, "quota_exceeded")
	if r := c.do("DELETE", "/v1/trees/"+ids[1], ""); r.status != 204 {
		t.Fatalf("delete: %d %.300s", r.status, r.body)
	}
	if r := c.do("POST", "/v1/trees/"+ids[0]+"/ops", big); r.status != 200 {
		t.Fatalf("a write once a deleted tree made room: %d %.300s", r.status, r.body)
	}
	time.Sleep(500 * time.Millisecond)
	if held := listedBytes(t, s, tok); held > quota {
		t.Fatalf("the trees take %d bytes, past the quota of %d", held, quota)
	}
}

// Writes on a live socket are bounded by the tenant's quota of bytes too: a
// socket's write is a request of its own inside the tree's object, and the
// grant went with the outer call only, so they went in past it (found while
// writing the grants). A writer appends 50 KB on its socket until refused:
// the ack is 429 quota_exceeded, and the trees stay within the quota.
func TestWritesOnALiveSocketStayWithinTheQuotaOfBytes(t *testing.T) {
	s := quotaServer(t)
	tok := token(t, "quota-socket")
	c := &client{t: t, token: tok, base: s.URL}
	quota := int64(len(quotaBody) * 48 / 10)
	id, _ := c.create(`{"messages":[{"role":"system","content":"be brief"}]}`)
	ws, _, err := wsclient.Dial(s.URL+"/v1/trees/"+id+"/live?client=quota-writer&access_token="+tok, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if msg, err := ws.Read(10 * time.Second); err != nil || !strings.Contains(string(msg), `"hello"`) {
		t.Fatalf("hello: %s %v", msg, err)
	}
	made := 0
	for i := 0; ; i++ {
		if i == 60 {
			t.Fatalf("60 appends of 50 KB went in on a socket under a quota of %d bytes", quota)
		}
		a := writeOn(t, ws, fmt.Sprintf("w%d", i), "", "", fmt.Sprintf(`{"ops":[{"op":"append","message":{"role":"user","content":"%d %s"}}]}`,
			i, strings.Repeat("s", 50_000)))
		if a.Status == 200 {
			made++
			continue
		}
		if a.Status != 429 || a.Body.Error.Code != "quota_exceeded" {
			t.Fatalf("write %d on the socket: %d %+v", i, a.Status, a.Body)
		}
		break
	}
	time.Sleep(500 * time.Millisecond)
	held := listedBytes(t, s, tok)
	t.Logf("%d appends of 50 KB went in on the socket; the tree takes %d bytes under a quota of %d", made, held, quota)
	if held > quota || made < 15 {
		t.Fatalf("%d appends went in; the tree takes %d bytes, a quota of %d", made, held, quota)
	}
}
