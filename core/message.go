package core

import (
	"unicode/utf8"

	"github.com/sessiontree/sessiontree/core/rawjson"
)

// Message is one chat message: a JSON object with a string "role", held as its
// exact compact bytes. Every field, known or unknown, is kept as it came in. A
// tree keeps the bytes it is given without copying them: once handed to a Tree,
// a Message must not be modified.
type Message []byte

// ParseMessage validates b as a message (a JSON object with a string "role") and
// returns it compacted. It fails with CodeInvalidInput, also for an object that
// names a key twice at any depth: JSON.parse reads the last of the two and this
// package the first, so such a message would mean one thing on a page and
// another to a model.
func ParseMessage(b []byte) (Message, error) { return parseMessage(b, new(rawjson.Keys)) }

// parseMessage is ParseMessage checking keys with k, whose lists a tree keeps
// from one append to the next.
func parseMessage(b []byte, k *rawjson.Keys) (Message, error) {
	c, err := k.CompactUnique(nil, b)
	if de, ok := err.(*rawjson.DuplicateKeyError); ok {
		return nil, newError(CodeInvalidInput, "message names the key "+quote(de.Key)+" twice (at "+de.Where()+"); send each key once")
	}
	if err != nil {
		return nil, newError(CodeInvalidInput, "message is not valid JSON: "+err.Error())
	}
	if len(c) == 0 || c[0] != '{' {
		return nil, newError(CodeInvalidInput, "message must be a JSON object")
	}
	if !rolesFirst(c) {
		if role, ok := rawjson.Lookup(c, "role"); !ok || role[0] != '"' {
			return nil, newError(CodeInvalidInput, `message must have a string "role"`)
		}
	}
	return Message(c), nil
}

// rolesFirst reports whether the compact, valid JSON object c starts with a
// string "role" member, as JSON.stringify writes {role, content}: then the
// look-up that would find it (a second walk over the message's start) is not
// needed.
func rolesFirst(c []byte) bool { return len(c) > 9 && string(c[:9]) == `{"role":"` }

// Role is the message's role.
func (m Message) Role() string {
	r, _ := rawjson.LookupString(m, "role")
	return r
}

// Text renders the message's readable content on one line: the content string or
// its text parts, "[type]" for parts without text (and for reasoning), and "[tool_call name(args)]"
// for each tool call. Newlines are written as the two characters `\n`, carriage
// returns as `\r` (a line break to many readers).
func (m Message) Text() string {
	var pieces []string
	if raw, ok := rawjson.Lookup(m, "content"); ok {
		pieces = appendContent(pieces, raw)
		if raw[0] == '"' && len(pieces) == 1 && hasDetails(pieces[0]) && m.Role() == "assistant" {
			pieces = appendDetails(pieces[:0], pieces[0])
		}
	} else if raw, ok := rawjson.Lookup(m, "parts"); ok && len(raw) > 0 && raw[0] == '[' {
		pieces = appendContent(pieces, raw) // an AI SDK UIMessage: its parts
	}
	if raw, ok := rawjson.Lookup(m, "tool_calls"); ok && len(raw) > 0 && raw[0] == '[' {
		d := rawjson.NewDecoder(raw)
		_ = d.Array(func() error {
			call, err := d.Raw()
			if err != nil {
				return err
			}
			pieces = append(pieces, toolCallText(call))
			return nil
		})
	}
	return oneLine(pieces)
}

// hasDetails reports whether s holds a block of Open WebUI's.
func hasDetails(s string) bool {
	for i := range s {
		if s[i] == '<' && hasAt(s, i, detailsOpen) {
			return true
		}
	}
	return false
}

// detailsOpen starts the blocks Open WebUI writes into an assistant's
// content string for its reasoning and its tool calls.
const detailsOpen = `<details type="`

// appendDetails appends s's pieces with each of Open WebUI's <details
// type="reasoning"> blocks as "[reasoning]" and each <details
// type="tool_calls"> as "[tool_calls]", as Text shows a reasoning part
// (core/chat reads them as parts): the model's thinking is not what it said,
// to a summarizer, a search or a preview. A block of another type, or one
// not closed yet (a reply still streaming), and what follows it stay as they
// are. One loop over the bytes: each function costs the module kilobytes.
func appendDetails(pieces []string, s string) []string {
	from, open := 0, -1 // where the text after the last block starts; the open block's start
	for i := 0; i < len(s); i++ {
		if s[i] != '<' {
			continue
		}
		if open < 0 && hasAt(s, i, detailsOpen) {
			typ := s[i+len(detailsOpen):]
			if !hasAt(typ, 0, `reasoning"`) && !hasAt(typ, 0, `tool_calls"`) {
				break
			}
			open = i
		} else if open >= 0 && hasAt(s, i, "</details>") {
			pieces = appendTrimmed(pieces, s[from:open])
			if s[open+len(detailsOpen)] == 'r' {
				pieces = append(pieces, "[reasoning]")
			} else {
				pieces = append(pieces, "[tool_calls]")
			}
			i += len("</details>") - 1
			from, open = i+1, -1
		}
	}
	return appendTrimmed(pieces, s[from:])
}

