//go:build !js || stock

package edge

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sessiontree/sessiontree/core"
)

// Every field of an op has a limit checked before anything is stored: a
// summary as long as a message, a 4 KiB label, 256-byte ids and names. Over
// it, the answer is 413 too_large saying which field and what the limit is.
func TestEveryFieldOverItsLimitIs413BeforeStorage(t *testing.T) {
	s := NewMemStore()
	c := newClient(t, newTestHandler(s), "alice")
	id := c.create(`{"messages":[{"role":"user","content":"hi"}]}`)
	root, _ := c.do("GET", "/v1/trees/"+id, "").json(t)["root"].(string)
	if root == "" {
		t.Fatal("no root in the tree file")
	}
	before := s.RowWrites
	for name, op := range map[string]string{
		"summary": `{"op":"summarize","branch":"main","summary":"` + strings.Repeat("s", 1<<20+1) + `"}`,
		"label":   `{"op":"label","node":"` + root + `","label":"` + strings.Repeat("l", 4097) + `"}`,
		`name`:    `{"op":"branch","from":"` + root + `","name":"` + strings.Repeat("n", 257) + `"}`,
	} {
		r := c.do("POST", "/v1/trees/"+id+"/ops", `{"ops":[`+op+`]}`)
		wantError(t, r, 413, "too_large")
		if !strings.Contains(string(r.body), name) {
			t.Errorf("the 413 does not name the %s: %s", name, r.body)
		}
	}
	if s.RowWrites != before {
		t.Fatalf("refused ops wrote %d rows", s.RowWrites-before)
	}
	// At the limit, a summary is stored.
	ok := `{"ops":[{"op":"summarize","branch":"main","summary":"` + strings.Repeat("s", 1<<20-100) + `"}]}`
	if r := c.do("POST", "/v1/trees/"+id+"/ops", ok); r.status != 200 {
		t.Fatalf("a summary under the limit: %d %.300s", r.status, r.body)
	}
}

// A body that names "ops" (or "messages") twice is refused: which one counts
// would be a guess.
func TestADuplicateKeyInABodyIsRefused(t *testing.T) {
	c := newClient(t, newTestHandler(NewMemStore()), "alice")
	id := c.create("")
	app := `[{"op":"append","message":{"role":"user","content":"a"}}]`
	r := c.do("POST", "/v1/trees/"+id+"/ops", `{"ops":`+app+`,"ops":[]}`)
	wantError(t, r, 400, "invalid_input")
	if !strings.Contains(string(r.body), "twice") {
		t.Fatalf("the message does not say what is wrong: %s", r.body)
	}
	wantError(t, c.do("POST", "/v1/trees", `{"messages":[],"messages":[]}`), 400, "invalid_input")
	wantError(t, c.do("POST", "/v1/trees/"+id+"/ops", `{"ops":`+app+`,"o\u0070s":[]}`), 400, "invalid_input")
}

// "at" must lie between 2000-01-01 and an hour from now: a far-future time
// would win every later merge.
func TestATimeOutsideTheWindowIsRefused(t *testing.T) {
	now := time.Now().UnixMilli()
	h := New(Config{Store: NewMemStore(), SigningKey: testKey, Now: func() int64 { return now }})
	c := newClient(t, h, "alice")
	id := c.create("")
	op := func(at int64) string {
		return `{"ops":[{"op":"append","message":{"role":"user"},"at":` + strconv.FormatInt(at, 10) + `}]}`
	}
	for _, at := range []int64{now + 2*3600*1000, 1 << 62, -1, 0, 946_684_799_999} {
		wantError(t, c.do("POST", "/v1/trees/"+id+"/ops", op(at)), 400, "invalid_input")
	}
	for _, at := range []int64{now, now + 3600*1000, 946_684_800_000} {
		if r := c.do("POST", "/v1/trees/"+id+"/ops", op(at)); r.status != 200 {
			t.Fatalf("at %d: %d %s", at, r.status, r.body)
		}
	}
}

