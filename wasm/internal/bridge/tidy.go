package bridge

import (
	"runtime"
	"sync/atomic"
)

// A full collection run a slice at a time, in the page's idle time, after a
// large load or build (js/sessiontree.js tidyLater).
//
// Why: a load leaves its transient garbage (the parser's buffers, the file's
// copies) beside a tree of about the same size, and with GOGC the next cycle
// is due only when the heap has grown by that much again. Until then every
// allocation takes fresh memory: the module's memory grows a few MB at a time,
// and each growth makes V8 account the whole memory again as external memory,
// which starts a full collection of the page's JavaScript heap ("external
// memory pressure"). A 200k-message session's first ~120 requests after its
// load cost 3–6× the later ones (Node, process.cpuUsage per request); after a
// collection they cost what a 100-message chat's do, because new allocations
// reuse the freed memory.
//
// A collection cannot be cut into slices from outside, but in WebAssembly
// (one thread, no preemption) its work runs only when a goroutine yields: the
// collection is started on a goroutine of its own (runtime.GC), and each step
// yields for its budget, during which the runtime's fractional mark worker,
// the sweeper and the collection's own goroutine take their turns. The
// runtime's pieces are small (a mark worker checks its share every ~100 KB of
// scanning); the step may run over its budget by one of them.
var (
	tidyRunning atomic.Bool
	tidyDone    atomic.Bool
	// Tidied counts the tidy collections that ran to their end (tests read it).
	Tidied atomic.Int64
)

// TidyStep starts a tidy collection if none is under way and lets it run for
// about budget nanoseconds. It reports whether it is over.
func TidyStep(budget int64) bool {
	if !tidyRunning.Load() {
		tidyRunning.Store(true)
		tidyDone.Store(false)
		go func() {
			runtime.GC()
			tidyDone.Store(true)
		}()
	}
	for until := nanotime() + budget; !tidyDone.Load() && nanotime() < until; {
		runtime.Gosched()
	}
	if !tidyDone.Load() {
		return false
	}
	tidyRunning.Store(false)
	Tidied.Add(1)
	debt = 0 // what Room counted as garbage is collected, as collect does
	look()
	liveSeen = memStats.HeapAlloc
	return true
}
