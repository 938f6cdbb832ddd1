// Package collector holds Go's garbage collector while the worker's long
// calls run, and grows Go's heap in one step before a large one (Room;
// issue 25).
//
// In WebAssembly a cycle's marking runs to its end whenever Go would return
// to JavaScript: whatever a call slices, each cycle is one piece, as long as
// the live heap takes to mark, and every other tenant's request waits for it
// (a CPU profile of a 100,000-message create showed seven cycles, marking
// 5 to 47 MB, as pieces of 15-28 ms with the sweeps and finalizers after
// them, among the longest of the isolate). With GOGC=100 a heap that grows
// from a few MB to a 100,000-node tree is collected at each doubling. While
// a long call (one that yielded) runs, Hold turns GOGC off and sets a memory
// limit instead: the larger of Cap and twice the heap the last cycle left
// (where GOGC=100 would have collected anyway), raised between slices
// (Tick) when a cycle finds more live than that. When the last hold ends,
// the next cycle comes at that limit, and after it the settings Hold found
// come back: the cycles a large call would have run are one, after it.
package collector

import (
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// Cap is the heap a hold lets grow before a cycle, in bytes (0: holds do
// nothing). The worker sets it from SESSIONTREE_GC_HOLD_BYTES.
var Cap int64 = DefaultCap

// DefaultCap is 96 MiB: the objects' instance of a deployed isolate (128 MB,
// shared with the router's instance) already reached 81 MB at GOGC=100 in a
// 100,000-message create.
const DefaultCap = 96 << 20

var (
	mu        sync.Mutex
	holding   int
	restoring bool     // a release's cycle has not run yet: found stays
	found     settings // what the first hold found
	ticked    int64    // the cycles completed at the hold's start or its last Tick
	// Percent and Limit are the GOGC and memory limit set last (tests read them).
	Percent, Limit int64
)

type settings struct{ percent, limit int64 }

// Hold holds the collector until the matching Release (holds nest).
func Hold() {
	mu.Lock()
	defer mu.Unlock()
	if Cap <= 0 {
		return
	}
	if holding++; holding > 1 {
		return
	}
	limit := goal()
	p := debug.SetGCPercent(-1)
	l := debug.SetMemoryLimit(limit)
	if !restoring {
		found = settings{int64(p), l}
	}
	Percent, Limit = -1, limit
	ticked = cycles()
}

// Tick is called between the slices of a held call. When a cycle has run
// since the hold began (or since the last Tick) and the heap it left live
// needs more than the limit, the limit rises to twice that heap, as GOGC=100
// would have it: a hold must not turn a call whose tree outgrows Cap (a
// 100,000-message create after a run that left Go's own structures large)
// into cycles back to back, each freeing nothing, which held a create for
// over a minute and every other tenant with it (issue 25). It never lowers
// the limit during a hold.
func Tick() {
	mu.Lock()
	defer mu.Unlock()
	if Cap <= 0 || holding == 0 {
		return
	}
	if n := cycles(); n != ticked {
		ticked = n
		if limit := goal(); limit > Limit {
			debug.SetMemoryLimit(limit)
			Limit = limit
		}
	}
}

// Release ends a hold. After the last, the limit stays where the holds left
// it (the next cycle comes there, not at once as GOGC=100 would after a large
// call) and the settings the first hold found come back after that cycle.
//
// It once set a limit of twice the heap in use instead. In use counts the
// held calls' garbage, and under a steady load (make bench-worker's load
// part: a last release every few calls) each such limit let the heap grow to
// it before the next: 123 MB rose to 644 MB in one run, Go's memory grew to
// 480 MB, past the 128 MB a deployed isolate has, and a create that followed
// ran cycle after cycle under the limit a hold then set (issue 25).
func Release() {
	mu.Lock()
	defer mu.Unlock()
	if Cap <= 0 || holding == 0 {
		return
	}
	if holding--; holding > 0 || restoring {
		return
	}
	restoring = true
	s := &sentinel{}
	runtime.SetFinalizer(s, func(*sentinel) { restore() })
}

// restore puts back what the first hold found, after the cycle that
// followed the last release (unless a hold began meanwhile).
func restore() {
	mu.Lock()
	defer mu.Unlock()
	restoring = false
	if holding > 0 {
		return
	}
	debug.SetGCPercent(int(found.percent))
	debug.SetMemoryLimit(found.limit)
	Percent, Limit = found.percent, found.limit
}

type sentinel struct{ _ *int }

// goal is the limit of a hold: the larger of Cap and twice the heap the last
// cycle left live, with the memory Go holds beside the heap.
func goal() int64 { return max(Cap, 2*liveHeap()+overhead()) }

// cycles is the number of cycles completed so far.
func cycles() int64 { return metric("/gc/cycles/total:gc-cycles") }

// liveHeap is the heap the last cycle marked live.
func liveHeap() int64 { return metric("/gc/heap/live:bytes") }

// metric reads one of the runtime's counters (bytesOf).
func metric(name string) int64 {
	s := []metrics.Sample{{Name: name}}
	metrics.Read(s)
	return bytesOf(s[0])
}

// bytesOf is a counter's value (bytes, cycles), 0 where the runtime has no such metric.
func bytesOf(s metrics.Sample) int64 {
	if s.Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(min(s.Value.Uint64(), math.MaxInt64/4))
}

// overhead is the memory Go holds beside the heap (stacks, its own
// structures), which a memory limit counts too.
func overhead() int64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(min(m.Sys-min(m.HeapSys, m.Sys), math.MaxInt64/4))
}

