package main

import (
	"bytes"
	"os"
	"testing"
)

// module builds a module with a type section (copied untouched) and the data
// segments given, in that order.
func module(segs ...segment) []byte {
	m := []byte("\x00asm\x01\x00\x00\x00")
	m = append(m, 1, 4, 1, 0x60, 0, 0) // one type: func() -> ()
	var d []byte
	d = appendUint(d, uint64(len(segs)))
	for _, s := range segs {
		d = append(d, 0, 0x41)
		d = appendInt(d, int64(s.at))
		d = append(d, 0x0b)
		d = appendUint(d, uint64(len(s.data)))
		d = append(d, s.data...)
	}
	m = append(m, 11)
	m = appendUint(m, uint64(len(d)))
	return append(m, d...)
}

// image is the memory the module's data segments write, from address 0.
func image(t *testing.T, m []byte) (mem []byte, segments int) {
	t.Helper()
	r := reader{b: m, i: 8}
	for r.i < len(m) {
		id, size := r.byte(), r.uint()
		body := m[r.i : r.i+int(size)]
		r.i += int(size)
		if id != 11 {
			continue
		}
		d := reader{b: body}
		n := d.uint()
		for k := uint64(0); k < n; k++ {
			d.uint()
			d.byte()
			at := int(d.int())
			d.byte()
			l := int(d.uint())
			if len(mem) < at+l {
				mem = append(mem, make([]byte, at+l-len(mem))...)
			}
			copy(mem[at:], body[d.i:d.i+l])
			d.i += l
		}
		segments = int(n)
	}
	if r.err != nil {
		t.Fatal(r.err)
	}
	return mem, segments
}

func TestPackKeepsTheMemory(t *testing.T) {
	in := module(
		segment{300, []byte("far")},
		segment{0, []byte("abc")},
		segment{3 + 10, []byte("\x01\x02")},           // a gap of 10: joined
		segment{15 + MaxGap + 1, []byte("after gap")}, // a gap past MaxGap: kept apart
		segment{200000, bytes.Repeat([]byte{7}, 200)}, // an offset of three LEB128 bytes
	)
	out, err := Pack(in, MaxGap)
	if err != nil {
		t.Fatal(err)
	}
	want, n := image(t, in)
	got, m := image(t, out)
	if !bytes.Equal(got, want) {
		t.Fatal("the packed module starts with other memory")
	}
	if n != 5 || m != 4 {
		t.Fatalf("segments: %d in, %d out; want 5 and 4", n, m)
	}
	if !bytes.Equal(out[8:14], in[8:14]) {
		t.Fatal("the type section changed")
	}
}

func TestPackRefuses(t *testing.T) {
	for name, m := range map[string][]byte{
		"not wasm":  []byte("hello, world"),
		"truncated": module(segment{0, []byte("abc")})[:20],
		"overlap":   module(segment{0, []byte("abcd")}, segment{2, []byte("x")}),
	} {
		if _, err := Pack(m, MaxGap); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// The modules make build writes, when they are there: packed, the same
// memory, their memory grown in chunks.
func TestPackTheModules(t *testing.T) {
	for _, f := range []string{"../../../js/sessiontree.wasm", "../../../js/sessiontree-interchange.wasm"} {
		in, err := os.ReadFile(f)
		if err != nil {
			t.Skipf("%s: %v (make build)", f, err)
		}
		out, err := Pack(in, MaxGap)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := image(t, in)
		got, n := image(t, out)
		if !bytes.Equal(got, want) {
			t.Fatalf("%s: packed, the module starts with other memory", f)
		}
		if again, _ := Pack(out, MaxGap); !bytes.Equal(again, out) {
			t.Fatalf("%s: packing twice changes the module", f)
		}
		if _, err := ChunkGrowth(in); err == nil {
			t.Fatalf("%s: its runtime.growMemory grows the memory 512 KB at a time (packdata's ChunkGrowth not applied)", f)
		}
		t.Logf("%s: %d bytes, %d segments after packing", f, len(out), n)
	}
}
