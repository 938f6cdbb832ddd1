package main

import (
	"bytes"
	"errors"
)

// Go's runtime grows the module's memory as its heap grows, by what one
// allocation needs past the end: 512 KB (a heap arena) at a time. Every
// memory.grow hands JavaScript a new ArrayBuffer of the whole memory, and V8
// counts its full size as newly allocated outside its heap: past a limit
// that starts a collection of the JavaScript heap. So a page holding a large
// chat paid a full collection every 512 KB the module grew by (Node 20: ten
// mark-compacts of 6–10 ms in 10k appends after a 100k-message open; the
// edge worker: V8's stalls while sockets open).
//
// ChunkGrowth rewrites runtime.growMemory so that the memory grows in larger
// steps while the runtime keeps its own sense of the break: where the runtime
// asks for k pages past what it has, the memory grows by at least an eighth
// of its size, at most 2 MiB (32 pages), and k when k is more; a later ask
// that fits in what was grown grows nothing. The runtime's break is kept in a
// global of its own (growMemory's answer, the old break in pages, is what it
// was). Pages grown ahead are untouched until the heap reaches them, so they
// cost address space, not memory a process holds. When a chunk cannot be had
// the exact ask is tried, as before.

// goGrowMemory is the body of runtime.growMemory as Go 1.26's assembler
// writes it (src/runtime/sys_wasm.s): SP into a local, pages loaded from
// 8(SP), memory.grow, the old size stored at 16(SP), the frame popped, 0
// returned.
var goGrowMemory = []byte{
	0x01, 0x01, 0x7f, // one i32 local
	0x23, 0x00, 0x21, 0x01, // SP
	0x20, 0x01, 0x20, 0x01, 0x28, 0x02, 0x08, // pages+0(FP)
	0x40, 0x00, // memory.grow
	0x36, 0x02, 0x10, // ret+8(FP)
	0x20, 0x01, 0x41, 0x08, 0x6a, 0x22, 0x01, 0x24, 0x00, // RET: SP += 8
	0x41, 0x00, 0x0f, 0x00, 0x0b,
}

// skip passes n bytes, or notes the error if fewer are left.
func (r *reader) skip(n uint64) {
	if n > uint64(len(r.b)-r.i) {
		r.err, r.i = errors.New("unexpected end"), len(r.b)
		return
	}
	r.i += int(n)
}

// limits reads a table's or a memory's limits: flags, min, and max when flags has bit 0.
func (r *reader) limits() {
	if r.uint()&1 != 0 {
		r.uint()
	}
	r.uint()
}

// MaxChunkPages is the most the memory grows ahead of an ask, in 64 KiB pages.
const MaxChunkPages = 32

// chunkedGrow is the body of the function growMemory calls instead of
// memory.grow: (param $ask i32) (result i32), the break in global brk.
func chunkedGrow(brk uint64) []byte {
	g := appendUint(nil, brk)
	var b []byte
	op := func(x ...byte) { b = append(b, x...) }
	op(0x01, 0x04, 0x7f) // locals 1 $old, 2 $want, 3 $size, 4 $chunk (i32)
	// The first call: the break is the memory's size (the runtime started there).
	op(0x23)
	op(g...)
	op(0x45, 0x04, 0x40, 0x3f, 0x00, 0x24)
	op(g...)
	op(0x0b)
	// $old = brk; $want = $old + $ask; $size = memory.size
	op(0x23)
	op(g...)
	op(0x22, 0x01, 0x20, 0x00, 0x6a, 0x22, 0x02, 0x3f, 0x00, 0x22, 0x03)
	// if $want > $size:
	op(0x4b, 0x04, 0x40)
	// $chunk = min($size >> 3, MaxChunkPages)
	op(0x20, 0x03, 0x41, 0x03, 0x76, 0x22, 0x04)
	op(0x41)
	op(appendInt(nil, MaxChunkPages)...)
	op(0x4b, 0x04, 0x40, 0x41)
	op(appendInt(nil, MaxChunkPages)...)
	op(0x21, 0x04, 0x0b)
	// $chunk = max($chunk, $want - $size)
	op(0x20, 0x02, 0x20, 0x03, 0x6b, 0x20, 0x04, 0x4b, 0x04, 0x40, 0x20, 0x02, 0x20, 0x03, 0x6b, 0x21, 0x04, 0x0b)
	// if memory.grow($chunk) == -1 && memory.grow($want - $size) == -1: return -1
	op(0x20, 0x04, 0x40, 0x00, 0x41, 0x7f, 0x46, 0x04, 0x40)
	op(0x20, 0x02, 0x20, 0x03, 0x6b, 0x40, 0x00, 0x41, 0x7f, 0x46, 0x04, 0x40, 0x41, 0x7f, 0x0f, 0x0b)
	op(0x0b)
	op(0x0b)
	// brk = $want; return $old
	op(0x20, 0x02, 0x24)
	op(g...)
	op(0x20, 0x01, 0x0b)
	return b
}