// A switch to the branch already active, or a merge that brings nothing new,
// stores nothing and keeps the ETag, so caches and If-Match stay valid.
func TestAWriteThatChangesNothingKeepsTheETag(t *testing.T) {
	s := NewMemStore()
	c := newClient(t, newTestHandler(s), "alice")
	id := c.create(`{"messages":[{"role":"user","content":"hi"}]}`)
	got := c.do("GET", "/v1/trees/"+id, "")
	etag := got.header.Get("ETag")
	before := s.RowWrites
	r := c.do("POST", "/v1/trees/"+id+"/ops", `{"ops":[{"op":"switch","branch":"main"}]}`, "If-Match", etag)
	if r.status != 200 || r.header.Get("ETag") != etag || r.json(t)["etag"] != etag {
		t.Fatalf("a no-op switch: %d %s %s, want the ETag %s kept", r.status, r.header.Get("ETag"), r.body, etag)
	}
	r = c.do("POST", "/v1/trees/"+id+"/merge", string(got.body), "If-Match", etag)
	if r.status != 200 || r.header.Get("ETag") != etag {
		t.Fatalf("merging the tree into itself: %d %s, want the ETag %s kept", r.status, r.body, etag)
	}
	if s.RowWrites != before {
		t.Fatalf("no-op writes stored %d rows", s.RowWrites-before)
	}
	if g := c.do("GET", "/v1/trees/"+id, "", "If-None-Match", etag); g.status != 304 {
		t.Fatalf("the ETag changed: %d", g.status)
	}
}

// DELETE honours If-Match: a stale ETag is 412 and the tree stays.
func TestDeleteWithAStaleIfMatchIs412(t *testing.T) {
	c := newClient(t, newTestHandler(NewMemStore()), "alice")
	id := c.create("")
	old := c.do("GET", "/v1/trees/"+id, "").header.Get("ETag")
	cur := c.appendMsg(id, "a").header.Get("ETag")
	wantError(t, c.do("DELETE", "/v1/trees/"+id, "", "If-Match", old), 412, CodePreconditionFail)
	if r := c.do("GET", "/v1/trees/"+id, ""); r.status != 200 {
		t.Fatalf("a refused delete removed the tree: %d", r.status)
	}
	if r := c.do("DELETE", "/v1/trees/"+id, "", "If-Match", cur); r.status != 204 {
		t.Fatalf("delete with the current ETag: %d %s", r.status, r.body)
	}
	wantError(t, c.do("GET", "/v1/trees/"+id, ""), 404, "not_found")
}

// Every write sent twice with one Idempotency-Key is stored once and answered
// the same both times; the key reused for another request is refused.
func TestAWriteSentTwiceWithAnIdempotencyKeyIsStoredOnce(t *testing.T) {
	s := NewMemStore()
	c := newClient(t, newTestHandler(s), "alice")
	first := c.do("POST", "/v1/trees", `{"messages":[{"role":"user","content":"hi"}]}`, "Idempotency-Key", "k-create")
	again := c.do("POST", "/v1/trees", `{"messages":[{"role":"user","content":"hi"}]}`, "Idempotency-Key", "k-create")
	if first.status != 201 || again.status != 201 || string(first.body) != string(again.body) ||
		again.header.Get("Location") != first.header.Get("Location") || again.header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("create twice: %d %s / %d %s", first.status, first.body, again.status, again.body)
	}
	if trees := c.do("GET", "/v1/trees", "").json(t)["trees"].([]any); len(trees) != 1 {
		t.Fatalf("%d trees stored, want 1", len(trees))
	}
	id := first.json(t)["id"].(string)
	body := `{"ops":[{"op":"append","message":{"role":"user","content":"once"}}]}`
	a := c.do("POST", "/v1/trees/"+id+"/ops", body, "Idempotency-Key", "k-append")
	b := c.do("POST", "/v1/trees/"+id+"/ops", body, "Idempotency-Key", "k-append")
	if a.status != 200 || string(a.body) != string(b.body) || a.header.Get("ETag") != b.header.Get("ETag") {
		t.Fatalf("append twice: %s / %s", a.body, b.body)
	}
	if msgs := c.do("GET", "/v1/trees/"+id+"/projection", "").json(t)["messages"].([]any); len(msgs) != 2 {
		t.Fatalf("%d messages, want 2: the append was stored twice", len(msgs))
	}
	r := c.do("POST", "/v1/trees/"+id+"/ops", `{"ops":[{"op":"append","message":{"role":"user"}}]}`, "Idempotency-Key", "k-append")
	wantError(t, r, 422, "invalid_input")
	// Another tenant's key of the same name is its own.
	bob := newClient(t, c.h, "bob")
	if r := bob.do("POST", "/v1/trees", "", "Idempotency-Key", "k-create"); r.status != 201 || r.header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("bob's key: %d %s", r.status, r.body)
	}
	del1 := c.do("DELETE", "/v1/trees/"+id, "", "Idempotency-Key", "k-del")
	del2 := c.do("DELETE", "/v1/trees/"+id, "", "Idempotency-Key", "k-del")
	if del1.status != 204 || del2.status != 204 {
		t.Fatalf("delete twice with a key: %d, %d", del1.status, del2.status)
	}
	wantError(t, c.do("POST", "/v1/trees", "", "Idempotency-Key", strings.Repeat("k", 256)), 413, "too_large")
	wantError(t, c.do("POST", "/v1/trees", "", "Idempotency-Key", "has space"), 400, "invalid_input")
}

