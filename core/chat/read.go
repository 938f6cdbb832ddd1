package chat

import (
	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/rawjson"
)

// read dispatches on what the message carries: the original record of a
// format that keeps a richer one than the message's own content (ChatGPT,
// LibreChat, Open WebUI's output items), a role of a tool's own (pi), a
// Responses item type, and otherwise the content and tool fields that the
// provider shapes share.
func read(m core.Message) Turn {
	msg := []byte(m)
	// The message's members, found in one pass: read asks for a dozen of
	// them, and each lookup would scan the whole message (its text) again.
	var buf [16]rawjson.Field
	fields := rawjson.Fields(msg, buf[:0])
	get := func(key string) []byte {
		v, _ := rawjson.Get(fields, key)
		return v
	}
	getStr := func(key string) string { return unquote(get(key)) }
	role := getStr("role")
	t := Turn{Role: mapRole(role), Source: role, Model: getStr("model")}
	t.TimeMs = timeOfValue(get("timestamp"))
	for _, key := range [...]string{"claudecode", "pi", "codex"} {
		if rec := get(key); t.TimeMs == 0 && isObject(rec) {
			t.TimeMs = timeOf(rec)
		}
	}

	if rec := get("chatgpt"); isObject(rec) {
		if cm := member(rec, "message"); isObject(cm) && isObject(member(cm, "content")) {
			readChatGPT(&t, rec, cm)
			return t
		}
	}
	if rec := get("librechat"); isObject(rec) && isArray(member(rec, "content")) {
		readLibreChat(&t, rec)
		return t
	}
	if rec := get("claudecode"); isObject(rec) && !isObject(member(rec, "message")) && member(rec, "message") == nil {
		// A line with no message of its own (system, progress): Claude Code
		// never sends it to the model.
		t.Meta = true
	}
	if rec := get("pi"); isObject(rec) {
		switch str(rec, "type") {
		case "compaction":
			t.Source = "compactionSummary"
			t.Parts = append(t.Parts, Part{Kind: Text, Text: piCompactionPrefix + getStr("content") + piCompactionSuffix})
			return t
		case "branch_summary":
			t.Source = "branchSummary"
			t.Parts = append(t.Parts, Part{Kind: Text, Text: piBranchPrefix + getStr("content") + piBranchSuffix})
			return t
		}
	}

	switch role {
	case "bashExecution": // pi: a command the user ran with "!"
		t.Role = User
		t.Meta = isLiteralTrue(get("excludeFromContext"))
		t.Parts = append(t.Parts, Part{Kind: Text, Text: bashText(msg)})
		return t
	case "toolResult": // pi
		t.Parts = append(t.Parts, toolResult(getStr("toolCallId"), getStr("toolName"), get("content"), isLiteralTrue(get("isError"))))
		return t
	case "compactionSummary", "branchSummary": // pi's agent messages, as a caller may store them
		t.Role = User
		pre, suf := piCompactionPrefix, piCompactionSuffix
		if role == "branchSummary" {
			pre, suf = piBranchPrefix, piBranchSuffix
		}
		t.Parts = append(t.Parts, Part{Kind: Text, Text: pre + getStr("summary") + suf})
		return t
	case "custom": // pi: a message an extension injected
		t.Role = User
	}

	switch typ := getStr("type"); typ {
	case "function_call", "custom_tool_call", "function_call_output", "custom_tool_call_output", "reasoning":
		// An OpenAI Responses item stored with a role.
		t.Parts = appendItem(t.Parts, msg, &t)
		return t
	}

	// Open WebUI keeps the Responses items of an assistant reply in "output";
	// they say more than the rendered content string.
	if out := get("output"); isArray(out) && t.Role == Assistant {
		each(out, func(item []byte) { t.Parts = appendItem(t.Parts, item, &t) })
		if len(t.Parts) > 0 {
			return t
		}
	}

	content := get("content")
	switch {
	case isString(content):
		s := unquote(content)
		if t.Role == Tool {
			t.Parts = append(t.Parts, Part{Kind: ToolResult, CallID: toolCallID(msg), Name: getStr("name"), Text: s})
		} else if s != "" {
			t.Parts = appendText(t.Parts, s, t.Role == Assistant && hasDetails(s))
		}
	case isArray(content):
		if t.Role == Tool && !hasPartOf(content, "tool-result") {
			text, raw := resultContent(content)
			t.Parts = append(t.Parts, Part{Kind: ToolResult, CallID: toolCallID(msg), Name: getStr("name"), Text: text, Raw: raw})
		} else {
			each(content, func(p []byte) { t.Parts = appendPart(t.Parts, p) })
		}
	case content != nil && string(content) != "null":
		t.Parts = append(t.Parts, Part{Kind: Other, Raw: content})
	case content == nil && isArray(get("parts")):
		// An AI SDK UIMessage stored as it was (without its id): its parts.
		each(get("parts"), func(p []byte) { t.Parts = appendUIPart(t.Parts, p) })
	}
	if r := getStr("refusal"); r != "" && t.Role == Assistant {
		t.Parts = append(t.Parts, Part{Kind: Text, Text: r})
	}
	each(get("tool_calls"), func(c []byte) { t.Parts = appendChatCall(t.Parts, c) })
	if fc := get("function_call"); isObject(fc) { // the legacy single call
		name := str(fc, "name")
		t.Parts = append(t.Parts, Part{Kind: ToolCall, CallID: legacyCallID(name), Name: name, Args: args(jsonText(member(fc, "arguments")))})
	}
	if role == "function" && len(t.Parts) == 0 {
		t.Parts = append(t.Parts, Part{Kind: ToolResult, CallID: legacyCallID(getStr("name")), Name: getStr("name")})
	}
	if t.Role == System && len(t.Parts) == 0 {
		t.Hidden = true
	}
	return t
}

