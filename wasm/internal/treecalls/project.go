package treecalls

import (
	"slices"
	"strconv"
	"unsafe"

	"github.com/sessiontree/sessiontree/core"
)

// path and slotBuf are the reusable buffers of project: the messages of a
// path's tail and their slots.
var (
	path    []core.Message
	slotBuf []uint32
)

// project returns the messages of argument 0's branch (the active one when
// there is no argument, or it is empty) as slots: a little-endian uint32 count,
// the slots, then for each slot new to JS, in slot order, where its message's
// bytes are in the module's memory, as a uint32 address and a uint32 length. JS
// reads them there, before its next call (the slot table holds every message it
// numbered, so the bytes stay where they are): a first projection of a loaded
// tree copies none of the file's messages into a result buffer, which would
// then stay that big. (In a native build, as in tests, the address is the low
// 32 bits of one.)
//
// With argument 1, JS says how long the list it holds from the previous call
// with one is (decimal; "" or "0" when it holds none): when the path still
// starts with some of that list (nothing changed since but appends,
// regenerates, edits, switches and the like, which leave every stored message
// as it was: see listMemo), the answer is the messages after those, followed
// by a uint32 of how many of the list stay; otherwise the whole path, followed
// by 0. JS asks so for linearProjection, and hands back a copy of its list.
// In that form the slots are followed, before the places of the new ones, by
// a uint32 count and the positions in the slots of those JS held before the
// call (old): JS looks those up in its cache and knows the rest to be new,
// without a pass over 100k slots in code that is not warm yet.
func project(r *Request) ([]byte, error) {
	branch := r.tree.ActiveBranch()
	if len(r.args) > 0 && len(r.args[0]) > 0 {
		branch = string(r.args[0])
	}
	memo := &r.entry.list
	if len(r.args) < 2 {
		*memo = listMemo{}
		return projectAll(r, branch, 0, false)
	}
	held := 0
	if len(r.args[1]) > 0 {
		var err error
		if held, err = countArg(r, 1, "held"); err != nil {
			return nil, err
		}
	}
	if kept, ok := memo.kept(r.tree, branch); ok && held > 0 && held == memo.n && kept > 0 {
		n, err := r.tree.PathLen(branch)
		if err == nil && n >= kept {
			ids, msgs, err := r.tree.AppendTailOf(windowIDs[:0], path[:0], branch, 0, n-kept)
			windowIDs, path = ids, msgs
			defer clear(msgs)
			defer clear(ids)
			if err == nil {
				*memo = listMemo{valid: true, version: r.tree.Version(), branch: branch, n: n, leaf: r.tree.LeafOf(branch)}
				return appendUint32(slotted(r.slots, msgs, 4, true), uint32(kept)), nil
			}
		}
	}
	*memo = listMemo{}
	b, err := projectAll(r, branch, 4, true)
	if err != nil {
		return nil, err
	}
	*memo = listMemo{valid: true, version: r.tree.Version(), branch: branch, leaf: r.tree.LeafOf(branch), n: int(uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24)}
	return appendUint32(b, 0), nil
}

// projectAll writes the messages of the branch's path as slots (see project),
// with room for extra more bytes after them. It walks the path from the leaf
// up, turning each message into its slot as it goes: a buffer of the path's
// messages would be 24 bytes a message of new memory at a first projection.
func projectAll(r *Request, branch string, extra int, old bool) ([]byte, error) {
	s := r.slots
	known := s.len()
	s.catchUp()
	n, _ := r.tree.PathLen(branch) // EachUpOf reports a fault
	slots := slices.Grow(slotBuf[:0], n)[:n]
	slotBuf = slots
	i := n // the walk fills slots from the end: they read root first
	err := r.tree.EachUpOf(branch, func(m core.Message) {
		slot, ok := s.find(m)
		if !ok {
			slot = s.add(m)
		}
		if i--; i >= 0 {
			slots[i] = slot
		}
	})
	if err == nil && i != 0 {
		err = &core.Error{Code: core.CodeCorrupt, Message: "the path of branch " + branch + " is not as long as its depth says"}
	}
	if err != nil {
		s.truncate(known) // JS gets none of them
		return nil, err
	}
	if last := s.len() - 1; last > known {
		s.reverseFrom(known) // numbered root first
		for i, slot := range slots {
			if int(slot) >= known {
				slots[i] = uint32(known + last - int(slot))
			}
		}
	}
	return encodeSlots(s, slots, known, extra, old), nil
}

