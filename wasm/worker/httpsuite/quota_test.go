//go:build !js

package httpsuite

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"

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
var (
	quotaOnce sync.Once
	quotaSrv  *devserver.Server
	quotaErr  error
	quotaDir  string
)

func quotaServer(t *testing.T) *devserver.Server {
	quotaOnce.Do(func() {
		if quotaDir, quotaErr = os.MkdirTemp("", "sessiontree-quota-"); quotaErr != nil {
			return
		}
		o := options
		o.Persist = quotaDir
		o.Vars = map[string]string{"SESSIONTREE_MAX_TREES": "5", "SESSIONTREE_MAX_BYTES": fmt.Sprint(len(quotaBody) * 48 / 10),
			"SESSIONTREE_MAX_SOCKETS_PER_TREE": "3", "SESSIONTREE_MAX_SOCKETS_PER_TENANT": "5"}
		for k, v := range options.Vars {
			o.Vars[k] = v
		}
		quotaSrv, quotaErr = devserver.Start(o)
	})
	if quotaErr != nil {
		t.Fatal(quotaErr)
	}
	return quotaSrv
}

func stopQuota() {
	if quotaSrv != nil {
		quotaSrv.Stop()
	}
	if quotaDir != "" {
		os.RemoveAll(quotaDir)
	}
}

// createsAtOnce sends n creates of body for tok at once to s and counts the
// trees made and the creates refused 429 quota_exceeded; any other answer
// fails the test unless body is bad (its 400s are not counted).
func createsAtOnce(t *testing.T, s *devserver.Server, tok string, n int, body string) (made, refused int) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, _ := http.NewRequest("POST", s.URL+"/v1/trees", strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+tok)
			resp, err := httpClient.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			mu.Lock()
			defer mu.Unlock()
			switch {
			case resp.StatusCode == 201:
				made++
			case resp.StatusCode == 429 && strings.Contains(string(b), `"quota_exceeded"`):
				refused++
			case resp.StatusCode == 400 && body == "{":
			default:
				t.Errorf("create: %d %s", resp.StatusCode, b)
			}
		}()
	}
	wg.Wait()
	return made, refused
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
