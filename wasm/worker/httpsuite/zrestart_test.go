//go:build !js

package httpsuite

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sessiontree/sessiontree/wasm/worker/internal/wsclient"
)

// Bad input of every kind gets a 4xx JSON error (never a 5xx or a dropped
// connection), changes nothing, and the worker keeps serving.
func TestBadInputCorpusIsRefusedCleanly(t *testing.T) {
	c := &client{t: t, token: token(t, "corpus")}
	id, etag := c.create(`{"messages":[{"role":"user","content":"keep me"}]}`)
	deep := strings.Repeat("[", 20000) + strings.Repeat("]", 20000)
	creates := []string{
		`null`, `[]`, `"x"`, `42`, `{`, `{"messages":{}}`, `{"messages":[1]}`, `{"messages":[{"content":"no role"}]}`,
		`{"messages":[{"role":7}]}`, `{"messages":[{"role":"user","content":"\ud800"}]}`, "{\"messages\":[{\"role\":\"u\xff\"}]}",
		`{"messages":[{"role":"user","x":` + deep + `}]}`, `{"format":"sessiontree"}`, `{"format":"other","version":1}`,
		`{"format":"sessiontree","version":1,"active_branch":"main","branches":{},"nodes":{},"extra":1}`,
		`{"format":"sessiontree","version":1,"active_branch":"main","branches":{"main":{"name":"main","created_at_ms":1}},"nodes":{"a":{"id":"a","parent":"b","children":[],"message":{"role":"user"},"created_at_ms":1},"b":{"id":"b","parent":"a","children":[],"message":{"role":"user"},"created_at_ms":1}}}`,
		"\xef\xbb\xbf{}", "{}\x00", `{"messages":[]} {}`, `{"nope":1}`,
	}
	for _, body := range creates {
		r := c.do("POST", "/v1/trees", body)
		if r.status < 400 || r.status >= 500 {
			t.Fatalf("create with %.80q: %d %.200s", body, r.status, r.body)
		}
		wantError(t, r, r.status, "")
	}
	ops := []string{
		``, `null`, `{}`, `{"ops":null}`, `{"ops":{}}`, `{"ops":[]}`, `{"ops":[null]}`, `{"ops":[{}]}`, `{"ops":[{"op":7}]}`,
		`{"ops":[{"op":"append"}]}`, `{"ops":[{"op":"append","message":"hi"}]}`, `{"ops":[{"op":"append","message":{"role":"u"},"at":"soon"}]}`,
		`{"ops":[{"op":"append","message":{"role":"u"},"at":1.5}]}`, `{"ops":[{"op":"switch","branch":""}]}`,
		`{"ops":[{"op":"branch","from":"nope"}]}`, `{"ops":[{"op":"label","node":"nope","label":""}]}`,
		`{"ops":[{"op":"switch","branch":"a\u0000b"}]}`, `{"ops":[{"op":"deleteBranch","branch":"main"}]}`,
		`{"ops":[{"op":"append","message":{"role":"u","x":` + deep + `}}]}`, `{"ops":[{"op":"append","message":{"role":"u"}}]`,
	}
	for _, body := range ops {
		r := c.do("POST", "/v1/trees/"+id+"/ops", body)
		if r.status < 400 || r.status >= 500 {
			t.Fatalf("ops with %.80q: %d %.200s", body, r.status, r.body)
		}
		wantError(t, r, r.status, "")
	}
	for _, path := range []string{"/v1/trees/" + id + "/projection?branch=%00", "/v1/trees/%2e%2e", "/v1/trees/" + id + "/export?format=%ff"} {
		if r := c.do("GET", path, ""); r.status < 400 || r.status >= 500 {
			t.Fatalf("GET %s: %d %.200s", path, r.status, r.body)
		}
	}
	r := c.do("GET", "/v1/trees/"+id, "")
	if r.header.Get("ETag") != etag || len(c.projection(id)) != 1 {
		t.Fatalf("bad input changed the tree: %s", r.body)
	}
	if list := c.do("GET", "/v1/trees", "").object(t)["trees"].([]any); len(list) != 1 {
		t.Fatalf("bad input created trees: %v", list)
	}
}