// listMemo is what the last project call of a tree with a held length handed
// JavaScript: the path of branch up from leaf, n messages long, at the tree's
// version. A call that leaves every stored message as it was (an append, a
// regenerate, an edit, a switch: noteKept) moves the memo's version along
// with the tree's, and marks that the path may have moved off the list: its
// next projection keeps the part of the list the new path still starts with
// (core's SharedDepth). Any other change leaves the version behind, and the
// next call sends the whole path.
type listMemo struct {
	valid   bool
	moved   bool // since the list: a change that may have moved branch's path off it
	version uint64
	branch  string
	leaf    string // the list's last node
	n       int
}

// kept returns how many messages of the list JS holds are still the start of
// branch's path.
func (m *listMemo) kept(t *core.Tree, branch string) (int, bool) {
	if !m.valid || m.version != t.Version() {
		return 0, false
	}
	if m.branch == branch && !m.moved {
		return m.n, true
	}
	return t.SharedDepth(m.leaf, branch)
}

// noteKept is told of a change that left every stored message as it was (and
// removed none), made when the tree was at version before: the memo holds on
// when it held then. append says the change only appended to branch.
func (m *listMemo) noteKept(t *core.Tree, before uint64, branch string, append bool) {
	if m.valid && m.version == before {
		m.version = t.Version()
		m.moved = m.moved || !append || m.branch != branch
	}
}

// slotted writes msgs as slots (see project), with room for extra more bytes
// after them.
func slotted(s *slotTable, msgs []core.Message, extra int, old bool) []byte {
	known := s.len()
	s.catchUp()
	slots := slices.Grow(slotBuf[:0], len(msgs))
	for _, m := range msgs {
		slot, ok := s.find(m)
		if !ok {
			slot = s.add(m)
		}
		slots = append(slots, slot)
	}
	slotBuf = slots
	return encodeSlots(s, slots, known, extra, old)
}

// encodeSlots writes slots, then (old) the positions of those below known,
// then where the bytes of the slots from known on are (see project), with room
// for extra more bytes after them. It indexes those slots first, at once (see
// slotTable.find).
func encodeSlots(s *slotTable, slots []uint32, known, extra int, old bool) []byte {
	s.catchUp()
	size := 4 + 4*len(slots) + 8*(s.len()-known) + extra
	m := 0
	if old {
		for _, slot := range slots {
			if int(slot) < known {
				m++
			}
		}
		size += 4 + 4*m
	}
	b := grow(size)
	b = appendUint32(b, uint32(len(slots)))
	// The slots as they lie in memory: little-endian uint32s (WebAssembly,
	// and every target the tests run on, is little-endian).
	b = append(b, unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(slots))), 4*len(slots))...)
	if old {
		b = appendUint32(b, uint32(m))
		for i, slot := range slots {
			if int(slot) < known {
				b = appendUint32(b, uint32(i))
			}
		}
	}
	at := len(b)
	b = b[:at+8*(s.len()-known)]
	// Chunk by chunk: (address, length) pairs, one bounds check a chunk.
	for c := known / chunkSize; c < len(s.chunks) && at < len(b); c++ {
		chunk := s.chunks[c]
		if c == known/chunkSize {
			chunk = chunk[known%chunkSize:]
		}
		out := b[at : at+8*len(chunk)]
		for j := range chunk {
			put32(out[8*j:], uint32(uintptr(unsafe.Pointer(chunk[j].p))))
			put32(out[8*j+4:], chunk[j].n)
		}
		at += 8 * len(chunk)
	}
	return b
}

