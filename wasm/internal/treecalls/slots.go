package treecalls

import (
	"math/bits"
	"unsafe"

	"github.com/sessiontree/sessiontree/core"
)

// slotTable numbers the messages of one tree that JavaScript holds, 0, 1, 2, …
// in the order they reached it. JS keeps message slot i at index i of an array,
// so a projection crosses as a list of small integers plus the bytes of the
// messages JS has not seen yet, and JS never parses a message twice.
//
// Both sides keep one rule: JS holds slot i exactly when i < s.len(). A slot
// is made only where JS gets the message in the same call: its bytes in the
// result, or the text JS itself sent (append, edit, regenerate, apply).
//
// Messages are immutable and a tree never changes one in place, so a slot is
// keyed by the address of the message's first byte. The table holds each
// message, so those bytes are never freed and reused for another message while
// the key exists. Two live messages starting at one address are
// the same bytes (a JSON object starting there ends at one place), so nodes
// sharing bytes share a slot, which is right: their messages are equal.
//
// The index is an open-addressing table of address<<32 | slot words rather
// than a map[*byte]uint32: in wasm a Go map insert (a generic hash, a
// pointer-bearing bucket the collector scans and write barriers) costs more
// than the rest of the slot's bookkeeping together. WebAssembly addresses are
// 32 bits and a message is never empty, so no key is 0, the empty word. The
// index is built lazily, by the first lookup after slots were added: a burst of
// appends pays for no hashing, and a projection indexes what it needs once.
//
// A long stretch of new slots whose addresses ascend is not hashed at all: it
// is kept as a run, searched by bisection over the slots themselves. A loaded
// file's messages lie in its bytes in the order they were written, so the
// first list of a loaded chat (a path from its root, numbered root first) is
// one such stretch; hashing it was a third of that call (100k random writes
// into a 2 MB table, ~9 ms in wasm), and the run costs one pass and no memory.
//
// The messages are kept (as slotMsgs: where they start and their length) in chunks
// of chunkSize (the first grows to that size),
// so that the table grows without copying what it holds (copying a slice of
// pointers costs a write barrier per element while the collector runs, which
// in wasm is most of the time during a burst of calls).
type slotTable struct {
	index   []uint64 // len a power of two, at most half full; nil when empty
	used    int      // the words in use
	indexed int      // slots 0…indexed-1 are in the index or in runs
	runs    []slotRun
	lo, hi  uint32 // every key indexed lies in lo…hi (none when hi is 0)
	chunks  [][]slotMsg
	n       int // the number of slots
}

// slotRun is slots lo…hi-1, whose addresses strictly ascend, indexed by
// themselves (see find). hint is the slot found last: a walk up a path asks
// for the slot before it next.
type slotRun struct{ lo, hi, hint uint32 }

// runMin is the fewest slots a run holds, and maxRuns the most runs a table
// keeps (a lookup that misses searches every run); stretches past them are
// hashed.
const (
	runMin  = 1024
	maxRuns = 4
)

// chunkSize is the number of messages in one chunk of a slotTable.
const chunkSize = 1024

// slotMsg is one slot's message: its first byte (which keeps the bytes alive)
// and its length, 16 bytes where a core.Message (a slice) is 24.
type slotMsg struct {
	p *byte
	n uint32
}

func slotMsgOf(m core.Message) slotMsg { return slotMsg{unsafe.SliceData(m), uint32(len(m))} }

func keyOf(m core.Message) uint32 { return uint32(uintptr(unsafe.Pointer(unsafe.SliceData(m)))) }

// home is the first probe position of key in a table of n words (a power of
// two): Fibonacci hashing (the top bits of a multiplication by 2⁶⁴/φ) spreads
// the aligned addresses of the allocator.
func home(key uint32, n int) int {
	return int(uint64(key) * 0x9E3779B97F4A7C15 >> (65 - bits.Len(uint(n))))
}

