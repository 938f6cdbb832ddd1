package rawjson

import (
	"unicode/utf8"
)

// Decoder walks a JSON document token by token. It is for documents whose shape
// the caller knows (a file format); values it does not interpret are taken whole
// with Raw.
type Decoder struct {
	data []byte
	pos  int
}

// NewDecoder returns a decoder positioned at the start of data.
func NewDecoder(data []byte) *Decoder { return &Decoder{data: data} }

// Pos is the current byte offset, for error messages.
func (d *Decoder) Pos() int { return d.pos }

// Peek returns the next non-space byte without consuming it, or 0 at the end.
func (d *Decoder) Peek() byte {
	d.pos = skipSpace(d.data, d.pos)
	if d.pos >= len(d.data) {
		return 0
	}
	return d.data[d.pos]
}

// End reports an error unless only whitespace remains.
func (d *Decoder) End() error {
	// Not Peek: a NUL byte after the value is data too, not the end.
	if d.pos = skipSpace(d.data, d.pos); d.pos < len(d.data) {
		return errAt(d.pos, "unexpected data after the JSON value")
	}
	return nil
}

// Null consumes a null literal if one is next.
func (d *Decoder) Null() bool {
	if d.Peek() == 'n' {
		if end, err := scanLiteral(d.data, d.pos, "null"); err == nil {
			d.pos = end
			return true
		}
	}
	return false
}

// Object calls fn for each member of the object that is next, with the decoded
// key; fn must consume the member's value. An error from fn stops the walk.
func (d *Decoder) Object(fn func(key string) error) error {
	return d.Members(func(key []byte) error { return fn(string(unescapeKey(key))) })
}

// unescapeKey decodes a key's raw bytes from Members.
func unescapeKey(key []byte) []byte {
	for _, c := range key {
		if c == '\\' {
			lit := make([]byte, 0, len(key)+2)
			lit = append(append(append(lit, '"'), key...), '"')
			return []byte(Unquote(lit))
		}
	}
	return key
}

// Array calls fn for each element of the array that is next; fn must consume it.
func (d *Decoder) Array(fn func() error) error {
	if d.Peek() != '[' {
		return errAt(d.pos, "expected an array")
	}
	d.pos++
	if d.Peek() == ']' {
		d.pos++
		return nil
	}
	for {
		d.Peek()
		if err := fn(); err != nil {
			return err
		}
		switch d.Peek() {
		case ',':
			d.pos++
		case ']':
			d.pos++
			return nil
		default:
			return errAt(d.pos, "expected ',' or ']' in an array")
		}
	}
}

// String decodes the string that is next.
func (d *Decoder) String() (string, error) {
	if d.Peek() != '"' {
		return "", errAt(d.pos, "expected a string")
	}
	end, err := scanString(d.data, d.pos)
	if err != nil {
		return "", err
	}
	s := Unquote(d.data[d.pos:end])
	d.pos = end
	return s, nil
}

// Int64 decodes the integer that is next; fractions and exponents are refused.
func (d *Decoder) Int64() (int64, error) {
	c := d.Peek()
	if c != '-' && (c < '0' || c > '9') {
		return 0, errAt(d.pos, "expected an integer")
	}
	end, err := scanNumber(d.data, d.pos)
	if err != nil {
		return 0, err
	}
	digits := d.data[d.pos:end]
	neg := digits[0] == '-'
	if neg {
		digits = digits[1:]
	}
	if len(digits) > 18 {
		n, ok := ParseInt(string(d.data[d.pos:end]))
		if !ok {
			return 0, errAt(d.pos, "expected an integer that fits in 64 bits")
		}
		d.pos = end
		return n, nil
	}
	var n int64
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, errAt(d.pos, "expected an integer")
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	d.pos = end
	return n, nil
}

