//go:build !js || stock

package edge

import (
	"encoding/json"
	"strings"
	"testing"
)

type socketAck struct {
	Type, ID, ETag string
	Status         int
	Replayed       bool
	RetryAfter     int `json:"retry_after"`
	Body           struct {
		ETag  string
		Nodes int
		Error struct{ Code, Message string }
	}
}

func readAck(t *testing.T, raw []byte) socketAck {
	t.Helper()
	var a socketAck
	if err := json.Unmarshal(raw, &a); err != nil || a.Type != "ack" {
		t.Fatalf("not an ack: %v: %s", err, raw)
	}
	return a
}

func wantSocketError(t *testing.T, raw []byte, status int, code string) socketAck {
	t.Helper()
	a := readAck(t, raw)
	if a.Status != status || a.Body.Error.Code != code || a.Body.Error.Message == "" {
		t.Fatalf("ack %s, want %d %s with a message", raw, status, code)
	}
	return a
}

const socketTree = "https://worker.example/v1/trees/" + "abababababababababababababababab"

func socketWrite(id, route, ifMatch, key, body string) []byte {
	m := map[string]any{"type": "write", "id": id, "route": route, "body": json.RawMessage(body)}
	if ifMatch != "" {
		m["if_match"] = ifMatch
	}
	if key != "" {
		m["idempotency_key"] = key
	}
	b, _ := json.Marshal(m)
	return b
}

// A write sent on a live socket is the same write as over HTTP: applied at
// the If-Match it names (412 with the current ETag otherwise), stored once
// for its Idempotency-Key (the retry is answered from the kept answer,
// "replayed"), checked against every limit (413) and JSON rule (400), and
// acked on the socket with the write's id, status, ETag and answer.
func TestAWriteOnALiveSocketIsTheSameWriteAsOverHTTP(t *testing.T) {
	now := int64(1_800_000_000_000)
	h, _, v1 := newTurnsObject(t, &now)
	serve := func(msg []byte) []byte {
		t.Helper()
		ack, hdr := h.ServeSocket(nil, msg, socketTree, "alice", "", 0, "", "")
		if ack == nil || hdr.Get(HeaderHold) != "" {
			t.Fatalf("no ack for %s (held: %q)", msg, hdr.Get(HeaderHold))
		}
		return ack
	}
	a := readAck(t, serve(socketWrite("w1", "ops", v1, "", appendOps)))
	if a.ID != "w1" || a.Status != 200 || a.ETag == "" || a.ETag == v1 || a.Body.ETag != a.ETag {
		t.Fatalf("append: %+v", a)
	}
	v2 := a.ETag
	stale := wantSocketError(t, serve(socketWrite("w2", "ops", v1, "", appendOps)), 412, CodePreconditionFail)
	if stale.ID != "w2" || stale.ETag != v2 {
		t.Fatalf("412 names the write and the current ETag %s: %+v", v2, stale)
	}
	first := readAck(t, serve(socketWrite("w3", "ops", "", "key-1", appendOps)))
	again := readAck(t, serve(socketWrite("w4", "ops", "", "key-1", appendOps)))
	if first.Status != 200 || first.Replayed || !again.Replayed || again.ETag != first.ETag || again.ID != "w4" {
		t.Fatalf("a retried key: first %+v, again %+v", first, again)
	}
	// The tree holds the root's create and two appends, not three.
	r := objectCall(t, h, "GET", "/v1/trees/"+strings.Repeat("ab", 16)+"/projection", "", "", "", 0)
	var p struct{ Messages []any }
	if json.Unmarshal(r.Body.Bytes(), &p); len(p.Messages) != 2 {
		t.Fatalf("after a retried key: %d messages, want 2: %s", len(p.Messages), r.Body)
	}
	wantSocketError(t, serve(socketWrite("w5", "ops", "", "key-1", `{"ops":[]}`)), 422, "invalid_input")
	wantSocketError(t, serve(socketWrite("w6", "ops", "", "", `{"ops":[{"op":"label","node":"x","label":"`+strings.Repeat("l", 5000)+`"}]}`)),
		413, "too_large")
	wantSocketError(t, serve(socketWrite("w7", "ops", "", "", `{"ops":[],"ops":[]}`)), 400, "invalid_input")
	wantSocketError(t, serve(socketWrite("w8", "merge", "", "", `{"tree":1}`)), 400, "corrupt")
}

