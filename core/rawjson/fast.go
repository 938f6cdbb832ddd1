package rawjson

import "unsafe"

// The helpers of a fast path: a reader of a known, compact layout (a file this
// package's encoder wrote) reads it with these and, where one of them says no,
// goes back to the Decoder, which reads anything valid and reports errors. They
// answer only "yes, and here is the value" or "no": never an error, never a
// different answer from the Decoder's on what they accept.

// Data is the whole input and the current position, for a fast path that
// reads the bytes itself and then moves the decoder with Seek.
func (d *Decoder) Data() ([]byte, int) { return d.data, d.pos }

// Seek moves the decoder to pos, a position a fast path reached or started at.
func (d *Decoder) Seek(pos int) { d.pos = pos }

// PlainString reads the string literal at data[i] when it holds only printable
// ASCII (0x20–0x7e) and no escape: its content, sharing memory with data (so
// data must never be modified afterwards, see StringView), and the position
// after its closing quote. Anything else — no quote at i, an escape, a control
// or non-ASCII byte, no end — gives ok false.
func PlainString(data []byte, i int) (s string, end int, ok bool) {
	if i >= len(data) || data[i] != '"' {
		return "", i, false
	}
	j := i + 1
	for j+8 <= len(data) {
		if x := load8(data, j); !plain8(x) || highs7f(x) != 0 {
			break
		}
		j += 8
	}
	for j < len(data) {
		c := data[j]
		if c == '"' {
			if j == i+1 {
				return "", j + 1, true
			}
			return unsafe.String(&data[i+1], j-i-1), j + 1, true
		}
		if c < 0x20 || c >= 0x7f || c == '\\' {
			return "", i, false
		}
		j++
	}
	return "", i, false
}

// highs7f marks the bytes of x that are 0x7f (DEL: ASCII, but a control
// character to checkName) with their high bit.
func highs7f(x uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	v := x ^ (ones * 0x7f)
	return (v - ones) & ^v & highs
}

// CompactValue validates the value at data[i] as scanValue does and returns the
// position after it, when it is valid and has no insignificant whitespace (so
// that it is its own compact form, as Raw would return it).
func CompactValue(data []byte, i int) (end int, ok bool) {
	end, spaced, err := scanValue(data, i, nil)
	return end, err == nil && !spaced
}

// PlainInt reads the integer at data[i] when it is one Int64 reads to the same
// value: an optional minus, then 0 or a digit 1–9 and at most 17 more digits,
// not followed by a fraction, an exponent or another digit.
func PlainInt(data []byte, i int) (v int64, end int, ok bool) {
	j := i
	neg := j < len(data) && data[j] == '-'
	if neg {
		j++
	}
	start := j
	for j < len(data) && data[j] >= '0' && data[j] <= '9' && j-start < 18 {
		v = v*10 + int64(data[j]-'0')
		j++
	}
	if j == start || (data[start] == '0' && j > start+1) {
		return 0, i, false
	}
	if j < len(data) {
		if c := data[j]; c == '.' || c == 'e' || c == 'E' || (c >= '0' && c <= '9') {
			return 0, i, false
		}
	}
	if neg {
		v = -v
	}
	return v, j, true
}

// HasPrefixAt reports whether data[i:] starts with lit.
func HasPrefixAt(data []byte, i int, lit string) bool {
	return len(data)-i >= len(lit) && string(data[i:i+len(lit)]) == lit
}
