package chat

import (
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/sessiontree/sessiontree/core"
)

func mustMessage(t *testing.T, s string) core.Message {
	t.Helper()
	m, err := core.ParseMessage([]byte(s))
	if err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	return m
}

type readCase struct {
	name string
	in   string
	want Turn
}

func runReadCases(t *testing.T, cases []readCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Read(mustMessage(t, c.in))
			for i := range got.Parts { // Raw is checked where a case sets it
				if c.want.Parts != nil && i < len(c.want.Parts) && c.want.Parts[i].Raw == nil {
					got.Parts[i].Raw = nil
				}
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("Read(%s)\n got %+v\nwant %+v", c.in, got, c.want)
			}
		})
	}
}

func TestReadOpenAIChatCompletions(t *testing.T) {
	runReadCases(t, []readCase{
		{"a content string is one text part",
			`{"role":"user","content":"hi"}`,
			Turn{Role: User, Source: "user", Parts: []Part{{Kind: Text, Text: "hi"}}}},
		{"developer is a system turn",
			`{"role":"developer","content":"be brief"}`,
			Turn{Role: System, Source: "developer", Parts: []Part{{Kind: Text, Text: "be brief"}}}},
		{"an empty system message is hidden",
			`{"role":"system","content":""}`,
			Turn{Role: System, Source: "system", Hidden: true}},
		{"text and image_url parts keep their order",
			`{"role":"user","content":[{"type":"text","text":"look"},{"type":"image_url","image_url":{"url":"https://x/y.png"}}]}`,
			Turn{Role: User, Source: "user", Parts: []Part{{Kind: Text, Text: "look"}, {Kind: Image, URL: "https://x/y.png"}}}},
		{"tool_calls are calls with their id, name and arguments",
			`{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{\"a\":1}"}}]}`,
			Turn{Role: Assistant, Source: "assistant", Parts: []Part{{Kind: ToolCall, CallID: "c1", Name: "f", Args: `{"a":1}`}}}},
		{"arguments that are not JSON are wrapped as input",
			`{"role":"assistant","content":"","tool_calls":[{"id":"c1","type":"function","function":{"name":"apply_patch","arguments":"*** Begin Patch"}}]}`,
			Turn{Role: Assistant, Source: "assistant", Parts: []Part{{Kind: ToolCall, CallID: "c1", Name: "apply_patch", Args: `{"input":"*** Begin Patch"}`}}}},
		{"a tool message is a result for its tool_call_id",
			`{"role":"tool","tool_call_id":"c1","content":"42"}`,
			Turn{Role: Tool, Source: "tool", Parts: []Part{{Kind: ToolResult, CallID: "c1", Text: "42"}}}},
		{"a tool message with text parts is a result of their text",
			`{"role":"tool","tool_call_id":"c1","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}`,
			Turn{Role: Tool, Source: "tool", Parts: []Part{{Kind: ToolResult, CallID: "c1", Text: "a\nb"}}}},
		{"the legacy function_call pairs with the function message by name",
			`{"role":"assistant","content":null,"function_call":{"name":"f","arguments":"{}"}}`,
			Turn{Role: Assistant, Source: "assistant", Parts: []Part{{Kind: ToolCall, CallID: "function:f", Name: "f", Args: "{}"}}}},
		{"the legacy function message is its result",
			`{"role":"function","name":"f","content":"ok"}`,
			Turn{Role: Tool, Source: "function", Parts: []Part{{Kind: ToolResult, CallID: "function:f", Name: "f", Text: "ok"}}}},
		{"a refusal is text",
			`{"role":"assistant","content":null,"refusal":"I can't."}`,
			Turn{Role: Assistant, Source: "assistant", Parts: []Part{{Kind: Text, Text: "I can't."}}}},
		{"an unknown part is kept raw",
			`{"role":"user","content":[{"type":"input_audio","input_audio":{"data":"x","format":"wav"}}]}`,
			Turn{Role: User, Source: "user", Parts: []Part{{Kind: Other, Raw: []byte(`{"type":"input_audio","input_audio":{"data":"x","format":"wav"}}`)}}}},
	})
}

