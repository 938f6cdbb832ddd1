package provider

import (
	"bytes"
	"strings"
	"testing"

	"github.com/sessiontree/sessiontree/core"
)

// FuzzProject: any list of stored messages (one a line) projects, for every
// API and with or without a budget, into a body that keeps every rule of
// schema_test.go, or into nothing when no message is one a model sees.
func FuzzProject(f *testing.F) {
	f.Add([]byte(strings.Join(claudeSession, "\n")), uint16(0))
	f.Add([]byte(strings.Join(piSession, "\n")), uint16(30))
	f.Add([]byte(`{"role":"assistant","content":"hi "}`+"\n"+`{"role":"tool","tool_call_id":"x:y","content":[{"type":"image"}]}`), uint16(0))
	f.Add([]byte(`{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":"r"},{"type":"text","text":"t"}]}`+"\n"+
		`{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"n.m","input":[1]}]}`+"\n"+`{"role":"user","content":[{"type":"tool_result","tool_use_id":"a"}]}`), uint16(5))
	f.Fuzz(func(t *testing.T, data []byte, budget uint16) {
		var msgs []core.Message
		for _, line := range bytes.Split(data, []byte("\n")) {
			if m, err := core.ParseMessage(line); err == nil {
				msgs = append(msgs, m)
			}
		}
		for _, api := range APIs {
			req, err := Project(msgs, api, Options{Budget: int(budget)})
			if err != nil {
				t.Fatal(err)
			}
			if req.Report.Sent == 0 {
				continue
			}
			if ps := checkBody(api, req.Body()); len(ps) > 0 {
				t.Fatalf("%s: %s\n%s", api, strings.Join(ps, "\n"), req.Body())
			}
		}
	})
}