// add makes a new slot for m, which JavaScript holds now, and returns it.
func (s *slotTable) add(m core.Message) uint32 {
	slot := uint32(s.n)
	if s.n%chunkSize == 0 {
		var c []slotMsg // the first grows as a slice: small trees stay small
		if s.n > 0 {
			c = make([]slotMsg, 0, chunkSize)
		}
		s.chunks = append(s.chunks, c)
	}
	last := &s.chunks[len(s.chunks)-1]
	*last = append(*last, slotMsgOf(m))
	s.n++
	return slot
}

// catchUp indexes the slots added since the last lookup: stretches of at
// least runMin ascending addresses as runs (while there is room for one), the
// rest into the hash, in slot order (so that bytes added twice find the newer
// slot).
func (s *slotTable) catchUp() {
	if s.indexed == s.n {
		return
	}
	r0, hashed := len(s.runs), s.n-s.indexed
	for a := s.indexed; a < s.n; {
		b := a + 1
		for k := s.keyAt(a); k != 0 && b < s.n; b++ {
			next := s.keyAt(b)
			if next <= k {
				break
			}
			k = next
		}
		if b-a >= runMin && len(s.runs) < maxRuns {
			s.runs = append(s.runs, slotRun{uint32(a), uint32(b), uint32(a)})
			hashed -= b - a
			s.bound(s.keyAt(a))
			s.bound(s.keyAt(b - 1))
		}
		a = b
	}
	if need := 2 * (s.used + hashed); hashed > 0 && need > len(s.index) {
		s.rehash(max(64, 1<<bits.Len(uint(need))))
	}
	for next := r0; s.indexed < s.n; s.indexed++ {
		if next < len(s.runs) && s.indexed == int(s.runs[next].lo) {
			s.indexed = int(s.runs[next].hi) - 1
			next++
		} else if k := s.keyAt(s.indexed); k != 0 {
			s.put(k, uint32(s.indexed))
			s.bound(k)
		}
	}
}

// bound widens lo…hi to hold key.
func (s *slotTable) bound(key uint32) {
	if s.hi == 0 {
		s.lo, s.hi = key, key
	}
	s.lo, s.hi = min(s.lo, key), max(s.hi, key)
}

// keyAt returns the key of slot i's message (0 for a slot left empty).
func (s *slotTable) keyAt(i int) uint32 {
	return uint32(uintptr(unsafe.Pointer(s.chunks[i/chunkSize][i%chunkSize].p)))
}

// put sets key's slot (a key added again, the same bytes, takes the newer slot).
func (s *slotTable) put(key, slot uint32) {
	mask := len(s.index) - 1
	for i := home(key, len(s.index)); ; i = (i + 1) & mask {
		w := s.index[i]
		if w == 0 {
			s.index[i] = uint64(key)<<32 | uint64(slot)
			s.used++
			return
		}
		if uint32(w>>32) == key {
			s.index[i] = uint64(key)<<32 | uint64(slot)
			return
		}
	}
}

// rehash rebuilds the index with n words.
func (s *slotTable) rehash(n int) {
	old := s.index
	s.index = make([]uint64, n)
	s.used = 0
	for _, w := range old {
		if w != 0 {
			s.put(uint32(w>>32), uint32(w))
		}
	}
}

// len returns the number of slots.
func (s *slotTable) len() int { return s.n }

// at returns the message of slot i < s.len().
func (s *slotTable) at(i int) core.Message {
	h := s.chunks[i/chunkSize][i%chunkSize]
	return unsafe.Slice(h.p, h.n)
}

// lookup returns the slot of m, or false.
func (s *slotTable) lookup(m core.Message) (uint32, bool) {
	s.catchUp()
	return s.find(m)
}

