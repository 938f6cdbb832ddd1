//go:build !js

package httpsuite

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Issue 25 §3: 32 plain HTTP clients appending with If-Match and reading
// the tree again on 412, none sending Sessiontree-Client (before: 3 to 10 of
// 32 got a write in within 20 s), each get a write in within 5 s; they keep
// writing meanwhile, as the writers that got in first would.
func TestPlainIfMatchWritersEachGetAWriteInWithinFiveSeconds(t *testing.T) {
	c := &client{t: t, token: token(t, "plain-writers")}
	id, _ := c.create("")
	const writers = 32
	var in atomic.Int64
	first := make([]time.Duration, writers)
	start := time.Now()
	var wg sync.WaitGroup
	for i := 0; i < writers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := &client{t: t, token: c.token}
			etag := w.do("GET", "/v1/trees/"+id, "").header.Get("ETag")
			for in.Load() < writers && time.Since(start) < 5*time.Second {
				r := w.do("POST", "/v1/trees/"+id+"/ops", appendBody("x"), "If-Match", etag)
				switch r.status {
				case 200:
					if first[i] == 0 {
						first[i] = time.Since(start)
						in.Add(1)
					}
					etag = r.header.Get("ETag")
				case 412:
					etag = w.do("GET", "/v1/trees/"+id, "").header.Get("ETag")
				default:
					t.Errorf("append: %d %s", r.status, r.body)
					return
				}
			}
		}()
	}
	wg.Wait()
	var last time.Duration
	for i, d := range first {
		if d == 0 {
			t.Errorf("writer %d got no write in within 5 s", i)
		}
		last = max(last, d)
	}
	t.Logf("%d of %d writers got a write in, the last after %v", in.Load(), writers, last)
}
