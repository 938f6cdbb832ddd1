package bridge

import (
	"runtime"
	"strconv"

	"github.com/sessiontree/sessiontree/core"
)

// A wasm32 module's memory ends at 4 GiB, and when Go's heap cannot grow its
// runtime stops the program ("out of memory"), which no recover catches: the
// module would be gone with every tree in it. So a call whose need is large is
// checked first (Room) and refused with too_large, the tree untouched, when
// the memory left cannot hold it.
const (
	memoryLimit = 4 << 30
	// headroom is kept free for what no call's estimate counts: the
	// runtime's own metadata, goroutine stacks, the collector's work.
	headroom = 192 << 20
	// bigCall is the need from which a call is a large one: it pays for a
	// look at the memory and, when there is garbage to collect, a collection.
	bigCall = 4 << 20
)

var (
	sysSeen   uint64 // runtime's Sys (memory taken from the host) at the last look
	spent     uint64 // needs granted since that look
	debt      uint64 // bytes of large buffers and freed trees left as garbage since the last collection
	liveSeen  uint64 // the heap in use after the last collection Room ran, and what calls kept since (Kept)
	memStats  runtime.MemStats
	collected int // collections Room ran (tests read it)
)

// owe counts n bytes just left as garbage (a large buffer replaced or
// released, a tree freed): Room collects them before the next large call.
func owe(n int) { debt += uint64(n) }

// Owe tells the bridge that a call left n bytes of garbage, such as a freed
// tree's size.
func Owe(n int) { owe(n) }

// Kept tells the bridge that a call left n more bytes in use, such as a tree
// it loaded and kept: counted as part of the heap in use until the next
// collection measures it. A load holds the collector, so none follows it, and
// the heap in use was the last collection's alone (0 before the first): 4 MB
// of garbage were then worth a collection. A save of a changed 100k-message
// tree after its load (7 MB of the sort's buffers), then 10k appends, marked
// the whole 66 MB heap at their first growth (65–96 ms in Node) to take back
// 7 MB.
func Kept(n int) { liveSeen += uint64(n) }

// Scratch is Owe for a call that made n bytes of garbage on its own (trees it
// loaded to read and let go: a merge of two files, an export of one), and
// collects them at once when they outweigh what else the heap holds: then a
// cycle marks little. The lean module's interchange helper, given nothing but
// such calls back to back, each holding the collector, grew ~15 MB a merge of
// two 3.1 MB files; a page's own module, whose live tree outweighs such
// garbage, does not collect here (a collection in a page's large call is a
// long task on its main thread).
func Scratch(n int) {
	owe(n)
	if debt < bigCall {
		return
	}
	look()
	if h := memStats.HeapAlloc; debt >= h-min(h, debt) {
		collect()
	}
}

// Collect runs a full collection now: for a call that holds the collector
// and knows it leaves more garbage than Scratch's rule would let pile up
// (importAll, a conversation at a time).
func Collect() { collect() }

// Room makes sure the module's memory can take need more bytes: when the
// garbage counted since the last collection is worth it, a large call first
// collects it (so the call reuses that memory rather than growing the
// module), and a call that still would not fit under the 4 GiB of wasm32 is
// refused with too_large, before anything is changed.
func Room(need int) error {
	if need <= 0 {
		return nil
	}
	n := uint64(need)
	if sysSeen == 0 {
		look()
	}
	// A large call collects when the garbage is worth it against the heap in
	// use, or when it would cover the call's need by itself: then the call
	// reuses that memory (a load after a free of the same size does not grow
	// the module however large the other live trees are).
	if n >= bigCall && (debt >= max(bigCall, liveSeen/2) || debt >= n) {
		collect()
	}
	if sysSeen+spent+n+headroom <= memoryLimit {
		spent += n
		return nil
	}
	look()
	if !fits(n, memStats.Sys, memStats.HeapIdle) && debt > 0 {
		collect()
	}
	if !fits(n, memStats.Sys, memStats.HeapIdle) {
		return &core.Error{Code: core.CodeTooLarge, Message: "the module's memory cannot take this call: it needs about " +
			mib(n) + " MiB more and " + mib(free(memStats.Sys, memStats.HeapIdle)) +
			" MiB are left of the 4 GiB WebAssembly allows; nothing was changed. Free trees you no longer need, or work on a smaller file"}
	}
	spent = n
	return nil
}

// growCollect is the garbage that a growth of the memory collects (Reserve(0)):
// 32 growths' worth. In a page, each growth of a large WebAssembly memory
// (past ~64 MB) costs a full collection of the page's JavaScript heap, and
// Go's heap grows 512 KB at a time: 10k appends after a save of a 100k-message
// tree grew it 11 times (~25 ms each with the list held). Collected at the
// first growth, the garbage a save's result left is reused instead.
const growCollect = 16 << 20

// collect runs a full collection and looks at the memory afterwards. A
// large call collects once the garbage counted since the last one reaches half
// the heap in use then (and at least bigCall): the collection's cost grows
// with the heap, so this keeps it in proportion to the garbage, as GOGC=50
// would, while the memory stays within 1.5× what is in use.
func collect() {
	runtime.GC()
	collected++
	debt = 0
	look()
	liveSeen = memStats.HeapAlloc
}

// A large load starts no collection (issue 26). A load allocates mostly
// what stays live (the file, the tree over it), and GOGC's goal was set from
// the heap before it: a load of a few times that heap crosses the trigger,
// and in WebAssembly the collector's workers run only when a goroutine
// yields, which a call never does, so that cycle was advanced by the assists
// of later allocations alone: it went on over the calls after the load (the
// full list, the save, regenerates) for hundreds of milliseconds, with write
// barriers on and the heap growing. A 20k-message load's next 1,000
// regenerates cost 1.6× what they do once it has ended. Since Dec 6 the call
// that takes a large buffer holds the collector (Reserve, settle, with
// wasm/internal/gcpace installed, as both modules do): no cycle starts in it,
// and the next comes where GOGC would put it from the heap after the load.
// (Before, the load finished such a cycle with a full collection before it
// returned.)

// look reads the runtime's memory statistics and restarts the count of
// needs granted since.
func look() {
	runtime.ReadMemStats(&memStats)
	sysSeen, spent = memStats.Sys, 0
}

// fits reports whether need more bytes fit: in the memory never taken from
// the host, plus half the heap's free pages (half: a large buffer needs them
// in one run, and free pages are scattered).
func fits(need, sys, idle uint64) bool { return need <= free(sys, idle) }

func free(sys, idle uint64) uint64 {
	var fresh uint64
	if sys+headroom < memoryLimit {
		fresh = memoryLimit - headroom - sys
	}
	return fresh + idle/2
}

func mib(n uint64) string { return strconv.FormatUint((n+(1<<20)-1)>>20, 10) }

// HoldCollector and ReleaseCollector are called as a sliced load begins and
// as it ends (whole, failed or given up), and around a call given a large
// buffer (Reserve, settle): no-ops, unless a module installs
// wasm/internal/gcpace, which holds the collector while loads run.
var (
	HoldCollector    = func() {}
	ReleaseCollector = func() {}
	// Settled is called as each call ends (gcpace puts the collector's
	// settings back there).
	Settled = func() {}
)
