package codex

import (
	"strings"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/rawjson"
)

// Accepted reports whether Codex reads line, and if not, why. The rules Codex
// reads a rollout line by, learned from openai/codex
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
// ResponseItem::Other). Codex cannot be built here (codex-protocol needs
// crates no reachable registry has), so the rules are stated as this
// function, which the export checks the lines it writes back with, and the
// tests check every export with. The same types, copied with their serde
// attributes (models.rs and protocol.rs at 001cb8e) and compiled against
// Debian's serde in a temp folder, read every line of the codex export of
// every corpus file (docs/formats.md).
func Accepted(line []byte) (bool, string) {
	if err := accepted(line); err != nil {
		return false, err.Error()
	}
	return true, ""
}

func accepted(line []byte) error {
	fail := func(s string) error { return &core.Error{Code: core.CodeInvalidInput, Message: s} }
	if len(line) == 0 || !rawjson.Valid(line) || line[0] != '{' {
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
		// Any string parses, but Codex writes, and shows on resume, only these.
		if r, _ := rawjson.LookupString(p, "role"); !codexRole(r) {
			return fail("message role \"" + r + "\" is none of Codex's (user, assistant, developer, system)")
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
