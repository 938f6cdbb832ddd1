// Package gcpace holds the collector while sliced loads run (Install sets
// bridge.HoldCollector and bridge.ReleaseCollector).
//
// A load of a 100 MB file grows the heap from a few MB to ~180 MB; with
// GOGC=100 the collector runs at each doubling, and in WebAssembly (one
// thread) a cycle marks the whole heap in one piece where it is triggered:
// within a load's slice (an open's long task) or in the first calls after it
// (the first request after an open). While sliced loads are under way the
// collector waits; when the last one ends its next cycle comes when the heap
// has doubled (a memory limit, GOGC off), as a collection at that point would
// have set it with GOGC=100, and the settings the loads found (the GOGC and
// GOMEMLIMIT the page's module was started with: 200 and 3584 MiB, see
// js/sessiontree.js) come back once that cycle has run. The file's bytes and
// the tree are most of what a load allocates, so the heap grows little beyond
// what GOGC=100 lets it.
//
// It links runtime/debug, which links the os package (~100 KB gzipped): the
// interchange module installs it, the lean module does without (its loads
// collect as GOGC=100 does).
package gcpace

import (
	"math"
	"runtime"
	"runtime/debug"
	"sync/atomic"

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
		p := debug.SetGCPercent(-1)
		l := debug.SetMemoryLimit(math.MaxInt64)
		if !restoring.Load() {
			foundPercent.Store(int64(p))
			foundLimit.Store(l)
		}
		Percent.Store(-1)
		Limit.Store(math.MaxInt64)
	}
}

// release sets the next cycle at twice the heap in use: a memory limit with
// GOGC off (GOGC's goal would be counted from the heap marked before the
// load); after that cycle, the GOGC and limit the first hold found.
func release() {
	if n := holding.Add(-1); n > 0 {
		return
	} else if n < 0 {
		holding.Store(0)
		return
	}
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	limit := int64(min(2*m.HeapAlloc+(m.Sys-m.HeapSys), 3<<30))
	debug.SetMemoryLimit(limit)
	Limit.Store(limit)
	if !restoring.Swap(true) {
		s := &sentinel{}
		runtime.SetFinalizer(s, func(*sentinel) {
			restoring.Store(false)
			if holding.Load() == 0 {
				p, l := foundPercent.Load(), foundLimit.Load()
				debug.SetGCPercent(int(p))
				debug.SetMemoryLimit(l)
				Percent.Store(p)
				Limit.Store(l)
			}
		})
	}
}

type sentinel struct{ _ *int }
