package chat

import "github.com/sessiontree/sessiontree/core/rawjson"

// appendPart reads one content part of any provider's shape: Chat
// Completions (text, image_url, refusal, input_audio, file), Responses
// (input_text, output_text, input_image, refusal), Anthropic (text,
// thinking, redacted_thinking, tool_use, tool_result, image), pi (text,
// thinking, toolCall, image), assistant-ui's ThreadMessage (text, reasoning,
// tool-call, image), the AI SDK's ModelMessage (the same, and tool-result)
// and a bare string.
func appendPart(parts []Part, p []byte) []Part {
	if isString(p) {
		if s := unquote(p); s != "" {
			return append(parts, Part{Kind: Text, Text: s})
		}
		return parts
	}
	if !isObject(p) {
		return append(parts, Part{Kind: Other, Raw: p})
	}
	switch str(p, "type") {
	case "text", "input_text", "output_text":
		if t, ok := rawjson.LookupString(p, "text"); ok {
			return append(parts, Part{Kind: Text, Text: t})
		}
	case "refusal":
		return append(parts, Part{Kind: Text, Text: str(p, "refusal")})
	case "thinking": // Anthropic (signature), pi (thinkingSignature)
		sig := str(p, "signature")
		if sig == "" {
			sig = str(p, "thinkingSignature")
		}
		return append(parts, Part{Kind: Thinking, Text: str(p, "thinking"), Signature: sig})
	case "redacted_thinking": // Anthropic: encrypted reasoning, given back as it was
		return append(parts, Part{Kind: Thinking, Signature: str(p, "data"), Raw: p})
	case "tool_use", "server_tool_use": // Anthropic
		if str(p, "type") == "server_tool_use" {
			break
		}
		return append(parts, Part{Kind: ToolCall, CallID: str(p, "id"), Name: str(p, "name"), Args: args(jsonText(member(p, "input")))})
	case "toolCall": // pi
		return append(parts, Part{Kind: ToolCall, CallID: str(p, "id"), Name: str(p, "name"), Args: args(jsonText(member(p, "arguments")))})
	case "reasoning": // assistant-ui: its providerMetadata as an AI SDK reasoning part's (Anthropic's signature)
		return appendUIPart(parts, p)
	case "tool-call": // assistant-ui: the call and, once the tool ran, its result; the AI SDK: the call
		return appendAUIToolCall(parts, p)
	case "tool-result": // the AI SDK, in a tool message
		return append(parts, sdkToolResult(p))
	case "tool_result": // Anthropic, in a user message
		return append(parts, toolResult(str(p, "tool_use_id"), "", member(p, "content"), isTrue(p, "is_error")))
	case "image":
		if u := imageURL(p); u != "" {
			return append(parts, Part{Kind: Image, URL: u, Raw: p})
		}
		return append(parts, Part{Kind: Image, Raw: p})
	case "image_url": // Chat Completions: {"image_url":{"url"}} (or a bare string)
		iu := member(p, "image_url")
		u := unquote(iu)
		if isObject(iu) {
			u = str(iu, "url")
		}
		return append(parts, Part{Kind: Image, URL: u, Raw: p})
	case "input_image": // Responses: {"image_url": "…"}
		return append(parts, Part{Kind: Image, URL: str(p, "image_url"), Raw: p})
	case "file": // the AI SDK: {"data","mediaType"}; an image's is an image
		if mt := str(p, "mediaType"); hasPrefix(mt, "image/") {
			return append(parts, Part{Kind: Image, URL: dataURL(str(p, "data"), mt), Raw: p})
		}
	}
	return append(parts, Part{Kind: Other, Raw: p})
}

// appendAUIToolCall reads assistant-ui's tool-call part ({"toolCallId",
// "toolName", "args", "argsText", "result"?, "isError"?}): a ToolCall, then a
// ToolResult when it holds a result (its text, or its JSON when not a string).
// The AI SDK's has its arguments in "input" (since v5).
func appendAUIToolCall(parts []Part, p []byte) []Part {
	id, name := str(p, "toolCallId"), str(p, "toolName")
	a := member(p, "args")
	if !isObject(a) {
		a = member(p, "input")
	}
	if a == nil {
		a = []byte(args(str(p, "argsText")))
	}
	parts = append(parts, Part{Kind: ToolCall, CallID: id, Name: name, Args: args(jsonText(a))})
	if r := member(p, "result"); r != nil {
		text := jsonText(r)
		if string(r) == "null" {
			text = ""
		}
		parts = append(parts, Part{Kind: ToolResult, CallID: id, Name: name, Text: text, IsError: isTrue(p, "isError")})
	}
	return parts
}

