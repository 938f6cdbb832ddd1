package treecalls

import (
	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/wasm/internal/bridge"
)

// entry is one live tree and the message slots JavaScript holds for it.
type entry struct {
	tree  *core.Tree
	slots slotTable
	// size estimates the tree's saved size from above, in O(1): set by a
	// load or a save, grown by every call's argument bytes. Calls that copy
	// or write the whole tree check the memory for twice this (bridge.Room),
	// and a free counts it as garbage (bridge.Owe).
	size int
	// tracking: takeChanges has started the tree's change recording.
	tracking bool
	// helper: what helperRows last told the interchange helper's copy.
	helper helperCopy
	// list: the path JS holds from its last project "since" call.
	list listMemo
	// saving: a save in pieces under way (SaveInPieces), until its last piece
	// or the next save.
	saving *core.MarshalCursor
	saved  int // the bytes of its pieces so far
	piece  int // the size of its pieces (pieceSize, or bigPiece for save())
	// broken: the method that panicked on this tree, after which the tree
	// takes no call but save and validate (see Method.call).
	broken string
}

// trees holds every live tree by handle. Handle 0 is never used: it means
// "no tree" for the calls that make one.
var (
	trees      = map[uint32]*entry{}
	nextHandle uint32
)

// keep stores t, of about size bytes saved, and returns its new handle.
func keep(t *core.Tree, size int) uint32 {
	return keepEntry(&entry{tree: t, size: size})
}

// footprint is what e holds in the module's memory, about: its bytes and its
// structure (the node records, maps and lists: some 64 bytes a node).
func (e *entry) footprint() int { return e.size + 64*e.tree.Len() }

// keepEntry stores e and returns its new handle. Its footprint counts as in
// use (bridge.Kept), as free counts it as garbage.
func keepEntry(e *entry) uint32 {
	bridge.Kept(e.footprint())
	nextHandle++
	for nextHandle == 0 || trees[nextHandle] != nil {
		nextHandle++
	}
	trees[nextHandle] = e
	return nextHandle
}

// Keep stores t, a tree JavaScript has no messages of yet, of about size bytes
// saved, and returns its handle: what a method of the full flavour that makes
// a tree (import) returns.
func Keep(t *core.Tree, size int) uint32 { return keep(t, size) }

// TreeOf returns the live tree behind handle h, or false when there is none
// (freed, or never made).
func TreeOf(h uint32) (*core.Tree, bool) {
	e := trees[h]
	if e == nil {
		return nil, false
	}
	return e.tree, true
}