// appendTrimmed appends s without its leading and trailing newlines, if
// anything is left.
func appendTrimmed(pieces []string, s string) []string {
	for len(s) > 0 && s[0] == '\n' {
		s = s[1:]
	}
	for len(s) > 0 && s[len(s)-1] == '\n' {
		s = s[:len(s)-1]
	}
	if s == "" {
		return pieces
	}
	return append(pieces, s)
}

// hasAt reports whether s holds sub at i. Not inlined: each copy costs the
// module more than the call.
//
//go:noinline
func hasAt(s string, i int, sub string) bool {
	return len(s)-i >= len(sub) && s[i:i+len(sub)] == sub
}

// oneLine joins pieces with spaces, writing each newline as the two characters
// `\n` and each carriage return as `\r` (a loop, not strings.Join and ReplaceAll: ~8 KB less wasm).
func oneLine(pieces []string) string {
	n := 0
	for _, p := range pieces {
		n += len(p) + 1
	}
	b := make([]byte, 0, n)
	for i, p := range pieces {
		if i > 0 {
			b = append(b, ' ')
		}
		for j := 0; j < len(p); j++ {
			if p[j] == '\n' {
				b = append(b, '\\', 'n')
			} else if p[j] == '\r' {
				b = append(b, '\\', 'r')
			} else {
				b = append(b, p[j])
			}
		}
	}
	return string(b)
}

func appendContent(pieces []string, raw []byte) []string {
	switch raw[0] {
	case '"':
		return append(pieces, rawjson.Unquote(raw))
	case '[':
		d := rawjson.NewDecoder(raw)
		_ = d.Array(func() error {
			part, err := d.Raw()
			if err != nil {
				return err
			}
			if part[0] == '"' {
				pieces = append(pieces, rawjson.Unquote(part))
				return nil
			}
			if part[0] != '{' {
				return nil
			}
			typ, hasType := rawjson.LookupString(part, "type")
			// A reasoning part (AI SDK, assistant-ui) keeps the model's
			// thinking in "text": not what it said (a thinking block shows
			// as its type too).
			if text, ok := rawjson.LookupString(part, "text"); ok && typ != "reasoning" {
				pieces = append(pieces, text)
			} else if hasType {
				pieces = append(pieces, "["+typ+"]")
			} else {
				pieces = append(pieces, "[part]")
			}
			return nil
		})
	}
	return pieces
}

func toolCallText(call []byte) string {
	if len(call) == 0 || call[0] != '{' {
		return "[tool_call]"
	}
	fn, ok := rawjson.Lookup(call, "function")
	if !ok || fn[0] != '{' {
		fn = call
	}
	name, _ := rawjson.LookupString(fn, "name")
	args, _ := rawjson.LookupString(fn, "arguments")
	if args == "" {
		if raw, ok := rawjson.Lookup(fn, "arguments"); ok {
			args = string(raw)
		}
	}
	return "[tool_call " + name + "(" + args + ")]"
}

// Length limits of ids and branch names. A name or id given to an operation is
// at most maxName bytes. One read from a file may be longer, up to
// maxStoredName: a merge keeps a second content of an id as id + "~" + a hash,
// and a second leaf of a branch as name + "~" + leaf, so what a merge saves
// must load back even when the original was at the limit.
const (
	maxName       = 256
	maxStoredName = 64 << 10
)

// checkName validates an id or branch name given to an operation: non-empty,
// at most maxName bytes, valid UTF-8 and free of control characters.
func checkName(what, s string) error { return checkNameLen(what, s, maxName) }

// checkStoredName validates an id or branch name read from a file.
func checkStoredName(what, s string) error { return checkNameLen(what, s, maxStoredName) }

func checkNameLen(what, s string, max int) error {
	if s == "" {
		return newError(CodeInvalidInput, what+" must be a non-empty string")
	}
	if len(s) > max {
		return newError(CodeInvalidInput, what+" "+quote(s)+" is longer than "+itoa(max)+" bytes")
	}
	plain := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			plain = false
			break
		}
	}
	if plain {
		return nil
	}
	if !utf8.ValidString(s) {
		return newError(CodeInvalidInput, what+" "+quote(s)+" is not valid UTF-8")
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return newError(CodeInvalidInput, what+" "+quote(s)+" contains a control character")
		}
	}
	return nil
}

func validUTF8(s string) bool { return utf8.ValidString(s) }
