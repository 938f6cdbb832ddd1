package bridge

// Memory grows in steps of an eighth (issue 26). Go's WebAssembly heap takes
// memory from the host 512 KB at a time (its heap arenas), and V8 answers a
// memory.grow of a module past 64 MB with a full collection of the page's JS
// heap (the grown buffer counts as new external memory until the old one is
// swept): with a 100k-message chat open and its list held, 10k appends grew
// the module 10–13 times and spent most of their time in those collections.
// So once small calls grow the memory a second time in a row (a burst of
// appends, regenerates, edits), the bridge takes a whole step at once: a
// collection, after one block of the step's size (one memory.grow) unless the
// garbage counted since the last collection covers it; the freed pages serve
// the heap's next small allocations. The memory then grows O(log n) times over
// a burst, staying within an eighth of what the heap reached. A call that grew the memory by more than smallGrowth (a load, a
// whole list) starts the count again and takes no step: the memory it leaves
// is what it needs, and a collection would add to a call that is long already.
// Below stepsFrom (V8's allowance of external memory) a growth costs V8 no
// collection, and a step would cost Go one: the memory grows as Go asks.
const (
	smallGrowth = 1 << 20
	stepsFrom   = 64 << 20
)

var (
	sizeSeen   uint64 // the memory's size after the last call, in bytes
	smallGrows int    // calls in a row that grew the memory by a little
	holds      int    // sliced loads under way (Hold, Release): no collections then
	sink       []byte // keeps a step's block allocated until it is dropped
	stepped    int    // steps taken (tests read it)
)

// afterCall looks at the memory's size after a call (memoryPages in the
// module) and returns the step to take now, in bytes, or 0.
func afterCall(size uint64) uint64 {
	if size == sizeSeen {
		return 0
	}
	grew := size - min(size, sizeSeen)
	first := sizeSeen == 0
	sizeSeen = size
	if first || grew > smallGrowth {
		smallGrows = 0
		return 0
	}
	if smallGrows++; smallGrows < 2 || holds > 0 || size < stepsFrom {
		return 0
	}
	step := size / 8
	if size+step+headroom > memoryLimit {
		return 0
	}
	smallGrows = 0
	return step
}

// grow takes a step of n bytes: unless the garbage counted since the last
// collection (a save's result buffer, a freed tree) covers it, a block of n
// bytes is allocated (the memory grows once); a collection then frees the
// garbage or the block, whose pages serve the heap's next requests.
func grow(n uint64) {
	if debt < n {
		sink = make([]byte, n)
		sink = nil
	}
	collect()
	stepped++
}

// Hold and Release bracket a sliced load: the collector is held while one
// runs (HoldCollector, ReleaseCollector), and the memory takes no steps.
func Hold() {
	holds++
	HoldCollector()
}

// Release ends what Hold began.
func Release() {
	holds = max(holds-1, 0)
	ReleaseCollector()
}
