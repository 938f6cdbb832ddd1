package convert

import (
	"bytes"
	"strconv"

	"github.com/sessiontree/sessiontree/core/rawjson"
)

// A cross-format export writes each node as the target format's own record
// (built from the message's neutral form) and keeps the original message in
// the record's "sessiontree" member, so the import gives it back. Most of a
// message's bytes are its long strings (text, tool results, reasoning), and
// the native record holds them already: Elide replaces every string of the
// message that the record holds verbatim by a reference to where it holds it,
// so the message is not stored twice. Resolve undoes it.
//
// A reference is {"~":[offset,length]}: the string's bytes
// (between its quotes, escapes as written) at offset in the record written
// without its "sessiontree" member; or {"~":[offset,from,length]}: the bytes
// from..from+length of the decoded text of the string literal at offset (a
// tool call's arguments, which formats write as JSON text in a string, hold
// the argument strings so). The member says "elided":<fnv32a of that
// record>, so a record changed by another tool is noticed rather than misread.

// refKey is the key of a reference object.
const refKey = `{"~":[`

// minElided is the shortest string worth a reference (a reference costs 12
// bytes and its digits).
const minElided = 20

// Elide returns msg with every string value of at least minElided bytes that
// base holds verbatim replaced by a reference into base, and whether it
// replaced any. A message that holds the reference key itself is returned as
// it is.
func Elide(msg, base []byte) ([]byte, bool) {
	if len(base) == 0 {
		return msg, false
	}
	return elide(msg, finder(base))
}

// finder finds a string's bytes in base by a search of its bytes (for one
// message; a record many messages refer to has an index: Line).
func finder(base []byte) func(inner []byte) []int {
	var texts []decoded // base's long strings, decoded, when a string is not in base as it is
	return func(inner []byte) []int {
		if at := bytes.Index(base, inner); at >= 0 {
			return []int{at, len(inner)}
		}
		if texts == nil {
			texts = decodedStrings(base)
		}
		for _, d := range texts {
			if k := bytes.Index(d.text, inner); k >= 0 {
				return []int{d.at, k, len(inner)}
			}
		}
		return nil
	}
}

// elide is Elide with find saying where base holds a string's bytes (a
// reference's numbers), or nil.
func elide(msg []byte, find func(inner []byte) []int) ([]byte, bool) {
	if bytes.Contains(msg, []byte(refKey)) {
		return msg, false
	}
	var out []byte
	from, any := 0, false
	whole := eachString(msg, func(i, end int) {
		inner := msg[i+1 : end-1]
		k := skipWS(msg, end)
		if isKey := k < len(msg) && msg[k] == ':'; isKey || len(inner) < minElided {
			return
		}
		ref := find(inner)
		if ref == nil {
			return
		}
		if out == nil {
			out = make([]byte, 0, len(msg)/4)
		}
		out = append(out, msg[from:i]...)
		out = append(out, refKey...)
		for j, v := range ref {
			if j > 0 {
				out = append(out, ',')
			}
			out = strconv.AppendInt(out, int64(v), 10)
		}
		out = append(out, "]}"...)
		from, any = end, true
	})
	if !whole || !any {
		return msg, false
	}
	return append(out, msg[from:]...), true
}

// eachString calls fn with the start and end of each string literal of b,
// in order; it reports false at a literal that does not end.
func eachString(b []byte, fn func(i, end int)) bool {
	for i := 0; i < len(b); {
		if b[i] != '"' {
			i++
			continue
		}
		end := skipString(b, i)
		if end < 0 {
			return false
		}
		fn(i, end)
		i = end
	}
	return true
}

// index is a record's long string literals by their bytes (between the
// quotes, as written) and by their decoded text (those with escapes), each at
// its first offset: what a Line's elision looks a string up in, in the time
// of the string rather than of the record.
type index struct {
	lits    map[string]int
	decoded map[string]int
}

func newIndex(base []byte) *index {
	x := &index{lits: map[string]int{}, decoded: map[string]int{}}
	eachString(base, func(i, end int) {
		if inner := base[i+1 : end-1]; len(inner) >= minElided {
			if _, ok := x.lits[string(inner)]; !ok {
				x.lits[string(inner)] = i + 1
			}
			if end-i >= 2*minElided && bytes.IndexByte(inner, '\\') >= 0 {
				if t := rawjson.Unquote(base[i:end]); len(t) > 0 {
					if _, ok := x.decoded[t]; !ok {
						x.decoded[t] = i
					}
				}
			}
		}
	})
	return x
}

func (x *index) find(inner []byte) []int {
	if at, ok := x.lits[string(inner)]; ok {
		return []int{at, len(inner)}
	}
	if at, ok := x.decoded[string(inner)]; ok {
		return []int{at, 0, len(inner)}
	}
	return nil
}

// Resolve puts back the strings Elide replaced, reading them from base. It
// reports false when a reference does not fit base.
func Resolve(msg, base []byte) ([]byte, bool) {
	out := make([]byte, 0, len(msg)+256) // grown as strings come back: a base shared by many records is not copied for each
	from := 0
	for i := 0; i < len(msg); {
		switch msg[i] {
		case '"':
			end := skipString(msg, i)
			if end < 0 {
				return nil, false
			}
			i = end
			continue
		case '{':
			if !bytes.HasPrefix(msg[i:], []byte(refKey)) {
				i++
				continue
			}
			j := i + len(refKey)
			at, j, ok1 := number(msg, j)
			if !ok1 || j >= len(msg) || msg[j] != ',' {
				return nil, false
			}
			n, j, ok2 := number(msg, j+1)
			if !ok2 || at > len(base) {
				return nil, false
			}
			src := base
			if j < len(msg) && msg[j] == ',' {
				// [offset,from,length]: within the decoded string at offset.
				k, j2, ok3 := number(msg, j+1)
				end := SkipValue(base, at)
				if !ok3 || end < 0 || base[at] != '"' {
					return nil, false
				}
				src = []byte(rawjson.Unquote(base[at:end]))
				at, n, j = n, k, j2
			}
			if !bytes.HasPrefix(msg[j:], []byte("]}")) || at+n > len(src) {
				return nil, false
			}
			out = append(out, msg[from:i]...)
			out = append(out, '"')
			out = append(out, src[at:at+n]...)
			out = append(out, '"')
			i = j + 2
			from = i
			continue
		}
		i++
	}
	return append(out, msg[from:]...), true
}

// decoded is a string literal of a record (at its offset) and its text.
type decoded struct {
	at   int
	text []byte
}

// decodedStrings lists the string values of base of at least 2×minElided
// bytes that hold escapes, decoded: JSON text written into a string.
func decodedStrings(base []byte) []decoded {
	out := []decoded{}
	eachString(base, func(i, end int) {
		if end-i >= 2*minElided && bytes.IndexByte(base[i:end], '\\') >= 0 {
			out = append(out, decoded{at: i, text: []byte(rawjson.Unquote(base[i:end]))})
		}
	})
	return out
}

func number(b []byte, i int) (int, int, bool) {
	start, n := i, 0
	for i < len(b) && b[i] >= '0' && b[i] <= '9' && i-start < 12 {
		n = n*10 + int(b[i]-'0')
		i++
	}
	return n, i, i > start
}

// Checksum is the 32-bit FNV-1a hash of b: what "elided" records of the
// record a message was elided against.
func Checksum(b []byte) uint32 {
	h := uint32(2166136261)
	for _, c := range b {
		h ^= uint32(c)
		h *= 16777619
	}
	return h
}
