//go:build !js || stock

package edge

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/sessiontree/sessiontree/core"
)

// deltaOf reads tree id as c sees it, applies edit to a copy, and returns the
// delta of what edit changed (as live clients are pushed it, and as the JS
// client builds it from takeChanges) with the ETag it was read at.
func deltaOf(t *testing.T, c *client, id string, edit func(*core.Tree)) (string, string) {
	t.Helper()
	r := c.do("GET", "/v1/trees/"+id, "")
	tr, err := core.Unmarshal(r.body)
	if err != nil {
		t.Fatal(err)
	}
	tr.TakeChanges()
	edit(tr)
	var w Write
	for _, n := range tr.TakeChanges().Nodes {
		if b, ok := tr.NodeJSON(n); ok {
			w.PutNodes = append(w.PutNodes, core.Fragment{Key: n, JSON: b})
		}
	}
	for _, name := range []string{tr.ActiveBranch()} {
		b, _ := tr.BranchJSON(name)
		w.PutBranches = append(w.PutBranches, core.Fragment{Key: name, JSON: b})
	}
	w.Meta.Root, w.Meta.Active = tr.Root(), tr.ActiveBranch()
	return string(Delta(w, false, 1<<30)), r.header.Get("ETag")
}

func appendText(text string) func(*core.Tree) {
	return func(tr *core.Tree) {
		if _, err := tr.Append(core.Message(`{"role":"user","content":`+strings.TrimSpace(string(mustJSON(text)))+`}`), time.Now().UnixMilli()); err != nil {
			panic(err)
		}
	}
}

func mustJSON(v any) []byte { b, _ := json.Marshal(v); return b }

