package provider

import (
	"encoding/json"
	"regexp"
	"sort"
	"strings"
)

// The structural rules of each API's request, checked on every projection a
// test makes. Where each rule comes from:
//
//   - OpenAI: openapi.json of openai/openai-openapi (commit f85dbe2):
//     CreateChatCompletionRequest.messages (minItems 1, items
//     ChatCompletionRequestMessage by role: system/developer/user content
//     required, string or a non-empty array of parts; assistant content
//     "required unless tool_calls or function_call is specified";
//     ChatCompletionMessageToolCall requires id, type "function",
//     function.name and function.arguments (a string); tool messages require
//     content and tool_call_id; ChatCompletionRequestMessageContentPartImage
//     requires image_url.url), and CreateResponse.input (InputItem:
//     EasyInputMessage requires role user/assistant/system/developer and
//     content; FunctionToolCall requires type, call_id, name, arguments;
//     FunctionCallOutputItemParam requires type and output, its call_id is
//     1–64 characters; InputImageContent requires detail). The pairing rules
//     are the API's own errors: an assistant message with tool_calls "must be
//     followed by tool messages responding to each tool_call_id"; a
//     function_call_output needs an earlier function_call with its call_id.
//   - Anthropic: src/resources/messages/messages.ts of
//     anthropics/anthropic-sdk-typescript (commit bfa9197f): MessageParam,
//     TextBlockParam, ImageBlockParam (Base64ImageSource media_type
//     jpeg/png/gif/webp, URLImageSource), ToolUseBlockParam (id, name,
//     input), ToolResultBlockParam (tool_use_id, content?, is_error?),
//     ThinkingBlockParam (thinking, signature), RedactedThinkingBlockParam
//     (data), Tool (name, input_schema of type object). The API's own errors
//     add: roles alternate, the first is the user's; "tool_use ids were found
//     without tool_result blocks immediately after" and tool_result blocks
//     must open the next user message (anthropic-sdk-typescript issue 653);
//     "Requests which include tool_use or tool_result blocks must define
//     tools" (anthropic-sdk-python issue 494); text blocks must be non-empty;
//     the final assistant content may not end with whitespace; tool_use ids
//     match ^[a-zA-Z0-9_-]+$ and tool names ^[a-zA-Z0-9_-]{1,64}$.

var (
	legalID   = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)
	legalName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)
)

type jsonObj = map[string]any

func keysOnly(o jsonObj, allowed ...string) []string {
	var bad []string
	for k := range o {
		ok := false
		for _, a := range allowed {
			ok = ok || k == a
		}
		if !ok {
			bad = append(bad, k)
		}
	}
	sort.Strings(bad)
	return bad
}

func nonEmptyString(v any) bool { s, ok := v.(string); return ok && s != "" }

// checkBody checks a request body against api's rules; it returns every
// broken rule, each a sentence naming the message index.
func checkBody(api API, body []byte) []string {
	var req jsonObj
	if err := json.Unmarshal(body, &req); err != nil {
		return []string{"body is not JSON: " + err.Error()}
	}
	switch api {
	case OpenAIChat:
		return checkChat(req)
	case OpenAIResponses:
		return checkResponses(req)
	case Anthropic:
		return checkAnthropic(req)
	}
	return []string{"unknown api"}
}

type problems []string

func (p *problems) add(at int, s string) {
	*p = append(*p, "["+itoa(at)+"] "+s)
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}

