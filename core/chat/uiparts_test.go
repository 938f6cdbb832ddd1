package chat

import (
	"strings"
	"testing"

	"github.com/sessiontree/sessiontree/core"
)

func TestReadAISDKUIMessageParts(t *testing.T) {
	runReadCases(t, []readCase{
		{"a UIMessage's text and reasoning parts are text and thinking",
			`{"role":"assistant","parts":[{"type":"step-start"},{"type":"reasoning","text":"hmm","state":"done"},{"type":"text","text":"hi","state":"done"}]}`,
			Turn{Role: Assistant, Source: "assistant", Parts: []Part{{Kind: Thinking, Text: "hmm"}, {Kind: Text, Text: "hi"}}}},
		{"a reasoning part's Anthropic signature is its signature, its redacted data a redacted_thinking block",
			`{"role":"assistant","parts":[{"type":"reasoning","text":"hmm","state":"done","providerMetadata":{"anthropic":{"signature":"EqSIG"}}},{"type":"reasoning","text":"","providerMetadata":{"anthropic":{"redactedData":"EqRED"}}}]}`,
			Turn{Role: Assistant, Source: "assistant", Parts: []Part{{Kind: Thinking, Text: "hmm", Signature: "EqSIG"}, {Kind: Thinking, Signature: "EqRED", Raw: []byte(`{"type":"redacted_thinking","data":"EqRED"}`)}}}},
		{"a tool part with its output is a call and its result",
			`{"role":"assistant","parts":[{"type":"tool-weather","toolCallId":"c1","state":"output-available","input":{"city":"Oslo"},"output":{"t":3}}]}`,
			Turn{Role: Assistant, Source: "assistant", Parts: []Part{{Kind: ToolCall, CallID: "c1", Name: "weather", Args: `{"city":"Oslo"}`}, {Kind: ToolResult, CallID: "c1", Name: "weather", Text: `{"t":3}`, Output: []byte(`{"t":3}`)}}}},
		{"a dynamic tool names its tool; an error is an error result",
			`{"role":"assistant","parts":[{"type":"dynamic-tool","toolName":"f","toolCallId":"c2","state":"output-error","input":{},"errorText":"boom"}]}`,
			Turn{Role: Assistant, Source: "assistant", Parts: []Part{{Kind: ToolCall, CallID: "c2", Name: "f", Args: `{}`}, {Kind: ToolResult, CallID: "c2", Name: "f", Text: "boom", IsError: true}}}},
		{"a call still waiting for its tool is a call alone",
			`{"role":"assistant","parts":[{"type":"tool-f","toolCallId":"c3","state":"input-available","input":{"a":1}}]}`,
			Turn{Role: Assistant, Source: "assistant", Parts: []Part{{Kind: ToolCall, CallID: "c3", Name: "f", Args: `{"a":1}`}}}},
		{"an image file is an image, another file is kept as it was",
			`{"role":"user","parts":[{"type":"file","mediaType":"image/png","url":"data:image/png;base64,AA=="},{"type":"file","mediaType":"application/pdf","url":"https://x/a.pdf"}]}`,
			Turn{Role: User, Source: "user", Parts: []Part{{Kind: Image, URL: "data:image/png;base64,AA=="}, {Kind: Other, Raw: []byte(`{"type":"file","mediaType":"application/pdf","url":"https://x/a.pdf"}`)}}}},
	})
}

func TestAUIMessageHasItsTextForSearch(t *testing.T) {
	m := core.Message(`{"role":"user","parts":[{"type":"text","text":"find me"},{"type":"file","mediaType":"image/png","url":"u"}]}`)
	if got := m.Text(); got != "find me [file]" {
		t.Fatalf("Text() = %q", got)
	}
}