// Raw validates the value that is next and returns it compacted. The result
// aliases the input when the value was already compact.
func (d *Decoder) Raw() ([]byte, error) {
	start := skipSpace(d.data, d.pos)
	end, spaced, err := scanValue(d.data, start, nil)
	if err != nil {
		return nil, err
	}
	d.pos = end
	if !spaced {
		return d.data[start:end:end], nil
	}
	return appendCompact(nil, d.data[start:end]), nil
}

// Skip validates and discards the value that is next.
func (d *Decoder) Skip() error {
	end, _, err := scanValue(d.data, skipSpace(d.data, d.pos), nil)
	if err != nil {
		return err
	}
	d.pos = end
	return nil
}

// Unquote decodes a valid JSON string literal (quotes included). Given
// anything else (what Lookup may return for invalid input) it returns some
// string and never panics.
func Unquote(lit []byte) string {
	if len(lit) < 2 {
		return ""
	}
	body := lit[1 : len(lit)-1]
	plain := true
	for _, c := range body {
		if c == '\\' {
			plain = false
			break
		}
	}
	if plain {
		return string(body)
	}
	out := make([]byte, 0, len(body))
	for i := 0; i < len(body); i++ {
		c := body[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		i++
		if i >= len(body) {
			break
		}
		switch body[i] {
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := hex4(body, i+1)
			if !ok {
				return string(out)
			}
			i += 4
			if r >= 0xD800 && r < 0xDC00 && i+6 < len(body) && body[i+1] == '\\' && body[i+2] == 'u' {
				if r2, ok := hex4(body, i+3); ok && r2 >= 0xDC00 && r2 < 0xE000 {
					r = 0x10000 + (r-0xD800)<<10 + (r2 - 0xDC00)
					i += 6
				}
			}
			out = utf8.AppendRune(out, rune(r))
		default: // '"', '\\', '/'
			out = append(out, body[i])
		}
	}
	return string(out)
}

// Lookup returns the raw value of key among the members of obj, a valid JSON
// object, or false. The first member with that key wins. It skips values without
// re-validating them, so it is fast; on invalid input it returns false or a
// meaningless slice, never panics.
func Lookup(obj []byte, key string) ([]byte, bool) {
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return nil, false
	}
	i = skipSpace(obj, i+1)
	for i < len(obj) && obj[i] == '"' {
		kEnd := skipValid(obj, i)
		match := keyEquals(obj[i:kEnd], key)
		i = skipSpace(obj, kEnd)
		if i >= len(obj) || obj[i] != ':' {
			return nil, false
		}
		i = skipSpace(obj, i+1)
		vEnd := skipValid(obj, i)
		if match {
			return obj[i:vEnd], vEnd > i
		}
		i = skipSpace(obj, vEnd)
		if i >= len(obj) || obj[i] != ',' {
			return nil, false
		}
		i = skipSpace(obj, i+1)
	}
	return nil, false
}

// HasKey reports whether obj, a valid JSON object, has a member called key:
// Lookup's answer without a scan of that member's value.
func HasKey(obj []byte, key string) bool {
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return false
	}
	i = skipSpace(obj, i+1)
	for i < len(obj) && obj[i] == '"' {
		kEnd := skipValid(obj, i)
		if keyEquals(obj[i:kEnd], key) {
			return true
		}
		i = skipSpace(obj, kEnd)
		if i >= len(obj) || obj[i] != ':' {
			return false
		}
		i = skipSpace(obj, skipValid(obj, skipSpace(obj, i+1)))
		if i >= len(obj) || obj[i] != ',' {
			return false
		}
		i = skipSpace(obj, i+1)
	}
	return false
}

// LookupLast is Lookup with the last member with that key winning, as
// JSON.parse reads an object that names a key twice.
func LookupLast(obj []byte, key string) ([]byte, bool) {
	fs := Fields(obj, nil)
	for i := len(fs) - 1; i >= 0; i-- {
		if keyEquals(fs[i].Key, key) {
			return fs[i].Value, len(fs[i].Value) > 0
		}
	}
	return nil, false
}

