//go:build !js

package httpsuite

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sessiontree/sessiontree/wasm/worker/devserver"
)

// quotaBody is the create of the bytes test: one message of 256 KiB. Its
// tree takes about 1.11 times that in its object's storage (measured: 290,816
// bytes), so a quota of 4.8 bodies holds exactly 5 such trees whether the
// others were counted at their body's size (reserved) or at their storage's
// (created): 4 trees take less, 5 take more.
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
	if made, refused := createsAtOnce(t, s, tok, 50, quotaBody); made != 5 || refused != 45 {
		log := s.Log()
		t.Fatalf("50 creates of %d bytes at once, a quota of 4.8 of them: %d made, %d refused; the worker's log ends:\n%s",
			len(quotaBody), made, refused, log[max(0, len(log)-3000):])
	}
	if n := listed(t, s, tok); n != 5 {
		t.Fatalf("the list holds %d trees, want 5", n)
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
		if made != 5 || refused != n-5 {
			log := s.Log()
			t.Fatalf("round %d, %d creates of %d bytes at once, a quota of 4.8 of them: %d made, %d refused; the worker's log ends:\n%s",
				round+1, n, len(quotaBody), made, refused, log[max(0, len(log)-3000):])
		}
		if got := listed(t, s, tok); got != 5 {
			t.Fatalf("round %d: the list holds %d trees, want 5", round+1, got)
		}
	}
	t.Logf("4 rounds: %d creates sent again after wrangler dev's proxy failed to reach the worker", retried)
}