// sdkToolResult reads the AI SDK's tool-result part: {"toolCallId","toolName",
// "output":{"type","value"}} (text, json, error-text, error-json, content,
// execution-denied), or "result" and "isError" before v5.
func sdkToolResult(p []byte) Part {
	r := Part{Kind: ToolResult, CallID: str(p, "toolCallId"), Name: str(p, "toolName"), IsError: isTrue(p, "isError")}
	out := member(p, "output")
	if !isObject(out) {
		r.Text = resultText(member(p, "result"))
		return r
	}
	switch typ := str(out, "type"); typ {
	case "content":
		r.Text, r.Raw = resultContent(member(out, "value"))
	case "execution-denied":
		r.Text, r.IsError = "The tool call was denied.", true
		if why := str(out, "reason"); why != "" {
			r.Text += " " + why
		}
	default:
		r.Text = resultText(member(out, "value"))
		r.IsError = r.IsError || hasPrefix(typ, "error-")
	}
	return r
}

// resultText is a result value's text: a string's, another value's JSON, ""
// for none or null.
func resultText(v []byte) string {
	if len(v) == 0 || string(v) == "null" {
		return ""
	}
	return jsonText(v)
}

// imageURL is the URL of an Anthropic image block ({"source":{"type":"base64",
// "media_type","data"}} or {"source":{"type":"url","url"}}), a pi image
// ({"data","mimeType"}), an assistant-ui image ({"image": url}) or an AI SDK
// one ({"image": url or base64 data, "mediaType"}), "" when it has none.
func imageURL(p []byte) string {
	if u := str(p, "image"); u != "" {
		return dataURL(u, str(p, "mediaType"))
	}
	if src := member(p, "source"); isObject(src) {
		switch str(src, "type") {
		case "base64":
			return "data:" + str(src, "media_type") + ";base64," + str(src, "data")
		case "url":
			return str(src, "url")
		}
		return ""
	}
	if d := str(p, "data"); d != "" {
		return "data:" + str(p, "mimeType") + ";base64," + d
	}
	return ""
}

// dataURL is s when it is a URL, else s as the base64 data of a data: URL
// of type mediaType (when there is one). Base64 has no colon; a URL does.
func dataURL(s, mediaType string) string {
	if s == "" || mediaType == "" || indexOf(s, ":") >= 0 {
		return s
	}
	return "data:" + mediaType + ";base64," + s
}

// toolResult is a result whose content is a string or an array of parts:
// their text joined, and the parts kept in Raw when some are not text.
func toolResult(callID, name string, content []byte, isError bool) Part {
	p := Part{Kind: ToolResult, CallID: callID, Name: name, IsError: isError}
	if isString(content) {
		p.Text = unquote(content)
	} else {
		p.Text, p.Raw = resultContent(content)
	}
	return p
}

// resultContent is the text of an array of parts (joined by newlines) and,
// when any part is not text, the array itself.
func resultContent(content []byte) (string, []byte) {
	var text []byte
	plain := true
	each(content, func(p []byte) {
		var s string
		switch {
		case isString(p):
			s = unquote(p)
		case isObject(p) && (str(p, "type") == "text" || str(p, "type") == "input_text" || str(p, "type") == "output_text"):
			s = str(p, "text")
		default:
			plain = false
			return
		}
		text = joinTo(text, "\n", s)
	})
	if plain {
		return string(text), nil
	}
	return string(text), content
}

// appendChatCall reads one Chat Completions tool call
// ({"id","type":"function","function":{"name","arguments"}}).
func appendChatCall(parts []Part, c []byte) []Part {
	fn := member(c, "function")
	if !isObject(fn) {
		if cu := member(c, "custom"); isObject(cu) { // a custom tool: free-form input
			return append(parts, Part{Kind: ToolCall, CallID: str(c, "id"), Name: str(cu, "name"), Args: object("input", str(cu, "input"))})
		}
		return append(parts, Part{Kind: Other, Raw: c})
	}
	return append(parts, Part{Kind: ToolCall, CallID: str(c, "id"), Name: str(fn, "name"), Args: args(jsonText(member(fn, "arguments")))})
}

// appendItem reads one OpenAI Responses item (as Open WebUI keeps them in
// "output", or as a message stored with a role): message, function_call,
// function_call_output, custom tool calls, reasoning.
func appendItem(parts []Part, item []byte, t *Turn) []Part {
	switch str(item, "type") {
	case "message":
		c := member(item, "content")
		if isString(c) {
			return appendText(parts, unquote(c), false)
		}
		each(c, func(p []byte) { parts = appendPart(parts, p) })
		return parts
	case "function_call":
		return append(parts, Part{Kind: ToolCall, CallID: str(item, "call_id"), Name: str(item, "name"), Args: args(jsonText(member(item, "arguments")))})
	case "custom_tool_call":
		return append(parts, Part{Kind: ToolCall, CallID: str(item, "call_id"), Name: str(item, "name"), Args: object("input", str(item, "input"))})
	case "function_call_output", "custom_tool_call_output":
		return append(parts, toolResult(str(item, "call_id"), "", member(item, "output"), false))
	case "reasoning":
		var text []byte
		add := func(p []byte) {
			if s := str(p, "text"); s != "" {
				text = joinTo(text, "\n\n", s)
			}
		}
		each(member(item, "summary"), add)
		if len(text) == 0 {
			each(member(item, "content"), add)
		}
		return append(parts, Part{Kind: Thinking, Text: string(text), Signature: str(item, "encrypted_content"), Raw: item})
	}
	return append(parts, Part{Kind: Other, Raw: item})
}

