// Command packdata rewrites a Go WebAssembly module's data section into a few
// segments, for a smaller download once compressed, and has its runtime grow
// the memory in chunks rather than 512 KB at a time (ChunkGrowth, growth.go):
//
//	go run ./wasm/internal/packdata in.wasm out.wasm
//
// Go's linker starts a new data segment at every run of 8 or more zero bytes,
// which keeps the file small uncompressed but costs each segment a header
// (an offset and a length, ~8 bytes that compress badly): the lean module had
// ~31,000 segments, most of them split by runs of 17–24 zeros between the
// runtime's tables. packdata joins segments whose gap is at most MaxGap bytes,
// writing the zeros between them, which gzip and brotli all but erase: ~6%
// less gzipped (the lean module −53 KB, a bare Go program −40 KB), ~10% more
// uncompressed. The memory the module starts with is byte for byte the same
// (segments never overlap; memory starts zeroed). Pack copies every other
// section as it is.
//
// It reads and writes only the MVP's active segments of memory 0 (what Go
// writes); anything else is refused with an error, the output left unwritten.
package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"sort"
)

// MaxGap is the longest run of zeros written out to join two segments.
const MaxGap = 64

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: packdata in.wasm out.wasm")
		os.Exit(2)
	}
	in, err := os.ReadFile(os.Args[1])
	if err == nil {
		var out []byte
		if out, err = Pack(in, MaxGap); err == nil {
			out, err = ChunkGrowth(out)
		}
		if err == nil {
			err = os.WriteFile(os.Args[2], out, 0o644)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "packdata:", err)
		os.Exit(1)
	}
}

type segment struct {
	at   uint64
	data []byte
}

// Pack returns m with its data segments joined across gaps of at most maxGap
// zero bytes.
func Pack(m []byte, maxGap uint64) ([]byte, error) {
	secs, err := sections(m)
	if err != nil {
		return nil, err
	}
	out := append([]byte(nil), m[:8]...)
	for _, s := range secs {
		switch s.id {
		case 11: // data
			packed, err := packData(s.body, maxGap)
			if err != nil {
				return nil, err
			}
			out = append(out, 11)
			out = appendUint(out, uint64(len(packed)))
			out = append(out, packed...)
		case 12: // data count: it would have to match; Go does not write one
			return nil, errors.New("a data count section (not written by Go): not handled")
		default:
			out = append(out, m[s.start:s.end]...)
		}
	}
	return out, nil
}

// section is one section of a module: its id, where it starts and ends in
// the module (the id and size included), and its body.
type section struct {
	id         byte
	start, end int
	body       []byte
}

// sections splits a module (its header checked) into its sections.
func sections(m []byte) ([]section, error) {
	if len(m) < 8 || !bytes.Equal(m[:8], []byte("\x00asm\x01\x00\x00\x00")) {
		return nil, errors.New("not a WebAssembly module (version 1)")
	}
	var secs []section
	r := reader{b: m, i: 8}
	for r.i < len(m) {
		start := r.i
		id := r.byte()
		size := r.uint()
		if r.err != nil || size > uint64(len(m)-r.i) {
			return nil, errors.New("a section runs past the end of the module")
		}
		secs = append(secs, section{id, start, r.i + int(size), m[r.i : r.i+int(size)]})
		r.i += int(size)
	}
	return secs, nil
}

func packData(b []byte, maxGap uint64) ([]byte, error) {
	r := reader{b: b}
	n := r.uint()
	segs := make([]segment, 0, min(n, uint64(len(b))))
	for k := uint64(0); k < n && r.err == nil; k++ {
		// flags 0: active, memory 0, offset an i32.const expression
		if r.uint() != 0 || r.byte() != 0x41 {
			return nil, errors.New("a data segment other than an active one at an i32.const offset")
		}
		at := r.int()
		if r.byte() != 0x0b || at < 0 {
			return nil, errors.New("a data segment offset other than one i32.const")
		}
		l := r.uint()
		if r.err != nil || l > uint64(len(b)-r.i) {
			break
		}
		segs = append(segs, segment{uint64(at), b[r.i : r.i+int(l)]})
		r.i += int(l)
	}
	if r.err != nil || r.i != len(b) || uint64(len(segs)) != n {
		return nil, errors.New("a malformed data section")
	}
	sort.Slice(segs, func(i, j int) bool { return segs[i].at < segs[j].at })
	var joined []segment
	for _, s := range segs {
		if k := len(joined) - 1; k >= 0 {
			last := &joined[k]
			end := last.at + uint64(len(last.data))
			if s.at < end {
				return nil, errors.New("data segments overlap")
			}
			if s.at-end <= maxGap {
				last.data = append(append(last.data, make([]byte, s.at-end)...), s.data...)
				continue
			}
		}
		joined = append(joined, segment{s.at, append([]byte(nil), s.data...)})
	}
	out := appendUint(nil, uint64(len(joined)))
	for _, s := range joined {
		out = append(out, 0, 0x41)
		out = appendInt(out, int64(s.at))
		out = append(out, 0x0b)
		out = appendUint(out, uint64(len(s.data)))
		out = append(out, s.data...)
	}
	return out, nil
}

type reader struct {
	b   []byte
	i   int
	err error
}

func (r *reader) byte() byte {
	if r.i >= len(r.b) {
		r.err = errors.New("unexpected end")
		return 0
	}
	r.i++
	return r.b[r.i-1]
}

// uint reads an unsigned LEB128 number.
func (r *reader) uint() uint64 {
	var n uint64
	for shift := uint(0); shift < 64; shift += 7 {
		c := r.byte()
		n |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return n
		}
	}
	r.err = errors.New("a number too long")
	return 0
}

// int reads a signed LEB128 number.
func (r *reader) int() int64 {
	var n int64
	for shift := uint(0); shift < 64; shift += 7 {
		c := r.byte()
		n |= int64(c&0x7f) << shift
		if c < 0x80 {
			if shift+7 < 64 && c&0x40 != 0 {
				n |= -1 << (shift + 7)
			}
			return n
		}
	}
	r.err = errors.New("a number too long")
	return 0
}

func appendUint(b []byte, n uint64) []byte {
	for n >= 0x80 {
		b = append(b, byte(n)|0x80)
		n >>= 7
	}
	return append(b, byte(n))
}

func appendInt(b []byte, n int64) []byte {
	for {
		c := byte(n & 0x7f)
		n >>= 7
		if (n == 0 && c&0x40 == 0) || (n == -1 && c&0x40 != 0) {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}
