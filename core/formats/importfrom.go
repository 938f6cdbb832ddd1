package formats

import (
	"bytes"
	"errors"
	"unsafe"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/rawjson"
)

// wholeUnder is the size under which ImportEachFrom reads a file whole
// before it imports it, exactly as ImportEach does (tests lower it).
var wholeUnder = 2 << 20

// ImportEachFrom is ImportEach reading the file from next, which returns the
// file's next bytes each time it is called (any length; what it returned
// may be overwritten once it is called again) and nothing at the file's
// end; size is the file's length when known (0: not known), to read it into
// one buffer when it is read whole. A list of conversations (ChatGPT's,
// claude.ai's or Open WebUI's export) of wholeUnder bytes or more is read a
// conversation at a time, so that the caller never holds the file: the
// interchange module held a 345 MB export whole, beside what it read of it,
// and at 0.93 GB never gave the memory back. It holds the conversation at
// hand and what the pieces read past it. Anything else is read whole, then
// imported by ImportEach. The conversations, their reports and the errors
// are ImportEach's, but for a conversation's problem, which does not say of
// how many conversations: their count is not known before the end.
func ImportEachFrom(size int, next func() []byte, format string, fn func(cv Conversation, size int), opts ...core.Option) error {
	r := &pieces{next: next}
	for len(r.b) < wholeUnder && r.more() {
	}
	if r.eof {
		return ImportEach(r.b, format, fn, opts...)
	}
	// The list's first conversation, whole, tells the format when not given.
	start := 0
	if bytes.HasPrefix(r.b, bom) {
		start = len(bom)
	}
	start, c := r.peek(start)
	if c != '[' {
		return r.whole(size, format, fn, opts)
	}
	at, c := r.peek(start + 1)
	if c == ']' || c < 0 {
		return r.whole(size, format, fn, opts)
	}
	it, end, err := r.value(at)
	if err != nil {
		return r.whole(size, format, fn, opts)
	}
	f := format
	if f == Auto || f == "" {
		f = exportOf(it) // what Detect says of a list whose first element is it, without its scans of the whole
	}
	if f != ChatGPT && f != ClaudeAI && f != OpenWebUI {
		return r.whole(size, format, fn, opts) // as given: ImportEach detects it on the whole file
	}
	return r.list(start, it, end, f, fn, opts)
}

// pieces is a file read a piece at a time: b holds its bytes from the
// offset base on (0 until a list's conversations are read). Offsets below
// are the file's.
type pieces struct {
	next    func() []byte
	b       []byte
	base    int
	keep    int // the first offset still needed: more lets go of what is before it
	eof     bool
	listing bool // reading a list's conversations (list), not a file to read whole
}

// more reads the next piece after what is read; false at the file's end.
// A slice of b handed out is never written again: b is copied to a new
// buffer when it lets go of what is kept no longer (a tree may hold
// pieces of a conversation's bytes).
func (r *pieces) more() bool {
	if r.eof {
		return false
	}
	p := r.next()
	if len(p) == 0 {
		r.eof = true
		if r.listing {
			r.trimEnd()
		}
		return false
	}
	if drop := r.keep - r.base; drop > 0 && drop >= len(r.b)/2 {
		r.letGo(len(p))
	}
	r.b = append(r.b, p...)
	return true
}

// letGo copies what is kept of b, from keep on, to a new buffer with room
// for n bytes more.
func (r *pieces) letGo(n int) {
	drop := r.keep - r.base
	b := make([]byte, len(r.b)-drop, len(r.b)-drop+n)
	copy(b, r.b[drop:])
	r.b, r.base = b, r.keep
}

// holds reports whether v is a slice of b's array: a value read whole from
// it, not a copy (a spaced value is compacted into one).
func (r *pieces) holds(v []byte) bool {
	if len(v) == 0 || cap(r.b) == 0 {
		return false
	}
	p, lo := uintptr(unsafe.Pointer(unsafe.SliceData(v))), uintptr(unsafe.Pointer(unsafe.SliceData(r.b)))
	return p >= lo && p < lo+uintptr(cap(r.b))
}

// trimEnd drops the file's trailing spaces, once its end is read, as
// ImportEach trims the file: an error at its end is then at the same offset.
func (r *pieces) trimEnd() { r.b = bytes.TrimRight(r.b, " \n\r\t") }

// readOn reads until what is read past from has doubled (a piece at least),
// or to the file's end: a scan from from that ran into the end of what was
// read runs again on twice as much, so that each byte is scanned about twice.
func (r *pieces) readOn(from int) {
	for n := len(r.b) - (from - r.base); r.more() && len(r.b)-(from-r.base) < 2*n; {
	}
}