// Data is kept across a restart of wrangler dev (the D1 state directory).
// This test runs last: it replaces the server.
func TestDataSurvivesARestart(t *testing.T) {
	c := &client{t: t, token: token(t, "restart")}
	id, _ := c.create(`{"messages":[{"role":"user","content":"before the restart"}]}`)
	r := c.do("POST", "/v1/trees/"+id+"/ops", appendBody("also before"))
	keyed := c.do("POST", "/v1/trees/"+id+"/ops", appendBody("keyed"), "Idempotency-Key", "across-restart")
	r = keyed
	before := c.do("GET", "/v1/trees/"+id, "")
	// A large create and a large batch (over 1 MiB of new rows each) are
	// stored in slices ahead of their transaction (object.go, stage): what
	// the object reads back after the restart is the whole of both.
	var big strings.Builder
	big.WriteString(`{"messages":[`)
	for i := 0; i < 20_000; i++ {
		if i > 0 {
			big.WriteByte(',')
		}
		big.WriteString(`{"role":"user","content":"message ` + strconv.Itoa(i) + ` of a long conversation"}`)
	}
	big.WriteString(`]}`)
	bigID, _ := c.create(big.String())
	var ops strings.Builder
	ops.WriteString(`{"ops":[`)
	for i := 0; i < 300; i++ {
		if i > 0 {
			ops.WriteByte(',')
		}
		ops.WriteString(`{"op":"append","message":{"role":"user","content":"` + strconv.Itoa(i) + strings.Repeat(" seven kilobytes", 440) + `"}}`)
	}
	ops.WriteString(`]}`)
	if r := c.do("POST", "/v1/trees/"+bigID+"/ops", ops.String()); r.status != 200 {
		t.Fatalf("a batch of 300 ops of 7 KB: %d %.300s", r.status, r.body)
	}
	bigBefore := c.do("GET", "/v1/trees/"+bigID, "")
	server.Stop()
	var err error
	if server, err = startAgain(); err != nil {
		t.Fatal(err)
	}
	after := c.do("GET", "/v1/trees/"+id, "")
	if after.status != 200 || string(after.body) != string(before.body) || after.header.Get("ETag") != r.header.Get("ETag") {
		t.Fatalf("after a restart: %d\n%s\nwant\n%s", after.status, after.body, before.body)
	}
	if bigAfter := c.do("GET", "/v1/trees/"+bigID, ""); bigAfter.status != 200 || string(bigAfter.body) != string(bigBefore.body) {
		t.Fatalf("the large tree after a restart: %d, %d bytes, want the %d bytes before", bigAfter.status, len(bigAfter.body), len(bigBefore.body))
	}
	if msgs := c.projection(bigID); len(msgs) != 20_300 {
		t.Fatalf("the large tree after a restart has %d messages on its path, want 20,300", len(msgs))
	}
	// A client that never saw the answer retries with its key: answered, not stored again.
	if again := c.do("POST", "/v1/trees/"+id+"/ops", appendBody("keyed"), "Idempotency-Key", "across-restart"); string(again.body) != string(keyed.body) {
		t.Fatalf("the retry after a restart: %d %s, want %s", again.status, again.body, keyed.body)
	}
	if r := c.do("POST", "/v1/trees/"+id+"/ops", appendBody("after")); r.status != 200 {
		t.Fatalf("append after a restart: %d %s", r.status, r.body)
	}
	if msgs := c.projection(id); len(msgs) != 4 {
		t.Fatalf("after a restart and an append: %v", msgs)
	}
}

