//go:build !js

package httpsuite

import (
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sessiontree/sessiontree/wasm/worker/internal/wsclient"
)

type ack struct {
	Type, ID, ETag string
	Status         int
	Replayed       bool
	Body           struct {
		ETag  string
		Error struct{ Code, Message string }
	}
}

// liveSocket opens the live socket of tree id as client name and reads its hello.
func liveSocket(t *testing.T, c *client, id, name string) *wsclient.Conn {
	t.Helper()
	ws, _, err := wsclient.Dial(server.URL+"/v1/trees/"+id+"/live?client="+name+"&access_token="+c.token, nil)
	if err != nil {
		t.Fatal(err)
	}
	if msg, err := ws.Read(10 * time.Second); err != nil || !strings.Contains(string(msg), `"hello"`) {
		t.Fatalf("hello: %s %v", msg, err)
	}
	return ws
}

// writeOn sends a write on ws and returns its ack, skipping the deltas of
// other writers' changes that arrive meanwhile.
func writeOn(t *testing.T, ws *wsclient.Conn, id, ifMatch, key, body string) ack {
	t.Helper()
	m := map[string]any{"type": "write", "id": id, "route": "ops", "body": json.RawMessage(body)}
	if ifMatch != "" {
		m["if_match"] = ifMatch
	}
	if key != "" {
		m["idempotency_key"] = key
	}
	msg, _ := json.Marshal(m)
	if err := ws.Send(msg); err != nil {
		t.Fatal(err)
	}
	for {
		raw, err := ws.Read(20 * time.Second)
		if err != nil {
			t.Fatalf("no ack for %s: %v", id, err)
		}
		var a ack
		if err := json.Unmarshal(raw, &a); err != nil {
			t.Fatalf("%v: %s", err, raw)
		}
		if a.Type == "ack" {
			if a.ID != id {
				t.Fatalf("ack of %q while waiting for %q: %s", a.ID, id, raw)
			}
			return a
		}
	}
}

// A client that holds the tree's live socket sends its writes on it: each is
// acked on that socket with its ETag (or its error, as over HTTP: 412 with
// the current ETag, a replay for a retried Idempotency-Key), and pushed to
// the other live clients as a delta, never back to the writer.
func TestAWriteOnTheLiveSocketIsAckedThereAndPushedToTheOthers(t *testing.T) {
	c := &client{t: t, token: token(t, "socket-writes")}
	id, etag := c.create("")
	a := liveSocket(t, c, id, "a")
	defer a.Close()
	b := liveSocket(t, c, id, "b")
	defer b.Close()

	got := writeOn(t, a, "w1", etag, "", appendBody("over the socket"))
	if got.Status != 200 || got.ETag == "" || got.ETag == etag {
		t.Fatalf("ack: %+v", got)
	}
	msg, err := b.Read(10 * time.Second)
	if err != nil || !strings.Contains(string(msg), `"type":"change"`) || !strings.Contains(string(msg), "over the socket") ||
		!strings.Contains(string(msg), strconv.Quote(got.ETag)[1:len(strconv.Quote(got.ETag))-1]) {
		t.Fatalf("b's delta: %s %v", msg, err)
	}
	stale := writeOn(t, a, "w2", etag, "", appendBody("stale"))
	if stale.Status != 412 || stale.Body.Error.Code != "precondition_failed" || stale.ETag != got.ETag {
		t.Fatalf("a stale If-Match: %+v", stale)
	}
	first := writeOn(t, a, "w3", "", "socket-key-1", appendBody("once"))
	again := writeOn(t, a, "w4", "", "socket-key-1", appendBody("once"))
	if first.Status != 200 || !again.Replayed || again.ETag != first.ETag {
		t.Fatalf("a retried key: %+v then %+v", first, again)
	}
	bad := writeOn(t, a, "w5", "", "", `{"ops":[],"ops":[]}`)
	if bad.Status != 400 || bad.Body.Error.Code != "invalid_input" {
		t.Fatalf("a key twice: %+v", bad)
	}
	// A message that names a key twice, at any depth: acked 400 under its write's id.
	bad = writeOn(t, a, "w6", "", "", `{"ops":[{"op":"append","message":{"role":"user","role":"assistant","content":"x"}}]}`)
	if bad.Status != 400 || bad.Body.Error.Code != "invalid_input" || !strings.Contains(bad.Body.Error.Message, "$.ops[0].message.role") {
		t.Fatalf("a message's key twice: %+v", bad)
	}
	// The writer's own socket got acks only: nothing else is waiting on it.
	if msg, err := a.Read(300 * time.Millisecond); err == nil {
		t.Fatalf("the writer got its own change pushed back: %s", msg)
	}
	r := c.do("GET", "/v1/trees/"+id+"/projection", "")
	var p struct{ Messages []struct{ Content string } }
	if json.Unmarshal(r.body, &p); len(p.Messages) != 2 || p.Messages[0].Content != "over the socket" || p.Messages[1].Content != "once" {
		t.Fatalf("the tree after the socket writes: %s", r.body)
	}
}

