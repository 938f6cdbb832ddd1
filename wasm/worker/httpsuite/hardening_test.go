//go:build !js

package httpsuite

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

// A legal message of 1 MiB of quotes and backslashes is stored and read back
// whole: D1 gets each row as the JSON it is, not escaped a second time (which
// made it ~2 MiB, over production D1's 2,000,000-byte limit on a value).
func TestAMessageOfQuotesIsStoredOnce(t *testing.T) {
	c := &client{t: t, token: token(t, "quotes")}
	id, _ := c.create("")
	text := strings.Repeat(`"\`, (1<<20-200)/4) // each character is two bytes in JSON
	if r := c.do("POST", "/v1/trees/"+id+"/ops", appendBody(text)); r.status != 200 {
		t.Fatalf("append: %d %.300s", r.status, r.body)
	}
	msgs := c.projection(id)
	if len(msgs) != 1 || msgs[0]["content"] != text {
		t.Fatalf("the message did not come back whole (%d messages)", len(msgs))
	}
	// A summary over the limit is 413 with a sentence, not a 500 with SQL.
	big := `{"ops":[{"op":"summarize","branch":"main","summary":"` + strings.Repeat("s", 2_200_000) + `"}]}`
	wantError(t, c.do("POST", "/v1/trees/"+id+"/ops", big), 413, "too_large")
}

// Through D1: one Idempotency-Key sent by 8 clients at once stores one
// append; a retry later gets the same answer; DELETE honours If-Match and a
// no-op switch keeps the ETag.
func TestIdempotencyAndConditionsAgainstD1(t *testing.T) {
	c := &client{t: t, token: token(t, "idem")}
	id, _ := c.create("")
	body := appendBody("stored once")
	var wg sync.WaitGroup
	answers := make([]reply, 8)
	for i := range answers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := &client{t: t, token: c.token}
			answers[i] = w.do("POST", "/v1/trees/"+id+"/ops", body, "Idempotency-Key", "one-append")
		}()
	}
	wg.Wait()
	for _, a := range answers {
		if a.status != 200 || string(a.body) != string(answers[0].body) {
			t.Fatalf("answers differ: %d %s / %s", a.status, a.body, answers[0].body)
		}
	}
	if msgs := c.projection(id); len(msgs) != 1 {
		t.Fatalf("%d messages stored, want 1", len(msgs))
	}
	etag := answers[0].header.Get("ETag")
	if r := c.do("POST", "/v1/trees/"+id+"/ops", `{"ops":[{"op":"switch","branch":"main"}]}`); r.header.Get("ETag") != etag {
		t.Fatalf("a no-op switch changed the ETag: %s -> %s", etag, r.header.Get("ETag"))
	}
	wantError(t, c.do("DELETE", "/v1/trees/"+id, "", "If-Match", `"1-stale"`), 412, "precondition_failed")
	d1 := c.do("DELETE", "/v1/trees/"+id, "", "If-Match", etag, "Idempotency-Key", "del")
	d2 := c.do("DELETE", "/v1/trees/"+id, "", "If-Match", etag, "Idempotency-Key", "del")
	if d1.status != 204 || d2.status != 204 {
		t.Fatalf("delete, then its retry: %d %s, %d %s", d1.status, d1.body, d2.status, d2.body)
	}
	wantError(t, c.do("GET", "/v1/trees/"+id, ""), 404, "not_found")
}

// Through the router and a tree's object: CORS for the configured origin,
// Cache-Control: private, no-store, WWW-Authenticate on 401, and a window of
// the path.
func TestHeadersAndWindowsThroughTheObject(t *testing.T) {
	c := &client{t: t, token: token(t, "headers")}
	id, _ := c.create(`{"messages":[{"role":"user","content":"a"},{"role":"user","content":"b"},{"role":"user","content":"c"}]}`)
	r := c.do("GET", "/v1/trees/"+id+"/projection?tail=2", "", "Origin", "https://app.example")
	if r.status != 200 || r.header.Get("Access-Control-Allow-Origin") != "https://app.example" ||
		r.header.Get("Cache-Control") != "private, no-store" {
		t.Fatalf("%d %v %s", r.status, r.header, r.body)
	}
	if v := r.object(t); v["length"] != 3.0 || len(v["messages"].([]any)) != 2 {
		t.Fatalf("window: %s", r.body)
	}
	if r := c.do("GET", "/v1/trees", "", "Origin", "https://other.example"); r.header.Get("Access-Control-Allow-Origin") != "" {
		t.Fatalf("another origin was allowed: %v", r.header)
	}
	anon := &client{t: t}
	if r := anon.do("GET", "/v1/trees/"+id, ""); r.status != 401 || !strings.HasPrefix(r.header.Get("WWW-Authenticate"), "Bearer") {
		t.Fatalf("401: %d %v", r.status, r.header)
	}
}

// Through a tree's object: changes since a version, search, stats, import of
// an interchange file, and the list in pages.
func TestChangesSearchStatsImportAndPagesThroughTheWorker(t *testing.T) {
	c := &client{t: t, token: token(t, "extras")}
	id, _ := c.create(`{"messages":[{"role":"user","content":"the quick brown fox"}]}`)
	for _, text := range []string{"one", "two"} {
		if r := c.do("POST", "/v1/trees/"+id+"/ops", appendBody(text)); r.status != 200 {
			t.Fatalf("append: %d %s", r.status, r.body)
		}
	}
	ch := c.do("GET", "/v1/trees/"+id+"/changes?since=1", "")
	if v := ch.object(t); ch.status != 200 || len(v["changes"].([]any)) != 2 || v["version"] != 3.0 {
		t.Fatalf("changes: %d %s", ch.status, ch.body)
	}
	if hits := c.do("GET", "/v1/trees/"+id+"/search?q=brown", "").object(t)["hits"].([]any); len(hits) != 1 {
		t.Fatalf("search: %v", hits)
	}
	if st := c.do("GET", "/v1/trees/"+id+"/stats", "").object(t); st["nodes"] != 3.0 {
		t.Fatalf("stats: %v", st)
	}
	file := c.do("GET", "/v1/trees/"+id+"/export?format=pi", "")
	imp := c.do("POST", "/v1/trees?format=auto", string(file.body))
	if imp.status != 201 || imp.object(t)["import"].(map[string]any)["format"] != "pi" {
		t.Fatalf("import: %d %s", imp.status, imp.body)
	}
	page := c.do("GET", "/v1/trees?limit=1", "").object(t)
	if len(page["trees"].([]any)) != 1 || page["next"] == nil {
		t.Fatalf("first page: %v", page)
	}
	rest := c.do("GET", "/v1/trees?limit=1&after="+page["next"].(string), "").object(t)
	if len(rest["trees"].([]any)) != 1 || rest["next"] != nil {
		t.Fatalf("second page: %v", rest)
	}
	// A page is read from D1 by itself, after the place "after" names: a
	// cursor ("next"), or a tree id, which must be one of the tenant's.
	// Another tenant's cursor is only a place in its own list.
	first := page["trees"].([]any)[0].(map[string]any)["id"].(string)
	if byID := c.do("GET", "/v1/trees?limit=1&after="+first, "").object(t); len(byID["trees"].([]any)) != 1 {
		t.Fatalf("the page after the first tree's id: %v", byID)
	}
	wantError(t, c.do("GET", "/v1/trees?limit=1&after="+strings.Repeat("0", 32), ""), 400, "invalid_input")
	other := &client{t: t, token: token(t, "pages-other")}
	wantError(t, other.do("GET", "/v1/trees?after="+first, ""), 400, "invalid_input")
	if theirs := other.do("GET", "/v1/trees?after="+page["next"].(string), "").object(t); len(theirs["trees"].([]any)) != 0 {
		t.Fatalf("the other tenant's page after this tenant's cursor: %v", theirs)
	}
}

// A body of 1 MiB or more goes from the router to its tree's object as a
// stream of its chunks (glue/isolate.mjs, streamOf), read and joined there a
// turn at a time: a create of about 6 MiB comes back byte for byte, and a
// body over the 8 MiB limit is refused with 413, the connection still usable.
func TestALargeBodyReachesItsTreesObjectWhole(t *testing.T) {
	c := &client{t: t, token: token(t, "streamed")}
	var b strings.Builder
	var want []string
	b.WriteString(`{"messages":[`)
	for i := 0; i < 12; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		// Each message different at every position, so that a chunk out of
		// place or twice would show.
		var m strings.Builder
		for j := 0; m.Len() < 500_000; j++ {
			fmt.Fprintf(&m, "%d.%d ", i, j)
		}
		want = append(want, m.String())
		fmt.Fprintf(&b, `{"role":"user","content":%q}`, m.String())
	}
	b.WriteString(`]}`)
	id, _ := c.create(b.String())
	msgs := c.projection(id)
	if len(msgs) != len(want) {
		t.Fatalf("%d messages came back, want %d", len(msgs), len(want))
	}
	for i, m := range msgs {
		if m["content"] != want[i] {
			t.Fatalf("message %d did not come back whole (%d bytes, want %d)", i, len(m["content"].(string)), len(want[i]))
		}
	}
	over := `{"messages":[{"role":"user","content":"` + strings.Repeat("o", 9<<20) + `"}]}`
	wantError(t, c.do("POST", "/v1/trees", over), 413, "too_large")
	if r := c.do("GET", "/v1/trees/"+id+"/stats", ""); r.status != 200 {
		t.Fatalf("stats after a refused body: %d %.300s", r.status, r.body)
	}
}
