//go:build !js || stock

package edge

import (
	"encoding/json"
	"strings"
	"testing"
)

// GET /v1/trees/{id}/projection?for= answers the request body core/provider
// writes for each API, with its report, and refuses an unknown API or a bad
// budget with invalid_input.
func TestProjectionForAModelAPI(t *testing.T) {
	c := newClient(t, newTestHandler(NewMemStore()), "alice")
	id := c.create(`{"messages":[{"role":"system","content":"be brief"},{"role":"user","content":"weather?"},` +
		`{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]},` +
		`{"role":"tool","tool_call_id":"c1","content":"18C"},{"role":"assistant","content":"18C in Paris."}]}`)
	want := map[string]string{
		"openai-chat":      `{"messages":[{"role":"system","content":"be brief"},{"role":"user","content":"weather?"},{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]},{"role":"tool","tool_call_id":"c1","content":"18C"},{"role":"assistant","content":"18C in Paris."}]}`,
		"openai-responses": `{"input":[{"type":"message","role":"system","content":"be brief"},{"type":"message","role":"user","content":"weather?"},{"type":"function_call","call_id":"c1","name":"get_weather","arguments":"{\"city\":\"Paris\"}"},{"type":"function_call_output","call_id":"c1","output":"18C"},{"type":"message","role":"assistant","content":"18C in Paris."}]}`,
		"anthropic":        `{"system":"be brief","messages":[{"role":"user","content":[{"type":"text","text":"weather?"}]},{"role":"assistant","content":[{"type":"tool_use","id":"c1","name":"get_weather","input":{"city":"Paris"}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"c1","content":"18C"}]},{"role":"assistant","content":[{"type":"text","text":"18C in Paris."}]}],"tools":[{"name":"get_weather","description":"A tool this conversation's history calls.","input_schema":{"type":"object"}}]}`,
	}
	for api, body := range want {
		r := c.do("GET", "/v1/trees/"+id+"/projection?for="+api, "")
		if r.status != 200 || r.header.Get("ETag") == "" {
			t.Fatalf("%s: %d %s", api, r.status, r.body)
		}
		var got struct {
			Branch, For string
			Request     json.RawMessage
			Report      struct{ Messages, Sent int }
		}
		if err := json.Unmarshal(r.body, &got); err != nil {
			t.Fatalf("%s: %v: %s", api, err, r.body)
		}
		if got.Branch != "main" || got.For != api || string(got.Request) != body || got.Report.Messages != 5 {
			t.Errorf("%s: got %s\nwant request %s", api, r.body, body)
		}
	}
	r := c.do("GET", "/v1/trees/"+id+"/projection?for=anthropic&budget=12", "")
	if r.status != 200 || !strings.Contains(string(r.body), `"overBudget":true`) {
		t.Errorf("the newest exchange is kept over the budget, and said so: %d %s", r.status, r.body)
	}
	c.appendMsg(id, "and tomorrow?")
	r = c.do("GET", "/v1/trees/"+id+"/projection?for=anthropic&budget=30", "")
	if r.status != 200 || !strings.Contains(string(r.body), `"budgetDropped":4`) || !strings.Contains(string(r.body), "left out to fit") {
		t.Errorf("budget: %d %s", r.status, r.body)
	}
	wantError(t, c.do("GET", "/v1/trees/"+id+"/projection?for=gemini", ""), 400, "invalid_input")
	wantError(t, c.do("GET", "/v1/trees/"+id+"/projection?for=anthropic&thinking=no", ""), 400, "invalid_input")
	if r := c.do("GET", "/v1/trees/"+id+"/projection?for=anthropic&thinking=false", ""); r.status != 200 {
		t.Errorf("thinking=false: %d %s", r.status, r.body)
	}
	wantError(t, c.do("GET", "/v1/trees/"+id+"/projection?for=anthropic&budget=-1", ""), 400, "invalid_input")
	wantError(t, c.do("GET", "/v1/trees/"+id+"/projection?for=anthropic&branch=nope", ""), 404, "branch_not_found")
	wantError(t, newClient(t, newTestHandler(NewMemStore()), "bob").do("GET", "/v1/trees/"+id+"/projection?for=anthropic", ""), 404, "not_found")
}

// A projection for a model API answers 304 to If-None-Match of the current
// ETag, as every projection does; before, it was the whole request again
// every time (and the worker's glue, which asks with the ETag of the gzip it
// keeps of a large one, compressed it again for every GET).
func TestAProjectionForAModelAPIAnswers304ToTheCurrentETag(t *testing.T) {
	c := newClient(t, newTestHandler(NewMemStore()), "alice")
	id := c.create(`{"messages":[{"role":"user","content":"hi"}]}`)
	r := c.do("GET", "/v1/trees/"+id+"/projection?for=anthropic", "")
	etag := r.header.Get("ETag")
	if r.status != 200 || etag == "" {
		t.Fatalf("%d %q %s", r.status, etag, r.body)
	}
	if r := c.do("GET", "/v1/trees/"+id+"/projection?for=anthropic", "", "If-None-Match", etag); r.status != 304 || len(r.body) != 0 || r.header.Get("ETag") != etag {
		t.Fatalf("If-None-Match of the current ETag: %d %q %s", r.status, r.header.Get("ETag"), r.body)
	}
	c.appendMsg(id, "more")
	if r := c.do("GET", "/v1/trees/"+id+"/projection?for=anthropic", "", "If-None-Match", etag); r.status != 200 || !strings.Contains(string(r.body), "more") {
		t.Fatalf("If-None-Match of an older ETag: %d %s", r.status, r.body)
	}
}

// A parameter of the other kind of projection was dropped without a word: a
// budget without "for" answered every stored message, a "skip" without "tail"
// the whole path, a "tail" with "for" an unwindowed request (an outside pass,
// Dec 7).
func TestAProjectionRefusesAParameterItWouldIgnore(t *testing.T) {
	c := newClient(t, newTestHandler(NewMemStore()), "alice")
	id := c.create(`{"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"}]}`)
	for _, query := range []string{"budget=10", "thinking=false", "skip=1", "for=anthropic&tail=1", "for=openai-chat&skip=1"} {
		wantError(t, c.do("GET", "/v1/trees/"+id+"/projection?"+query, ""), 400, "invalid_input")
	}
	for _, query := range []string{"", "tail=1", "tail=1&skip=1", "for=anthropic&budget=10", "for=anthropic&thinking=false", "branch=main"} {
		if r := c.do("GET", "/v1/trees/"+id+"/projection?"+query, ""); r.status != 200 {
			t.Errorf("%q: %d %s", query, r.status, r.body)
		}
	}
}
