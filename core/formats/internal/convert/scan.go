package convert

import (
	"bytes"
	"unsafe"

	"github.com/sessiontree/sessiontree/core/rawjson"
)

// EachMember calls fn with the key (its bytes between the quotes, escapes not
// decoded) and the raw value of every member of obj, in order, until fn returns
// false. obj must be one valid JSON object (EachLine hands out only such
// lines): values are skipped without being validated again, so this is a fast
// second pass. On input that is not valid it stops early and returns false; it
// never panics.
func EachMember(obj []byte, fn func(key, value []byte) bool) bool {
	i := skipWS(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return false
	}
	i = skipWS(obj, i+1)
	if i < len(obj) && obj[i] == '}' {
		return true
	}
	for i < len(obj) && obj[i] == '"' {
		kEnd := skipString(obj, i)
		if kEnd < 0 {
			return false
		}
		key := obj[i+1 : kEnd-1]
		i = skipWS(obj, kEnd)
		if i >= len(obj) || obj[i] != ':' {
			return false
		}
		i = skipWS(obj, i+1)
		vEnd := SkipValue(obj, i)
		if vEnd < 0 {
			return false
		}
		if !fn(key, obj[i:vEnd]) {
			return true
		}
		i = skipWS(obj, vEnd)
		if i < len(obj) && obj[i] == '}' {
			return true
		}
		if i >= len(obj) || obj[i] != ',' {
			return false
		}
		i = skipWS(obj, i+1)
	}
	return false
}

func skipWS(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// skipString returns the end of the string literal at data[i] (just past its
// closing quote), or -1 when it does not close. It jumps from quote to quote.
func skipString(data []byte, i int) int {
	j := i + 1
	for {
		k := bytes.IndexByte(data[j:], '"')
		if k < 0 {
			return -1
		}
		j += k
		// The quote is escaped when an odd number of backslashes precede it.
		n := 0
		for b := j - 1; b > i && data[b] == '\\'; b-- {
			n++
		}
		j++
		if n%2 == 0 {
			return j
		}
	}
}

// SkipValue returns the end of the JSON value at data[i], assumed valid, or -1
// when it runs past the end.
func SkipValue(data []byte, i int) int {
	if i >= len(data) {
		return -1
	}
	switch data[i] {
	case '"':
		return skipString(data, i)
	case '{', '[':
		depth := 0
		for i < len(data) {
			switch data[i] {
			case '"':
				i = skipString(data, i)
				if i < 0 {
					return -1
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return -1
	}
	for j := i; j < len(data); j++ {
		switch data[j] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return j
		}
	}
	return len(data)
}

// View returns the decoded text of a string literal lit (quotes included)
// without copying when it has no escapes: the result shares lit's memory, so
// lit must never change afterwards. With escapes it is decoded into a new
// string.
func View(lit []byte) string {
	if len(lit) < 2 || lit[0] != '"' {
		return ""
	}
	body := lit[1 : len(lit)-1]
	if bytes.IndexByte(body, '\\') >= 0 {
		return rawjson.Unquote(lit)
	}
	if len(body) == 0 {
		return ""
	}
	return unsafe.String(&body[0], len(body))
}

// within reports whether s lies inside buf's memory, and at which offset.
func within(s string, buf []byte) (int, bool) {
	if len(s) == 0 || len(buf) == 0 {
		return 0, false
	}
	p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
	b := uintptr(unsafe.Pointer(&buf[0]))
	if p < b || p+uintptr(len(s)) > b+uintptr(len(buf)) {
		return 0, false
	}
	return int(p - b), true
}

// rebase returns s, when it lies inside from, as the same bytes of to (a copy
// of from at the same offsets); any other s is returned as it is.
func rebase(s string, from, to []byte) string {
	off, ok := within(s, from)
	if !ok {
		return s
	}
	return unsafe.String(&to[off], len(s))
}

// Offset returns where inner, a slice of outer, starts in outer.
func Offset(outer, inner []byte) int {
	return int(uintptr(unsafe.Pointer(unsafe.SliceData(inner))) - uintptr(unsafe.Pointer(unsafe.SliceData(outer))))
}

// inside reports whether b lies inside buf's memory.
func inside(b, buf []byte) bool {
	if len(b) == 0 || len(buf) == 0 {
		return false
	}
	p := uintptr(unsafe.Pointer(&b[0]))
	q := uintptr(unsafe.Pointer(&buf[0]))
	return p >= q && p+uintptr(len(b)) <= q+uintptr(len(buf))
}

// FastMembers is Members for an object already known to be valid and compact
// (a slice of a document rawjson.Compact returned): values are not validated
// again, and a key without escapes is a view of obj's bytes, so a caller that
// keeps a key past obj's life clones it.
func FastMembers(obj []byte) ([]Member, error) {
	out := make([]Member, 0, 8)
	ok := EachMember(obj, func(key, v []byte) bool {
		k := ""
		if bytes.IndexByte(key, '\\') >= 0 {
			k = rawjson.Unquote(obj[Offset(obj, key)-1 : Offset(obj, key)+len(key)+1])
		} else if len(key) > 0 {
			k = unsafe.String(&key[0], len(key))
		}
		out = append(out, Member{k, v})
		return true
	})
	if !ok {
		return nil, Invalid("not a JSON object")
	}
	return out, nil
}

// eachElement calls fn with every element of arr, a valid JSON array, without
// validating them again; it returns false when arr is not an array.
func eachElement(arr []byte, fn func(v []byte)) bool {
	i := skipWS(arr, 0)
	if i >= len(arr) || arr[i] != '[' {
		return false
	}
	i = skipWS(arr, i+1)
	if i < len(arr) && arr[i] == ']' {
		return true
	}
	for i < len(arr) {
		end := SkipValue(arr, i)
		if end < 0 {
			return false
		}
		fn(arr[i:end])
		i = skipWS(arr, end)
		if i >= len(arr) || arr[i] != ',' {
			return i < len(arr) && arr[i] == ']'
		}
		i = skipWS(arr, i+1)
	}
	return false
}