func checkChat(req jsonObj) []string {
	var ps problems
	if bad := keysOnly(req, "messages"); len(bad) > 0 {
		ps.add(-1, "unexpected body fields "+strings.Join(bad, ","))
	}
	msgs, ok := req["messages"].([]any)
	if !ok || len(msgs) == 0 {
		return append(ps, "messages must be a non-empty array")
	}
	var waiting map[string]bool // call ids the next tool messages must answer
	for i, raw := range msgs {
		m, _ := raw.(jsonObj)
		role, _ := m["role"].(string)
		if role != "tool" && len(waiting) > 0 {
			ps.add(i, "tool_calls not answered before this message: "+strings.Join(sortedKeys(waiting), ","))
			waiting = nil
		}
		switch role {
		case "system", "developer":
			if bad := keysOnly(m, "role", "content", "name"); len(bad) > 0 {
				ps.add(i, "unexpected fields "+strings.Join(bad, ","))
			}
			if !textContent(m["content"], false) {
				ps.add(i, role+" content must be a string or text parts")
			}
		case "user":
			if bad := keysOnly(m, "role", "content", "name"); len(bad) > 0 {
				ps.add(i, "unexpected fields "+strings.Join(bad, ","))
			}
			if !userContent(m["content"]) {
				ps.add(i, "user content must be a string or a non-empty array of text/image_url parts")
			}
		case "assistant":
			if bad := keysOnly(m, "role", "content", "tool_calls", "name", "refusal"); len(bad) > 0 {
				ps.add(i, "unexpected fields "+strings.Join(bad, ","))
			}
			calls, hasCalls := m["tool_calls"].([]any)
			if hasCalls && len(calls) == 0 {
				ps.add(i, "tool_calls must not be empty")
			}
			c, has := m["content"]
			if !has && !hasCalls {
				ps.add(i, "assistant content is required without tool_calls")
			}
			if has && c != nil && !textContent(c, false) {
				ps.add(i, "assistant content must be a string, text parts or null")
			}
			if c == nil && !hasCalls {
				ps.add(i, "assistant content is null without tool_calls")
			}
			waiting = map[string]bool{}
			for _, rc := range calls {
				tc, _ := rc.(jsonObj)
				fn, _ := tc["function"].(jsonObj)
				id, _ := tc["id"].(string)
				args, argsOK := fn["arguments"].(string)
				if !nonEmptyString(tc["id"]) || tc["type"] != "function" || !nonEmptyString(fn["name"]) || !argsOK {
					ps.add(i, "a tool call needs id, type function, function.name and function.arguments")
				}
				if argsOK && !json.Valid([]byte(args)) {
					ps.add(i, "tool call arguments are not JSON")
				}
				if !legalName.MatchString(toString(fn["name"])) {
					ps.add(i, "tool name is not [a-zA-Z0-9_-]{1,64}")
				}
				if waiting[id] {
					ps.add(i, "duplicate tool call id "+id)
				}
				waiting[id] = true
			}
		case "tool":
			if bad := keysOnly(m, "role", "content", "tool_call_id"); len(bad) > 0 {
				ps.add(i, "unexpected fields "+strings.Join(bad, ","))
			}
			id, _ := m["tool_call_id"].(string)
			if !textContent(m["content"], true) {
				ps.add(i, "tool content must be a string or text parts")
			}
			if !waiting[id] {
				ps.add(i, "tool message "+id+" answers no call of the assistant message before it")
			}
			delete(waiting, id)
		default:
			ps.add(i, "unknown role "+role)
		}
	}
	if len(waiting) > 0 {
		ps.add(len(msgs), "tool_calls never answered: "+strings.Join(sortedKeys(waiting), ","))
	}
	return ps
}

func toString(v any) string { s, _ := v.(string); return s }

func sortedKeys(m map[string]bool) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// textContent: a string, or a non-empty array of {"type":"text","text"}.
func textContent(v any, emptyOK bool) bool {
	switch c := v.(type) {
	case string:
		return emptyOK || true
	case []any:
		if len(c) == 0 {
			return false
		}
		for _, p := range c {
			po, _ := p.(jsonObj)
			if po["type"] != "text" {
				return false
			}
			if _, ok := po["text"].(string); !ok {
				return false
			}
		}
		return true
	}
	return false
}

func userContent(v any) bool {
	switch c := v.(type) {
	case string:
		return true
	case []any:
		if len(c) == 0 {
			return false
		}
		for _, p := range c {
			po, _ := p.(jsonObj)
			switch po["type"] {
			case "text":
				if _, ok := po["text"].(string); !ok {
					return false
				}
			case "image_url":
				iu, _ := po["image_url"].(jsonObj)
				if !nonEmptyString(iu["url"]) {
					return false
				}
			default:
				return false
			}
		}
		return true
	}
	return false
}

