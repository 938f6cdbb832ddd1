// Package rawjson reads and writes JSON at the byte level, without reflection.
//
// It validates strictly (RFC 8259, valid UTF-8, no lone surrogate escapes), keeps
// values as the exact bytes they came in (compacted), and never recurses: nesting is
// tracked on an explicit stack, so no input can overflow the goroutine stack.
package rawjson

import (
	"strconv"
	"unicode/utf8"
)

// MaxDepth bounds how deeply arrays and objects may nest in one value.
const MaxDepth = 10000

// SyntaxError reports malformed JSON and the byte offset where it was found.
type SyntaxError struct {
	Offset int
	Msg    string
}

func (e *SyntaxError) Error() string {
	return e.Msg + " at byte " + strconv.Itoa(e.Offset)
}

// Not inlined: a cold helper, one copy instead of one per call site (module size).
//
//go:noinline
func errAt(off int, msg string) error { return &SyntaxError{Offset: off, Msg: msg} }

// isSpace reports JSON insignificant whitespace.
func isSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\r' || c == '\t' }

// skipSpace returns the first position at or after i that is not whitespace.
func skipSpace(data []byte, i int) int {
	for i < len(data) && isSpace(data[i]) {
		i++
	}
	return i
}

// Valid reports whether data is exactly one well-formed JSON value, optionally
// surrounded by whitespace.
// It only scans: Compact made a copy of a spaced document to throw away (a
// 345 MB spaced export was copied twice to detect its format).
func Valid(data []byte) bool {
	end, _, err := scanValue(data, skipSpace(data, 0), nil)
	return err == nil && skipSpace(data, end) == len(data)
}

// Compact validates data as one JSON value and appends it to dst without
// insignificant whitespace. String contents, number text and key order are kept
// exactly. When data is already compact and dst is nil, the result aliases data.
func Compact(dst, data []byte) ([]byte, error) { return compact(dst, data, nil) }

// compact is Compact, checking keys with kt when it is not nil.
func compact(dst, data []byte, kt *keyTracker) ([]byte, error) {
	start := skipSpace(data, 0)
	end, spaced, err := scanValue(data, start, kt)
	if err != nil {
		if kt != nil {
			return dst, kt.located(data, start, err)
		}
		return dst, err
	}
	if skipSpace(data, end) != len(data) {
		return dst, errAt(skipSpace(data, end), "unexpected data after the JSON value")
	}
	if !spaced {
		if dst == nil {
			return data[start:end], nil
		}
		return append(dst, data[start:end]...), nil
	}
	return appendCompact(dst, data[start:end]), nil
}

// appendCompact copies a valid JSON value, dropping whitespace outside strings.
// dst is grown once to hold all of v: appended to piece by piece, a large
// value's copy grew a quarter at a time and left four times itself as garbage
// (a 47 MB spaced ChatGPT conversation: 477 MB allocated compacting it).
func appendCompact(dst, v []byte) []byte {
	n := len(dst)
	if cap(dst)-n < len(v) {
		dst = append(make([]byte, 0, n+len(v)), dst...)
	}
	dst = dst[:n+len(v)]
	j := n
	for i := 0; i < len(v); {
		c := v[i]
		if c != '"' {
			if !isSpace(c) {
				dst[j] = c
				j++
			}
			i++
			continue
		}
		// A string literal, copied whole: its plain bytes passed 8 at a time.
		k := i + 1
		for k < len(v) {
			if k+8 <= len(v) && !quoteOrEscape8(load8(v, k)) {
				k += 8
			} else if v[k] == '\\' {
				k += 2
			} else if k++; v[k-1] == '"' {
				break
			}
		}
		k = min(k, len(v))
		j += copy(dst[j:], v[i:k])
		i = k
	}
	return dst[:j]
}

// ScanValue validates the JSON value starting at data[i] (after any whitespace)
// and returns the position just past it.
func ScanValue(data []byte, i int) (int, error) {
	end, _, err := scanValue(data, skipSpace(data, i), nil)
	return end, err
}

