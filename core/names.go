package core

import (
	"math/rand/v2"
	"strconv"

	"github.com/sessiontree/sessiontree/core/rawjson"
)

// freshNames hands out the smallest free "branch-N" (N ≥ 1) without scanning the
// branches: it keeps the taken numbers and a low-water mark below which every
// number is taken. Numbers below smallNames live in a bitset (every rewind
// takes one, so this is on the append/rewind path), larger ones in a map.
type freshNames struct {
	small []uint64 // bit n%64 of small[n/64]: n is taken
	taken map[uint64]struct{}
	low   uint64
}

const (
	freshPrefix = "branch-"
	smallNames  = 1 << 16
)

// freshNumber parses a canonical "branch-N" name.
func freshNumber(name string) (uint64, bool) {
	if len(name) <= len(freshPrefix) || name[:len(freshPrefix)] != freshPrefix {
		return 0, false
	}
	digits := name[len(freshPrefix):]
	if digits[0] == '0' {
		return 0, false
	}
	return rawjson.ParseUint(digits, 64)
}

func (f *freshNames) add(name string) {
	if n, ok := freshNumber(name); ok {
		f.set(n, true)
	}
}

func (f *freshNames) remove(name string) {
	if n, ok := freshNumber(name); ok {
		f.set(n, false)
		if n < f.low {
			f.low = n
		}
	}
}

func (f *freshNames) set(n uint64, taken bool) {
	if n >= smallNames {
		if !taken {
			delete(f.taken, n)
			return
		}
		if f.taken == nil {
			f.taken = make(map[uint64]struct{})
		}
		f.taken[n] = struct{}{}
		return
	}
	w := int(n / 64)
	if w >= len(f.small) {
		if !taken {
			return
		}
		f.small = append(f.small, make([]uint64, w+1-len(f.small))...)
	}
	if taken {
		f.small[w] |= 1 << (n % 64)
	} else {
		f.small[w] &^= 1 << (n % 64)
	}
}

func (f *freshNames) has(n uint64) bool {
	if n >= smallNames {
		_, ok := f.taken[n]
		return ok
	}
	w := int(n / 64)
	return w < len(f.small) && f.small[w]&(1<<(n%64)) != 0
}

// next returns the smallest untaken name that is not a key of deleted; it does
// not take it.
func (f *freshNames) next(deleted map[string]*tombstone) string {
	for f.has(f.low) {
		f.low++
	}
	var buf [32]byte // one allocation: the string returned (a lookup by string(b) makes none)
	for n := f.low; ; n++ {
		if f.has(n) {
			continue
		}
		b := strconv.AppendUint(append(buf[:0], freshPrefix...), n, 10)
		if _, dead := deleted[string(b)]; !dead {
			return string(b)
		}
	}
}

func (f freshNames) clone() freshNames {
	c := freshNames{low: f.low, small: append([]uint64(nil), f.small...)}
	if len(f.taken) > 0 {
		c.taken = make(map[uint64]struct{}, len(f.taken))
		for n := range f.taken {
			c.taken[n] = struct{}{}
		}
	}
	return c
}

// randomIDs returns a source of 16-character ids of 80 bits: the first drawn
// at random, each next one larger by a random step of 1 to 2³², written most
// significant digit first, so that the ids of one source sort in the order it
// made them. Copies of a tree edited apart (two tabs, a device and the edge)
// draw from sources that start at independent random points of 2⁸⁰, so they
// never mint the same id (no likelier than two random ids meeting). And a reply
// regenerated many times in one millisecond gets each new sibling last among
// them (children sort by time, then id): no search, no shift of the list.
func randomIDs() func() string {
	// The runtime seeds math/rand/v2's global source from the system's entropy
	// (crypto.getRandomValues in a browser); crypto/rand would pull math/big and
	// fmt into the wasm module.
	var seed [32]byte
	for i := range seed {
		seed[i] = byte(rand.Uint32())
	}
	src := rand.NewChaCha8(seed)
	const alphabet = "0123456789abcdefghjkmnpqrstvwxyz" // Crockford base32, in ASCII order
	hi, lo := src.Uint64()&0xffff, src.Uint64()         // the 80 bits: hi's 16 above lo's 64
	// The ids are written idBlock at a time into one string, and each is a
	// piece of it: one allocation per idBlock appends, not one each.
	var block string
	return func() string {
		if len(block) == 0 {
			var out [idBlock * 16]byte
			for k := 0; k < idBlock; k++ {
				next := lo + src.Uint64()>>32 + 1
				if next < lo {
					hi = (hi + 1) & 0xffff
				}
				lo = next
				h, l := hi, lo
				for i := 15; i >= 0; i-- {
					out[16*k+i] = alphabet[l&31]
					l = l>>5 | h<<59
					h >>= 5
				}
			}
			block = string(out[:])
		}
		id := block[:16]
		block = block[16:]
		return id
	}
}

// idBlock is how many ids a randomIDs source writes at a time.
const idBlock = 32

// idSource returns the id source a copy of t (a clone, a merge) takes: a
// randomIDs of its own when t has one (a source keeps state, and copies are
// edited apart, in other goroutines too), else the caller's WithIDSource.
func (t *Tree) idSource() func() string {
	if t.ownIDs {
		return randomIDs()
	}
	return t.newID
}

// freshName returns the name a new branch gets when none is given: the smallest
// "branch-N" that is neither a branch nor a deleted name. A deleted name stays
// taken (its tombstone), so a new branch never brings it back: a later Merge
// would otherwise revive it, and the user who deleted it sees it return.
func (t *Tree) freshName() string {
	return t.names.next(t.tombs)
}

// freshID returns a new node id not yet in use.
func (t *Tree) freshID() (string, error) {
	for range 1000 {
		id := t.newID()
		if checkName("id", id) != nil {
			return "", newError(CodeInvalidInput, "the id source returned an invalid id "+quote(id))
		}
		if _, used := t.nodes[id]; !used {
			return id, nil
		}
	}
	return "", newError(CodeConflict, "the id source keeps returning ids already in use")
}
