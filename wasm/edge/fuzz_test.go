//go:build !js || stock

package edge

import (
	"bytes"
	"context"
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"github.com/sessiontree/sessiontree/core"
)

// Fuzz targets for every body the worker decodes: ops (with summarize, the
// op with a free-text field of its own), merge, delta, create, import and the
// Idempotency-Key. Each goes through the whole Handler, as a request would:
// nothing may panic or answer 500, every refusal is a JSON error with a
// code, and what was accepted leaves a tree that reads back.

// fuzzAnswerOK checks that r is not a 500 and that an error answer has a code.
func fuzzAnswerOK(t *testing.T, what string, r reply) {
	t.Helper()
	if r.status >= 500 {
		t.Fatalf("%s: %d %s", what, r.status, r.body)
	}
	if r.status >= 400 {
		var v struct {
			Error struct{ Code, Message string }
		}
		if err := json.Unmarshal(r.body, &v); err != nil || v.Error.Code == "" || v.Error.Message == "" {
			t.Fatalf("%s: %d without an error code and message: %s", what, r.status, r.body)
		}
	}
}

// fuzzTreeReadsBack checks that tree id is readable and sound after a write.
func fuzzTreeReadsBack(t *testing.T, c *client, id string) {
	t.Helper()
	r := c.do("GET", "/v1/trees/"+id, "")
	if r.status != 200 {
		t.Fatalf("the tree after a write: %d %s", r.status, r.body)
	}
	tr, err := core.Unmarshal(r.body)
	if err != nil {
		t.Fatalf("the stored tree does not load: %v", err)
	}
	if probs := tr.Validate(); len(probs) > 0 {
		t.Fatalf("the stored tree has problems: %v", probs)
	}
	// The size the Handler counted write by write is the rows' as stored,
	// and the tree it holds is the stored one (a write refused once applied
	// is taken back out of it: core's Undo).
	if h, ok := c.h.(*Handler); ok {
		if ms, ok := h.store.(*MemStore); ok {
			stored := newClient(t, New(Config{Store: ms, SigningKey: testKey}), "alice").do("GET", "/v1/trees/"+id, "")
			if stored.status != 200 || !bytes.Equal(stored.body, r.body) {
				t.Fatalf("the tree held after a write:\n%s\nthe stored one (%d):\n%s", r.body, stored.status, stored.body)
			}
			metas, _ := ms.List(context.Background(), "alice", Cursor{}, maxListPage)
			for _, m := range metas {
				if m.ID == id && m.Bytes != storedBytes(ms, id) {
					t.Fatalf("the tree was counted at %d bytes; its rows take %d", m.Bytes, storedBytes(ms, id))
				}
			}
		}
	}
}

func fuzzHandler(t *testing.T) (*Handler, *client) {
	h := New(Config{Store: NewMemStore(), SigningKey: testKey,
		Limits: Limits{Body: 64 << 10, Message: 4 << 10, Ops: 50, Nodes: 200, Label: 256, Tree: 16 << 10}, Quota: Quota{Bytes: 24 << 10}})
	return h, newClient(t, h, "alice")
}

func FuzzOpsBody(f *testing.F) {
	for _, s := range []string{
		`{"ops":[{"op":"append","message":{"role":"user","content":"hi"}}]}`,
		`{"ops":[{"op":"summarize","branch":"main","summary":"s"}]}`,
		`{"ops":[{"op":"summarize","branch":"main","summary":"` + strings.Repeat("x", 5000) + `"}]}`,
		`{"ops":[{"op":"label","node":"n","label":"l","at":1}]}`,
		`{"ops":[{"op":"switch","branch":"main"}],"ops":[]}`,
		`{"ops":[{"op":"fork","name":"b"},{"op":"append","message":{"role":"assistant","content":[{"type":"text","text":"t"}]}}]}`,
		`{"ops":[]}`, `{"ops":{}}`, `[]`, `{`, ``,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		_, c := fuzzHandler(t)
		id := c.create(`{"messages":[{"role":"user","content":"hi"}]}`)
		r := c.do("POST", "/v1/trees/"+id+"/ops", body)
		fuzzAnswerOK(t, "ops", r)
		fuzzTreeReadsBack(t, c, id)
	})
}

func FuzzMergeBody(f *testing.F) {
	tr := core.New()
	tr.Append(core.Message(`{"role":"user","content":"hi"}`), 1_700_000_000_000)
	f.Add(string(tr.Marshal()))
	f.Add(`{"format":"sessiontree","version":1,"active_branch":"main","branches":{},"nodes":{}}`)
	f.Add(`{"format":"sessiontree","version":99}`)
	f.Add(`{"format":"sessiontree","format":"sessiontree"}`)
	f.Add(`not json`)
	f.Fuzz(func(t *testing.T, body string) {
		_, c := fuzzHandler(t)
		id := c.create(`{"messages":[{"role":"user","content":"hi"}]}`)
		fuzzAnswerOK(t, "merge", c.do("POST", "/v1/trees/"+id+"/merge", body))
		fuzzTreeReadsBack(t, c, id)
	})
}

