package edge

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
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

func TestAWriterWhoLostHasTheNextTurnAndOthersAreHeldUntilItWrites(t *testing.T) {
	now := int64(1_800_000_000_000)
	h := New(Config{Store: NewMemStore(), Role: RoleObject, Now: func() int64 { return now }})
	c := objectCall(t, h, "POST", "/v1/trees", "", "", "", 0)
	if c.Code != 201 {
		t.Fatalf("create: %d %s", c.Code, c.Body)
	}
	id := strings.Repeat("ab", 16)
	ops := "/v1/trees/" + id + "/ops"
	v1 := c.Header().Get("ETag")
	// b writes first; a, with the ETag it read before, loses.
	b := objectCall(t, h, "POST", ops, appendOps, "b", v1, 0)
	if b.Code != 200 {
		t.Fatalf("b: %d %s", b.Code, b.Body)
	}
	v2 := b.Header().Get("ETag")
	if a := objectCall(t, h, "POST", ops, appendOps, "a", v1, 0); a.Code != 412 {
		t.Fatalf("a with a stale ETag: %d %s", a.Code, a.Body)
	}
	// b, the last winner, writes again at once with the current ETag: it is
	// held for a (503 with the hold header, for the glue), and so is a writer
	// without a name.
	now += 5
	held := objectCall(t, h, "POST", ops, appendOps, "b", v2, 0)
	if held.Code != 503 || held.Header().Get(HeaderHold) == "" {
		t.Fatalf("b while a is due: %d %q %s", held.Code, held.Header().Get(HeaderHold), held.Body)
	}
	if anon := objectCall(t, h, "POST", ops, appendOps, "", v2, 0); anon.Code != 503 {
		t.Fatalf("a writer without a name while a is due: %d %s", anon.Code, anon.Body)
	}
	// a, having read the tree again, writes with the current ETag: not held.
	a := objectCall(t, h, "POST", ops, appendOps, "a", v2, 0)
	if a.Code != 200 {
		t.Fatalf("a's turn: %d %s", a.Code, a.Body)
	}
	// b's held write, asked again, now meets a's ETag: 412, and b is in line.
	if again := objectCall(t, h, "POST", ops, appendOps, "b", v2, 10); again.Code != 412 {
		t.Fatalf("b after a's write: %d %s", again.Code, again.Body)
	}
	if !h.turns.due("a", 0, now) || h.turns.due("b", 0, now) {
		t.Fatalf("the line after b lost: %v", h.turns.losers)
	}
}

func TestAWriteIsHeldNoLongerThanHoldMaxAndALoserWhoLeftLosesItsPlace(t *testing.T) {
	now := int64(1_800_000_000_000)
	h := New(Config{Store: NewMemStore(), Role: RoleObject, Now: func() int64 { return now }})
	c := objectCall(t, h, "POST", "/v1/trees", "", "", "", 0)
	id := strings.Repeat("ab", 16)
	ops := "/v1/trees/" + id + "/ops"
	if a := objectCall(t, h, "POST", ops, appendOps, "a", `"0-stale"`, 0); a.Code != 412 {
		t.Fatalf("a: %d %s", a.Code, a.Body)
	}
	etag := c.Header().Get("ETag")
	if b := objectCall(t, h, "POST", ops, appendOps, "b", etag, HoldMaxMs); b.Code != 200 {
		t.Fatalf("b held for HoldMaxMs: %d %s", b.Code, b.Body)
	}
	if a := objectCall(t, h, "POST", ops, appendOps, "a", `"0-stale"`, 0); a.Code != 412 {
		t.Fatalf("a: %d %s", a.Code, a.Body)
	}
	now += turnKeepMs + 1
	w := objectCall(t, h, "POST", ops, appendOps, "b", "*", 0)
	if w.Code != 200 {
		t.Fatalf("b after a went quiet for %d ms: %d %s", turnKeepMs+1, w.Code, w.Body)
	}
	// Without If-Match, nobody is held.
	if a := objectCall(t, h, "POST", ops, appendOps, "a", `"0-stale"`, 0); a.Code != 412 {
		t.Fatalf("a: %d", a.Code)
	}
	if w := objectCall(t, h, "POST", ops, appendOps, "b", "", 0); w.Code != http.StatusOK {
		t.Fatalf("b without If-Match: %d %s", w.Code, w.Body)
	}
}