func TestReadAssistantUIThreadMessageParts(t *testing.T) {
	runReadCases(t, []readCase{
		{"a ThreadMessage's reasoning part is thinking",
			`{"role":"assistant","content":[{"type":"reasoning","text":"hmm"},{"type":"text","text":"hi"}],"status":{"type":"complete","reason":"stop"}}`,
			Turn{Role: Assistant, Source: "assistant", Parts: []Part{{Kind: Thinking, Text: "hmm"}, {Kind: Text, Text: "hi"}}}},
		{"a reasoning part's providerMetadata is read as an AI SDK reasoning part's: Anthropic's signature is its signature",
			`{"role":"assistant","content":[{"type":"reasoning","text":"hmm","providerMetadata":{"anthropic":{"signature":"EqSIG"}}}]}`,
			Turn{Role: Assistant, Source: "assistant", Parts: []Part{{Kind: Thinking, Text: "hmm", Signature: "EqSIG"}}}},
		{"a tool-call part with its result is a call and its result",
			`{"role":"assistant","content":[{"type":"tool-call","toolCallId":"c1","toolName":"weather","args":{"city":"Oslo"},"argsText":"{\"city\":\"Oslo\"}","result":{"t":3}}]}`,
			Turn{Role: Assistant, Source: "assistant", Parts: []Part{{Kind: ToolCall, CallID: "c1", Name: "weather", Args: `{"city":"Oslo"}`}, {Kind: ToolResult, CallID: "c1", Name: "weather", Text: `{"t":3}`}}}},
		{"a string result is its text; isError marks an error result",
			`{"role":"assistant","content":[{"type":"tool-call","toolCallId":"c2","toolName":"f","args":{},"argsText":"{}","result":"boom","isError":true}]}`,
			Turn{Role: Assistant, Source: "assistant", Parts: []Part{{Kind: ToolCall, CallID: "c2", Name: "f", Args: `{}`}, {Kind: ToolResult, CallID: "c2", Name: "f", Text: "boom", IsError: true}}}},
		{"a call without a result is a call alone; without args, argsText is read",
			`{"role":"assistant","content":[{"type":"tool-call","toolCallId":"c3","toolName":"f","argsText":"{\"a\":1}"}]}`,
			Turn{Role: Assistant, Source: "assistant", Parts: []Part{{Kind: ToolCall, CallID: "c3", Name: "f", Args: `{"a":1}`}}}},
		{"an image part is an image",
			`{"role":"user","content":[{"type":"image","image":"data:image/png;base64,AA=="},{"type":"text","text":"what is it?"}]}`,
			Turn{Role: User, Source: "user", Parts: []Part{{Kind: Image, URL: "data:image/png;base64,AA=="}, {Kind: Text, Text: "what is it?"}}}},
	})
}

func TestAThreadMessageHasItsTextForSearch(t *testing.T) {
	m := core.Message(`{"role":"assistant","content":[{"type":"reasoning","text":"think"},{"type":"text","text":"find me"}]}`)
	if got := m.Text(); !strings.Contains(got, "find me") {
		t.Fatalf("Text() = %q", got)
	}
}

