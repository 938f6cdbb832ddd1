package gcpace

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/sessiontree/sessiontree/wasm/internal/bridge"
)

// A load holds the collector (no cycle while it runs), its end sets the next
// goal where the GOGC it found sets it (three times the heap then at 200),
// and the GOGC and memory limit it found (the module's own: the page starts
// it with GOGC=200) are back after that cycle, looked for every checkEvery
// calls (no finalizer: the lean module does without the runtime's
// finalizers). Two loads at once hold it until both end.
func TestLoadsHoldTheCollectorAndGOGCComesBack(t *testing.T) {
	Install()
	defer debug.SetGCPercent(debug.SetGCPercent(200))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(3 << 30))
	bridge.HoldCollector()
	bridge.HoldCollector()
	live := growsHeld(t, "loads")
	var after runtime.MemStats
	bridge.ReleaseCollector()
	if Percent != -1 {
		t.Fatalf("one of two loads ended: GOGC %d, want still held (-1)", Percent)
	}
	bridge.ReleaseCollector()
	runtime.ReadMemStats(&after)
	if l := uint64(Limit); Percent != -1 || l < after.HeapAlloc*5/2 || l > after.HeapAlloc*4 {
		t.Fatalf("after the loads: GOGC %d, limit %d MB with %d MB in use, want off and about three times (GOGC=200's goal)", Percent, l>>20, after.HeapAlloc>>20)
	}
	if after.NextGC < after.HeapAlloc*5/4 {
		t.Fatalf("the next cycle's goal is %d MB with %d MB in use: it would come at once", after.NextGC>>20, after.HeapAlloc>>20)
	}
	for range checkEvery {
		settle()
	}
	if Percent != -1 {
		t.Fatalf("GOGC %d after %d calls and no cycle, want still off until the next cycle", Percent, checkEvery)
	}
	runtime.GC()
	for range checkEvery {
		settle()
	}
	if Percent != 200 || Limit != 3<<30 {
		t.Fatalf("GOGC %d, limit %d %d calls after the next cycle, want the 200 and 3 GiB the loads found", Percent, Limit, checkEvery)
	}
	if p := debug.SetGCPercent(200); p != 200 {
		t.Fatalf("the runtime's GOGC is %d, want 200", p)
	}
	runtime.KeepAlive(live)
	// A release without a hold changes nothing.
	bridge.ReleaseCollector()
	if Percent != 200 {
		t.Fatalf("a stray release set GOGC %d", Percent)
	}
}

// settle ends a call as the bridge ends each: an unknown method's.
func settle() { bridge.Do(math.MaxUint32, 0, nil, 0) }

// A call given a large buffer (a file loaded in one call, a large import)
// holds the collector from the buffer's reserve until the call ends: what it
// allocates is mostly what stays live, and a cycle started there would mark
// the growing heap within the call, then go on into the calls after it. A
// small call holds nothing.
func TestALargeCallHoldsTheCollectorUntilItEnds(t *testing.T) {
	Install()
	defer debug.SetGCPercent(debug.SetGCPercent(200))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(3 << 30))
	bridge.Reserve(1 << 20)
	if Percent == -1 {
		t.Fatal("a 1 MB call held the collector")
	}
	settle()
	bridge.Reserve(8 << 20)
	if Percent != -1 || Limit != math.MaxInt64 {
		t.Fatalf("an 8 MB call: GOGC %d, limit %d, want the collector held", Percent, Limit)
	}
	live := growsHeld(t, "a large call")
	settle()
	if Limit == math.MaxInt64 {
		t.Fatal("the call ended and the collector is still held")
	}
	runtime.KeepAlive(live)
}

// growsHeld allocates what a load's tree would (64 MB) while who holds the
// collector, fails if a cycle ran meanwhile, and returns it to keep alive.
func growsHeld(t *testing.T, who string) [][]byte {
	t.Helper()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	live := make([][]byte, 0, 64)
	for range 64 {
		live = append(live, make([]byte, 1<<20))
	}
	runtime.ReadMemStats(&after)
	if after.NumGC != before.NumGC {
		t.Fatalf("%d collections while %s held the collector", after.NumGC-before.NumGC, who)
	}
	return live
}

// A release waits for a cycle after itself, even while an earlier release
// still waits for its own: a collection during the second hold (Room runs
// one before a large call when there is garbage) is not the cycle after it,
// and GOGC put back then would set the next goal from a heap marked before
// the load ended.
func TestAReleaseWaitsForACycleAfterItself(t *testing.T) {
	Install()
	defer debug.SetGCPercent(debug.SetGCPercent(200))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(3 << 30))
	bridge.HoldCollector()
	live := growsHeld(t, "a load") // the next goal far off: no cycle comes of the calls below
	bridge.ReleaseCollector()      // waits for the next cycle
	bridge.HoldCollector()
	runtime.GC()
	bridge.ReleaseCollector()
	for range checkEvery {
		settle()
	}
	runtime.KeepAlive(live)
	if Percent != -1 {
		t.Fatalf("GOGC %d after a collection during the second hold, want still off until a cycle after its release", Percent)
	}
	runtime.GC()
	for range checkEvery {
		settle()
	}
	if Percent != 200 {
		t.Fatalf("GOGC %d after the cycle, want the 200 the holds found", Percent)
	}
}
