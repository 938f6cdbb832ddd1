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
// interchange module gzipped), and both modules install it. It is not safe
// for concurrent use: a module serves one call at a time.
package gcpace

import (
	"math"
	"runtime"
	_ "unsafe" // go:linkname

	"github.com/sessiontree/sessiontree/wasm/internal/bridge"
)

// Install makes large loads hold the collector.
func Install() {
	bridge.HoldCollector, bridge.ReleaseCollector, bridge.Settled = hold, release, settled
}

var (
	holding   int
	restoring bool
	// Percent is the GOGC set last: -1 while loads hold the collector or
	// until the cycle after them, then the one they found (tests read it).
	Percent int64
	// Limit is the memory limit set last (tests read it).
	Limit int64
	// found: the GOGC and memory limit in force before the first load held
	// the collector, put back after it (a load while they are being put back
	// finds the loads' own settings: found stays).
	foundPercent int64
	foundLimit   int64
)

func hold() {
	if holding++; holding == 1 {
		p := setGCPercent(-1)
		l := setMemoryLimit(math.MaxInt64)
		if !restoring {
			foundPercent = int64(p)
			foundLimit = l
		}
		Percent = -1
		Limit = math.MaxInt64
	}
}

// release sets the next cycle where the GOGC the first hold found would set
// it from the heap in use now (three times it at the page's GOGC=200; twice
// when that GOGC was off): a memory limit with GOGC off, as GOGC's own goal
// would be counted from the heap marked before the load. The GOGC and limit
// the first hold found come back after that cycle (settled).
func release() {
	if holding--; holding > 0 {
		return
	} else if holding < 0 {
		holding = 0
		return
	}
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	grow := uint64(100)
	if p := foundPercent; p > 0 {
		grow = uint64(p)
	}
	limit := int64(min(m.HeapAlloc+m.HeapAlloc/100*grow+(m.Sys-m.HeapSys), 3<<30))
	setMemoryLimit(limit)
	Limit = limit
	// The cycle to wait for is the next one from here, even when an earlier
	// release still waits for its own (a collection during this hold, as
	// Room runs before a large call, is not it).
	restoring, cyclesAtRelease, calls = true, m.NumGC, 0
}

var (
	cyclesAtRelease uint32 // the cycles that had ended when the last hold was released
	calls           int    // calls ended since, while restoring
)

// settled runs as each call ends. While the settings a hold found are to
// come back, every checkEvery calls it looks whether a cycle has ended since
// the release, and puts them back if one has. (A finalizer on an object made
// at the release would say so at once, but links the runtime's finalizers:
// ~10 KB of the lean module gzipped. Until they are back, the collector runs
// at the release's limit: when the heap in use nears it, more often, never
// past it.)
func settled() {
	if !restoring {
		return
	}
	if calls++; calls < checkEvery {
		return
	}
	calls = 0
	if cycles() == cyclesAtRelease {
		return
	}
	restoring = false
	if holding == 0 {
		p, l := foundPercent, foundLimit
		setGCPercent(int32(p))
		setMemoryLimit(l)
		Percent = p
		Limit = l
	}
}

// checkEvery is how many calls settled lets pass between two looks at the
// collector's cycles.
const checkEvery = 64

// cycles returns the number of cycles that have ended, as runtime/debug's
// ReadGCStats learns it: without runtime.ReadMemStats, which stops the world
// and flushes every span cached for allocation (each of 10k appends after
// an open then allocated slower: 48 → 51–64 ms in Node).
func cycles() uint32 {
	readGCStats(&gcStats)
	return uint32(gcStats[len(gcStats)-2])
}

// gcStats is readGCStats's buffer: the last 256 pauses and their ends, then
// the last cycle's time, the count of cycles and the total pause.
var gcStats = make([]uint64, 0, 2*256+3)

// setGCPercent and setMemoryLimit are what runtime/debug's SetGCPercent and
// SetMemoryLimit call: the runtime defines them for it (mgcpacer.go). A
// negative limit leaves the limit as it is; each returns the setting before.
//
//go:linkname setGCPercent runtime/debug.setGCPercent
func setGCPercent(int32) int32

// SetGCPercent is debug.SetGCPercent without the package (runtime/debug
// added 23 KB to the full module gzipped): fullcalls' importNext paces the
// collector while it reads a conversation.
func SetGCPercent(percent int32) int32 { return setGCPercent(percent) }

//go:linkname setMemoryLimit runtime/debug.setMemoryLimit
func setMemoryLimit(int64) int64

//go:linkname readGCStats runtime/debug.readGCStats
func readGCStats(*[]uint64)
