//go:build !js

package httpsuite

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sessiontree/sessiontree/wasm/worker/internal/wsclient"
)

// Issue 25 §4: a tenant's fan-out is paced per tenant
// (SESSIONTREE_FANOUT_RATE, here 4 frames a second on the limited worker: a
// burst of 1), in slices, so another tenant's write and its own frame go
// through while the first tenant's frames wait; nothing is dropped, and each
// socket gets its frames in order. Before, a write's frames all went out in
// one piece before its answer: every socket of the first tenant had its frame
// before the other tenant's write was even sent.
func TestATenantsFanOutIsPacedWhileAnotherTenantsFrameGoesThrough(t *testing.T) {
	s := limitedServer(t)
	post := func(tok, path, body string) map[string]any {
		t.Helper()
		r := (&client{t: t, token: tok, base: s.URL}).do("POST", path, body)
		var v map[string]any
		if r.status/100 != 2 || json.Unmarshal(r.body, &v) != nil {
			t.Fatalf("POST %s: %d %.300s", path, r.status, r.body)
		}
		return v
	}
	open := func(tok, id string) *wsclient.Conn {
		t.Helper()
		ws, _, err := wsclient.Dial(s.URL+"/v1/trees/"+id+"/live?access_token="+tok, nil)
		if err != nil {
			t.Fatal(err)
		}
		if msg, err := ws.Read(30 * time.Second); err != nil || !strings.Contains(string(msg), `"hello"`) {
			t.Fatalf("live: %s %v", msg, err)
		}
		return ws
	}
	alice, bob := token(t, "fanout-alice"), token(t, "fanout-bob")
	a := post(alice, "/v1/trees", `{"messages":[{"role":"user","content":"a"}]}`)["id"].(string)
	b := post(bob, "/v1/trees", `{"messages":[{"role":"user","content":"b"}]}`)["id"].(string)
	const sockets, writes = 8, 3 // 24 frames at 4 a second: about 6 s
	var got atomic.Int64
	done := make(chan error, sockets)
	var etags [writes]string
	var socks []*wsclient.Conn
	for i := 0; i < sockets; i++ {
		socks = append(socks, open(alice, a))
	}
	defer func() {
		for _, ws := range socks {
			ws.Close()
		}
	}()
	wrote := make(chan struct{})
	for _, ws := range socks {
		go func() {
			<-wrote
			for w := 0; w < writes; w++ {
				msg, err := ws.Read(60 * time.Second)
				if err != nil {
					done <- err
					return
				}
				var d struct{ ETag string }
				if json.Unmarshal(msg, &d) != nil || d.ETag != etags[w] {
					done <- fmt.Errorf("the frame of write %d out of order or wrong: %.200s", w, msg)
					return
				}
				got.Add(1)
			}
			done <- nil
		}()
	}
	for w := 0; w < writes; w++ {
		etags[w] = post(alice, "/v1/trees/"+a+"/ops", appendBody("to every socket"))["etag"].(string)
	}
	close(wrote)
	// Alice's writes are answered; her frames wait for her rate. Bob's
	// write and his socket's frame do not wait for them.
	bs := open(bob, b)
	defer bs.Close()
	post(bob, "/v1/trees/"+b+"/ops", appendBody("bob"))
	if msg, err := bs.Read(30 * time.Second); err != nil || !strings.Contains(string(msg), `"etag"`) {
		t.Fatalf("bob's frame: %s %v", msg, err)
	}
	if n := got.Load(); n == sockets*writes {
		t.Fatalf("all %d of alice's frames arrived before bob's one: her fan-out was not paced", n)
	}
	for range socks {
		if err := <-done; err != nil {
			t.Fatalf("alice's sockets: %v", err)
		}
	}
}