func TestReadOpenAIResponses(t *testing.T) {
	runReadCases(t, []readCase{
		{"a message item's input_text and output_text are text",
			`{"type":"message","role":"user","content":[{"type":"input_text","text":"q"},{"type":"input_image","image_url":"data:image/png;base64,AA"}]}`,
			Turn{Role: User, Source: "user", Parts: []Part{{Kind: Text, Text: "q"}, {Kind: Image, URL: "data:image/png;base64,AA"}}}},
		{"a function_call item stored with a role is a call",
			`{"role":"assistant","type":"function_call","call_id":"c9","name":"g","arguments":"{}"}`,
			Turn{Role: Assistant, Source: "assistant", Parts: []Part{{Kind: ToolCall, CallID: "c9", Name: "g", Args: "{}"}}}},
		{"a function_call_output item is a result",
			`{"role":"tool","type":"function_call_output","call_id":"c9","output":"done"}`,
			Turn{Role: Tool, Source: "tool", Parts: []Part{{Kind: ToolResult, CallID: "c9", Text: "done"}}}},
		{"a reasoning item is thinking with its encrypted content as signature",
			`{"role":"assistant","type":"reasoning","summary":[{"type":"summary_text","text":"hmm"}],"encrypted_content":"gAAA"}`,
			Turn{Role: Assistant, Source: "assistant", Parts: []Part{{Kind: Thinking, Text: "hmm", Signature: "gAAA"}}}},
	})
}

func TestReadAnthropicAndClaudeCode(t *testing.T) {
	runReadCases(t, []readCase{
		{"thinking keeps its signature, then text and tool_use in order",
			`{"role":"assistant","model":"claude-x","content":[{"type":"thinking","thinking":"t","signature":"S"},{"type":"text","text":"a"},{"type":"tool_use","id":"tu1","name":"Read","input":{"p":1}}]}`,
			Turn{Role: Assistant, Source: "assistant", Model: "claude-x", Parts: []Part{{Kind: Thinking, Text: "t", Signature: "S"}, {Kind: Text, Text: "a"}, {Kind: ToolCall, CallID: "tu1", Name: "Read", Args: `{"p":1}`}}}},
		{"redacted_thinking is thinking kept raw",
			`{"role":"assistant","content":[{"type":"redacted_thinking","data":"ENC"}]}`,
			Turn{Role: Assistant, Source: "assistant", Parts: []Part{{Kind: Thinking, Signature: "ENC", Raw: []byte(`{"type":"redacted_thinking","data":"ENC"}`)}}}},
		{"tool_result blocks in a user message are results, is_error kept",
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"tu1","content":"boom","is_error":true}]}`,
			Turn{Role: User, Source: "user", Parts: []Part{{Kind: ToolResult, CallID: "tu1", Text: "boom", IsError: true}}}},
		{"a tool_result with an image keeps its blocks raw",
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"tu1","content":[{"type":"text","text":"see"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AA"}}]}]}`,
			Turn{Role: User, Source: "user", Parts: []Part{{Kind: ToolResult, CallID: "tu1", Text: "see", Raw: []byte(`[{"type":"text","text":"see"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AA"}}]`)}}}},
		{"an image block is an image with a data URL",
			`{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AA"}}]}`,
			Turn{Role: User, Source: "user", Parts: []Part{{Kind: Image, URL: "data:image/png;base64,AA"}}}},
		{"a Claude Code line's message reads as Anthropic, its time from the line",
			`{"role":"user","content":[{"type":"text","text":"hi"}],"claudecode":{"type":"user","message":0,"uuid":"u1","timestamp":"2025-06-14T10:00:00.5Z"}}`,
			Turn{Role: User, Source: "user", TimeMs: 1749895200500, Parts: []Part{{Kind: Text, Text: "hi"}}}},
		{"a Claude Code system line is meta: never sent to a model",
			`{"role":"system","content":"Conversation compacted","claudecode":{"type":"system","subtype":"compact_boundary","uuid":"s1"}}`,
			Turn{Role: System, Source: "system", Meta: true, Parts: []Part{{Kind: Text, Text: "Conversation compacted"}}}},
		{"a string element of content is text",
			`{"role":"user","content":["wow"]}`,
			Turn{Role: User, Source: "user", Parts: []Part{{Kind: Text, Text: "wow"}}}},
	})
}

