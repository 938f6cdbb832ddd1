package formats

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strconv"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/formats/aisdk"
	"github.com/sessiontree/sessiontree/core/formats/assistantui"
	"github.com/sessiontree/sessiontree/core/formats/chatgpt"
	"github.com/sessiontree/sessiontree/core/formats/claudeai"
	"github.com/sessiontree/sessiontree/core/formats/claudecode"
	"github.com/sessiontree/sessiontree/core/formats/codex"
	"github.com/sessiontree/sessiontree/core/formats/internal/convert"
	"github.com/sessiontree/sessiontree/core/formats/librechat"
	"github.com/sessiontree/sessiontree/core/formats/markdown"
	"github.com/sessiontree/sessiontree/core/formats/openai"
	"github.com/sessiontree/sessiontree/core/formats/openwebui"
	"github.com/sessiontree/sessiontree/core/formats/pi"
	"github.com/sessiontree/sessiontree/core/formats/sillytavern"
	"github.com/sessiontree/sessiontree/core/rawjson"
)

// Report is what an import found: counts, what the format could not carry,
// and every record it could not read with its line number or id.
type Report = convert.Report

// Problem is one record an import could not read as written.
type Problem = convert.Problem

// Format names, as every API spells them.
const (
	ChatGPT     = "chatgpt"
	OpenWebUI   = "openwebui"
	LibreChat   = "librechat"
	ClaudeCode  = "claudecode"
	Pi          = "pi"
	Codex       = "codex"
	ClaudeAI    = "claudeai"
	SillyTavern = "sillytavern"
	OpenAI      = "openai"
	Markdown    = "markdown"
	AISDK       = "ai-sdk"
	AssistantUI = "assistant-ui"
	Auto        = "auto"
)

// Names lists the formats in the order of the specification.
var Names = []string{ChatGPT, OpenWebUI, LibreChat, ClaudeCode, Pi, Codex, ClaudeAI, SillyTavern, OpenAI, Markdown, AISDK, AssistantUI}

type importer func([]byte, ...core.Option) (*core.Tree, convert.Report, error)

var importers = map[string]importer{
	ChatGPT: chatgpt.Import, OpenWebUI: openwebui.Import, LibreChat: librechat.Import,
	ClaudeCode: claudecode.Import, Pi: pi.Import, Codex: codex.Import, OpenAI: openai.Import,
	ClaudeAI: claudeai.Import, SillyTavern: sillytavern.Import,
	AISDK: aisdk.Import, AssistantUI: assistantui.Import,
}

var exporters = map[string]func(*core.Tree) ([]byte, error){
	ChatGPT: chatgpt.Export, OpenWebUI: openwebui.Export, LibreChat: librechat.Export,
	ClaudeCode: claudecode.Export, Pi: pi.Export, Codex: codex.Export, OpenAI: openai.Export,
	Markdown: markdown.Export, ClaudeAI: claudeai.Export, SillyTavern: sillytavern.Export,
	AISDK: aisdk.Export, AssistantUI: assistantui.Export,
}

// Import reads data in format ("auto" detects it). Failures are *core.Error:
// invalid_input for an unknown format or a file that cannot be read at all.
// A file read in part gives a tree and a Report listing what was not read.
func Import(format string, data []byte, opts ...core.Option) (*core.Tree, Report, error) {
	data, bom := dropBOM(data)
	if format == Auto || format == "" {
		format = Detect(data)
		if format == "" {
			return nil, Report{}, unknownInput(data)
		}
	}
	imp := importers[format]
	if imp == nil {
		if format == Markdown {
			return nil, Report{}, convert.Invalid("markdown can be exported but not imported")
		}
		return nil, Report{}, convert.Invalid("unknown format " + quote(format) + ": one of " + joined())
	}
	// A file read whole (not JSONL: its lines are taken one by one, as
	// convert.EachLine reads them) means what JSON.parse reads in it.
	var keys Report
	data = keys.KeepLastKeys(0, data)
	t, rep, err := imp(data, opts...)
	rep.Format = format
	rep.Problems = append(keys.Problems, rep.Problems...)
	if bom && err == nil {
		rep.Note("the file starts with a UTF-8 byte order mark (as Windows editors save): read without it")
	}
	return t, rep, err
}

// bom is the UTF-8 byte order mark some editors put before a file's text.
var bom = []byte{0xEF, 0xBB, 0xBF}