// FuzzDeltaBody sends delta documents (the rows a client changed) with the
// tree's ETag, as a client that holds the tree does. A row keyed by another
// id than its node's once panicked the apply.
func FuzzDeltaBody(f *testing.F) {
	node := func(id, parent string) string {
		return `{"id":"` + id + `","parent":"` + parent + `","children":[],"message":{"role":"user","content":"x"},"created_at_ms":5}`
	}
	for _, s := range []string{
		`{"active":"main","nodes":{"n":` + node("00", "n") + `}}`,
		`{"active":"main","nodes":{"x":` + node("x", "y") + `,"y":` + node("y", "x") + `}}`,
		`{"active":"main","root":null,"deleted_nodes":["x"],"branches":{"b":{"name":"b","leaf":"x","created_at_ms":1}}}`,
		`{"active":"","deleted_branches":["main"]}`,
		`{"active":"main"}`, `{}`, `[]`, ``,
		// main's leaf removed, main left as it is: stored until Dec 5, a tree
		// whose main pointed at nothing.
		`{"active":"main","root":"$ROOT","deleted_nodes":["$LEAF"]}`,
		`{"active":"main","nodes":{"$LEAF":` + node("$LEAF", "$ROOT") + `}}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		_, c := fuzzHandler(t)
		id := c.create(`{"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"}]}`)
		r := c.do("GET", "/v1/trees/"+id, "")
		// $ROOT and $LEAF in a body stand for the tree's two nodes, whose
		// ids are made at the create.
		tr, err := core.Unmarshal(r.body)
		if err != nil {
			t.Fatal(err)
		}
		path, _ := tr.ActivePath()
		body = strings.NewReplacer("$ROOT", path[0], "$LEAF", path[1]).Replace(body)
		fuzzAnswerOK(t, "delta", c.do("POST", "/v1/trees/"+id+"/delta", body, "If-Match", r.header.Get("ETag")))
		fuzzTreeReadsBack(t, c, id)
	})
}

func FuzzCreateBody(f *testing.F) {
	for _, s := range []string{
		``, `{}`, `{"messages":[]}`, `{"messages":[{"role":"user","content":"hi"}]}`,
		`{"messages":[{"role":"user"}]}`, `{"messages":{}}`, `{"messages":[1]}`,
		`{"format":"sessiontree","version":1,"active_branch":"main","branches":{},"nodes":{}}`,
		`{"messages":[],"messages":[]}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		_, c := fuzzHandler(t)
		r := c.do("POST", "/v1/trees", body)
		fuzzAnswerOK(t, "create", r)
		if r.status == 201 {
			fuzzTreeReadsBack(t, c, r.json(t)["id"].(string))
		}
	})
}

func FuzzImportBody(f *testing.F) {
	for _, s := range []struct{ format, body string }{
		{"auto", `[{"role":"user","content":"hi"}]`},
		{"openai", `[{"role":"user","content":"hi"},{"role":"assistant","content":"yo"}]`},
		{"chatgpt", `[{"title":"t","mapping":{"a":{"id":"a","message":null,"parent":null,"children":[]}}}]`},
		{"claudecode", `{"type":"user","uuid":"u","parentUuid":null,"message":{"role":"user","content":"hi"}}` + "\n"},
		{"pi", `{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00Z"}` + "\n"},
		{"codex", `{"type":"session_meta","payload":{"id":"x"}}` + "\n"},
		{"markdown", "# Conversation\n\n## user\n\nhi\n"},
		{"sessiontree", `{"format":"sessiontree","version":1}`},
		{"nope", `{}`},
	} {
		f.Add(s.format, s.body)
	}
	f.Fuzz(func(t *testing.T, format, body string) {
		_, c := fuzzHandler(t)
		r := c.do("POST", "/v1/trees?format="+url.QueryEscape(format), body)
		fuzzAnswerOK(t, "import "+format, r)
		if r.status == 201 {
			fuzzTreeReadsBack(t, c, r.json(t)["id"].(string))
		}
	})
}

