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
			Turn{Role: Assistant, Source: "assistant", Parts: []Part{{Kind: ToolCall, CallID: "c1", Name: "weather", Args: `{"city":"Oslo"}`}, {Kind: ToolResult, CallID: "c1", Name: "weather", Text: `{"t":3}`}}}},
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
