package edge

import (
	"sync"

	"github.com/sessiontree/sessiontree/core"
)

// treeCache keeps loaded trees between requests, keyed by tree id. An entry is
// only a copy: every request checks it against the stored version before it
// trusts it, so several isolates (each with its own cache) stay correct.
type treeCache struct {
	mu      sync.Mutex
	max     int
	clock   int64
	entries map[string]*entry
}

// entry is one cached tree. Its mutex is held for the whole of a request that
// uses the tree, so requests to one tree within an isolate run one at a time.
type entry struct {
	mu   sync.Mutex
	id   string
	tree *core.Tree // nil until loaded, and after a failed write
	meta Meta
	// rows is the bytes of the tree's stored rows (each its key and its
	// JSON): exact when the tree was read or created and while exact, else
	// an upper bound (Handler.sizeAfter).
	rows  int64
	exact bool
	// sizes are the stored lengths of rows this entry knows (node rows by
	// id, branch rows by "\x00" and name): its branches' from the read, and
	// the rows of its last writes, which hold the ones an append replaces
	// (the parent it appends to, its branch). Never more than maxSizes.
	sizes map[string]int
	used  int64
}

// takeBack takes a refused write back out of the cached tree (core's Undo of
// the batch that went in, and its rows out of the feed), or drops the tree to
// be read again where the write was not such a batch (a merge, a delta). A
// tenant at its quota whose writes are refused once applied no longer costs a
// read of its whole tree each (1.2–1.7 s on a 21 MB tree over wrangler dev).
func (e *entry) takeBack() {
	if e.tree != nil && e.tree.Undo() {
		e.tree.TakeChanges()
		return
	}
	e.tree = nil
}

// maxSizes bounds an entry's sizes: past it, they start again from the last
// write's (a write of more rows, a create of many nodes, notes its branches').
const maxSizes = 1024

func newTreeCache(max int) *treeCache {
	return &treeCache{max: max, entries: map[string]*entry{}}
}

// acquire returns the locked entry of tree id, making one if needed.
func (c *treeCache) acquire(id string) *entry {
	c.mu.Lock()
	c.clock++
	e := c.entries[id]
	if e == nil {
		e = &entry{id: id, used: c.clock}
		c.evict() // before e is in: e is the newest entry, never the one to go
		c.entries[id] = e
	}
	e.used = c.clock
	c.mu.Unlock()
	e.mu.Lock()
	return e
}

// release unlocks e. Deferred, it also sees a panic that unwinds through the
// request holding e: the tree may be half changed (a write applied in memory
// and not stored), so e forgets it and the next request reads it again from
// storage; the panic goes on (Serve answers 500).
func (c *treeCache) release(e *entry) {
	if p := recover(); p != nil {
		e.tree = nil
		e.mu.Unlock()
		panic(p)
	}
	e.mu.Unlock()
}

// drop forgets tree id.
func (c *treeCache) drop(id string) {
	c.mu.Lock()
	delete(c.entries, id)
	c.mu.Unlock()
}

// evict removes the least recently used idle entries until there is room for
// one more.
func (c *treeCache) evict() {
	for len(c.entries) >= c.max {
		var oldest *entry
		for _, e := range c.entries {
			if e.mu.TryLock() {
				e.mu.Unlock()
				if oldest == nil || e.used < oldest.used {
					oldest = e
				}
			}
		}
		if oldest == nil {
			return
		}
		delete(c.entries, oldest.id)
	}
}
