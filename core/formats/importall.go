package formats

import (
	"errors"
	"strconv"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/formats/internal/convert"
	"github.com/sessiontree/sessiontree/core/rawjson"
)

// Conversation is one conversation of a file: its title (when the file gives
// one), its tree and what its import found.
type Conversation struct {
	Title  string
	Tree   *core.Tree
	Report Report
}

// ImportAll reads data in format ("auto" detects it) as a list of
// conversations: each conversation of a ChatGPT or claude.ai
// conversations.json and each chat of an Open WebUI export becomes a tree of
// its own (Import makes them
// roots of one tree); a file of any other format is one conversation.
// Failures are *core.Error (invalid_input for a file that cannot be read at
// all); a conversation with nothing to import is an empty tree whose report
// says why.
func ImportAll(data []byte, format string, opts ...core.Option) ([]Conversation, error) {
	data, _ = dropBOM(data) // Import notes it for a file read as one conversation
	if format == Auto || format == "" {
		format = Detect(data)
		if format == "" {
			return nil, unknownInput()
		}
	}
	var items [][]byte
	if format == ChatGPT || format == OpenWebUI || format == ClaudeAI {
		trimmed := trimSpace(data)
		if len(trimmed) > 0 && trimmed[0] == '[' && rawjson.Valid(trimmed) {
			items, _ = convert.Elements(trimmed)
		}
	}
	if items == nil {
		t, rep, err := Import(format, data, opts...)
		if err != nil {
			return nil, err
		}
		return []Conversation{{Title: titleOf(format, parsed(data)), Tree: t, Report: rep}}, nil
	}
	out := make([]Conversation, 0, len(items))
	for i, it := range items {
		// The branches a previous export kept on the first conversation name
		// leaves of every conversation: one conversation alone names its own.
		if i == 0 && len(items) > 1 {
			if ms, err := convert.Members(it); err == nil {
				it = convert.NewObject(nil).Members(convert.Without(ms, convert.ExtKey)).Bytes()
			}
		}
		t, rep, err := Import(format, it, opts...)
		if err != nil {
			// A conversation with nothing to import (ChatGPT writes some
			// without a mapping) is an empty tree that says why.
			t, rep = core.New(opts...), Report{Format: format, Records: 1}
			rep.Problems = append(rep.Problems, Problem{Message: "conversation " + strconv.Itoa(i+1) + " of " + strconv.Itoa(len(items)) + ": " + message(err)})
		}
		out = append(out, Conversation{Title: titleOf(format, parsed(it)), Tree: t, Report: rep})
	}
	return out, nil
}

// titleOf is a conversation's title as its format writes it, or "".
func titleOf(format string, item []byte) string {
	item = trimSpace(item)
	if len(item) == 0 || item[0] != '{' {
		return ""
	}
	if s, ok := rawjson.LookupString(item, "title"); ok {
		return s
	}
	if format == ClaudeAI {
		s, _ := rawjson.LookupString(item, "name")
		return s
	}
	if format == OpenWebUI {
		if c, ok := rawjson.Lookup(item, "chat"); ok {
			s, _ := rawjson.LookupString(c, "title")
			return s
		}
	}
	return ""
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\n' || b[0] == '\r' || b[0] == '\t') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\n' || b[len(b)-1] == '\r' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	return b
}

// message is err's sentence without its code.
func message(err error) string {
	var e *core.Error
	if errors.As(err, &e) {
		return e.Message
	}
	return err.Error()
}

// parsed is data as JSON.parse reads it (the last of a key named twice), for
// the title, as Import reads the conversation (rawjson.KeepLastKeys).
func parsed(data []byte) []byte {
	out, _, _ := rawjson.KeepLastKeys(data)
	return out
}