// A client that holds the tree at an ETag sends only the rows it changed
// since (POST /delta): applied on top of that version, with If-Match
// required (428), 412 when the tree moved on, 409 when the rows contradict
// the stored tree (nothing changes: the client merges instead), 413 for a
// message over the limit, and a retried Idempotency-Key stored once.
func TestADeltaOfTheRowsAClientChangedIsAppliedOnTopOfItsVersion(t *testing.T) {
	c := newClient(t, newTestHandler(NewMemStore()), "alice")
	id := c.create(`{"messages":[{"role":"user","content":"hi"}]}`)
	delta, etag := deltaOf(t, c, id, appendText("from the delta"))

	wantError(t, c.do("POST", "/v1/trees/"+id+"/delta", delta), 428, "precondition_required")
	r := c.do("POST", "/v1/trees/"+id+"/delta", delta, "If-Match", etag, "Idempotency-Key", "d1")
	if r.status != 200 || r.header.Get("ETag") == etag || r.json(t)["nodes"].(float64) < 1 {
		t.Fatalf("delta: %d %s", r.status, r.body)
	}
	if again := c.do("POST", "/v1/trees/"+id+"/delta", delta, "If-Match", etag, "Idempotency-Key", "d1"); again.status != 200 ||
		again.header.Get("Idempotent-Replayed") != "true" || again.header.Get("ETag") != r.header.Get("ETag") {
		t.Fatalf("a retried key: %d %v %s", again.status, again.header, again.body)
	}
	wantError(t, c.do("POST", "/v1/trees/"+id+"/delta", delta, "If-Match", etag), 412, CodePreconditionFail)
	p := c.do("GET", "/v1/trees/"+id+"/projection", "")
	if got := strings.Count(string(p.body), `"content":`); got != 2 || !strings.Contains(string(p.body), "from the delta") {
		t.Fatalf("after the delta: %s", p.body)
	}

	// The same node id with another message: the copies diverged.
	cur := r.header.Get("ETag")
	var d map[string]any
	json.Unmarshal([]byte(delta), &d)
	for k, n := range d["nodes"].(map[string]any) {
		n.(map[string]any)["message"] = map[string]any{"role": "user", "content": "rewritten"}
		d["nodes"].(map[string]any)[k] = n
	}
	wantError(t, c.do("POST", "/v1/trees/"+id+"/delta", string(mustJSON(d)), "If-Match", cur), 409, "conflict")
	if c.do("GET", "/v1/trees/"+id, "").header.Get("ETag") != cur {
		t.Fatal("a refused delta changed the tree")
	}

	big, etag2 := deltaOf(t, c, id, appendText(strings.Repeat("x", DefaultLimits.Message+1)))
	wantError(t, c.do("POST", "/v1/trees/"+id+"/delta", big, "If-Match", etag2), 413, "too_large")
	wantError(t, c.do("POST", "/v1/trees/"+id+"/delta", `{"nodes":[]}`, "If-Match", etag2), 400, "invalid_input")

	// Rows that would break the tree are refused with 400 and change nothing:
	// a row keyed by another id than its node's (it made core dereference a
	// missing parent: a panic, found by FuzzApplyDelta) and parent links that
	// loop among new rows.
	for _, rows := range []string{
		`{"n":{"id":"00","parent":"n","children":[],"message":{"role":"user"},"created_at_ms":1}}`,
		`{"x":{"id":"x","parent":"y","children":[],"message":{"role":"user"},"created_at_ms":1},"y":{"id":"y","parent":"x","children":[],"message":{"role":"user"},"created_at_ms":1}}`,
	} {
		wantError(t, c.do("POST", "/v1/trees/"+id+"/delta", `{"active":"main","nodes":`+rows+`}`, "If-Match", etag2), 400, "corrupt")
		if c.do("GET", "/v1/trees/"+id, "").header.Get("ETag") != etag2 {
			t.Fatal("a refused delta changed the tree")
		}
	}
	// And a branch row keyed by another name than its branch's (found by
	// FuzzApplyRows: "main" stored under the name "00").
	wantError(t, c.do("POST", "/v1/trees/"+id+"/delta", `{"active":"main","branches":{"main":{"name":"00","created_at_ms":1}}}`, "If-Match", etag2), 400, "corrupt")
	if c.do("GET", "/v1/trees/"+id, "").header.Get("ETag") != etag2 {
		t.Fatal("a refused delta changed the tree")
	}
	// And the removal of main's leaf with main left as it is: stored before
	// Dec 5, a tree whose main pointed at nothing (every later read of it
	// corrupt). Now 409: the client's copy missed a change; it merges.
	leaf := struct {
		Branches map[string]struct{ Leaf string } `json:"branches"`
	}{}
	if err := json.Unmarshal(c.do("GET", "/v1/trees/"+id, "").body, &leaf); err != nil || leaf.Branches["main"].Leaf == "" {
		t.Fatalf("main's leaf: %v %+v", err, leaf)
	}
	wantError(t, c.do("POST", "/v1/trees/"+id+"/delta", `{"active":"main","deleted_nodes":["`+leaf.Branches["main"].Leaf+`"]}`, "If-Match", etag2), 409, "conflict")
	if r := c.do("GET", "/v1/trees/"+id, ""); r.header.Get("ETag") != etag2 {
		t.Fatal("a refused delta changed the tree")
	} else if tr, err := core.Unmarshal(r.body); err != nil || len(tr.Validate()) != 0 {
		t.Fatalf("the stored tree: %v", err)
	}
}

// A delta goes on a live socket too (route "delta").
func TestADeltaGoesOnALiveSocket(t *testing.T) {
	now := int64(1_800_000_000_000)
	h, _, v1 := newTurnsObject(t, &now)
	r := objectCall(t, h, "GET", "/v1/trees/"+strings.Repeat("ab", 16), "", "", "", 0)
	tr, err := core.Unmarshal(r.Body.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	tr.TakeChanges()
	appendText("on the socket")(tr)
	var w Write
	for _, n := range tr.TakeChanges().Nodes {
		if b, ok := tr.NodeJSON(n); ok {
			w.PutNodes = append(w.PutNodes, core.Fragment{Key: n, JSON: b})
		}
	}
	b, _ := tr.BranchJSON(tr.ActiveBranch())
	w.PutBranches = []core.Fragment{{Key: tr.ActiveBranch(), JSON: b}}
	ack, _ := h.ServeSocket(nil, socketWrite("d", "delta", v1, "", string(Delta(w, false, MaxDelta))), socketTree, "alice", "", 0, "", "")
	if a := readAck(t, ack); a.Status != 200 || a.ETag == v1 {
		t.Fatalf("a delta on the socket: %s", ack)
	}
}
