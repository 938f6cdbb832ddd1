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
	var out []Conversation
	err := ImportEach(data, format, func(cv Conversation, _ int) {
		out = append(out, cv)
	}, opts...)
	return out, err
}

// ImportEach is ImportAll handing each conversation to fn as it is read, with
// the length of the file's bytes it came from, so that a caller that does not
// keep the trees (the interchange module writes each one out) never holds
// them all: the trees of a 345 MB ChatGPT export together outgrew wasm32's
// 4 GiB. A file that cannot be read fails before fn is called, but for a
// list of conversations that stops being JSON part-way (an export whose
// download stopped midway): fn gets each whole conversation before the
// break, and the error then says where the list stops.
func ImportEach(data []byte, format string, fn func(cv Conversation, size int), opts ...core.Option) error {
	data, _ = dropBOM(data) // Import notes it for a file read as one conversation
	if format == Auto || format == "" {
		format = Detect(data)
		if format == "" {
			return unknownInput(data)
		}
	}
	// A list of conversations is counted first, then read one at a time: a
	// spaced file's conversations are copies without the spaces, and all of
	// them at once were as large as the file.
	var list []byte
	count := 0 // the conversations in list; -1: not known, list is not whole JSON
	if format == ChatGPT || format == OpenWebUI || format == ClaudeAI {
		trimmed := trimSpace(data)
		if len(trimmed) > 0 && trimmed[0] == '[' && rawjson.Valid(trimmed) {
			d := rawjson.NewDecoder(trimmed)
			if d.Array(func() error { count++; return d.Skip() }) == nil && count > 0 {
				list = trimmed
			}
		} else if len(trimmed) > 0 && trimmed[0] == '[' {
			list, count = trimmed, -1
		}
	}
	if list == nil {
		t, rep, err := Import(format, data, opts...)
		if err != nil {
			return err
		}
		fn(Conversation{Title: titleOf(format, parsed(data), rawjson.Lookup), Tree: t, Report: rep}, len(data))
		return nil
	}
	d := rawjson.NewDecoder(list)
	i := 0
	whole := 0 // where the last whole conversation ends
	err := d.Array(func() error {
		it, err := d.Raw()
		if err != nil {
			return err
		}
		whole = d.Pos()
		importOne(format, it, i, count, fn, opts)
		i++
		return nil
	})
	if err == nil && count < 0 {
		err = d.End()
	}
	if err == nil || count >= 0 {
		return err
	}
	if i == 0 {
		return convert.NotJSON(format, list)
	}
	return listStops(format, i, err, cutShort(list[whole:]))
}

// importOne imports a list's conversation it, the i-th from 0 of count
// (-1: not known, or more than one), and hands it to fn.
func importOne(format string, it []byte, i, count int, fn func(cv Conversation, size int), opts []core.Option) {
	size := len(it)
	// The branches a previous export kept on the first conversation name
	// leaves of every conversation: one conversation alone names its own.
	if i == 0 && count != 1 {
		it = convert.WithoutKey(it, convert.ExtKey)
	}
	t, rep, err := Import(format, it, opts...)
	if err != nil {
		// A conversation with nothing to import (ChatGPT writes some
		// without a mapping) is an empty tree that says why.
		t, rep = core.New(opts...), Report{Format: format, Records: 1}
		of := ""
		if count > 0 {
			of = " of " + strconv.Itoa(count)
		}
		rep.Problems = append(rep.Problems, Problem{Message: "conversation " + strconv.Itoa(i+1) + of + ": " + message(err)})
	}
	fn(Conversation{Title: titleOf(format, it, rawjson.LookupLast), Tree: t, Report: rep}, size)
}

// listStops is the error of a list of conversations that stops being JSON
// after its i whole ones (err: where and why), cut when the file's end cut it.
func listStops(format string, i int, err error, cut bool) error {
	why := err.Error()
	if e, ok := err.(*core.Error); ok {
		why = e.Message
	}
	tail := ""
	if cut {
		tail = ": the file is cut short (download or copy it again for the rest)"
	}
	return convert.Invalid(format + ": the list of conversations stops being valid JSON after its " + strconv.Itoa(i) +
		" whole conversation" + plural(i) + " (" + why + ")" + tail)
}

// cutShort reports whether rest, what follows a list's last whole element,
// is a beginning of more of it that the data's end cut: a comma, then a value
// whose scan ran into the end, or nothing at all.
func cutShort(rest []byte) bool {
	rest = trimSpace(rest)
	if len(rest) > 0 && rest[0] == ',' {
		rest = trimSpace(rest[1:])
	}
	if len(rest) == 0 {
		return true
	}
	end, err := rawjson.ScanValue(rest, 0)
	if err == nil {
		return false
	}
	if end >= len(rest) {
		return true
	}
	// A literal cut ("nu", "tr"): its scan stops at its start.
	var se *rawjson.SyntaxError
	if errors.As(err, &se) && se.Offset < len(rest) {
		tail := string(rest[se.Offset:])
		for _, lit := range []string{"null", "true", "false"} {
			if len(tail) < len(lit) && lit[:len(tail)] == tail {
				return true
			}
		}
	}
	return false
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// titleOf is a conversation's title as its format writes it, or "": look
// finds a member (rawjson.LookupLast reads a valid item as JSON.parse does,
// the last of a key named twice, without parsed's copy and scan).
func titleOf(format string, item []byte, look func(obj []byte, key string) ([]byte, bool)) string {
	item = trimSpace(item)
	if len(item) == 0 || item[0] != '{' {
		return ""
	}
	str := func(obj []byte, key string) (string, bool) {
		raw, ok := look(obj, key)
		if !ok || len(raw) == 0 || raw[0] != '"' {
			return "", false
		}
		return rawjson.Unquote(raw), true
	}
	if s, ok := str(item, "title"); ok {
		return s
	}
	if format == ClaudeAI {
		s, _ := str(item, "name")
		return s
	}
	if format == OpenWebUI {
		if c, ok := look(item, "chat"); ok {
			s, _ := str(c, "title")
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
