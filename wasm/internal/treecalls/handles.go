package treecalls

import "github.com/sessiontree/sessiontree/core"

// entry is one live tree and the message slots JavaScript holds for it.
type entry struct {
	tree  *core.Tree
	slots slotTable
}

// trees holds every live tree by handle. Handle 0 is never used: it means
// "no tree" for the calls that make one.
var (
	trees      = map[uint32]*entry{}
	nextHandle uint32
)

// keep stores t and returns its new handle.
func keep(t *core.Tree) uint32 {
	return keepEntry(&entry{tree: t})
}

// keepEntry stores e and returns its new handle.
func keepEntry(e *entry) uint32 {
	nextHandle++
	for nextHandle == 0 || trees[nextHandle] != nil {
		nextHandle++
	}
	trees[nextHandle] = e
	return nextHandle
}

// Keep stores t, a tree JavaScript has no messages of yet, and returns its
// handle: what a method of the full flavour that makes a tree (import) returns.
func Keep(t *core.Tree) uint32 { return keep(t) }

// TreeOf returns the live tree behind handle h, or false when there is none
// (freed, or never made).
func TreeOf(h uint32) (*core.Tree, bool) {
	e := trees[h]
	if e == nil {
		return nil, false
	}
	return e.tree, true
}
