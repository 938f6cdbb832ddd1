package openai_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/formats/claudecode"
	"github.com/sessiontree/sessiontree/core/formats/internal/formattest"
	"github.com/sessiontree/sessiontree/core/formats/openai"
)

// Export writes the active branch's projection without the members importers
// add to keep their records: a Claude Code session with a fork exports as
// plain messages (testdata/projection.golden.json, read by eye).
func TestExportGolden(t *testing.T) {
	in := `{"type":"user","uuid":"u1","parentUuid":null,"timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"hi"}}
{"type":"assistant","uuid":"a2","parentUuid":"u1","timestamp":"2025-01-01T00:00:02.000Z","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"abandoned"}]}}
{"type":"file-history-snapshot","messageId":"x","snapshot":{}}
{"type":"assistant","uuid":"a3","parentUuid":"u1","timestamp":"2025-01-01T00:00:03.000Z","message":{"id":"m2","role":"assistant","content":[{"type":"text","text":"kept"}]}}
`
	tr, _, err := claudecode.Import([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	out, err := openai.Export(tr)
	if err != nil {
		t.Fatal(err)
	}
	const path = "testdata/projection.golden.json"
	formattest.Golden(t, path, out)
}

func TestImport(t *testing.T) {
	cases := []struct {
		name, input string
		nodes       int
		problem     string
	}{
		{"a messages array is one linear path", `[{"role":"user","content":"a"},{"role":"assistant","content":"b"}]`, 2, ""},
		{"an object with messages reads like the array", `{"messages":[{"role":"user","content":"a"}]}`, 1, ""},
		{"an element that is not a message is reported by index", `[{"role":"user","content":"a"},{"content":"no role"}]`, 1, "message 1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr, rep, err := openai.Import([]byte(c.input))
			if err != nil {
				t.Fatal(err)
			}
			var ps []string
			for _, p := range rep.Problems {
				ps = append(ps, p.String())
			}
			got := strings.Join(ps, "; ")
			if tr.Len() != c.nodes || (c.problem == "") != (got == "") || !strings.Contains(got, c.problem) {
				t.Fatalf("%d nodes, problems %q", tr.Len(), got)
			}
		})
	}
}

// The input is not kept: changing it after the import changes nothing.
func TestImportDoesNotAliasItsInput(t *testing.T) {
	in := []byte(`[{"role":"user","content":"a"}]`)
	tr, _, err := openai.Import(in)
	if err != nil {
		t.Fatal(err)
	}
	before := string(tr.Marshal())
	for i := range in {
		in[i] = ' '
	}
	if after := string(tr.Marshal()); after != before {
		t.Fatalf("the tree changed with its input:\n%s\n%s", before, after)
	}
}

// Export writes messages Chat Completions accepts whatever shape they were
// stored in (issue 23 §2): Anthropic tool_use/tool_result and thinking
// blocks, pi's toolCall, a Codex input_text, model/usage/timestamp fields;
// ExportReport says what it could not carry.
func TestExportIsChatCompletionsMessages(t *testing.T) {
	tr, err := core.FromLinear([]core.Message{
		core.Message(`{"role":"user","content":[{"type":"input_text","text":"list the files"}],"timestamp":1750537483}`),
		core.Message(`{"role":"assistant","model":"claude-x","usage":{"input_tokens":3},"content":[{"type":"thinking","thinking":"hmm","signature":"s"},{"type":"text","text":"running ls"},{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls"}}]}`),
		core.Message(`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"a.go"}]}`),
		core.Message(`{"role":"assistant","content":[{"type":"toolCall","id":"call_2","name":"read","arguments":{"path":"a.go"}}]}`),
		core.Message(`{"role":"toolResult","toolCallId":"call_2","toolName":"read","content":[{"type":"text","text":"package a"}],"isError":false}`),
		core.Message(`{"role":"assistant","content":"done"}`),
	}, 1)
	if err != nil {
		t.Fatal(err)
	}
	out, rep, err := openai.ExportReport(tr)
	if err != nil {
		t.Fatal(err)
	}
	var msgs []map[string]any
	if err := json.Unmarshal(out, &msgs); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	allowed := map[string]map[string]bool{
		"system":    {"role": true, "content": true, "name": true},
		"user":      {"role": true, "content": true, "name": true},
		"assistant": {"role": true, "content": true, "name": true, "tool_calls": true, "refusal": true},
		"tool":      {"role": true, "content": true, "tool_call_id": true},
	}
	calls := map[string]bool{}
	for i, m := range msgs {
		role, _ := m["role"].(string)
		keys := allowed[role]
		if keys == nil {
			t.Fatalf("message %d: role %q: %s", i, role, out)
		}
		for k := range m {
			if !keys[k] {
				t.Errorf("message %d (%s): field %q is not Chat Completions': %s", i, role, k, out)
			}
		}
		if tc, ok := m["tool_calls"].([]any); ok {
			for _, c := range tc {
				call := c.(map[string]any)
				fn, _ := call["function"].(map[string]any)
				if call["type"] != "function" || fn == nil || fn["name"] == "" {
					t.Errorf("message %d: a tool call not in OpenAI's shape: %v", i, call)
				}
				if args, ok := fn["arguments"].(string); !ok || !json.Valid([]byte(args)) {
					t.Errorf("message %d: arguments are not JSON text: %v", i, fn["arguments"])
				}
				calls[call["id"].(string)] = true
			}
		}
		if role == "tool" && !calls[m["tool_call_id"].(string)] {
			t.Errorf("message %d: a result for no call before it: %s", i, out)
		}
	}
	if len(calls) != 2 {
		t.Fatalf("%d calls written as calls, want 2: %s", len(calls), out)
	}
	if rep.Thinking != 1 {
		t.Errorf("the report does not say the thinking was left out: %+v", rep)
	}
}
