package chat

import (
	"testing"

	"github.com/sessiontree/sessiontree/core"
)

// FuzzRead: Read never panics on a message core accepts, and every tool
// call it returns has arguments that are valid JSON.
func FuzzRead(f *testing.F) {
	for _, s := range []string{
		`{"role":"user","content":"hi"}`,
		`{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"b","input":{}}]}`,
		`{"role":"assistant","content":"<details type=\"tool_calls\" id=\"x\" arguments=\"&quot;\">\n</details>"}`,
		`{"role":"tool","content":[1,{"type":"image"}],"chatgpt":{"message":{"content":{"content_type":"thoughts","thoughts":[{}]}}}}`,
		`{"role":"assistant","output":[{"type":"reasoning","summary":[{"text":"s"}]}],"timestamp":"2025-01-01T00:00:00Z"}`,
		`{"role":"tool","content":[{"type":"tool-result","toolCallId":"c","output":{"type":"content","value":[{"type":"media"}]}},"x"]}`,
		`{"role":"assistant","content":[{"type":"tool-call","toolCallId":"c","toolName":"f","input":"free text"}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := core.ParseMessage(b)
		if err != nil {
			return
		}
		for _, p := range Read(m).Parts {
			if p.Kind == ToolCall && !validJSON([]byte(p.Args)) {
				t.Fatalf("call arguments %q are not JSON", p.Args)
			}
		}
	})
}