func checkResponses(req jsonObj) []string {
	var ps problems
	if bad := keysOnly(req, "input"); len(bad) > 0 {
		ps.add(-1, "unexpected body fields "+strings.Join(bad, ","))
	}
	items, ok := req["input"].([]any)
	if !ok {
		return append(ps, "input must be an array")
	}
	calls := map[string]int{} // call_id → outputs seen
	for i, raw := range items {
		it, _ := raw.(jsonObj)
		switch it["type"] {
		case "message":
			if bad := keysOnly(it, "type", "role", "content"); len(bad) > 0 {
				ps.add(i, "unexpected fields "+strings.Join(bad, ","))
			}
			role, _ := it["role"].(string)
			if role != "user" && role != "assistant" && role != "system" && role != "developer" {
				ps.add(i, "message role must be user, assistant, system or developer")
			}
			switch c := it["content"].(type) {
			case string:
			case []any:
				if role == "assistant" {
					ps.add(i, "assistant content given as a list must be output_text; write a string")
				}
				for _, p := range c {
					po, _ := p.(jsonObj)
					switch po["type"] {
					case "input_text":
						if _, ok := po["text"].(string); !ok {
							ps.add(i, "input_text needs text")
						}
					case "input_image":
						if !nonEmptyString(po["image_url"]) || !nonEmptyString(po["detail"]) {
							ps.add(i, "input_image needs image_url and detail")
						}
					default:
						ps.add(i, "unknown content type")
					}
				}
			default:
				ps.add(i, "message content must be a string or a list")
			}
		case "function_call":
			if bad := keysOnly(it, "type", "call_id", "name", "arguments"); len(bad) > 0 {
				ps.add(i, "unexpected fields "+strings.Join(bad, ","))
			}
			id := toString(it["call_id"])
			args, ok := it["arguments"].(string)
			if !nonEmptyString(it["call_id"]) || !nonEmptyString(it["name"]) || !ok || !json.Valid([]byte(args)) {
				ps.add(i, "function_call needs call_id, name and JSON arguments")
			}
			if !legalName.MatchString(toString(it["name"])) {
				ps.add(i, "function name is not [a-zA-Z0-9_-]{1,64}")
			}
			if _, dup := calls[id]; dup {
				ps.add(i, "duplicate call_id "+id)
			}
			calls[id] = 0
		case "function_call_output":
			if bad := keysOnly(it, "type", "call_id", "output"); len(bad) > 0 {
				ps.add(i, "unexpected fields "+strings.Join(bad, ","))
			}
			id := toString(it["call_id"])
			if len(id) < 1 || len(id) > 64 {
				ps.add(i, "call_id must be 1–64 characters")
			}
			if _, ok := it["output"].(string); !ok {
				ps.add(i, "output must be a string")
			}
			n, ok := calls[id]
			if !ok {
				ps.add(i, "function_call_output "+id+" has no function_call before it")
			} else if n > 0 {
				ps.add(i, "second output for "+id)
			}
			calls[id] = n + 1
		default:
			ps.add(i, "unknown item type")
		}
	}
	for id, n := range calls {
		if n == 0 {
			ps.add(len(items), "function_call "+id+" has no output")
		}
	}
	return ps
}

var anthropicMedia = map[string]bool{"image/jpeg": true, "image/png": true, "image/gif": true, "image/webp": true}