// peek skips spaces from at and returns where the next byte is and that
// byte, reading more as needed; -1 at the file's end (a NUL byte is data).
func (r *pieces) peek(at int) (int, int) {
	for {
		for i := at - r.base; i < len(r.b); i++ {
			if c := r.b[i]; c != ' ' && c != '\n' && c != '\r' && c != '\t' {
				return r.base + i, int(c)
			}
			at++
		}
		if !r.more() {
			return min(at, r.base+len(r.b)), -1
		}
	}
}

// value is the JSON value at at (spaces skipped), as rawjson's Decoder.Raw
// gives it, and where it ends, reading more while its scan runs into the
// end of what is read: until what is read past at has doubled, so that a
// large conversation is scanned twice at most. A value must be followed
// by a byte or by the file's end (a number may go on in the next piece).
// An error's offset is from at.
func (r *pieces) value(at int) ([]byte, int, error) {
	for {
		win := r.b[min(at-r.base, len(r.b)):]
		d := rawjson.NewDecoder(win)
		v, err := d.Raw()
		if err == nil && (d.Pos() < len(win) || r.eof) {
			return v, at + d.Pos(), nil
		}
		if err != nil && (r.eof || !(ranOut(err, len(win)) || mayGoOn(win))) {
			return nil, 0, err
		}
		r.readOn(at)
	}
}

// list reads the list of conversations that starts at start, whose first,
// it, ends at end, and hands each to fn, as ImportEach's list does.
func (r *pieces) list(start int, it []byte, end int, format string, fn func(cv Conversation, size int), opts []core.Option) error {
	r.listing = true
	if r.eof { // the head's reads ran into the end
		r.trimEnd()
	}
	var err error
	for i := 0; ; i++ {
		// Where the list's conversations are: the file from there.
		at, c := r.peek(end)
		count := -1
		if i == 0 && c == ']' {
			// One conversation alone, when nothing but spaces follows.
			if _, after := r.peek(at + 1); after < 0 {
				count = 1
			}
		}
		r.keep = end // where the last whole conversation ends, until the next one is read
		if drop := r.keep - r.base; drop >= len(r.b)/2 && drop > 0 && !r.holds(it) {
			// it is a copy, and most of b: b's bytes of it go before its
			// import, not after (a spaced 47 MB conversation held them
			// twice through it).
			r.letGo(0)
		}
		importOne(format, it, i, count, fn, opts)
		switch c {
		case ',':
			var rel int
			if it, rel, err = r.value(at + 1); err == nil {
				end = rel
				continue
			}
			err = shift(err, at+1-start)
		case ']':
			if after, c := r.peek(at + 1); c >= 0 {
				err = &rawjson.SyntaxError{Offset: after - start, Msg: "unexpected data after the JSON value"}
			} else {
				return nil
			}
		default:
			err = &rawjson.SyntaxError{Offset: at - start, Msg: "expected ',' or ']' in an array"}
		}
		// What follows the last whole conversation, as far as it takes to
		// tell whether the file's end cut it.
		for !r.eof && mayGoOn(r.b[end-r.base:]) {
			r.readOn(end)
		}
		return listStops(format, i+1, err, cutShort(r.b[end-r.base:]))
	}
}

// mayGoOn reports whether rest, bytes read so far, may read otherwise with
// the bytes that follow: cutShort's beginning of more, or a scan that fails
// near its end (an escape or a pair of them, a character or a literal the
// end cut: the scan says where the cut token starts), where more bytes
// could mend it.
func mayGoOn(rest []byte) bool {
	if cutShort(rest) {
		return true
	}
	at := 0
	if rest = trimSpace(rest); len(rest) > 0 && rest[0] == ',' {
		at = 1
	}
	end, err := rawjson.ScanValue(rest, at)
	if err == nil {
		return end >= len(rest) // a number may go on
	}
	near := len(rest) - 16 // an escape pair (\ud83d\ude00) is 12 bytes
	var se *rawjson.SyntaxError
	return end >= near || errors.As(err, &se) && se.Offset >= near
}

// ranOut reports whether err, a scan's of a window of n bytes, ran into
// the window's end, where mayGoOn says that more bytes could mend it,
// without mayGoOn's two scans again: most reads of a large conversation
// end there.
func ranOut(err error, n int) bool {
	var se *rawjson.SyntaxError
	return n >= 64 && errors.As(err, &se) && (se.Offset >= n-16 || se.Msg == rawjson.Unterminated)
}

// shift moves a scan error's offset by by: from where the scan started to
// where the list does.
func shift(err error, by int) error {
	if e, ok := err.(*rawjson.SyntaxError); ok {
		return &rawjson.SyntaxError{Offset: e.Offset + by, Msg: e.Msg}
	}
	return err
}

// whole reads the rest of the file and imports it as ImportEach does.
func (r *pieces) whole(size int, format string, fn func(cv Conversation, size int), opts []core.Option) error {
	if size > cap(r.b) {
		b := make([]byte, len(r.b), size)
		copy(b, r.b)
		r.b = b
	}
	for r.more() {
	}
	return ImportEach(r.b, format, fn, opts...)
}