// ChunkGrowth returns m with runtime.growMemory growing the memory in chunks
// (see above). It finds growMemory by its whole body, which must occur
// exactly once; anything it does not expect is an error, nothing written.
func ChunkGrowth(m []byte) ([]byte, error) {
	secs, err := sections(m)
	if err != nil {
		return nil, err
	}
	find := func(id byte) *section {
		for i := range secs {
			if secs[i].id == id {
				return &secs[i]
			}
		}
		return nil
	}
	types, imports, funcs, globals, code := find(1), find(2), find(3), find(6), find(10)
	if types == nil || funcs == nil || globals == nil || code == nil {
		return nil, errors.New("a module without types, functions, globals or code")
	}

	// Imported functions and globals come first in their index spaces.
	var importedFuncs, importedGlobals uint64
	if imports != nil {
		ir := reader{b: imports.body}
		n := ir.uint()
		for k := uint64(0); k < n && ir.err == nil; k++ {
			ir.skip(ir.uint()) // module name
			ir.skip(ir.uint()) // field name
			switch ir.byte() {
			case 0:
				ir.uint()
				importedFuncs++
			case 1: // table: element type, limits
				ir.byte()
				ir.limits()
			case 2: // memory: limits
				ir.limits()
			case 3:
				ir.skip(2) // value type, mutability
				importedGlobals++
			default:
				return nil, errors.New("an import of an unknown kind")
			}
		}
		if ir.err != nil || ir.i != len(imports.body) {
			return nil, errors.New("a malformed import section")
		}
	}

	// The code section: find growMemory's body.
	cr := reader{b: code.body}
	nfuncs := cr.uint()
	type body struct{ start, end int }
	bodies := make([]body, 0, min(nfuncs, uint64(len(code.body))))
	at := -1
	for k := uint64(0); k < nfuncs && cr.err == nil; k++ {
		size := cr.uint()
		if cr.err != nil || size > uint64(len(code.body)-cr.i) {
			return nil, errors.New("a malformed code section")
		}
		b := body{cr.i, cr.i + int(size)}
		if bytes.Equal(code.body[b.start:b.end], goGrowMemory) {
			if at >= 0 {
				return nil, errors.New("runtime.growMemory's body twice")
			}
			at = len(bodies)
		}
		bodies = append(bodies, b)
		cr.i = b.end
	}
	if cr.err != nil || cr.i != len(code.body) || uint64(len(bodies)) != nfuncs {
		return nil, errors.New("a malformed code section")
	}
	if at < 0 {
		return nil, errors.New("no runtime.growMemory as Go 1.26 writes it (another Go version?)")
	}

	// Its type, which the new function shares: (i32) -> i32.
	fr := reader{b: funcs.body}
	if fr.uint() != nfuncs {
		return nil, errors.New("the function and code sections differ in length")
	}
	var typ uint64
	for k := 0; k <= at; k++ {
		typ = fr.uint()
	}
	tr := reader{b: types.body}
	ntypes := tr.uint()
	if typ >= ntypes {
		return nil, errors.New("a function of a type that is not there")
	}
	for k := uint64(0); k < typ && tr.err == nil; k++ {
		if tr.byte() != 0x60 {
			return nil, errors.New("a type other than a function's")
		}
		tr.skip(tr.uint()) // parameters, a byte each
		tr.skip(tr.uint()) // results
	}
	if fr.err != nil || tr.err != nil || !bytes.HasPrefix(types.body[tr.i:], []byte{0x60, 0x01, 0x7f, 0x01, 0x7f}) {
		return nil, errors.New("runtime.growMemory is not (i32) -> i32")
	}

	// A new global, the break: after the imported and defined ones.
	gr := reader{b: globals.body}
	nglobals := gr.uint()
	if gr.err != nil {
		return nil, errors.New("a malformed global section")
	}
	brk := importedGlobals + nglobals
	newGlobals := appendUint(nil, nglobals+1)
	newGlobals = append(newGlobals, globals.body[gr.i:]...)
	newGlobals = append(newGlobals, 0x7f, 0x01, 0x41, 0x00, 0x0b) // mut i32 = 0

	fr = reader{b: funcs.body}
	fr.uint()
	newFuncs := appendUint(nil, nfuncs+1)
	newFuncs = append(newFuncs, funcs.body[fr.i:]...)
	newFuncs = appendUint(newFuncs, typ)

	grow := importedFuncs + nfuncs // the new function's index
	call := appendUint([]byte{0x10}, grow)
	patched := bytes.Replace(goGrowMemory, []byte{0x40, 0x00}, call, 1)
	newCode := appendUint(nil, nfuncs+1)
	for k, b := range bodies {
		if k == at {
			newCode = appendUint(newCode, uint64(len(patched)))
			newCode = append(newCode, patched...)
			continue
		}
		newCode = appendUint(newCode, uint64(b.end-b.start))
		newCode = append(newCode, code.body[b.start:b.end]...)
	}
	fn := chunkedGrow(brk)
	newCode = appendUint(newCode, uint64(len(fn)))
	newCode = append(newCode, fn...)

	out := append([]byte(nil), m[:8]...)
	for _, s := range secs {
		var b []byte
		switch s.id {
		case 3:
			b = newFuncs
		case 6:
			b = newGlobals
		case 10:
			b = newCode
		default:
			out = append(out, m[s.start:s.end]...)
			continue
		}
		out = append(out, s.id)
		out = appendUint(out, uint64(len(b)))
		out = append(out, b...)
	}
	return out, nil
}