func FuzzIdempotencyKey(f *testing.F) {
	f.Add("k1", `{"ops":[{"op":"append","message":{"role":"user","content":"a"}}]}`, `{"ops":[{"op":"append","message":{"role":"user","content":"b"}}]}`)
	f.Add(strings.Repeat("k", 300), `{}`, `{}`)
	f.Add("a key", `{}`, `{}`)
	f.Add("\x00", ``, ``)
	f.Fuzz(func(t *testing.T, key, body1, body2 string) {
		_, c := fuzzHandler(t)
		id := c.create(`{"messages":[{"role":"user","content":"hi"}]}`)
		first := c.do("POST", "/v1/trees/"+id+"/ops", body1, "Idempotency-Key", key)
		fuzzAnswerOK(t, "first", first)
		again := c.do("POST", "/v1/trees/"+id+"/ops", body1, "Idempotency-Key", key)
		fuzzAnswerOK(t, "again", again)
		// An empty Idempotency-Key is none: the write sent again is a second write.
		kept := key != "" && first.status == 200
		if kept && (again.status != 200 || string(again.body) != string(first.body)) {
			t.Fatalf("the same write with the same key was not answered as the first time: %d %s, then %d %s",
				first.status, first.body, again.status, again.body)
		}
		other := c.do("POST", "/v1/trees/"+id+"/ops", body2, "Idempotency-Key", key)
		fuzzAnswerOK(t, "another body", other)
		if kept && body2 != body1 && other.status == 200 && string(other.body) == string(first.body) {
			t.Fatalf("another body under a kept key was answered with the kept answer")
		}
		fuzzTreeReadsBack(t, c, id)
	})
}

// FuzzSocketFrame sends one message on a tree's live socket, as a client's
// frame reaches the object: whatever it holds, the answer is an ack (or the
// write is held for its turn), never a panic, and the stored tree stays sound.
func FuzzSocketFrame(f *testing.F) {
	f.Add(string(socketWrite("w1", "ops", "", "", `{"ops":[{"op":"append","message":{"role":"user","content":"hi"}}]}`)))
	f.Add(string(socketWrite("w2", "delta", "", "k", `{"active":"main","nodes":{"n":{"id":"00","parent":"n","children":[],"message":{"role":"user"},"created_at_ms":1}}}`)))
	f.Add(string(socketWrite("w3", "merge", `"x"`, "", `{"format":"sessiontree","version":1,"active_branch":"main","branches":{},"nodes":{}}`)))
	f.Add(`{"type":"write","id":"w4","route":"ops","body":{"ops":[]},"type":"write"}`)
	f.Add(`{"type":"ping"}`)
	f.Add(`[]`)
	f.Fuzz(func(t *testing.T, frame string) {
		now := int64(1_800_000_000_000)
		h, _, _ := newTurnsObject(t, &now)
		ack, hold := h.ServeSocket(nil, []byte(frame), socketTree, "alice", "", 0, "", "")
		if ack == nil && hold.Get(HeaderHold) == "" {
			t.Fatalf("neither an ack nor a hold for %q", frame)
		}
		if ack != nil {
			var a map[string]any
			if err := json.Unmarshal(ack, &a); err != nil {
				t.Fatalf("the answer is not JSON: %v: %s", err, ack)
			}
			if st, _ := a["status"].(float64); st >= 500 {
				t.Fatalf("%s", ack)
			}
		}
		r := objectCall(t, h, "GET", "/v1/trees/"+strings.Repeat("ab", 16), "", "", "", 0)
		tr, err := core.Unmarshal(r.Body.Bytes())
		if r.Code != 200 || err != nil {
			t.Fatalf("the tree after the frame: %d %v", r.Code, err)
		}
		if probs := tr.Validate(); len(probs) > 0 {
			t.Fatalf("the stored tree has problems: %v", probs)
		}
	})
}

// FuzzQuery reads every route that takes query parameters with whatever
// query a client sends: a 200 or a coded error, never a 500 or a panic.
func FuzzQuery(f *testing.F) {
	for _, s := range []string{"limit=2&after=x", "tail=3&skip=1", "since=0", "since=-1", "tail=99999999999999999999",
		"format=auto", "format=chatgpt&x=%zz", "limit=&limit=1", "skip=1e3", "budget=12&api=openai-chat",
		"limit=1&after=1733400000000.0123456789abcdef0123456789abcdef", "after=-01.0123456789abcdef0123456789abcdef", "after=9007199254740992.x"} {
		f.Add(uint8(0), s)
	}
	f.Fuzz(func(t *testing.T, route uint8, query string) {
		for _, r := range query {
			if r <= ' ' || r == '#' || r == 0x7f {
				return // no request line carries it (a client escapes it)
			}
		}
		_, c := fuzzHandler(t)
		id := c.create(`{"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"}]}`)
		paths := []string{"/v1/trees", "/v1/trees/" + id + "/projection", "/v1/trees/" + id + "/changes",
			"/v1/trees/" + id + "/export", "/v1/trees/" + id + "/search", "/v1/trees/" + id + "/stats", "/v1/trees/" + id}
		p := paths[int(route)%len(paths)]
		fuzzAnswerOK(t, p+"?"+query, c.do("GET", p+"?"+query, ""))
	})
}
