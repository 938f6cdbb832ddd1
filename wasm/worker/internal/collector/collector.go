// Package collector holds Go's garbage collector while the worker's long
// calls run (issue 25).
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
// (where GOGC=100 would have collected anyway). When the last hold ends,
// the next cycle comes when the heap has doubled (a limit of twice the heap
// in use, again at least Cap), and after it the settings Hold found come
// back: the cycles a large call would have run are one, after it.
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
	limit := max(Cap, 2*liveHeap()+overhead())
	p := debug.SetGCPercent(-1)
	l := debug.SetMemoryLimit(limit)
	if !restoring {
		found = settings{int64(p), l}
	}
	Percent, Limit = -1, limit
}

// Release ends a hold. After the last, the next cycle comes at twice the
// heap in use (at least Cap) and the settings the hold found come back after it.
func Release() {
	mu.Lock()
	defer mu.Unlock()
	if Cap <= 0 || holding == 0 {
		return
	}
	if holding--; holding > 0 {
		return
	}
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	limit := max(Cap, int64(min(2*m.HeapAlloc+m.Sys-min(m.HeapSys, m.Sys), math.MaxInt64/4)))
	debug.SetMemoryLimit(limit)
	Limit = limit
	if restoring {
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

// liveHeap is the heap the last cycle marked live.
func liveHeap() int64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(min(s[0].Value.Uint64(), math.MaxInt64/4))
}

// overhead is the memory Go holds beside the heap (stacks, its own
// structures), which a memory limit counts too.
func overhead() int64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(min(m.Sys-min(m.HeapSys, m.Sys), math.MaxInt64/4))
}