// The AI SDK's ModelMessages (what generateText and streamText answer in
// response.messages, and what an app that stores them keeps): a tool-call
// part's arguments are "input" (v5; "args" before), and a tool message holds
// tool-result parts, each naming its call, with "output" (v5: {type, value})
// or "result" (before). Before Dec 5 a call's input read as {} and a result
// answered no call, with no text: a request from the tree sent the model an
// empty call and a result it could not pair.
func TestReadAISDKModelMessages(t *testing.T) {
	runReadCases(t, []readCase{
		{"a tool-call part's input is its arguments",
			`{"role":"assistant","content":[{"type":"text","text":"let me see"},{"type":"tool-call","toolCallId":"c1","toolName":"weather","input":{"city":"Oslo"}}]}`,
			Turn{Role: Assistant, Source: "assistant", Parts: []Part{{Kind: Text, Text: "let me see"}, {Kind: ToolCall, CallID: "c1", Name: "weather", Args: `{"city":"Oslo"}`}}}},
		{"each tool-result part is a result of its own call",
			`{"role":"tool","content":[{"type":"tool-result","toolCallId":"c1","toolName":"weather","output":{"type":"json","value":{"t":3}}},{"type":"tool-result","toolCallId":"c2","toolName":"f","output":{"type":"text","value":"ok"}}]}`,
			Turn{Role: Tool, Source: "tool", Parts: []Part{{Kind: ToolResult, CallID: "c1", Name: "weather", Text: `{"t":3}`}, {Kind: ToolResult, CallID: "c2", Name: "f", Text: "ok"}}}},
		{"an error output is an error result",
			`{"role":"tool","content":[{"type":"tool-result","toolCallId":"c1","toolName":"f","output":{"type":"error-text","value":"boom"}},{"type":"tool-result","toolCallId":"c2","toolName":"f","output":{"type":"error-json","value":{"e":1}}}]}`,
			Turn{Role: Tool, Source: "tool", Parts: []Part{{Kind: ToolResult, CallID: "c1", Name: "f", Text: "boom", IsError: true}, {Kind: ToolResult, CallID: "c2", Name: "f", Text: `{"e":1}`, IsError: true}}}},
		{"a content output is its text, and its parts when some are not text",
			`{"role":"tool","content":[{"type":"tool-result","toolCallId":"c1","toolName":"shot","output":{"type":"content","value":[{"type":"text","text":"here"},{"type":"media","data":"AA==","mediaType":"image/png"}]}}]}`,
			Turn{Role: Tool, Source: "tool", Parts: []Part{{Kind: ToolResult, CallID: "c1", Name: "shot", Text: "here", Raw: []byte(`[{"type":"text","text":"here"},{"type":"media","data":"AA==","mediaType":"image/png"}]`)}}}},
		{"a result before v5 is its text or JSON; isError marks an error",
			`{"role":"tool","content":[{"type":"tool-result","toolCallId":"c1","toolName":"f","result":"sunny"},{"type":"tool-result","toolCallId":"c2","toolName":"f","result":{"t":3},"isError":true}]}`,
			Turn{Role: Tool, Source: "tool", Parts: []Part{{Kind: ToolResult, CallID: "c1", Name: "f", Text: "sunny"}, {Kind: ToolResult, CallID: "c2", Name: "f", Text: `{"t":3}`, IsError: true}}}},
	})
}

// The AI SDK's ModelMessage keeps an image as an image part of base64 data
// or a URL ("image", "mediaType"), or as a file part of an image type
// ("data", "mediaType": what convertToModelMessages makes of a UIMessage's
// file). Before Dec 5 the file part was left Other (the image never reached
// the model) and the base64 data was taken for a URL.
func TestReadAISDKModelMessageImages(t *testing.T) {
	runReadCases(t, []readCase{
		{"base64 data of a known type is a data URL",
			`{"role":"user","content":[{"type":"image","image":"iVBORw0K","mediaType":"image/png"},{"type":"image","image":"https://x/y.png"}]}`,
			Turn{Role: User, Source: "user", Parts: []Part{{Kind: Image, URL: "data:image/png;base64,iVBORw0K"}, {Kind: Image, URL: "https://x/y.png"}}}},
		{"an image file is an image; another file is kept as it was",
			`{"role":"user","content":[{"type":"file","mediaType":"image/jpeg","data":"data:image/jpeg;base64,/9j/"},{"type":"file","mediaType":"image/png","data":"iVBORw0K","filename":"a.png"},{"type":"file","mediaType":"application/pdf","data":"JVBE"}]}`,
			Turn{Role: User, Source: "user", Parts: []Part{{Kind: Image, URL: "data:image/jpeg;base64,/9j/"}, {Kind: Image, URL: "data:image/png;base64,iVBORw0K"}, {Kind: Other, Raw: []byte(`{"type":"file","mediaType":"application/pdf","data":"JVBE"}`)}}}},
	})
}