// appendText appends s as a Text part; with details, Open WebUI's
// <details type="reasoning"> and <details type="tool_calls"> blocks become
// Thinking, ToolCall and ToolResult parts in their place.
func appendText(parts []Part, s string, details bool) []Part {
	split := false // a block was taken out: the newlines around it were its
	for details {
		i := indexOf(s, "<details type=\"")
		if i < 0 {
			break
		}
		end := indexOf(s[i:], "</details>")
		if end < 0 {
			break
		}
		block := s[i : i+end+len("</details>")]
		openEnd := indexOf(block, ">")
		if openEnd < 0 || openEnd+1 > len(block)-len("</details>") {
			break
		}
		typ := attr(block[:openEnd], "type")
		if typ != "reasoning" && typ != "tool_calls" {
			break
		}
		if pre := trimNewlines(s[:i]); pre != "" {
			parts = append(parts, Part{Kind: Text, Text: pre})
		}
		body := block[openEnd+1 : len(block)-len("</details>")]
		if j := indexOf(body, "</summary>"); j >= 0 {
			body = body[j+len("</summary>"):]
		}
		if typ == "reasoning" {
			parts = append(parts, Part{Kind: Thinking, Text: unquoteLines(htmlUnescape(trimNewlines(body)))})
		} else {
			head := block[:openEnd]
			id := attr(head, "id")
			parts = append(parts, Part{Kind: ToolCall, CallID: id, Name: attr(head, "name"), Args: args(jsonString(htmlUnescape(attr(head, "arguments"))))})
			if res, ok := attrOK(head, "result"); ok {
				parts = append(parts, Part{Kind: ToolResult, CallID: id, Name: attr(head, "name"), Text: jsonString(htmlUnescape(res))})
			}
		}
		s = s[i+end+len("</details>"):]
		split = true
	}
	// Only the text beside a block taken out loses the newlines and spaces
	// that set the block apart; any other text is kept exactly (until Dec 6 (night)
	// every text was trimmed, and a message a JS mapping handed out as it was
	// came back from the Go one changed: ai-sdk's syncChat then forked it).
	if split {
		if s = trimNewlines(s); s != "" {
			parts = append(parts, Part{Kind: Text, Text: s})
		}
	} else if s != "" || !details {
		parts = append(parts, Part{Kind: Text, Text: s})
	}
	return parts
}

// jsonString is the text a JSON string literal holds, or s when s is not one
// (Open WebUI writes a tool call's arguments and result JSON-encoded).
func jsonString(s string) string {
	if len(s) >= 2 && s[0] == '"' && rawjson.Valid([]byte(s)) {
		return rawjson.Unquote([]byte(s))
	}
	return s
}

func attr(head, name string) string {
	v, _ := attrOK(head, name)
	return v
}

func attrOK(head, name string) (string, bool) {
	key := " " + name + "=\""
	i := indexOf(head, key)
	if i < 0 {
		return "", false
	}
	rest := head[i+len(key):]
	j := indexOf(rest, "\"")
	if j < 0 {
		return "", false
	}
	return rest[:j], true
}

func trimNewlines(s string) string {
	for len(s) > 0 && (s[0] == '\n' || s[0] == ' ') {
		s = s[1:]
	}
	for len(s) > 0 && (s[len(s)-1] == '\n' || s[len(s)-1] == ' ') {
		s = s[:len(s)-1]
	}
	return s
}

// unquoteLines drops the "> " Open WebUI puts before each reasoning line.
func unquoteLines(s string) string {
	out := make([]byte, 0, len(s))
	atStart := true
	for i := 0; i < len(s); i++ {
		if atStart && s[i] == '>' {
			if i+1 < len(s) && s[i+1] == ' ' {
				i++
			}
			atStart = false
			continue
		}
		atStart = s[i] == '\n'
		out = append(out, s[i])
	}
	return string(out)
}

// htmlUnescape decodes the entities Open WebUI's html.escape writes.
func htmlUnescape(s string) string {
	if indexOf(s, "&") < 0 {
		return s
	}
	entities := [...][2]string{{"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&#x27;", "'"}, {"&#39;", "'"}, {"&amp;", "&"}}
	out := make([]byte, 0, len(s))
next:
	for i := 0; i < len(s); i++ {
		if s[i] == '&' {
			for _, e := range entities {
				if len(s)-i >= len(e[0]) && s[i:i+len(e[0])] == e[0] {
					out = append(out, e[1]...)
					i += len(e[0]) - 1
					continue next
				}
			}
		}
		out = append(out, s[i])
	}
	return string(out)
}
