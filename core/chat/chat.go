// Package chat is the neutral form of a chat message that every format and
// every provider converts through: a Turn of a role and ordered Parts (text,
// thinking, a tool call, a tool's result, an image, or a part no other shape
// has). Read recognizes the message shapes sessiontree imports and stores
// (OpenAI Chat Completions and Responses items, Anthropic content blocks, the
// messages of Claude Code, pi, Codex, ChatGPT, Open WebUI and LibreChat
// records, the AI SDK's UIMessages and ModelMessages, assistant-ui's
// ThreadMessages, and plain {"role","content"}); the writers of each format
// (core/formats/...) and each provider request (core/provider) write a Turn in
// their own shape, so that a conversation imported from one tool is exported
// to another in that tool's native form, never as placeholder text.
//
// It is pure Go over core/rawjson: no reflection, no encoding/json.
package chat

import "github.com/sessiontree/sessiontree/core"

// Role is who speaks a turn, in the four words every provider understands.
type Role string

// The roles of a Turn. Read maps a shape's own words (developer, human, model,
// toolResult, function, ...) onto these; the original word stays in Turn.Source.
const (
	System    Role = "system"
	User      Role = "user"
	Assistant Role = "assistant"
	Tool      Role = "tool"
)

// Kind is what a Part holds.
type Kind uint8

// The kinds of a Part.
const (
	Text       Kind = iota + 1 // Text
	Thinking                   // Text is the model's reasoning; Signature may hold a provider's opaque token (Anthropic's signature, a Responses reasoning item's encrypted_content); Raw holds a redacted_thinking block or a reasoning item as it was
	ToolCall                   // CallID, Name, Args (the arguments' JSON text, always valid JSON: "{}" when none, {"input":text} for free-form input)
	ToolResult                 // CallID, Text (and Raw: the result's parts when some are not text), IsError
	Image                      // URL (an http(s) or data: URL), or Raw: the part as it was
	Other                      // Raw: a part of a shape no other kind covers, kept as it was
)

// Part is one piece of a Turn, in the order the message holds them.
type Part struct {
	Kind      Kind
	Text      string // Text, Thinking, ToolResult
	CallID    string // ToolCall, ToolResult: pairs a call with its result
	Name      string // ToolCall: the tool's name; ToolResult: the tool's name when the shape has it
	Args      string // ToolCall: the arguments as JSON text
	IsError   bool   // ToolResult: the tool failed
	Signature string // Thinking: an opaque signature a provider needs to accept it back
	URL       string // Image
	Raw       []byte // Other (and Image or ToolResult content that is not plain): the part's JSON, compact
	// Output is a UIMessage tool part's output as it was (a JSON value: 3,
	// an object), for the formats whose result is any value (assistant-ui's
	// "result"); Text holds it as text for the rest.
	Output []byte
}

// Turn is one message in neutral form.
type Turn struct {
	Role   Role
	Parts  []Part
	Source string // the role word as the message had it ("developer", "toolResult", ...)
	Hidden bool   // a message its tool does not show: ChatGPT's hidden nodes (the empty system root; custom instructions, which are sent), an empty system message
	Meta   bool   // added: the tool's own note, never sent to a model (a Claude Code system or progress line, a pi bash run excluded from context)
	Model  string // the model that wrote an assistant turn, when the message says
	TimeMs int64  // the message's own time, when it has one (0: none)
}

// Read returns the neutral form of m, whatever shape of §7's formats or of a
// provider it has. It never fails on a message core accepts: what it cannot
// place becomes an Other part holding the JSON as it was.
//
// The turn keeps the message's own role: an Anthropic (or Claude Code) user
// message of tool_result blocks is a User turn of ToolResult parts, a pi
// toolResult or a Chat Completions tool message a Tool turn, and an Open WebUI
// or LibreChat reply may hold a call and its result in one Assistant turn; a
// writer places each part by its Kind. Where a format keeps a richer record
// than the message's content (ChatGPT's content types, LibreChat's content
// parts, Open WebUI's output items), Read reads the record. What a tool sends
// the model in place of its own record is what Read returns (pi's bash runs
// and summaries as the user text pi sends).
func Read(m core.Message) Turn {
	return read(m)
}

// Text returns the turn's text parts joined by a blank line: what a format
// with only a text field shows.
func (t Turn) Text() string {
	var out []byte
	for _, p := range t.Parts {
		if p.Kind == Text && p.Text != "" {
			out = joinTo(out, "\n\n", p.Text)
		}
	}
	return string(out)
}