func checkAnthropic(req jsonObj) []string {
	var ps problems
	if bad := keysOnly(req, "system", "messages", "tools"); len(bad) > 0 {
		ps.add(-1, "unexpected body fields "+strings.Join(bad, ","))
	}
	if s, has := req["system"]; has && !nonEmptyString(s) {
		ps.add(-1, "system must be a non-empty string")
	}
	defined := map[string]bool{}
	if tools, has := req["tools"]; has {
		list, _ := tools.([]any)
		if len(list) == 0 {
			ps.add(-1, "tools must be a non-empty array")
		}
		for _, rt := range list {
			t, _ := rt.(jsonObj)
			schema, _ := t["input_schema"].(jsonObj)
			name := toString(t["name"])
			if !legalName.MatchString(name) || schema["type"] != "object" {
				ps.add(-1, "a tool needs a legal name and an input_schema of type object")
			}
			defined[name] = true
		}
	}
	msgs, ok := req["messages"].([]any)
	if !ok || len(msgs) == 0 {
		return append(ps, "messages must be a non-empty array")
	}
	var pending []string         // tool_use ids the next message must open with
	usedIDs := map[string]bool{} // the API's error: "`tool_use` ids must be unique"
	for i, raw := range msgs {
		m, _ := raw.(jsonObj)
		if bad := keysOnly(m, "role", "content"); len(bad) > 0 {
			ps.add(i, "unexpected fields "+strings.Join(bad, ","))
		}
		role := toString(m["role"])
		want := "user"
		if i%2 == 1 {
			want = "assistant"
		}
		if role != want {
			ps.add(i, "roles must alternate, starting with user: want "+want+", got "+role)
		}
		blocks, _ := m["content"].([]any)
		if len(blocks) == 0 {
			ps.add(i, "content must be a non-empty array")
		}
		if n := len(blocks); role == "assistant" && n > 0 {
			if last, _ := blocks[n-1].(jsonObj); last["type"] == "thinking" || last["type"] == "redacted_thinking" {
				ps.add(i, "the final block in an assistant message cannot be thinking")
			}
		}
		var results []string
		var uses []string
		openingResults := true
		for j, rb := range blocks {
			b, _ := rb.(jsonObj)
			typ := toString(b["type"])
			if typ != "tool_result" {
				openingResults = false
			}
			switch typ {
			case "text":
				if bad := keysOnly(b, "type", "text"); len(bad) > 0 {
					ps.add(i, "unexpected text fields")
				}
				if strings.TrimSpace(toString(b["text"])) == "" {
					ps.add(i, "text blocks must be non-empty")
				}
				if role == "assistant" && i == len(msgs)-1 && j == len(blocks)-1 && strings.TrimRight(toString(b["text"]), " \n\t\r") != toString(b["text"]) {
					ps.add(i, "the final assistant content ends with whitespace")
				}
			case "image":
				src, _ := b["source"].(jsonObj)
				switch src["type"] {
				case "base64":
					if !anthropicMedia[toString(src["media_type"])] || !nonEmptyString(src["data"]) {
						ps.add(i, "base64 image needs a jpeg/png/gif/webp media_type and data")
					}
				case "url":
					if !nonEmptyString(src["url"]) {
						ps.add(i, "url image needs a url")
					}
				default:
					ps.add(i, "image source must be base64 or url")
				}
				if role != "user" {
					ps.add(i, "images belong to user messages")
				}
			case "tool_use":
				if bad := keysOnly(b, "type", "id", "name", "input"); len(bad) > 0 {
					ps.add(i, "unexpected tool_use fields")
				}
				id, name := toString(b["id"]), toString(b["name"])
				if !legalID.MatchString(id) || !legalName.MatchString(name) {
					ps.add(i, "tool_use id and name must be [a-zA-Z0-9_-]")
				}
				if _, ok := b["input"].(jsonObj); !ok {
					ps.add(i, "tool_use input must be an object")
				}
				if !defined[name] {
					ps.add(i, "tool "+name+" is used but not defined in tools")
				}
				if usedIDs[id] {
					ps.add(i, "tool_use ids must be unique: "+id)
				}
				usedIDs[id] = true
				if role != "assistant" {
					ps.add(i, "tool_use belongs to assistant messages")
				}
				uses = append(uses, id)
			case "tool_result":
				if bad := keysOnly(b, "type", "tool_use_id", "content", "is_error"); len(bad) > 0 {
					ps.add(i, "unexpected tool_result fields")
				}
				if c, has := b["content"]; has {
					if _, ok := c.(string); !ok {
						ps.add(i, "tool_result content must be a string here")
					}
				}
				if e, has := b["is_error"]; has && e != true {
					ps.add(i, "is_error is written only when true")
				}
				if !openingResults {
					ps.add(i, "tool_result blocks must open the message")
				}
				if role != "user" {
					ps.add(i, "tool_result belongs to user messages")
				}
				results = append(results, toString(b["tool_use_id"]))
			case "thinking":
				if !nonEmptyString(b["signature"]) || !nonEmptyString(b["thinking"]) || role != "assistant" {
					ps.add(i, "thinking needs text and a signature, in an assistant message")
				}
			case "redacted_thinking":
				if !nonEmptyString(b["data"]) || role != "assistant" {
					ps.add(i, "redacted_thinking needs data, in an assistant message")
				}
			default:
				ps.add(i, "unknown block type "+typ)
			}
		}
		sort.Strings(pending)
		sort.Strings(results)
		if strings.Join(pending, ",") != strings.Join(results, ",") {
			ps.add(i, "tool_result blocks must answer exactly the previous message's tool_use ids: want ["+strings.Join(pending, ",")+"], got ["+strings.Join(results, ",")+"]")
		}
		pending = uses
	}
	if len(pending) > 0 {
		ps.add(len(msgs), "tool_use never answered: "+strings.Join(pending, ","))
	}
	return ps
}
