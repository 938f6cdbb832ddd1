package claudecode

import (
	"github.com/sessiontree/sessiontree/core/rawjson"
)

// What the transcript readers require of a line, learned from
// claude-code-log's pydantic models (github daaain/claude-code-log,
// claude_code_log/models.py and factories/transcript_factory.py): a line of
// type user, assistant or system has the members of BaseTranscriptEntry
// (parentUuid string or null, isSidechain bool, userType, cwd, sessionId,
// version, uuid and timestamp strings); a user line's message has role
// "user" and content; an assistant line's message has id, type "message",
// role "assistant", model and content (a string content becomes one text
// block); a summary line has summary and leafUuid strings; a queue-operation
// line has an operation of enqueue, dequeue, remove or popAll, a timestamp
// and a sessionId. Lines of other types are passed over by the reader.
//
// Its release of June 2025 (a641071, claude_code_log/models.py, run as it is
// on every export) also requires an assistant message's stop_reason and
// stop_sequence, each a string or null (Claude Code writes both on every
// assistant message), and a usage, when there is one, with whole numbers
// input_tokens and output_tokens (another tool's prompt_tokens is refused).

// baseMembers are the members of BaseTranscriptEntry, in Claude Code's order,
// with the kind of JSON value each takes.
var baseMembers = []struct{ key, kind string }{
	{"parentUuid", "string|null"}, {"isSidechain", "bool"}, {"userType", "string"}, {"cwd", "string"},
	{"sessionId", "string"}, {"version", "string"}, {"uuid", "string"}, {"timestamp", "string"},
}

func kindOf(v []byte) string {
	switch {
	case len(v) == 0:
		return ""
	case v[0] == '"':
		return "string"
	case string(v) == "null":
		return "null"
	case string(v) == "true" || string(v) == "false":
		return "bool"
	case v[0] == '{':
		return "object"
	case v[0] == '[':
		return "array"
	}
	return "number"
}

func fits(v []byte, kind string) bool {
	k := kindOf(v)
	return k == kind || (kind == "string|null" && (k == "string" || k == "null"))
}

// Accepted reports whether the transcript readers accept line (see above),
// and if not, why.
func Accepted(line []byte) (bool, string) {
	typ, _ := rawjson.LookupString(line, "type")
	switch typ {
	case "user", "assistant", "system":
		for _, m := range baseMembers {
			v, _ := rawjson.Lookup(line, m.key)
			if !fits(v, m.kind) {
				return false, typ + " line: " + m.key + " must be " + m.kind
			}
		}
		if typ == "system" {
			if v, ok := rawjson.Lookup(line, "content"); ok && !fits(v, "string|null") {
				return false, "system line: content must be a string"
			}
			return true, ""
		}
		msg, _ := rawjson.Lookup(line, "message")
		if kindOf(msg) != "object" {
			return false, typ + " line: message must be an object"
		}
		if role, _ := rawjson.LookupString(msg, "role"); role != typ {
			return false, typ + " line: message.role must be " + typ
		}
		if c, _ := rawjson.Lookup(msg, "content"); c == nil || (typ == "assistant" && !fits(c, "string") && kindOf(c) != "array") {
			return false, typ + " line: message.content must be a string or a list"
		}
		if typ == "assistant" {
			for _, k := range []string{"id", "model"} {
				if v, _ := rawjson.Lookup(msg, k); !fits(v, "string") {
					return false, "assistant line: message." + k + " must be a string"
				}
			}
			if t, _ := rawjson.LookupString(msg, "type"); t != "message" {
				return false, `assistant line: message.type must be "message"`
			}
			for _, k := range []string{"stop_reason", "stop_sequence"} {
				if v, _ := rawjson.Lookup(msg, k); !fits(v, "string|null") {
					return false, "assistant line: message." + k + " must be a string or null"
				}
			}
			if u, has := rawjson.Lookup(msg, "usage"); has && !claudeUsage(u) {
				return false, "assistant line: message.usage must have whole numbers input_tokens and output_tokens"
			}
		}
	case "summary":
		for _, k := range []string{"summary", "leafUuid"} {
			if v, _ := rawjson.Lookup(line, k); !fits(v, "string") {
				return false, "summary line: " + k + " must be a string"
			}
		}
	case "queue-operation":
		switch op, _ := rawjson.LookupString(line, "operation"); op {
		case "enqueue", "dequeue", "remove", "popAll":
		default:
			return false, "queue-operation line: operation must be enqueue, dequeue, remove or popAll"
		}
		for _, k := range []string{"timestamp", "sessionId"} {
			if v, _ := rawjson.Lookup(line, k); !fits(v, "string") {
				return false, "queue-operation line: " + k + " must be a string"
			}
		}
	}
	return true, ""
}
