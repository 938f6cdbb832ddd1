//go:build !js

package httpsuite

import (
	"encoding/json"
	"testing"
)

// The worker in workerd answers GET /projection?for= with the request body
// core/provider writes, with its report.
func TestProjectionForModelAPIs(t *testing.T) {
	c := &client{t: t, token: token(t, "projection")}
	id, _ := c.create(`{"messages":[{"role":"user","content":"weather?"},` +
		`{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"city":"Paris"}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"18C"}]},` +
		`{"role":"assistant","content":[{"type":"text","text":"18C in Paris."}]}]}`)
	for api, roles := range map[string]string{
		"openai-chat":      "user assistant tool assistant",
		"openai-responses": "message function_call function_call_output message",
		"anthropic":        "user assistant user assistant",
	} {
		r := c.do("GET", "/v1/trees/"+id+"/projection?for="+api, "")
		if r.status != 200 {
			t.Fatalf("%s: %d %s", api, r.status, r.body)
		}
		var got struct {
			For     string
			Request struct {
				Messages []struct{ Role string }
				Input    []struct{ Type string }
			}
			Report struct{ Messages, Sent int }
		}
		if err := json.Unmarshal(r.body, &got); err != nil {
			t.Fatalf("%s: %v: %s", api, err, r.body)
		}
		seq := ""
		for _, m := range got.Request.Messages {
			seq += " " + m.Role
		}
		for _, it := range got.Request.Input {
			seq += " " + it.Type
		}
		if got.For != api || seq != " "+roles || got.Report.Messages != 4 || got.Report.Sent != 4 {
			t.Errorf("%s: %s", api, r.body)
		}
	}
	wantError(t, c.do("GET", "/v1/trees/"+id+"/projection?for=gemini", ""), 400, "invalid_input")
}
