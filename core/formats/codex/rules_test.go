package codex_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/formats/codex"
	"github.com/sessiontree/sessiontree/core/rawjson"
)

// The rules Codex reads a rollout line by, learned from openai/codex
// codex-rs/protocol (protocol.rs: RolloutLine {timestamp, #[serde(flatten)]
// item: RolloutItem}, RolloutItem tagged by "type" with its "payload":
// session_meta, response_item, compacted, turn_context, event_msg;
// SessionMeta {id: a UUID, timestamp, cwd, originator, cli_version};
// models.rs: ResponseItem tagged by "type" — message {role, content: [
// input_text{text} | input_image{image_url} | output_text{text}]},
// reasoning {summary: [summary_text{text}], content?: [reasoning_text{text} |
// text{text}] or null, encrypted_content?}, function_call {name, arguments: a
// string, call_id}, function_call_output {call_id, output: a string or
// [input_text | input_image]}, custom_tool_call {call_id, name, input},
// custom_tool_call_output {call_id, output}; any other type is
// ResponseItem::Other). Codex cannot be built here (cargo cannot fetch
// crates), so the rules are stated as this function.
func rolloutLine(line []byte) error {
	fail := func(s string) error { return errors.New(s) }
	if !rawjson.Valid(line) || line[0] != '{' {
		return fail("not a JSON object")
	}
	if _, ok := rawjson.LookupString(line, "timestamp"); !ok {
		return fail("timestamp must be a string")
	}
	typ, _ := rawjson.LookupString(line, "type")
	p, _ := rawjson.Lookup(line, "payload")
	if len(p) == 0 || p[0] != '{' {
		return fail("payload must be an object")
	}
	str := func(obj []byte, keys ...string) error {
		for _, k := range keys {
			if _, ok := rawjson.LookupString(obj, k); !ok {
				return fail(typ + ": " + k + " must be a string")
			}
		}
		return nil
	}
	items := func(arr []byte, what string, kinds map[string]string) error {
		if len(arr) == 0 || arr[0] != '[' {
			return fail(what + " must be a list")
		}
		d := rawjson.NewDecoder(arr)
		return d.Array(func() error {
			it, err := d.Raw()
			if err != nil {
				return err
			}
			k, _ := rawjson.LookupString(it, "type")
			field, ok := kinds[k]
			if !ok {
				return fail(what + ": unknown item type " + k)
			}
			return str(it, field)
		})
	}
	switch typ {
	case "session_meta":
		id, _ := rawjson.LookupString(p, "id")
		if len(id) != 36 || strings.Count(id, "-") != 4 {
			return fail("session_meta: id must be a UUID")
		}
		return str(p, "timestamp", "cwd", "originator", "cli_version")
	case "turn_context":
		return str(p, "cwd", "model")
	case "compacted":
		return str(p, "message")
	case "event_msg":
		return str(p, "type")
	case "response_item":
	default:
		return fail("unknown line type " + typ)
	}
	pt, _ := rawjson.LookupString(p, "type")
	switch pt {
	case "message":
		if err := str(p, "role"); err != nil {
			return err
		}
		c, _ := rawjson.Lookup(p, "content")
		return items(c, "message content", map[string]string{"input_text": "text", "output_text": "text", "input_image": "image_url"})
	case "reasoning":
		s, _ := rawjson.Lookup(p, "summary")
		if err := items(s, "reasoning summary", map[string]string{"summary_text": "text"}); err != nil {
			return err
		}
		if c, ok := rawjson.Lookup(p, "content"); ok && string(c) != "null" {
			return items(c, "reasoning content", map[string]string{"reasoning_text": "text", "text": "text"})
		}
	case "function_call":
		return str(p, "name", "arguments", "call_id")
	case "function_call_output":
		if err := str(p, "call_id"); err != nil {
			return err
		}
		if o, _ := rawjson.Lookup(p, "output"); len(o) == 0 || o[0] != '"' {
			return items(o, "function_call_output output", map[string]string{"input_text": "text", "input_image": "image_url"})
		}
	case "custom_tool_call":
		return str(p, "call_id", "name", "input")
	case "custom_tool_call_output":
		return str(p, "call_id")
	case "":
		return fail("response_item: payload.type must be a string")
	}
	return nil
}

// rolloutErrors lists every line of out Codex would not read.
func rolloutErrors(out []byte) []string {
	var errs []string
	for i, l := range bytes.Split(bytes.TrimSpace(out), []byte("\n")) {
		if err := rolloutLine(l); err != nil {
			errs = append(errs, "line "+string(rawjson.AppendInt(nil, int64(i+1)))+": "+err.Error())
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