// scanValue validates one value starting exactly at data[i]. spaced reports
// whether insignificant whitespace occurs inside it. It is iterative: a byte stack
// remembers the open containers.
//
// With a non-nil kt it also tracks the keys of every object (see keyTracker):
// a key that repeats an earlier key of its object is a *DuplicateKeyError, or,
// when kt collects, a member to drop.
func scanValue(data []byte, i int, kt *keyTracker) (end int, spaced bool, err error) {
	var stackBuf [64]byte
	stack := stackBuf[:0]
	nextYield := i + yieldBytes
	for {
		if i >= nextYield && yieldFn != nil {
			yieldFn() // a long body: let the host run others (SetYield)
			nextYield = i + yieldBytes
		}
		// Expect a value at i.
		if i >= len(data) {
			return i, spaced, errAt(i, "unexpected end of JSON input")
		}
		switch c := data[i]; {
		case c == '{' || c == '[':
			if len(stack) >= MaxDepth {
				return i, spaced, errAt(i, "JSON nested too deeply")
			}
			stack = append(stack, c)
			j := skipSpace(data, i+1)
			if j != i+1 {
				spaced = true
			}
			if j < len(data) && data[j] == closer(c) {
				stack = stack[:len(stack)-1]
				i = j + 1
				break
			}
			if c == '{' {
				if kt != nil {
					kt.open()
				}
				if i, err = scanKey(data, j, &spaced); err != nil {
					return i, spaced, err
				}
				if kt != nil {
					if err = kt.key(data, j); err != nil {
						return j, spaced, err
					}
				}
			} else {
				i = j
			}
			continue
		case c == '"':
			if i, err = scanString(data, i); err != nil {
				return i, spaced, err
			}
		case c == '-' || (c >= '0' && c <= '9'):
			if i, err = scanNumber(data, i); err != nil {
				return i, spaced, err
			}
		case c == 't':
			if i, err = scanLiteral(data, i, "true"); err != nil {
				return i, spaced, err
			}
		case c == 'f':
			if i, err = scanLiteral(data, i, "false"); err != nil {
				return i, spaced, err
			}
		case c == 'n':
			if i, err = scanLiteral(data, i, "null"); err != nil {
				return i, spaced, err
			}
		default:
			return i, spaced, errAt(i, "invalid character "+quoteByte(c)+" looking for a value")
		}
		// A value ended at i: close containers or move to the next element.
		for {
			if len(stack) == 0 {
				return i, spaced, nil
			}
			j := skipSpace(data, i)
			if j != i {
				spaced = true
			}
			if j >= len(data) {
				return j, spaced, errAt(j, "unexpected end of JSON input")
			}
			top := stack[len(stack)-1]
			if data[j] == closer(top) {
				stack = stack[:len(stack)-1]
				if kt != nil && top == '{' {
					kt.close()
				}
				i = j + 1
				continue
			}
			if data[j] != ',' {
				return j, spaced, errAt(j, "invalid character "+quoteByte(data[j])+" after a value")
			}
			k := skipSpace(data, j+1)
			if k != j+1 {
				spaced = true
			}
			if top == '{' {
				if i, err = scanKey(data, k, &spaced); err != nil {
					return i, spaced, err
				}
				if kt != nil {
					if err = kt.key(data, k); err != nil {
						return k, spaced, err
					}
				}
			} else {
				i = k
			}
			break
		}
	}
}

// scanKey validates `"key" :` at i and returns the position of the value.
func scanKey(data []byte, i int, spaced *bool) (int, error) {
	if i >= len(data) || data[i] != '"' {
		return i, errAt(i, "expected a string key")
	}
	j, err := scanString(data, i)
	if err != nil {
		return j, err
	}
	k := skipSpace(data, j)
	if k >= len(data) || data[k] != ':' {
		return k, errAt(k, "expected ':' after an object key")
	}
	v := skipSpace(data, k+1)
	if k != j || v != k+1 {
		*spaced = true
	}
	return v, nil
}

func closer(open byte) byte {
	if open == '{' {
		return '}'
	}
	return ']'
}

func quoteByte(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return "'" + string(rune(c)) + "'"
	}
	return "0x" + strconv.FormatUint(uint64(c), 16)
}

func scanLiteral(data []byte, i int, lit string) (int, error) {
	if len(data)-i < len(lit) || string(data[i:i+len(lit)]) != lit {
		return i, errAt(i, "invalid literal, expected "+lit)
	}
	return i + len(lit), nil
}