// hasPartOf reports whether the array content holds a part of type typ (an AI
// SDK tool message's parts are results that each name their call).
func hasPartOf(content []byte, typ string) bool {
	found := false
	each(content, func(p []byte) { found = found || isObject(p) && str(p, "type") == typ })
	return found
}

// Open WebUI writes reasoning into the content string as <details
// type="reasoning"> blocks; hasDetails tells when to look for them.
func hasDetails(s string) bool { return indexOf(s, "<details type=\"") >= 0 }

// mapRole maps a shape's role word onto the four roles.
func mapRole(r string) Role {
	switch r {
	case "system", "developer":
		return System
	case "assistant", "model", "ai", "bot":
		return Assistant
	case "tool", "toolResult", "function", "tool_result", "ipython":
		return Tool
	}
	return User
}

// toolCallID is the call a tool message answers: Chat Completions'
// tool_call_id, pi's toolCallId, or the legacy function role's name.
func toolCallID(msg []byte) string {
	if id := str(msg, "tool_call_id"); id != "" {
		return id
	}
	if id := str(msg, "toolCallId"); id != "" {
		return id
	}
	if str(msg, "role") == "function" {
		return legacyCallID(str(msg, "name"))
	}
	return ""
}

// legacyCallID pairs a Chat Completions function_call with the function
// message that answers it, which have only the function's name in common.
func legacyCallID(name string) string { return "function:" + name }

// timeOf is the message's own time: pi's and Open WebUI's "timestamp"
// (milliseconds, or seconds when it is small), or an ISO string.
func timeOf(msg []byte) int64 { return timeOfValue(member(msg, "timestamp")) }

// timeOfValue is timeOf of a message whose "timestamp" is v (nil: none).
func timeOfValue(v []byte) int64 {
	if isString(v) {
		return isoMillis(unquote(v))
	}
	if len(v) == 0 || v[0] < '0' || v[0] > '9' {
		return 0
	}
	n := millis(v, 1)
	if n < 100_000_000_000 { // seconds (before 5138 AD in ms is ≥ 1e11)
		return millis(v, 1000)
	}
	return n
}

// The texts pi puts around the summaries it sends the model
// (pi-mono packages/coding-agent/src/core/messages.ts, convertToLlm).
const (
	piCompactionPrefix = "The conversation history before this point was compacted into the following summary:\n\n<summary>\n"
	piCompactionSuffix = "\n</summary>"
	piBranchPrefix     = "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n"
	piBranchSuffix     = "</summary>"
)

// bashText is the user text pi sends the model for a bashExecution message
// (pi-mono bashExecutionToText).
func bashText(msg []byte) string {
	s := "Ran `" + str(msg, "command") + "`\n"
	if out := str(msg, "output"); out != "" {
		s += "```\n" + out + "\n```"
	} else {
		s += "(no output)"
	}
	code := member(msg, "exitCode")
	if isTrue(msg, "cancelled") {
		s += "\n\n(command cancelled)"
	} else if len(code) > 0 && code[0] != 'n' && string(code) != "0" {
		s += "\n\nCommand exited with code " + string(code)
	}
	if p := str(msg, "fullOutputPath"); p != "" && isTrue(msg, "truncated") {
		s += "\n\n[Output truncated. Full output: " + p + "]"
	}
	return s
}

func indexOf(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}