// keyEquals compares a string literal with key.
func keyEquals(lit []byte, key string) bool {
	if len(lit) < 2 {
		return false
	}
	body := lit[1 : len(lit)-1]
	for _, c := range body {
		if c == '\\' {
			return Unquote(lit) == key
		}
	}
	return string(body) == key
}

// skipValid returns the end of the value at data[i], assuming it is valid JSON.
func skipValid(data []byte, i int) int {
	depth := 0
	nextYield := i + yieldBytes
	for i < len(data) {
		if i >= nextYield && yieldFn != nil {
			// A lookup that skips a value of megabytes (the messages of a
			// 100,000-message create: 65 ms in one piece under load) lets
			// the host run others, as a scan does (SetYield).
			yieldFn()
			nextYield = i + yieldBytes
		}
		switch c := data[i]; c {
		case '"':
			i++
			for i < len(data) && data[i] != '"' {
				// Eight bytes at a time while none of them ends the string
				// or escapes (a message's text is most of what a lookup
				// skips, and it skips it once per key it looks for).
				for i+8 <= len(data) && !quoteOrEscape8(load8(data, i)) {
					i += 8
				}
				if i >= len(data) || data[i] == '"' {
					break
				}
				if data[i] == '\\' {
					i++
				}
				i++
			}
			if i >= len(data) {
				return len(data)
			}
			i++
		case '{', '[':
			depth++
			i++
		case '}', ']':
			depth--
			i++
		case ',', ':', ' ', '\t', '\n', '\r':
			if depth == 0 {
				return i
			}
			i++
		default:
			i++
		}
		if depth <= 0 {
			// A scalar continues until a delimiter; a container or string ends here.
			if depth < 0 {
				return i - 1
			}
			if c := data[i-1]; c == '"' || c == '}' || c == ']' {
				return min(i, len(data))
			}
		}
	}
	return min(i, len(data))
}

// LookupString returns the string value of key in a JSON object, or false when
// the key is absent or not a string.
func LookupString(obj []byte, key string) (string, bool) {
	raw, ok := Lookup(obj, key)
	if !ok || len(raw) == 0 || raw[0] != '"' {
		return "", false
	}
	return Unquote(raw), true
}

// quoteOrEscape8 reports whether one of the eight bytes in x is '"' or '\\'.
func quoteOrEscape8(x uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	zeroIn := func(v uint64) uint64 { return (v - ones) & ^v & highs }
	return zeroIn(x^(ones*'"'))|zeroIn(x^(ones*'\\')) != 0
}

// Field is one member of a JSON object: its key as a literal (quotes and
// escapes as written) and its value.
type Field struct{ Key, Value []byte }

// Fields appends the members of the object obj to buf, in order, in one
// pass, assuming valid JSON as Lookup does (it stops where obj is not); nil
// when obj is not an object. A reader that asks one object for many keys
// scans it once with Fields and Get, where each Lookup would scan it again.
func Fields(obj []byte, buf []Field) []Field {
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return nil
	}
	out := buf[:0]
	i = skipSpace(obj, i+1)
	for i < len(obj) && obj[i] == '"' {
		kEnd := skipValid(obj, i)
		key := obj[i:kEnd]
		i = skipSpace(obj, kEnd)
		if i >= len(obj) || obj[i] != ':' {
			return out
		}
		i = skipSpace(obj, i+1)
		vEnd := skipValid(obj, i)
		out = append(out, Field{key, obj[i:vEnd]})
		i = skipSpace(obj, vEnd)
		if i >= len(obj) || obj[i] != ',' {
			return out
		}
		i = skipSpace(obj, i+1)
	}
	return out
}

// Get returns the value of the first of fields named key, as Lookup returns
// it from the object they were read from.
func Get(fields []Field, key string) ([]byte, bool) {
	for _, f := range fields {
		if keyEquals(f.Key, key) {
			return f.Value, len(f.Value) > 0
		}
	}
	return nil, false
}