func TestReadPi(t *testing.T) {
	runReadCases(t, []readCase{
		{"toolCall and thinking with thinkingSignature",
			`{"role":"assistant","content":[{"type":"thinking","thinking":"t","thinkingSignature":"S"},{"type":"toolCall","id":"tc1","name":"bash","arguments":{"command":"ls"}}],"model":"m","timestamp":1765240959592}`,
			Turn{Role: Assistant, Source: "assistant", Model: "m", TimeMs: 1765240959592, Parts: []Part{{Kind: Thinking, Text: "t", Signature: "S"}, {Kind: ToolCall, CallID: "tc1", Name: "bash", Args: `{"command":"ls"}`}}}},
		{"toolResult is a tool turn with toolCallId, toolName and isError",
			`{"role":"toolResult","toolCallId":"tc1","toolName":"bash","content":[{"type":"text","text":"a.go"}],"isError":true}`,
			Turn{Role: Tool, Source: "toolResult", Parts: []Part{{Kind: ToolResult, CallID: "tc1", Name: "bash", Text: "a.go", IsError: true}}}},
		{"bashExecution is the user text pi sends the model",
			`{"role":"bashExecution","command":"ls","output":"x","exitCode":2,"cancelled":false,"truncated":false}`,
			Turn{Role: User, Source: "bashExecution", Parts: []Part{{Kind: Text, Text: "Ran `ls`\n```\nx\n```\n\nCommand exited with code 2"}}}},
		{"bashExecution excluded from context is meta",
			`{"role":"bashExecution","command":"ls","output":"","exitCode":0,"excludeFromContext":true}`,
			Turn{Role: User, Source: "bashExecution", Meta: true, Parts: []Part{{Kind: Text, Text: "Ran `ls`\n(no output)"}}}},
		{"a compaction entry is the summary text pi sends",
			`{"role":"user","content":"S","pi":{"type":"compaction","summary":"S","id":"c"}}`,
			Turn{Role: User, Source: "compactionSummary", Parts: []Part{{Kind: Text, Text: piCompactionPrefix + "S" + piCompactionSuffix}}}},
		{"a branch_summary entry is the summary text pi sends",
			`{"role":"user","content":"S","pi":{"type":"branch_summary","summary":"S","id":"c"}}`,
			Turn{Role: User, Source: "branchSummary", Parts: []Part{{Kind: Text, Text: piBranchPrefix + "S" + piBranchSuffix}}}},
		{"an image block with data and mimeType",
			`{"role":"user","content":[{"type":"image","data":"AA","mimeType":"image/png"}]}`,
			Turn{Role: User, Source: "user", Parts: []Part{{Kind: Image, URL: "data:image/png;base64,AA"}}}},
	})
}

func TestReadCodex(t *testing.T) {
	runReadCases(t, []readCase{
		{"a response_item message with input_text",
			`{"type":"message","role":"developer","content":[{"type":"input_text","text":"rules"}],"codex":{"type":"response_item","payload":0}}`,
			Turn{Role: System, Source: "developer", Parts: []Part{{Kind: Text, Text: "rules"}}}},
		{"a function_call imported as tool_calls",
			`{"role":"assistant","content":"","tool_calls":[{"id":"call_1","type":"function","function":{"name":"exec_command","arguments":"{\"cmd\":\"ls\"}"}}],"codex":{"type":"response_item","payload":{"type":"function_call"}}}`,
			Turn{Role: Assistant, Source: "assistant", Parts: []Part{{Kind: ToolCall, CallID: "call_1", Name: "exec_command", Args: `{"cmd":"ls"}`}}}},
		{"a function_call_output imported as a tool message",
			`{"role":"tool","tool_call_id":"call_1","content":"out","codex":{"type":"response_item"}}`,
			Turn{Role: Tool, Source: "tool", Parts: []Part{{Kind: ToolResult, CallID: "call_1", Text: "out"}}}},
	})
}

func chatgptEntry(id, parent, author, name, recipient, content, metadata string) string {
	return `{"role":"` + author + `","content":"","chatgpt":{"id":"` + id + `","parent":"` + parent + `","message":{"id":"` + id +
		`","author":{"role":"` + author + `","name":` + name + `},"create_time":1704067200.5,"content":` + content +
		`,"metadata":` + metadata + `,"recipient":"` + recipient + `"}}}`
}