// dropBOM returns data without a leading byte order mark, and whether it had
// one. No format's file starts with one, but a file saved by a Windows editor
// may: until Dec 6, night, "auto" could not tell its format, the JSON formats
// refused it (byte 0) and the JSONL ones dropped its first line (pi's session
// header, Claude Code's first message).
func dropBOM(data []byte) ([]byte, bool) {
	if bytes.HasPrefix(data, bom) {
		return data[len(bom):], true
	}
	return data, false
}

// ImportReader reads a JSONL format (claudecode, pi, codex, sillytavern) line by line from
// r, holding the tree but not the file; other formats are read whole.
func ImportReader(format string, r io.Reader, opts ...core.Option) (*core.Tree, Report, error) {
	br := bufio.NewReader(r)
	if head, _ := br.Peek(len(bom)); bytes.Equal(head, bom) {
		br.Discard(len(bom))
	}
	r = br
	switch format {
	case ClaudeCode:
		return claudecode.ImportReader(r, opts...)
	case Pi:
		return pi.ImportReader(r, opts...)
	case Codex:
		return codex.ImportReader(r, opts...)
	case SillyTavern:
		return sillytavern.ImportReader(r, opts...)
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, Report{}, convert.Invalid("reading the input: " + err.Error())
	}
	return Import(format, data, opts...)
}

// Export writes t in format.
func Export(t *core.Tree, format string) ([]byte, error) {
	exp := exporters[format]
	if exp == nil {
		return nil, convert.Invalid("unknown export format " + quote(format) + ": one of " + joined())
	}
	return exp(t)
}

// unknownInput is the error of "auto" on input of no format it knows.
// unknownInput is the error of data whose format Detect could not tell (BOM
// dropped). Input with nothing but whitespace, and a JSON document that is
// not whole (an export cut short by its download, say), are said as such:
// naming a format would not help the caller of either.
func unknownInput(data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return convert.Invalid("the input is empty: it holds nothing but whitespace")
	}
	first := data
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		first = bytes.TrimSpace(data[:i])
	}
	// A JSON document (not JSON lines, whose first line is whole by itself)
	// that does not read as JSON.
	if (data[0] == '[' || data[0] == '{') && !rawjson.Valid(data) && (len(first) == len(data) || !rawjson.Valid(first)) {
		end, err := rawjson.ScanValue(data, 0)
		why := "more after the value, at byte " + strconv.Itoa(end)
		if err != nil {
			why = err.Error()
		}
		// The scan stopped at its end: the rest of it is missing.
		if err != nil && end >= len(data) {
			why += " (it ends there: the file is cut short; download or copy it again)"
		}
		return convert.Invalid("the input is not valid JSON: " + why)
	}
	return convert.Invalid("cannot tell the format of the input: it reads as none of the formats that import (" + importable() + "); name the format if it is one of them")
}

// importable lists the formats Import reads, in the order of Names.
func importable() string {
	s := ""
	for _, n := range Names {
		if importers[n] == nil {
			continue
		}
		if s != "" {
			s += ", "
		}
		s += n
	}
	return s
}

func joined() string {
	s := ""
	for i, n := range Names {
		if i > 0 {
			s += ", "
		}
		s += n
	}
	return s
}

func quote(s string) string { return string(rawjson.AppendString(nil, s)) }

// errFirst stops a walk of a list at its first element (Detect).
var errFirst = errors.New("first")