// kill -9 under load: writers append with an Idempotency-Key each, 8 over
// HTTP and 4 on live sockets (acked there); the worker is killed mid-run,
// started again, and every write whose answer was lost is sent again with its
// key, the way it was sent first. Every acknowledged write is stored, and
// every write exactly once. Runs last: it replaces the server.
func TestKillNineLosesNoAcknowledgedWriteAndRetriesStoreOnce(t *testing.T) {
	c := &client{t: t, token: token(t, "kill-nine")}
	id, _ := c.create("")
	type write struct{ key, body string }
	var mu sync.Mutex
	var acked, lost, ackedOnSocket, lostOnSocket []write
	stop := make(chan struct{})
	var wg sync.WaitGroup
	// writer sends writes named name-0, name-1, … with send until one is not
	// answered, and files each under acked or lost.
	writer := func(name string, send func(key, body string) bool, acked, lost *[]write) {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			wr := write{key: name + "-" + strconv.Itoa(i), body: appendBody(name + "-" + strconv.Itoa(i))}
			ok := send(wr.key, wr.body)
			mu.Lock()
			if ok {
				*acked = append(*acked, wr)
			} else {
				*lost = append(*lost, wr)
			}
			mu.Unlock()
			if !ok {
				return // the worker is gone
			}
		}
	}
	for w := 0; w < 4; w++ {
		ws, err := dialLive(server.URL, c.token, id, "kill-nine-"+strconv.Itoa(w))
		if err != nil {
			t.Fatal(err)
		}
		defer ws.Close()
		wg.Add(1)
		go writer("s"+strconv.Itoa(w), func(key, body string) bool { return trySocketAppend(ws, key, body) }, &ackedOnSocket, &lostOnSocket)
	}
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go writer("w"+strconv.Itoa(w), func(key, body string) bool { return tryAppend(server.URL, c.token, id, key, body) }, &acked, &lost)
	}
	time.Sleep(1500 * time.Millisecond)
	server.Kill()
	close(stop)
	wg.Wait()
	var err error
	if server, err = startAgain(); err != nil {
		t.Fatal(err)
	}
	for _, wr := range lost {
		if !tryAppend(server.URL, c.token, id, wr.key, wr.body) {
			t.Fatalf("the retry of %s after the restart failed", wr.key)
		}
	}
	if len(lostOnSocket) > 0 {
		ws, err := dialLive(server.URL, c.token, id, "kill-nine-again")
		if err != nil {
			t.Fatal(err)
		}
		for _, wr := range lostOnSocket {
			if !trySocketAppend(ws, wr.key, wr.body) {
				t.Fatalf("the retry of %s on a socket after the restart failed", wr.key)
			}
		}
		ws.Close()
	}
	seen := map[string]int{}
	for _, m := range c.projection(id) {
		seen[m["content"].(string)]++
	}
	all := append(append(append(append([]write{}, acked...), lost...), ackedOnSocket...), lostOnSocket...)
	for _, wr := range all {
		text := wr.body[strings.Index(wr.body, `"content":"`)+11:]
		text = text[:strings.IndexByte(text, '"')]
		if seen[text] != 1 {
			t.Errorf("%s stored %d times", text, seen[text])
		}
	}
	if len(seen) != len(all) {
		t.Errorf("%d messages stored, %d written", len(seen), len(all))
	}
	t.Logf("kill -9: %d writes acknowledged before the kill (%d on sockets), %d unanswered and sent again (%d on a socket); each stored once",
		len(acked)+len(ackedOnSocket), len(ackedOnSocket), len(lost)+len(lostOnSocket), len(lostOnSocket))
	if len(acked) == 0 || len(ackedOnSocket) == 0 {
		t.Fatal("no write was acknowledged over HTTP or on a socket before the kill: the test proved nothing")
	}
}

// dialLive opens the live socket of tree id at base as client name and reads its hello.
func dialLive(base, tok, id, name string) (*wsclient.Conn, error) {
	ws, _, err := wsclient.Dial(base+"/v1/trees/"+id+"/live?client="+name+"&access_token="+tok, nil)
	if err != nil {
		return nil, err
	}
	if msg, err := ws.Read(10 * time.Second); err != nil || !strings.Contains(string(msg), `"hello"`) {
		ws.Close()
		return nil, fmt.Errorf("no hello on the live socket: %s %v", msg, err)
	}
	return ws, nil
}

// trySocketAppend sends one append with an Idempotency-Key on ws and reports
// whether it was acked 200 (a replay of the key too); the other writers'
// changes pushed meanwhile are skipped.
func trySocketAppend(ws *wsclient.Conn, key, body string) bool {
	msg, _ := json.Marshal(map[string]any{"type": "write", "id": key, "route": "ops", "idempotency_key": key, "body": json.RawMessage(body)})
	if ws.Send(msg) != nil {
		return false
	}
	for {
		raw, err := ws.Read(20 * time.Second)
		if err != nil {
			return false
		}
		var a ack
		if json.Unmarshal(raw, &a) == nil && a.Type == "ack" && a.ID == key {
			return a.Status == 200
		}
	}
}

// tryAppend sends one append with an Idempotency-Key and reports whether it
// was answered 200.
func tryAppend(base, tok, id, key, body string) bool {
	req, _ := http.NewRequest("POST", base+"/v1/trees/"+id+"/ops", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("Idempotency-Key", key)
	resp, err := httpClient.Do(req)
	if err != nil {
		return false
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode == 200
}