func TestReadChatGPT(t *testing.T) {
	const at = 1704067200500
	runReadCases(t, []readCase{
		{"text parts, the model from metadata.model_slug, the time from create_time",
			chatgptEntry("a", "u", "assistant", "null", "all", `{"content_type":"text","parts":["hello"]}`, `{"model_slug":"gpt-4"}`),
			Turn{Role: Assistant, Source: "assistant", Model: "gpt-4", TimeMs: at, Parts: []Part{{Kind: Text, Text: "hello"}}}},
		{"the empty system root is hidden",
			chatgptEntry("s", "", "system", "null", "all", `{"content_type":"text","parts":[""]}`, `{"is_visually_hidden_from_conversation":true}`),
			Turn{Role: System, Source: "system", Hidden: true, TimeMs: at}},
		{"code to python is a call named for its recipient",
			chatgptEntry("c", "u", "assistant", "null", "python", `{"content_type":"code","language":"unknown","text":"1+1"}`, `{}`),
			Turn{Role: Assistant, Source: "assistant", TimeMs: at, Parts: []Part{{Kind: ToolCall, CallID: "c", Name: "python", Args: `{"code":"1+1"}`}}}},
		{"execution_output is the result of the call it answers (its parent)",
			chatgptEntry("r", "c", "tool", `"python"`, "all", `{"content_type":"execution_output","text":"2"}`, `{}`),
			Turn{Role: Tool, Source: "tool", TimeMs: at, Parts: []Part{{Kind: ToolResult, CallID: "c", Name: "python", Text: "2"}}}},
		{"tether_browsing_display is a browser result",
			chatgptEntry("b", "q", "tool", `"browser"`, "all", `{"content_type":"tether_browsing_display","result":"# page","summary":null}`, `{}`),
			Turn{Role: Tool, Source: "tool", TimeMs: at, Parts: []Part{{Kind: ToolResult, CallID: "q", Name: "browser", Text: "# page"}}}},
		{"thoughts are thinking",
			chatgptEntry("th", "u", "assistant", "null", "all", `{"content_type":"thoughts","thoughts":[{"summary":"Plan","content":"step"}]}`, `{}`),
			Turn{Role: Assistant, Source: "assistant", TimeMs: at, Parts: []Part{{Kind: Thinking, Text: "Plan\n\nstep"}}}},
		{"custom instructions are hidden system text",
			chatgptEntry("ctx", "", "user", "null", "all", `{"content_type":"user_editable_context","user_profile":"SRE","user_instructions":"Be brief"}`, `{"is_visually_hidden_from_conversation":true}`),
			Turn{Role: System, Source: "user", Hidden: true, TimeMs: at, Parts: []Part{{Kind: Text, Text: "SRE\n\nBe brief"}}}},
		{"multimodal_text: text and image pointers",
			chatgptEntry("m", "", "user", "null", "all", `{"content_type":"multimodal_text","parts":[{"content_type":"image_asset_pointer","asset_pointer":"file-service://f"},"what is it?"]}`, `{}`),
			Turn{Role: User, Source: "user", TimeMs: at, Parts: []Part{{Kind: Image, Raw: []byte(`{"content_type":"image_asset_pointer","asset_pointer":"file-service://f"}`)}, {Kind: Text, Text: "what is it?"}}}},
	})
}

func TestReadOpenWebUIAndLibreChat(t *testing.T) {
	runReadCases(t, []readCase{
		{"Open WebUI's output items say more than its content",
			`{"role":"assistant","content":"ignored","timestamp":1700000007,"output":[{"type":"reasoning","content":[{"type":"output_text","text":"r"}]},{"type":"function_call","call_id":"k","name":"w","arguments":"{}"},{"type":"function_call_output","call_id":"k","output":[{"type":"input_text","text":"18C"}]},{"type":"message","role":"assistant","content":[{"type":"output_text","text":"warm"}]}]}`,
			Turn{Role: Assistant, Source: "assistant", TimeMs: 1700000007000, Parts: []Part{{Kind: Thinking, Text: "r"}, {Kind: ToolCall, CallID: "k", Name: "w", Args: "{}"}, {Kind: ToolResult, CallID: "k", Text: "18C"}, {Kind: Text, Text: "warm"}}}},
		{"Open WebUI's reasoning details in content are thinking",
			`{"role":"assistant","content":"<details type=\"reasoning\" done=\"true\" duration=\"1\">\n<summary>Thought for 1 seconds</summary>\n&gt; a &amp; b\n&gt; c\n</details>\nHello!"}`,
			Turn{Role: Assistant, Source: "assistant", Parts: []Part{{Kind: Thinking, Text: "a & b\nc"}, {Kind: Text, Text: "Hello!"}}}},
		{"Open WebUI's tool_calls details are a call and its result",
			`{"role":"assistant","content":"<details type=\"tool_calls\" done=\"true\" id=\"t1\" name=\"w\" arguments=\"&quot;{\\&quot;c\\&quot;:1}&quot;\" result=\"&quot;sunny&quot;\">\n<summary>Tool Executed</summary>\n</details>\nDone."}`,
			Turn{Role: Assistant, Source: "assistant", Parts: []Part{{Kind: ToolCall, CallID: "t1", Name: "w", Args: `{"c":1}`}, {Kind: ToolResult, CallID: "t1", Name: "w", Text: "sunny"}, {Kind: Text, Text: "Done."}}}},
		{"LibreChat agent content: think, tool_call with output, text",
			`{"role":"assistant","content":"x","librechat":{"sender":"GPT","model":"gpt-4o","content":[{"type":"think","think":"hm"},{"type":"tool_call","tool_call":{"id":"t","name":"s","args":"{\"q\":1}","output":"res"}},{"type":"text","text":"ok"}]}}`,
			Turn{Role: Assistant, Source: "assistant", Model: "gpt-4o", Parts: []Part{{Kind: Thinking, Text: "hm"}, {Kind: ToolCall, CallID: "t", Name: "s", Args: `{"q":1}`}, {Kind: ToolResult, CallID: "t", Name: "s", Text: "res"}, {Kind: Text, Text: "ok"}}}},
		{"a text's spaces and newlines at its ends are its own (trimmed only beside a details block)",
			`{"role":"user","content":"  two spaces both ends  \n"}`,
			Turn{Role: User, Source: "user", Parts: []Part{{Kind: Text, Text: "  two spaces both ends  \n"}}}},
		{"an assistant text naming a details block it does not hold is kept whole",
			`{"role":"assistant","content":"\n<details type=\"reasoning\"> never closed\n"}`,
			Turn{Role: Assistant, Source: "assistant", Parts: []Part{{Kind: Text, Text: "\n<details type=\"reasoning\"> never closed\n"}}}},
		{"a LibreChat message without content parts is its text",
			`{"role":"user","content":"hi","librechat":{"sender":"User","text":"hi"}}`,
			Turn{Role: User, Source: "user", Parts: []Part{{Kind: Text, Text: "hi"}}}},
	})
}