// An import sent again with its key is answered from the kept answer, and
// the key sent with the same body to another format is refused (422): the
// query is part of the request. Before, it was answered the first import's
// tree as if the second had been made.
func TestAKeyOfAnImportSentWithAnotherFormatIsRefused(t *testing.T) {
	c := newClient(t, newTestHandler(NewMemStore()), "alice")
	body := `[{"role":"user","content":"hi"}]`
	first := c.do("POST", "/v1/trees?format=openai", body, "Idempotency-Key", "k-import")
	if first.status != 201 {
		t.Fatalf("import: %d %s", first.status, first.body)
	}
	if again := c.do("POST", "/v1/trees?format=openai", body, "Idempotency-Key", "k-import"); again.status != 201 || again.header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("the import sent again: %d %s", again.status, again.body)
	}
	wantError(t, c.do("POST", "/v1/trees?format=auto", body, "Idempotency-Key", "k-import"), 422, "invalid_input")
}

// The same write sent by 16 clients at once with one key is stored once.
func TestConcurrentRetriesWithOneKeyStoreOnce(t *testing.T) {
	s := NewMemStore()
	h := newTestHandler(s)
	c := newClient(t, h, "alice")
	id := c.create("")
	body := `{"ops":[{"op":"append","message":{"role":"user","content":"once"}}]}`
	var wg sync.WaitGroup
	answers := make([]reply, 16)
	for i := range answers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			answers[i] = c.do("POST", "/v1/trees/"+id+"/ops", body, "Idempotency-Key", "same")
		}()
	}
	wg.Wait()
	for _, a := range answers {
		if a.status != 200 || string(a.body) != string(answers[0].body) {
			t.Fatalf("answers differ: %d %s / %s", a.status, a.body, answers[0].body)
		}
	}
	if msgs := c.do("GET", "/v1/trees/"+id+"/projection", "").json(t)["messages"].([]any); len(msgs) != 1 {
		t.Fatalf("%d messages stored, want 1", len(msgs))
	}
}

// A write stored whose answer was lost (the worker died before answering) is
// answered from the kept answer when the client retries, on a new handler.
func TestAWriteStoredBeforeACrashIsAnsweredOnRetry(t *testing.T) {
	s := NewMemStore()
	c := newClient(t, newTestHandler(s), "alice")
	id := c.create("")
	body := `{"ops":[{"op":"append","message":{"role":"user","content":"once"}}]}`
	first := c.do("POST", "/v1/trees/"+id+"/ops", body, "Idempotency-Key", "crash")
	restarted := newClient(t, newTestHandler(s), "alice") // a new isolate: an empty cache
	again := restarted.do("POST", "/v1/trees/"+id+"/ops", body, "Idempotency-Key", "crash")
	if string(first.body) != string(again.body) {
		t.Fatalf("%s / %s", first.body, again.body)
	}
	if _, ok, _ := s.Replay(context.Background(), "alice", "crash"); !ok {
		t.Fatal("the key was not stored with the write")
	}
}

