package gcpace

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"

	"github.com/sessiontree/sessiontree/wasm/internal/bridge"
)

// A load holds the collector (no cycle while it runs), its end sets the next
// goal at about twice the heap then, and the GOGC and memory limit it found
// (the module's own: the page starts it with GOGC=200) are back after that
// cycle. Two loads at once hold it until both end.
func TestLoadsHoldTheCollectorAndGOGCComesBack(t *testing.T) {
	Install()
	defer debug.SetGCPercent(debug.SetGCPercent(200))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(3 << 30))
	bridge.HoldCollector()
	bridge.HoldCollector()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	live := make([][]byte, 0, 64)
	for range 64 {
		live = append(live, make([]byte, 1<<20)) // a load's tree: 64 MB
	}
	runtime.ReadMemStats(&after)
	if after.NumGC != before.NumGC {
		t.Fatalf("%d collections while loads held the collector", after.NumGC-before.NumGC)
	}
	bridge.ReleaseCollector()
	if Percent.Load() != -1 {
		t.Fatalf("one of two loads ended: GOGC %d, want still held (-1)", Percent.Load())
	}
	bridge.ReleaseCollector()
	runtime.ReadMemStats(&after)
	if l := uint64(Limit.Load()); Percent.Load() != -1 || l < after.HeapAlloc*3/2 || l > after.HeapAlloc*3 {
		t.Fatalf("after the loads: GOGC %d, limit %d MB with %d MB in use, want off and about twice", Percent.Load(), l>>20, after.HeapAlloc>>20)
	}
	if after.NextGC < after.HeapAlloc*5/4 {
		t.Fatalf("the next cycle's goal is %d MB with %d MB in use: it would come at once", after.NextGC>>20, after.HeapAlloc>>20)
	}
	runtime.GC()
	deadline := time.Now().Add(5 * time.Second)
	for Percent.Load() != 200 && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if Percent.Load() != 200 || Limit.Load() != 3<<30 {
		t.Fatalf("GOGC %d, limit %d after the next cycles, want the 200 and 3 GiB the loads found", Percent.Load(), Limit.Load())
	}
	if p := debug.SetGCPercent(200); p != 200 {
		t.Fatalf("the runtime's GOGC is %d, want 200", p)
	}
	runtime.KeepAlive(live)
	// A release without a hold changes nothing.
	bridge.ReleaseCollector()
	if Percent.Load() != 200 {
		t.Fatalf("a stray release set GOGC %d", Percent.Load())
	}
}