// put32 writes v little-endian at the start of b (one store: the compiler
// combines the bytes).
func put32(b []byte, v uint32) {
	_ = b[3]
	b[0], b[1], b[2], b[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
}

// appendUint32 appends v little-endian (encoding/binary would pull reflect into
// the module).
func appendUint32(b []byte, v uint32) []byte {
	return append(b, byte(v), byte(v>>8), byte(v>>16), byte(v>>24))
}

// windowIDs is the reusable id buffer of window.
var windowIDs []string

// window returns the nodes of a branch's path that lie skip to skip+count
// nodes above its leaf (core's AppendTailOf): their messages as slots (see
// project) followed by their ids, one per line. Arguments: the branch ("" for
// the active one), skip and count, in decimal. JavaScript turns its
// Array.slice indexes into these, asking pathLength first only when an index
// counts from the root.
func window(r *Request) ([]byte, error) {
	branch, err := r.str(0, "branch")
	if err != nil {
		return nil, err
	}
	if branch == "" {
		branch = r.tree.ActiveBranch()
	}
	skip, err := countArg(r, 1, "skip")
	if err != nil {
		return nil, err
	}
	count, err := countArg(r, 2, "count")
	if err != nil {
		return nil, err
	}
	ids, msgs, err := r.tree.AppendTailOf(windowIDs[:0], path[:0], branch, skip, count)
	windowIDs, path = ids, msgs
	defer clear(msgs)
	defer clear(ids)
	if err != nil {
		return nil, err
	}
	size := 0
	for _, id := range ids {
		size += len(id) + 1
	}
	return appendLines(slotted(r.slots, msgs, size, false), ids), nil
}

// pathLength returns the number of nodes on argument 0's branch ("" or none:
// the active one), in decimal.
func pathLength(r *Request) ([]byte, error) {
	branch := r.tree.ActiveBranch()
	if len(r.args) > 0 && len(r.args[0]) > 0 {
		branch = string(r.args[0])
	}
	n, err := r.tree.PathLen(branch)
	if err != nil {
		return nil, err
	}
	return text(strconv.Itoa(n)), nil
}

// countArg reads argument i as a decimal count, 0 ≤ n < 2³¹.
func countArg(r *Request, i int, name string) (int, error) {
	b, err := r.arg(i, name)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' || n >= 1<<27 {
			return 0, invalid(r.method + ": " + name + " must be a count")
		}
		n = n*10 + int(c-'0')
	}
	if len(b) == 0 {
		return 0, invalid(r.method + ": " + name + " must be a count")
	}
	return n, nil
}

// slotBytes returns where the bytes of the slots argument 0 lists (decimal,
// comma-separated) lie in the module's memory, as a uint32 address and a
// uint32 length each, in the order listed: JavaScript keeps the text of a
// message it sent (an append's) only until a read needs it, and reads it
// back this way. Each slot must be one JS holds (below the table's length).
func slotBytes(r *Request) ([]byte, error) {
	list, err := r.str(0, "slots")
	if err != nil {
		return nil, err
	}
	b := grow(8 * (len(list)/2 + 1))
	if list == "" {
		return b, nil
	}
	n := 0
	for i := 0; i <= len(list); i++ {
		if i < len(list) && list[i] >= '0' && list[i] <= '9' {
			n = 10*n + int(list[i]-'0')
			if n >= r.slots.len() {
				return nil, &core.Error{Code: core.CodeInvalidInput, Message: "slot " + strconv.Itoa(n) + " is not one JavaScript holds"}
			}
			continue
		}
		if i < len(list) && list[i] != ',' {
			return nil, &core.Error{Code: core.CodeInvalidInput, Message: "slots must be decimal numbers separated by commas"}
		}
		m := r.slots.at(n)
		b = appendUint32(b, keyOf(m))
		b = appendUint32(b, uint32(len(m)))
		n = 0
	}
	return b, nil
}