// Detect names the format of data by its content, or "" when it cannot tell.
func Detect(data []byte) string {
	data, _ = dropBOM(data)
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return ""
	}
	first := data
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		first = bytes.TrimSpace(data[:i])
	}
	if data[0] == '{' && bytes.HasPrefix(data, []byte(`{"format":"sessiontree"`)) {
		return SessionTree
	}
	// JSONL: judged by the first line when it is an object of its own.
	if first[0] == '{' && rawjson.Valid(first) && (len(first) < len(data) || !hasAny(first, "mapping", "history", "messages", "chat", "chat_messages")) {
		typ, _ := rawjson.LookupString(first, "type")
		_, hasPayload := rawjson.Lookup(first, "payload")
		switch {
		case typ == "" && (has(first, "character_name") || has(first, "chat_metadata") || (has(first, "mes") && has(first, "is_user"))):
			return SillyTavern
		case typ == "session" || (typ == "message" && has(first, "parentId")):
			return Pi
		case hasPayload || typ == "session_meta" || typ == "response_item" || typ == "event_msg":
			return Codex
		case has(first, "uuid") || has(first, "parentUuid") || has(first, "sessionId") || typ == "summary" || typ == "file-history-snapshot":
			return ClaudeCode
		case typ == "" && has(first, "id") && has(first, "timestamp") && legacyCodexItem(data[len(first):]):
			// Codex's pre-2025 rollout: a session line, then bare response items.
			return Codex
		}
	}
	valid := rawjson.Valid(data)
	if !valid && data[0] != '[' {
		return ""
	}
	if data[0] == '{' {
		// A .tree.json whose keys were reordered (jq -S sorts them).
		if f, _ := rawjson.LookupString(data, "format"); f == "sessiontree" {
			return SessionTree
		}
	}
	item := data
	if data[0] == '[' {
		// The first element alone (every element, each copied without its
		// spaces, was as large as the file).
		item = nil
		d := rawjson.NewDecoder(data)
		_ = d.Array(func() error {
			v, err := d.Raw()
			if err == nil {
				item = v
			}
			return errFirst
		})
		if item == nil {
			if !valid {
				return ""
			}
			return OpenAI
		}
		if !valid {
			// A list cut short (a download stopped midway) or broken past
			// its first element: an export of conversations, told by its
			// first, whose whole ones ImportEach reads.
			return exportOf(item)
		}
	}
	if f := exportOf(item); f != "" {
		return f
	}
	switch {
	case uiMessage(item) && data[0] == '[':
		return AISDK
	case has(item, "role") && data[0] == '[':
		return OpenAI
	}
	if msgs, ok := rawjson.Lookup(item, "messages"); ok {
		list, _ := convert.Elements(msgs)
		if data[0] == '{' && (has(item, "headId") || len(list) > 0 && has(list[0], "message") && has(list[0], "parentId")) {
			return AssistantUI
		}
		if len(list) > 0 && (has(list[0], "messageId") || has(list[0], "parentMessageId")) || has(item, "conversationId") {
			return LibreChat
		}
		if len(list) > 0 && uiMessage(list[0]) {
			return AISDK
		}
		return OpenAI
	}
	return ""
}

// exportOf is the format of item when it is a conversation of a tool's
// whole data export (a list of them), else "".
func exportOf(item []byte) string {
	switch {
	case rawjson.HasKey(item, "mapping"): // item is valid: its mapping, most of it, not scanned
		return ChatGPT
	case isClaudeAI(item):
		return ClaudeAI
	case isChat(item):
		return OpenWebUI
	}
	return ""
}

// isClaudeAI reports whether item is a claude.ai conversation: a
// "chat_messages" array.
func isClaudeAI(item []byte) bool {
	v, ok := rawjson.Lookup(item, "chat_messages")
	return ok && len(v) > 0 && v[0] == '['
}

// isChat reports whether item is an Open WebUI chat: a "history" object (a
// Chatbot UI export has a "history" array), itself or under "chat".
func isChat(item []byte) bool {
	if c, ok := rawjson.Lookup(item, "chat"); ok && len(c) > 0 && c[0] == '{' {
		item = c
	}
	h, ok := rawjson.Lookup(item, "history")
	return ok && len(h) > 0 && h[0] == '{'
}

// uiMessage reports whether item is an AI SDK UIMessage: an id, a role and
// a "parts" array, no "content".
func uiMessage(item []byte) bool {
	parts, ok := rawjson.Lookup(item, "parts")
	return ok && len(parts) > 0 && parts[0] == '[' && has(item, "id") && has(item, "role") && !has(item, "content")
}

// legacyCodexItem reports whether the first line of rest is a bare Responses
// API item (the lines of a pre-2025 Codex rollout).
func legacyCodexItem(rest []byte) bool {
	rest = bytes.TrimSpace(rest)
	if i := bytes.IndexByte(rest, '\n'); i >= 0 {
		rest = bytes.TrimSpace(rest[:i])
	}
	typ, _ := rawjson.LookupString(rest, "type")
	switch typ {
	case "message", "reasoning", "function_call", "function_call_output", "custom_tool_call", "custom_tool_call_output", "local_shell_call", "web_search_call":
		return true
	}
	_, state := rawjson.Lookup(rest, "record_type")
	return state
}

func has(obj []byte, key string) bool {
	_, ok := rawjson.Lookup(obj, key)
	return ok
}

func hasAny(obj []byte, keys ...string) bool {
	for _, k := range keys {
		if has(obj, k) {
			return true
		}
	}
	return false
}
