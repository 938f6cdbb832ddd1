// Package openai imports and exports an OpenAI chat "messages" array: a JSON
// array of messages (or {"messages":[…]}), linear. Import keeps each message
// exactly; export writes the active branch as the API takes it (Export).
package openai

import (
	"bytes"
	"strconv"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/formats/internal/convert"
	"github.com/sessiontree/sessiontree/core/provider"
	"github.com/sessiontree/sessiontree/core/rawjson"
)

// Import reads a messages array into a single-path tree. Elements that are not
// messages are reported by index and skipped.
func Import(data []byte, opts ...core.Option) (*core.Tree, convert.Report, error) {
	rep := convert.Report{Format: "openai"}
	// A copy of our own: messages may be slices of it, and the caller may
	// reuse its buffer.
	data = bytes.Clone(bytes.TrimSpace(data))
	if !rawjson.Valid(data) {
		return nil, rep, convert.NotJSON("openai", data)
	}
	if len(data) > 0 && data[0] == '{' {
		m, ok := rawjson.Lookup(data, "messages")
		if !ok {
			return nil, rep, convert.Invalid("openai: an object without a \"messages\" array")
		}
		data = m
	}
	list, err := convert.Elements(data)
	if err != nil {
		return nil, rep, convert.Invalid("openai: expected an array of messages")
	}
	msgs := make([]core.Message, 0, len(list))
	for i, raw := range list {
		rep.Records++
		m, err := core.ParseMessage(raw)
		if err != nil {
			rep.Problemf(0, "", "message "+strconv.Itoa(i)+": "+err.Error()+": skipped")
			continue
		}
		msgs = append(msgs, m)
	}
	t, err := core.FromLinear(msgs, 0, opts...)
	if err != nil {
		return nil, rep, err
	}
	rep.Note("no ids, times, branches or labels: ids are generated, times are 0")
	s := t.Stats()
	rep.Nodes, rep.Roots, rep.Branches = s.Nodes, s.Roots, s.Branches
	return t, rep, nil
}

// Private lists the members importers add to a message to keep a format's
// original record; Export leaves them out.
var Private = []string{
	"chatgpt", "chatgpt_conversation", "openwebui_chat", "librechat", "librechat_conversation",
	"claudecode", "claudecode_after", "claudecode_before", "pi", "pi_after", "pi_before",
	"codex", "codex_after", "codex_before", "claudeai", "claudeai_conversation", "sillytavern", "sillytavern_chat",
}

// Export writes the active branch as Chat Completions "messages": the
// conversion t.projectFor("openai-chat") makes without a budget, so that every
// message is one the API accepts (another tool's blocks, calls, results and
// roles in OpenAI's shapes; the members importers add, timestamps and usage
// left out). ExportReport says what it could not carry.
func Export(t *core.Tree) ([]byte, error) {
	out, _, err := ExportReport(t)
	return out, err
}

// ExportReport is Export with the conversion's report: what it left out or
// wrote as text (thinking, parts the API cannot take, a call without a
// result, messages no model sees).
func ExportReport(t *core.Tree) ([]byte, provider.Report, error) {
	req, err := provider.ProjectTree(t, "", provider.OpenAIChat, provider.Options{})
	if err != nil {
		return nil, provider.Report{}, err
	}
	return req.Messages, req.Report, nil
}

// Plain returns m without the Private members.
func Plain(m core.Message) []byte {
	has := false
	for _, k := range Private {
		if _, ok := rawjson.Lookup(m, k); ok {
			has = true
			break
		}
	}
	if !has {
		return m
	}
	ms, err := convert.Members(m)
	if err != nil {
		return m
	}
	return convert.NewObject(nil).Members(convert.Without(ms, Private...)).Bytes()
}