// find returns the slot of m among those indexed (catchUp), or false: a run
// of finds and adds indexes what it added at the next lookup, at once, into
// an index grown once (a projection of a path JS has not seen adds a slot per
// message, and indexing each as it came grew the index step by step). A
// message twice in such a run gets two slots, which JS parses apart. Of the
// hash's slot and the runs', the newest is m's. A key outside lo…hi is none
// at once (the first list after a window: the path's messages lie before
// the window's in the file).
func (s *slotTable) find(m core.Message) (uint32, bool) {
	key := keyOf(m)
	if len(m) == 0 || key < s.lo || key > s.hi {
		return 0, false
	}
	slot, ok := uint32(0), false
	if len(s.index) > 0 {
		mask := len(s.index) - 1
		for i := home(key, len(s.index)); ; i = (i + 1) & mask {
			w := s.index[i]
			if w == 0 {
				break
			}
			if uint32(w>>32) == key {
				slot, ok = uint32(w), true
				break
			}
		}
	}
	for i := range s.runs {
		if r, found := s.inRun(&s.runs[i], key); found && (!ok || r > slot) {
			slot, ok = r, true
		}
	}
	return slot, ok
}

// inRun returns the slot of key in run r, or false: the slots either side of
// the last one found first, then a bisection.
func (s *slotTable) inRun(r *slotRun, key uint32) (uint32, bool) {
	lo, hi := int(r.lo), int(r.hi)
	if h := int(r.hint); h > lo && s.keyAt(h-1) == key {
		r.hint--
		return r.hint, true
	} else if h+1 < hi && s.keyAt(h+1) == key {
		r.hint++
		return r.hint, true
	}
	if key < s.keyAt(lo) || key > s.keyAt(hi-1) {
		return 0, false
	}
	for lo < hi {
		if mid := int(uint(lo+hi) >> 1); s.keyAt(mid) < key {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if s.keyAt(lo) != key {
		return 0, false
	}
	r.hint = uint32(lo)
	return r.hint, true
}

// reverseFrom reverses the order of the slots from k on (none of them
// indexed yet): a walk from a leaf up adds a path's new messages leaf first,
// and JS gets them numbered root first, as a list reads.
func (s *slotTable) reverseFrom(k int) {
	for i, j := k, s.n-1; i < j; i, j = i+1, j-1 {
		a, b := &s.chunks[i/chunkSize][i%chunkSize], &s.chunks[j/chunkSize][j%chunkSize]
		*a, *b = *b, *a
	}
}

// truncate forgets the slots from n on, made in a call that then failed, so
// that JS, which got none of them, holds exactly the slots below s.len(). They
// are not indexed yet when a call fails (it finds, and indexes nothing);
// otherwise the index is rebuilt at the next lookup.
func (s *slotTable) truncate(n int) {
	if s.indexed > n {
		s.index, s.used, s.indexed, s.runs, s.lo, s.hi = nil, 0, 0, nil, 0, 0
	}
	for s.n > n {
		last := &s.chunks[len(s.chunks)-1]
		cut := max(0, len(*last)-(s.n-n))
		clear((*last)[cut:])
		s.n -= len(*last) - cut
		*last = (*last)[:cut]
		if cut == 0 {
			s.chunks[len(s.chunks)-1] = nil
			s.chunks = s.chunks[:len(s.chunks)-1]
		}
	}
}

// reset forgets every slot (JS drops its cache in the same call), so that the
// messages of pruned nodes are not kept alive by the table.
func (s *slotTable) reset() { *s = slotTable{} }

// clone copies the table for a cloned tree, which shares the messages.
func (s *slotTable) clone() slotTable {
	c := slotTable{index: append([]uint64(nil), s.index...), used: s.used, indexed: s.indexed, runs: append([]slotRun(nil), s.runs...), lo: s.lo, hi: s.hi, n: s.n}
	for _, ch := range s.chunks {
		c.chunks = append(c.chunks, append(make([]slotMsg, 0, chunkSize), ch...))
	}
	return c
}