// Room makes n bytes of Go's heap free before a large call (a create of
// 100,000 messages, a batch of megabytes), no more than Cap less the heap in
// use: when fewer are free it grows the heap in one step (an allocation of
// what is missing, then a collection that frees it) instead of letting the
// call grow it. Go's heap in WebAssembly grows 512 KB at a time, and each
// growth of a WebAssembly memory past 64 MB costs V8 a collection of the
// isolate's JavaScript heap: a 100,000-message create grew it ~100 times,
// within the slices that allocated, and those slices set another tenant's
// p99 (issue 25; docs/edge.md). The collection marks what is live before
// the call, which makeRoom has just made small. Nothing happens when there
// is room.
func Room(n int64) {
	if Cap <= 0 || n <= 0 {
		return
	}
	free, total := heapFree()
	inUse := total - free
	want := min(n, Cap-inUse)
	if want <= free {
		return
	}
	// The allocations alone must not start a cycle, which would mark them
	// live. An allocation may fit in what is free rather than grow the heap:
	// then another, until the heap has grown to what is wanted (each grows it
	// by at most its size, so it never grows past that, but for Go's 512 KB
	// steps).
	mu.Lock()
	p := debug.SetGCPercent(-1)
	l := debug.SetMemoryLimit(math.MaxInt64)
	for i := 0; i < 64 && total < inUse+want; i++ {
		ballast = append(ballast, make([]byte, inUse+want-total))
		_, total = heapFree()
	}
	ballast = nil
	debug.SetGCPercent(p)
	debug.SetMemoryLimit(l)
	mu.Unlock()
	runtime.GC()
}

// ballast holds Room's allocations until they are dropped.
var ballast [][]byte

// heapFree is the heap's free bytes (free or given back, both reusable
// without growing) and all the memory Go has taken.
func heapFree() (free, total int64) {
	s := []metrics.Sample{
		{Name: "/memory/classes/heap/free:bytes"},
		{Name: "/memory/classes/heap/released:bytes"},
		{Name: "/memory/classes/total:bytes"},
	}
	metrics.Read(s)
	return bytesOf(s[0]) + bytesOf(s[1]), bytesOf(s[2])
}