// A query string with a malformed %-escape or a ';' separator is refused, 400
// naming what is wrong: url.Query drops such a pair without a word, and the
// request would run without a parameter its client sent.
func TestAQueryThatCannotBeReadWholeIsRefused(t *testing.T) {
	c := newClient(t, newTestHandler(NewMemStore()), "alice")
	id := c.create(`{"messages":[{"role":"user","content":"hi"}]}`)
	for _, q := range []string{"since=%zz", "since=0;x=1", "branch=ma%2", "%=1"} {
		r := c.do("GET", "/v1/trees/"+id+"/changes?"+q, "")
		wantError(t, r, 400, "invalid_input")
		if !strings.Contains(string(r.body), "query") {
			t.Errorf("?%s: the 400 does not say the query is at fault: %s", q, r.body)
		}
	}
	if r := c.do("GET", "/v1/trees/"+id+"/stats?x=%41&y=", ""); r.status != 200 {
		t.Fatalf("a well-formed query: %d %s", r.status, r.body)
	}
}

// A tree may hold names longer than an op can make (a merge keeps a second
// leaf of a branch as name~leaf, a file brings its own ids), and every op
// that looks a name up reaches them: a switch, a label, a rewind, a delete.
// A new branch name stays at 256 bytes (413 naming the field).
func TestOpsReachEveryNameATreeHolds(t *testing.T) {
	c := newClient(t, newTestHandler(NewMemStore()), "alice")
	long := strings.Repeat("b", 300)
	node := strings.Repeat("n", 400)
	file := `{"format":"sessiontree","version":1,"root":"` + node + `","active_branch":"main","branches":{"main":{"name":"main","leaf":"` + node + `","created_at_ms":1},"` + long + `":{"name":"` + long + `","leaf":"` + node + `","created_at_ms":2}},"nodes":{"` + node + `":{"id":"` + node + `","children":[],"message":{"role":"user","content":"hi"},"created_at_ms":1}}}`
	r := c.do("POST", "/v1/trees", file)
	if r.status != 201 {
		t.Fatalf("create from a file with long names: %d %s", r.status, r.body)
	}
	id, _ := r.json(t)["id"].(string)
	for _, op := range []string{
		`{"op":"switch","branch":"` + long + `"}`,
		`{"op":"label","node":"` + node + `","label":"kept"}`,
		`{"op":"rewind","node":"` + node + `"}`,
		`{"op":"switch","branch":"main"}`,
		`{"op":"deleteBranch","branch":"` + long + `"}`,
	} {
		if r := c.do("POST", "/v1/trees/"+id+"/ops", `{"ops":[`+op+`]}`); r.status != 200 {
			t.Fatalf("%.60s…: %d %s", op, r.status, r.body)
		}
	}
	tr, err := core.Unmarshal(c.do("GET", "/v1/trees/"+id, "").body)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range tr.Branches() {
		if b.Name == long {
			t.Fatal("the long-named branch was not deleted")
		}
	}
	r = c.do("POST", "/v1/trees/"+id+"/ops", `{"ops":[{"op":"branch","from":"`+node+`","name":"`+long+`"}]}`)
	wantError(t, r, 413, "too_large")
	if !strings.Contains(string(r.body), `\"name\" of op 0`) {
		t.Fatalf("the 413 does not name the field: %s", r.body)
	}
}

// A message over the limit is 413 with "limit":"message": no other form of
// the same write (the whole tree, its parts) goes in, and js/sync.js stops
// there rather than send it so every round (an outside pass, Dec 6, night).
func TestAMessageOverTheLimitSaysWhichLimit(t *testing.T) {
	c := newClient(t, newTestHandler(NewMemStore()), "alice")
	id := c.create(`{"messages":[{"role":"user","content":"hi"}]}`)
	big := `{"role":"user","content":"` + strings.Repeat("m", 1<<20) + `"}`
	for _, r := range []reply{
		c.do("POST", "/v1/trees/"+id+"/ops", `{"ops":[{"op":"append","message":`+big+`}]}`),
		c.do("POST", "/v1/trees", `{"messages":[`+big+`]}`),
	} {
		wantError(t, r, 413, "too_large")
		if !strings.Contains(string(r.body), `"limit":"message"`) {
			t.Errorf("the 413 does not say which limit: %.200s", r.body)
		}
	}
}
