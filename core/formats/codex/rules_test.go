package codex_test

import (
	"bytes"
	"testing"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/formats/codex"
	"github.com/sessiontree/sessiontree/core/rawjson"
)

// rolloutErrors lists every line of out Codex would not read.
func rolloutErrors(out []byte) []string {
	var errs []string
	for i, l := range bytes.Split(bytes.TrimSpace(out), []byte("\n")) {
		if len(l) == 0 {
			continue
		}
		if ok, why := codex.Accepted(l); !ok {
			errs = append(errs, "line "+string(rawjson.AppendInt(nil, int64(i+1)))+": "+why)
		}
	}
	return errs
}

// Messages of other shapes become the rollout's own items: tool calls as
// function_call, results as function_call_output, thinking as reasoning,
// never placeholder text; a session_meta Codex reads opens the file.
func TestExportWritesToolCallsAndReasoningAsItems(t *testing.T) {
	tr := core.New()
	for i, m := range []string{
		`{"role":"user","content":"list the files"}`,
		`{"role":"assistant","content":[{"type":"thinking","thinking":"ls will do"},{"type":"text","text":"Listing."},{"type":"tool_use","id":"c1","name":"Bash","input":{"command":"ls"}}]}`,
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"c1","content":"a.txt"}]}`,
		`{"role":"assistant","content":null,"tool_calls":[{"id":"c2","type":"function","function":{"name":"cat","arguments":"{\"f\":\"a.txt\"}"}}]}`,
		`{"role":"tool","tool_call_id":"c2","content":"hello"}`,
	} {
		if _, err := tr.Append(core.Message(m), int64(1000*(i+1))); err != nil {
			t.Fatal(err)
		}
	}
	out, err := codex.Export(tr)
	if err != nil {
		t.Fatal(err)
	}
	if errs := rolloutErrors(out); len(errs) > 0 {
		t.Fatalf("Codex would not read %v:\n%s", errs, out)
	}
	for _, want := range []string{
		`"type":"session_meta"`, `{"type":"reasoning","summary":[{"type":"summary_text","text":"ls will do"}]}`,
		`{"type":"function_call","name":"Bash","arguments":"{\"command\":\"ls\"}","call_id":"c1"}`,
		`{"type":"function_call_output","call_id":"c1","output":"a.txt"}`,
		`{"type":"function_call","name":"cat","arguments":"{\"f\":\"a.txt\"}","call_id":"c2"}`,
		`{"type":"function_call_output","call_id":"c2","output":"hello"}`,
	} {
		if !bytes.Contains(out, []byte(want)) {
			t.Fatalf("no %s in\n%s", want, out)
		}
	}
	if bytes.Contains(out, []byte("[tool_use]")) || bytes.Contains(out, []byte("[tool_result]")) {
		t.Fatalf("placeholder text in\n%s", out)
	}
}

// The pre-2025 rollout (a session line, then bare response items) is read,
// and exported in the current format.
func TestLegacyRolloutIsRead(t *testing.T) {
	in := `{"id":"44444444-4444-4444-8444-444444444444","timestamp":"2025-04-01T00:00:00.000Z","instructions":null}` + "\n" +
		`{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}` + "\n" +
		`{"record_type":"state"}` + "\n" +
		`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"hello"}]}` + "\n"
	tr, rep, err := codex.Import([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	p, _ := tr.LinearProjection()
	if len(p) != 2 || p[0].Text() != "hi" || p[1].Text() != "hello" || len(rep.Problems) > 0 {
		t.Fatalf("projection %v, problems %v", p, rep.Problems)
	}
	out, err := codex.Export(tr)
	if err != nil {
		t.Fatal(err)
	}
	if errs := rolloutErrors(bytes.ReplaceAll(out, []byte(`{"record_type":"state"}`+"\n"), nil)); len(errs) > 0 {
		t.Fatalf("Codex would not read %v:\n%s", errs, out)
	}
}
