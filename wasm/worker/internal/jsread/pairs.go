package jsread

import (
	"errors"
	"strings"
)

// Headers cross between JavaScript and Go as one string, "name\nvalue\n…"
// (Pack, Unpack), not as an array of [name, value] arrays: each element of
// such an array is a value of its own to fetch (a call into JavaScript, and
// a finalizer in Go's runtime), about 3 a header, and each request crossed
// twice (the router, its object), each answer once. A profile of 2,000
// upgrades on one tree spent a quarter of the isolate's busy time making
// requests and answers. A header's name and value hold no line break (HTTP
// forbids them, and JavaScript's Headers refuses them).

// Pack appends the header name: value to b, packed.
func Pack(b []byte, name, value string) []byte {
	if len(b) > 0 {
		b = append(b, '\n')
	}
	b = appendClean(b, name)
	b = append(b, '\n')
	return appendClean(b, value)
}

// appendClean appends s with any line break as a space (which a header can
// never hold anyway: a Response refuses it).
func appendClean(b []byte, s string) []byte {
	if !strings.ContainsAny(s, "\r\n") {
		return append(b, s...)
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\r' || c == '\n' {
			c = ' '
		}
		b = append(b, c)
	}
	return b
}

// Unpack calls add with each header packed in s, in order.
func Unpack(s string, add func(name, value string)) error {
	if s == "" {
		return nil
	}
	for {
		name, rest, ok := strings.Cut(s, "\n")
		if !ok {
			return errors.New("packed headers end with a name without a value")
		}
		value, next, more := strings.Cut(rest, "\n")
		add(name, value)
		if !more {
			return nil
		}
		s = next
	}
}
