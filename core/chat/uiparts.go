package chat

import "github.com/sessiontree/sessiontree/core/rawjson"

// appendUIPart reads one part of an AI SDK UIMessage ("parts": text,
// reasoning, file, tool-NAME and dynamic-tool, step-start, source-url,
// source-document, data-NAME). A tool part holds its call and, once the tool
// ran, its result, so it gives a ToolCall and then a ToolResult. A step-start
// marks where a step began and carries nothing; sources and data parts are
// kept as Other.
func appendUIPart(parts []Part, p []byte) []Part {
	if !isObject(p) {
		return append(parts, Part{Kind: Other, Raw: p})
	}
	typ := str(p, "type")
	switch {
	case typ == "text":
		return append(parts, Part{Kind: Text, Text: str(p, "text")})
	case typ == "reasoning":
		// The AI SDK keeps Anthropic's signature (or its encrypted reasoning)
		// in the part's providerMetadata; Anthropic needs it back when a tool
		// loop goes on after the thinking.
		meta := member(member(p, "providerMetadata"), "anthropic")
		if data := str(meta, "redactedData"); data != "" {
			raw := rawjson.AppendString([]byte(`{"type":"redacted_thinking","data":`), data)
			return append(parts, Part{Kind: Thinking, Signature: data, Raw: append(raw, '}')})
		}
		return append(parts, Part{Kind: Thinking, Text: str(p, "text"), Signature: str(meta, "signature")})
	case typ == "step-start":
		return parts
	case typ == "file":
		if hasPrefix(str(p, "mediaType"), "image/") {
			return append(parts, Part{Kind: Image, URL: str(p, "url"), Raw: p})
		}
	case typ == "dynamic-tool" || hasPrefix(typ, "tool-"):
		name := str(p, "toolName")
		if typ != "dynamic-tool" {
			name = typ[len("tool-"):]
		}
		id := str(p, "toolCallId")
		parts = append(parts, Part{Kind: ToolCall, CallID: id, Name: name, Args: args(jsonText(member(p, "input")))})
		switch str(p, "state") {
		case "output-available":
			out := member(p, "output")
			text := jsonText(out)
			if len(out) == 0 || string(out) == "null" {
				text = ""
			}
			parts = append(parts, Part{Kind: ToolResult, CallID: id, Name: name, Text: text, Output: out})
		case "output-error":
			parts = append(parts, Part{Kind: ToolResult, CallID: id, Name: name, Text: str(p, "errorText"), IsError: true})
		case "output-denied":
			text := "The tool call was denied."
			if r := str(member(p, "approval"), "reason"); r != "" {
				text += " " + r
			}
			parts = append(parts, Part{Kind: ToolResult, CallID: id, Name: name, Text: text, IsError: true})
		}
		return parts
	}
	return append(parts, Part{Kind: Other, Raw: p})
}

func hasPrefix(s, prefix string) bool { return len(s) >= len(prefix) && s[:len(prefix)] == prefix }