// scanNumber validates a JSON number at i.
func scanNumber(data []byte, i int) (int, error) {
	start := i
	if data[i] == '-' {
		i++
	}
	if i >= len(data) {
		return i, errAt(start, "invalid number")
	}
	if data[i] == '0' {
		i++
	} else if data[i] >= '1' && data[i] <= '9' {
		for i < len(data) && data[i] >= '0' && data[i] <= '9' {
			i++
		}
	} else {
		return i, errAt(start, "invalid number")
	}
	if i < len(data) && data[i] == '.' {
		i++
		d := i
		for i < len(data) && data[i] >= '0' && data[i] <= '9' {
			i++
		}
		if i == d {
			return i, errAt(start, "invalid number: no digits after '.'")
		}
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		d := i
		for i < len(data) && data[i] >= '0' && data[i] <= '9' {
			i++
		}
		if i == d {
			return i, errAt(start, "invalid number: no digits in exponent")
		}
	}
	return i, nil
}

// Unterminated is the message of the error of a string that runs past the
// data's end: the only error whose offset (the string's start) may be far
// before where the scan stopped.
const Unterminated = "unterminated string"

// scanString validates a JSON string starting at the quote at data[i] and returns
// the position after the closing quote. It rejects invalid UTF-8, control
// characters and escapes of lone UTF-16 surrogates.
func scanString(data []byte, i int) (int, error) {
	start := i
	i++
	for {
		// Fast path over plain ASCII: eight bytes at a time while none of them
		// is a quote, a backslash, a control character or non-ASCII, then one
		// at a time.
		for i+8 <= len(data) && plain8(load8(data, i)) {
			i += 8
		}
		for i < len(data) {
			c := data[i]
			if c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
				break
			}
			i++
		}
		if i >= len(data) {
			return i, errAt(start, Unterminated)
		}
		c := data[i]
		switch {
		case c == '"':
			return i + 1, nil
		case c == '\\':
			if i+1 >= len(data) {
				return i, errAt(start, Unterminated)
			}
			switch data[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				r, ok := hex4(data, i+2)
				if !ok {
					return i, errAt(i, "invalid \\u escape")
				}
				i += 6
				if r >= 0xD800 && r < 0xDC00 {
					r2, ok := -1, false
					if i+1 < len(data) && data[i] == '\\' && data[i+1] == 'u' {
						r2, ok = hex4(data, i+2)
					}
					if !ok || r2 < 0xDC00 || r2 >= 0xE000 {
						return i - 6, errAt(i-6, "lone surrogate escape in string")
					}
					i += 6
				} else if r >= 0xDC00 && r < 0xE000 {
					return i - 6, errAt(i-6, "lone surrogate escape in string")
				}
			default:
				return i, errAt(i, "invalid escape in string")
			}
		case c < 0x20:
			return i, errAt(i, "control character in string")
		default:
			r, size := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && size <= 1 {
				return i, errAt(i, "invalid UTF-8 in string")
			}
			i += size
		}
	}
}

// load8 reads data[i:i+8] as a little-endian word (the compiler turns this
// into one load).
func load8(data []byte, i int) uint64 {
	b := data[i : i+8 : i+8]
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

// plain8 reports whether none of the eight bytes in x ends or interrupts the
// plain part of a string: '"', '\\', a control character (< 0x20) or a byte
// ≥ 0x80 (with the usual "has a zero byte" bit trick, exact for the word).
func plain8(x uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	zeroIn := func(v uint64) uint64 { return (v - ones) & ^v & highs }
	return (x&highs)|zeroIn(x^(ones*'"'))|zeroIn(x^(ones*'\\'))|((x-ones*0x20) & ^x & highs) == 0
}

func hex4(data []byte, i int) (int, bool) {
	if len(data)-i < 4 {
		return 0, false
	}
	v := 0
	for _, c := range data[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			v = v<<4 | int(c-'0')
		case c >= 'a' && c <= 'f':
			v = v<<4 | int(c-'a'+10)
		case c >= 'A' && c <= 'F':
			v = v<<4 | int(c-'A'+10)
		default:
			return 0, false
		}
	}
	return v, true
}
