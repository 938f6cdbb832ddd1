//go:build !js

package httpsuite

import (
	"strconv"
	"sync"
	"testing"
)

// 32 clients appending at once to one tree end with every message stored
// exactly once.
func TestConcurrentAppendsLoseNoWrite(t *testing.T) {
	c := &client{t: t, token: token(t, "concurrent")}
	id, _ := c.create("")
	const clients, each = 32, 8
	var wg sync.WaitGroup
	for i := 0; i < clients; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := &client{t: t, token: c.token}
			for j := 0; j < each; j++ {
				r := w.do("POST", "/v1/trees/"+id+"/ops", appendBody("c"+strconv.Itoa(i)+"-"+strconv.Itoa(j)))
				if r.status != 200 {
					t.Errorf("append: %d %s", r.status, r.body)
					return
				}
			}
		}()
	}
	wg.Wait()
	seen := map[string]int{}
	msgs := c.projection(id)
	for _, m := range msgs {
		seen[m["content"].(string)]++
	}
	for i := 0; i < clients; i++ {
		for j := 0; j < each; j++ {
			if k := "c" + strconv.Itoa(i) + "-" + strconv.Itoa(j); seen[k] != 1 {
				t.Errorf("message %s stored %d times", k, seen[k])
			}
		}
	}
	if len(msgs) != clients*each {
		t.Fatalf("%d messages stored, want %d", len(msgs), clients*each)
	}
}