// Writes that reach an object together are applied as one group (one Go
// call, one storage transaction): each still gets its own answer and ETag,
// every acknowledged write is stored once, in one chain, and the versions
// have no gap, over HTTP and over sockets at once. A live client that asked
// for batches (?batch=1) gets every change once, in order, whether alone or
// in a {"type":"changes"} message of its group.
func TestConcurrentWritesEachGetTheirOwnAnswerAndAllAreStored(t *testing.T) {
	c := &client{t: t, token: token(t, "group-commit")}
	id, _ := c.create("")
	listener, _, err := wsclient.Dial(server.URL+"/v1/trees/"+id+"/live?batch=1&access_token="+c.token, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer listener.Close()
	if _, err := listener.Read(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	const writers, each = 12, 8
	var mu sync.Mutex
	etags := map[string]bool{}
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var ws *wsclient.Conn
			if w%2 == 1 {
				ws = liveSocket(t, c, id, "g"+strconv.Itoa(w))
				defer ws.Close()
			}
			for i := 0; i < each; i++ {
				text := "w" + strconv.Itoa(w) + "-" + strconv.Itoa(i)
				var etag string
				if ws != nil {
					a := writeOn(t, ws, text, "", "", appendBody(text))
					if a.Status != 200 {
						t.Errorf("%s: %+v", text, a)
						return
					}
					etag = a.ETag
				} else {
					r := c.do("POST", "/v1/trees/"+id+"/ops", appendBody(text))
					if r.status != 200 {
						t.Errorf("%s: %d %s", text, r.status, r.body)
						return
					}
					etag = r.header.Get("ETag")
				}
				mu.Lock()
				if etags[etag] {
					t.Errorf("two writes answered with one ETag %s", etag)
				}
				etags[etag] = true
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	r := c.do("GET", "/v1/trees/"+id+"/projection", "")
	var p struct{ Messages []struct{ Content string } }
	if json.Unmarshal(r.body, &p); len(p.Messages) != writers*each {
		t.Fatalf("%d messages stored, want %d", len(p.Messages), writers*each)
	}
	seen := map[string]bool{}
	for _, m := range p.Messages {
		if seen[m.Content] {
			t.Fatalf("stored twice: %s", m.Content)
		}
		seen[m.Content] = true
	}
	if v := strings.SplitN(strings.Trim(r.header.Get("ETag"), `"`), "-", 2)[0]; v != strconv.Itoa(1+writers*each) {
		t.Fatalf("version %s after %d writes on a new tree, want %d", v, writers*each, 1+writers*each)
	}
	type change struct {
		Type    string
		Version int
	}
	next, batches := 2, 0
	for next <= 1+writers*each {
		raw, err := listener.Read(20 * time.Second)
		if err != nil {
			t.Fatalf("the listener got versions up to %d of %d: %v", next-1, 1+writers*each, err)
		}
		var m struct {
			change
			Changes []change
		}
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatalf("%v: %.200s", err, raw)
		}
		list := []change{m.change}
		if m.Type == "changes" {
			list, batches = m.Changes, batches+1
		}
		for _, ch := range list {
			if ch.Type != "change" || ch.Version != next {
				t.Fatalf("got %s version %d, want the change of version %d", ch.Type, ch.Version, next)
			}
			next++
		}
	}
	t.Logf("%d changes reached the listener, %d of its messages held several", writers*each, batches)
}

// A frame that is not a write is answered with a 400 ack on the socket, not
// dropped: its client waited for an answer for good (issue 25's hostile
// pass), and the socket goes on taking writes.
func TestAFrameThatIsNotAWriteIsAnsweredWithA400Ack(t *testing.T) {
	c := &client{t: t, token: token(t, "frames")}
	id, _ := c.create(`{"messages":[{"role":"user","content":"hi"}]}`)
	ws := liveSocket(t, c, id, "framer")
	defer ws.Close()
	for _, frame := range []string{"hello", "[]", `{"type":"ping"}`} {
		if err := ws.Send([]byte(frame)); err != nil {
			t.Fatal(err)
		}
		raw, err := ws.Read(20 * time.Second)
		if err != nil {
			t.Fatalf("no answer to the frame %q: %v", frame, err)
		}
		var a ack
		if err := json.Unmarshal(raw, &a); err != nil || a.Type != "ack" || a.Status != 400 || a.Body.Error.Code != "invalid_input" {
			t.Fatalf("the frame %q was answered %s, want a 400 ack, invalid_input", frame, raw)
		}
	}
	if a := writeOn(t, ws, "w1", "", "", `{"ops":[{"op":"append","message":{"role":"user","content":"after"}}]}`); a.Status != 200 {
		t.Fatalf("a write after them: %+v", a)
	}
	// A frame that names its id is acked under it; a write whose "type" is
	// spelled with escapes is a write (it was refused as not one, its ack
	// with no id).
	if err := ws.Send([]byte(`{"type":"ping","id":"p1"}`)); err != nil {
		t.Fatal(err)
	}
	if raw, err := ws.Read(20 * time.Second); err != nil || !strings.Contains(string(raw), `"id":"p1"`) || !strings.Contains(string(raw), `"status":400`) {
		t.Fatalf("a ping with an id: %s %v", raw, err)
	}
	if err := ws.Send([]byte(`{"type":"write","id":"w2","route":"ops","body":{"ops":[{"op":"append","message":{"role":"user","content":"escaped"}}]}}`)); err != nil {
		t.Fatal(err)
	}
	for {
		raw, err := ws.Read(20 * time.Second)
		if err != nil {
			t.Fatal(err)
		}
		var a ack
		if err := json.Unmarshal(raw, &a); err != nil || a.Type != "ack" {
			continue
		}
		if a.ID != "w2" || a.Status != 200 {
			t.Fatalf("a write spelled with escapes: %s", raw)
		}
		break
	}
}

// Acks come in the order of their frames: a frame that is not a write, sent
// among writes of the same socket, is answered after the writes before it
// and before the writes after it. Its 400 needs no call into the tree's
// object and went out at once, ahead of writes in flight; then, waiting for
// the last write before it alone, it fell behind the writes after it, which
// the object serves in one group with it and answers at once.
func TestAFrameThatIsNotAWriteIsAnsweredAfterTheWritesBeforeIt(t *testing.T) {
	c := &client{t: t, token: token(t, "frames-order")}
	id, _ := c.create(`{"messages":[{"role":"user","content":"hi"}]}`)
	ws := liveSocket(t, c, id, "framer")
	defer ws.Close()
	write := func(w string, n int) []byte {
		var ops []string
		for i := range n {
			ops = append(ops, `{"op":"append","message":{"role":"user","content":"a message long enough to take the object a moment `+strconv.Itoa(i)+` `+strings.Repeat("x", 1500)+`"}}`)
		}
		msg, _ := json.Marshal(map[string]any{"type": "write", "id": w, "route": "ops", "body": json.RawMessage(`{"ops":[` + strings.Join(ops, ",") + `]}`)})
		return msg
	}
	for round := range 4 {
		r := strconv.Itoa(round)
		frames := [][]byte{write("a"+r, 200), write("b"+r, 5), []byte(`{"type":"ping"}`), write("c"+r, 5), write("d"+r, 1)}
		want := []string{"a" + r + " 200", "b" + r + " 200", " 400", "c" + r + " 200", "d" + r + " 200"}
		for _, f := range frames {
			if err := ws.Send(f); err != nil {
				t.Fatal(err)
			}
		}
		got := readAcks(t, ws, len(want), nil)
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Fatalf("round %d: acks in the order %q, want %q, the order of their frames", round, got, want)
		}
	}
}

// A socket opened without ?client= is one writer in the If-Match line: after
// its write's 412, its next write with the current ETag goes in at once, in
// the order sent. Each of its writes took a new place: the next one was held
// ~2 s behind the place its own 412 had made the head, then refused with a
// 412, and a write sent after it without If-Match went in first.
func TestAnUnnamedSocketKeepsItsPlaceInTheIfMatchLine(t *testing.T) {
	c := &client{t: t, token: token(t, "unnamed-turns")}
	id, etag := c.create(`{"messages":[{"role":"user","content":"hi"}]}`)
	ws, _, err := wsclient.Dial(server.URL+"/v1/trees/"+id+"/live?access_token="+c.token, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if msg, err := ws.Read(10 * time.Second); err != nil || !strings.Contains(string(msg), `"hello"`) {
		t.Fatalf("hello: %s %v", msg, err)
	}
	frame := func(w, ifMatch string) []byte {
		m := map[string]any{"type": "write", "id": w, "route": "ops", "body": json.RawMessage(`{"ops":[{"op":"append","message":{"role":"user","content":"` + w + `"}}]}`)}
		if ifMatch != "" {
			m["if_match"] = ifMatch
		}
		msg, _ := json.Marshal(m)
		return msg
	}
	stale := `"0-stale"`
	for round := range 3 {
		r := strconv.Itoa(round)
		t0 := time.Now()
		for _, f := range [][]byte{frame("w1-"+r, stale), frame("w2-"+r, etag), frame("w3-"+r, "")} {
			if err := ws.Send(f); err != nil {
				t.Fatal(err)
			}
		}
		got := readAcks(t, ws, 3, func(a ack) {
			if a.Status == 200 {
				etag = a.ETag
			}
		})
		want := []string{"w1-" + r + " 412", "w2-" + r + " 200", "w3-" + r + " 200"}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Fatalf("round %d: acks %q, want %q", round, got, want)
		}
		if d := time.Since(t0); d > 1500*time.Millisecond {
			t.Fatalf("round %d: the three writes took %v: a write of the head of the line was held", round, d)
		}
	}
}

// readAcks reads the next n acks of ws (skipping pushed changes), each as
// "id status", handing each to seen when it is not nil.
func readAcks(t *testing.T, ws *wsclient.Conn, n int, seen func(ack)) []string {
	t.Helper()
	var got []string
	for len(got) < n {
		raw, err := ws.Read(20 * time.Second)
		if err != nil {
			t.Fatalf("acks so far %v: %v", got, err)
		}
		var a ack
		if err := json.Unmarshal(raw, &a); err != nil {
			t.Fatalf("%v: %s", err, raw)
		}
		if a.Type != "ack" {
			continue
		}
		got = append(got, a.ID+" "+strconv.Itoa(a.Status))
		if seen != nil {
			seen(a)
		}
	}
	return got
}
