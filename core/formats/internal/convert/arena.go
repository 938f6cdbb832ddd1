package convert

// Arena hands out the byte slices an import keeps (node messages) from large
// shared chunks: one allocation per chunk instead of one per message, no
// rounding up to the allocator's size classes, and nothing for the garbage
// collector to scan. A chunk stays alive while any slice of it does, so an
// arena suits a tree whose messages live and die together, as an import's do.
type Arena struct {
	chunk []byte // free space of the current chunk: len 0, its cap what is left
}

// arenaChunk is the size of a chunk; a slice of more than a quarter of it gets
// its own allocation so a chunk never wastes more than a quarter.
const arenaChunk = 1 << 20

// Copy returns a copy of the concatenation of parts, carved from the arena.
// Its capacity is its length, so appending to it never touches a neighbour.
func (a *Arena) Copy(parts ...[]byte) []byte {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	out := a.Make(n)
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// Make returns an empty slice with capacity n from the arena: append exactly n
// bytes to it.
func (a *Arena) Make(n int) []byte {
	if n > arenaChunk/4 {
		return make([]byte, 0, n)
	}
	if cap(a.chunk) < n {
		a.chunk = make([]byte, 0, arenaChunk)
	}
	out := a.chunk[:0:n]
	a.chunk = a.chunk[n:n:cap(a.chunk)]
	return out
}