// A message that is not a write is answered at once with what is wrong:
// not JSON, a key named twice, another type or route, no body, an id over
// 64 bytes, a message over the socket limit.
func TestASocketMessageThatIsNotAWriteIsRefusedWithItsReason(t *testing.T) {
	for _, tc := range []struct {
		name, msg string
		status    int
		code      string
	}{
		{"not JSON", `{"type":`, 400, "invalid_input"},
		{"not an object", `["write"]`, 400, "invalid_input"},
		{"a key twice", `{"type":"write","type":"write","route":"ops","body":{}}`, 400, "invalid_input"},
		{"another type", `{"type":"read","route":"ops","body":{}}`, 400, "invalid_input"},
		{"another route", `{"type":"write","route":"delete","body":{}}`, 400, "invalid_input"},
		{"no body", `{"type":"write","route":"ops"}`, 400, "invalid_input"},
		{"an id too long", `{"type":"write","id":"` + strings.Repeat("i", 65) + `","route":"ops","body":{}}`, 400, "invalid_input"},
		{"over the limit", `{"type":"write","route":"ops","body":{"x":"` + strings.Repeat("x", MaxSocketMessage) + `"}}`, 413, "too_large"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, ack := ReadSocketWrite([]byte(tc.msg), socketTree, "alice", "")
			if w.Req != nil || ack == nil {
				t.Fatalf("accepted: %+v", w)
			}
			wantSocketError(t, ack, tc.status, tc.code)
		})
	}
}

// The rate limit of the tenant counts socket writes as it counts requests:
// over it, a 429 ack with retry_after.
func TestSocketWritesPassTheRouterRateLimit(t *testing.T) {
	now := int64(1_800_000_000_000)
	h, _, _ := newTurnsObject(t, &now)
	router := New(Config{Role: RoleRouter, SigningKey: testKey, RateLimit: 1, Now: func() int64 { return now }})
	var codes []int
	for i := 0; i < 4; i++ {
		ack, _ := h.ServeSocket(router, socketWrite("w", "ops", "", "", appendOps), socketTree, "alice", "", 0, "", "")
		a := readAck(t, ack)
		codes = append(codes, a.Status)
		if a.Status == 429 && a.RetryAfter < 1 {
			t.Fatalf("429 without retry_after: %s", ack)
		}
	}
	if codes[0] != 200 || codes[3] != 429 {
		t.Fatalf("statuses %v: want 200 first (the burst), 429 once the bucket is empty", codes)
	}
}

// A socket write of a named writer waits for its turn as over HTTP: held
// (no ack yet) while another writer is the head of the line.
func TestASocketWriteWaitsForItsTurnLikeAnHTTPWrite(t *testing.T) {
	now := int64(1_800_000_000_000)
	h, ops, v1 := newTurnsObject(t, &now)
	if b := objectCall(t, h, "POST", ops, appendOps, "b", v1, 0); b.Code != 200 {
		t.Fatalf("b: %d", b.Code)
	}
	if a := objectCall(t, h, "POST", ops, appendOps, "a", v1, 0); a.Code != 412 {
		t.Fatalf("a, stale: %d", a.Code) // a is the head of the line now
	}
	ack, hdr := h.ServeSocket(nil, socketWrite("c1", "ops", v1, "", appendOps), socketTree, "alice", "c", 0, "", "")
	if ack != nil || hdr.Get(HeaderHold) == "" {
		t.Fatalf("c's write while a is the head: %s, hold %q", ack, hdr.Get(HeaderHold))
	}
}
