// Package gcpace holds the collector while large loads run (Install sets
// bridge.HoldCollector and bridge.ReleaseCollector).
//
// A load of a 100 MB file grows the heap from a few MB to ~180 MB; with
// GOGC=100 the collector runs at each doubling, and in WebAssembly (one
// thread) a cycle marks the whole heap in one piece where it is triggered:
// within a load's slice (an open's long task) or in the first calls after it
// (the first request after an open). While loads are under way (a sliced
// load, or one call given a large buffer: bridge.Reserve) the collector
// waits; when the last one ends its next cycle comes when the heap has grown
// as the GOGC the loads found would have let it grow from there (a memory
// limit, GOGC off), and the settings the loads found (the GOGC and GOMEMLIMIT
// the page's module was started with: 200 and 3584 MiB, see
// js/sessiontree.js) come back once that cycle has run. The file's bytes and
// the tree are most of what a load allocates, so the heap grows little beyond
// what GOGC lets it.
//
// It sets GOGC and the memory limit through the runtime's own setters, which
// runtime/debug calls: runtime/debug links the os package (22 KB of the
// interchange module gzipped). The lean module does without it all the same
// (its loads collect as GOGC does): the finalizer that puts the settings back
// links the runtime's finalizers, ~10 KB, for ~7% of a 100k-message open in
// Node (Dec 6).
package gcpace

import (
	"math"
	"runtime"
	"sync/atomic"
	_ "unsafe" // go:linkname

	"github.com/sessiontree/sessiontree/wasm/internal/bridge"
)

// Install makes sliced loads hold the collector.
func Install() {
	bridge.HoldCollector, bridge.ReleaseCollector = hold, release
}

var (
	holding   atomic.Int32
	restoring atomic.Bool
	// Percent is the GOGC set last: -1 while loads hold the collector or
	// until the cycle after them, then the one they found (tests read it).
	Percent atomic.Int64
	// Limit is the memory limit set last (tests read it).
	Limit atomic.Int64
	// found: the GOGC and memory limit in force before the first load held
	// the collector, put back after it (a load while they are being put back
	// finds the loads' own settings: found stays).
	foundPercent atomic.Int64
	foundLimit   atomic.Int64
)

func hold() {
	if holding.Add(1) == 1 {
		p := int(setGCPercent(-1))
		l := setMemoryLimit(math.MaxInt64)
		if !restoring.Load() {
			foundPercent.Store(int64(p))
			foundLimit.Store(l)
		}
		Percent.Store(-1)
		Limit.Store(math.MaxInt64)
	}
}

// release sets the next cycle where the GOGC the first hold found would set
// it from the heap in use now (three times it at the page's GOGC=200; twice
// when that GOGC was off): a memory limit with GOGC off, as GOGC's own goal
// would be counted from the heap marked before the load. After that cycle,
// the GOGC and limit the first hold found.
func release() {
	if n := holding.Add(-1); n > 0 {
		return
	} else if n < 0 {
		holding.Store(0)
		return
	}
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	grow := uint64(100)
	if p := foundPercent.Load(); p > 0 {
		grow = uint64(p)
	}
	limit := int64(min(m.HeapAlloc+m.HeapAlloc/100*grow+(m.Sys-m.HeapSys), 3<<30))
	setMemoryLimit(limit)
	Limit.Store(limit)
	if !restoring.Swap(true) {
		s := &sentinel{}
		runtime.SetFinalizer(s, func(*sentinel) {
			restoring.Store(false)
			if holding.Load() == 0 {
				p, l := foundPercent.Load(), foundLimit.Load()
				setGCPercent(int32(p))
				setMemoryLimit(l)
				Percent.Store(p)
				Limit.Store(l)
			}
		})
	}
}

type sentinel struct{ _ *int }

// setGCPercent and setMemoryLimit are what runtime/debug's SetGCPercent and
// SetMemoryLimit call: the runtime defines them for it (mgcpacer.go). A
// negative limit leaves the limit as it is; each returns the setting before.
//
//go:linkname setGCPercent runtime/debug.setGCPercent
func setGCPercent(int32) int32

//go:linkname setMemoryLimit runtime/debug.setMemoryLimit
func setMemoryLimit(int64) int64
