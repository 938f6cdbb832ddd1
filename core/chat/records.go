package chat

// Readers of the records formats keep whole beside a message whose own
// content is only their rendered text.

// readChatGPT reads a ChatGPT mapping entry (rec) and its message (cm):
// author.role, recipient (an assistant message to a tool is a call),
// metadata (hidden, model_slug), and content by content_type.
func readChatGPT(t *Turn, rec, cm []byte) {
	author := member(cm, "author")
	t.Source = str(author, "role")
	t.Role = mapRole(t.Source)
	md := member(cm, "metadata")
	if m := str(md, "model_slug"); m != "" {
		t.Model = m
	}
	if ct := member(cm, "create_time"); len(ct) > 0 && ct[0] >= '0' && ct[0] <= '9' {
		t.TimeMs = millis(ct, 1000)
	}
	t.Hidden = isTrue(md, "is_visually_hidden_from_conversation")
	c := member(cm, "content")
	id, parent := str(rec, "id"), str(rec, "parent")
	recipient := str(cm, "recipient")
	tool := str(author, "name")
	text := chatGPTText(c)

	switch ct := str(c, "content_type"); {
	case t.Role == Assistant && recipient != "" && recipient != "all":
		// The model addressed a tool (python, browser, dalle.text2im, …): a
		// call, answered by the tool message that follows it (its child).
		args := text
		if !isJSONObject(args) {
			key := "input"
			if ct == "code" {
				key = "code"
			}
			args = object(key, text)
		}
		t.Parts = append(t.Parts, Part{Kind: ToolCall, CallID: id, Name: recipient, Args: args})
	case t.Role == Tool:
		t.Parts = append(t.Parts, Part{Kind: ToolResult, CallID: parent, Name: tool, Text: text, IsError: ct == "system_error"})
	case ct == "thoughts":
		each(member(c, "thoughts"), func(th []byte) {
			s := str(th, "content")
			if sum := str(th, "summary"); sum != "" {
				s = sum + "\n\n" + s
			}
			t.Parts = append(t.Parts, Part{Kind: Thinking, Text: s})
		})
	case ct == "reasoning_recap":
		t.Parts = append(t.Parts, Part{Kind: Thinking, Text: str(c, "content")})
	case ct == "user_editable_context", ct == "model_editable_context":
		// Custom instructions and memory: what ChatGPT gives the model as
		// system text, never shown in the conversation.
		t.Role, t.Hidden = System, true
		if text != "" {
			t.Parts = append(t.Parts, Part{Kind: Text, Text: text})
		}
	case ct == "multimodal_text":
		each(member(c, "parts"), func(p []byte) {
			if isString(p) {
				if s := unquote(p); s != "" {
					t.Parts = append(t.Parts, Part{Kind: Text, Text: s})
				}
				return
			}
			if str(p, "content_type") == "image_asset_pointer" {
				t.Parts = append(t.Parts, Part{Kind: Image, Raw: p})
				return
			}
			t.Parts = append(t.Parts, Part{Kind: Other, Raw: p})
		})
	case text != "":
		t.Parts = append(t.Parts, Part{Kind: Text, Text: text})
	case ct != "text" && ct != "":
		t.Parts = append(t.Parts, Part{Kind: Other, Raw: c})
	}
	if t.Role == System && len(t.Parts) == 0 {
		t.Hidden = true
	}
}

// chatGPTText is the text a ChatGPT content holds, whatever its type: its
// string parts, "text" (code, execution_output, tether_quote's title and
// text), "result" (tether_browsing_display), or the user profile and
// instructions of a user_editable_context.
func chatGPTText(c []byte) string {
	var out []byte
	add := func(s string) {
		if s != "" {
			out = joinTo(out, "\n\n", s)
		}
	}
	switch str(c, "content_type") {
	case "tether_quote":
		add(str(c, "title"))
		add(str(c, "text"))
		return string(out)
	case "user_editable_context":
		add(str(c, "user_profile"))
		add(str(c, "user_instructions"))
		return string(out)
	case "model_editable_context":
		add(str(c, "model_set_context"))
		return string(out)
	case "multimodal_text":
		return ""
	}
	each(member(c, "parts"), func(p []byte) { add(unquote(p)) })
	add(str(c, "text"))
	add(str(c, "result"))
	return string(out)
}

func isJSONObject(s string) bool {
	b := trimSpace([]byte(s))
	return isObject(b) && validJSON(b)
}

// readLibreChat reads a LibreChat message whose record has content parts
// (agents): text, think, tool_call (with its output), image_url, error.
func readLibreChat(t *Turn, rec []byte) {
	if s := str(rec, "sender"); s != "" && t.Source == "" {
		t.Source = s
	}
	if m := str(rec, "model"); m != "" {
		t.Model = m
	}
	each(member(rec, "content"), func(p []byte) {
		switch str(p, "type") {
		case "text":
			v := member(p, "text")
			s := unquote(v)
			if isObject(v) {
				s = str(v, "value")
			}
			if s != "" {
				t.Parts = append(t.Parts, Part{Kind: Text, Text: s})
			}
		case "think":
			v := member(p, "think")
			s := unquote(v)
			if isObject(v) {
				s = str(v, "value")
			}
			t.Parts = append(t.Parts, Part{Kind: Thinking, Text: s})
		case "tool_call":
			tc := member(p, "tool_call")
			id, name := str(tc, "id"), str(tc, "name")
			t.Parts = append(t.Parts, Part{Kind: ToolCall, CallID: id, Name: name, Args: args(jsonText(member(tc, "args")))})
			if out := member(tc, "output"); out != nil && string(out) != "null" {
				t.Parts = append(t.Parts, toolResult(id, name, out, false))
			}
		default:
			t.Parts = appendPart(t.Parts, p)
		}
	})
}