func TestReadTimes(t *testing.T) {
	for in, want := range map[string]int64{
		"1970-01-01T00:00:00Z":     0,
		"2025-06-14T10:00:00.5Z":   1749895200500,
		"2024-02-29T23:59:59.123Z": 1709251199123,
		"2024-02-29 23:59:59Z":     0,
		"nonsense":                 0,
	} {
		if got := isoMillis(in); got != want {
			t.Errorf("isoMillis(%q) = %d, want %d", in, got, want)
		}
	}
}

func TestTurnText(t *testing.T) {
	tu := Turn{Parts: []Part{{Kind: Text, Text: "a"}, {Kind: Thinking, Text: "x"}, {Kind: Text, Text: "b"}}}
	if got := tu.Text(); got != "a\n\nb" {
		t.Fatalf("Text() = %q", got)
	}
}

// A message of many parts reads in time and memory in proportion to its size:
// the text of a tool result, of a turn, of a reasoning item and of a ChatGPT
// message are joined in one buffer. Before Dec 5 each part's text was added
// to a string that copied all of itself: a 420 KB tool result of 10,000 text
// parts took 3.6 s to read, 3.4 MB 88 s (a hostile message, or a long log
// cut into parts, held the tab or the worker).
func TestAMessageOfManyPartsReadsInLinearTime(t *testing.T) {
	const n = 4000
	parts := strings.Repeat(`{"type":"text","text":"xxxxxxxxxxxxxxxx"},`, n)
	parts = "[" + parts[:len(parts)-1] + "]"
	strs := strings.Repeat(`"xxxxxxxxxxxxxxxx",`, n)
	strs = "[" + strs[:len(strs)-1] + "]"
	for _, m := range []string{
		`{"role":"tool","tool_call_id":"c","content":` + parts + `}`,
		`{"role":"assistant","content":` + parts + `}`,
		`{"role":"assistant","type":"reasoning","summary":` + strings.ReplaceAll(parts, `"type":"text"`, `"type":"summary_text"`) + `}`,
		`{"role":"user","content":"","chatgpt":{"message":{"author":{"role":"user"},"content":{"content_type":"text","parts":` + strs + `}}}}`,
	} {
		msg := mustMessage(t, m)
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		tu := Read(msg)
		text := tu.Text()
		runtime.ReadMemStats(&m1)
		if got := len(text) + len(tu.Parts[0].Text); got < 16*n {
			t.Fatalf("%.60s…: read %d bytes of text, want all of it", m, got)
		}
		if alloc := m1.TotalAlloc - m0.TotalAlloc; alloc > 64*uint64(len(m)) {
			t.Errorf("%.60s…: allocated %d bytes to read %d: more than 64 times its size", m, alloc, len(m))
		}
	}
}
