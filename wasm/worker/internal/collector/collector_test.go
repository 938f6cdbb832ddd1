package collector

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

var sink [][]byte

// A long call's allocations (64 MB of a tree being built, under a cap of
// 96 MB) run no cycle while it holds the collector, where GOGC=100 would have
// run several; after the last of two nested holds, the next cycle comes at
// the hold's limit, and after that cycle the GOGC and limit the first hold
// found are back.
func TestAHoldRunsNoCycleUntilItsCapAndTheSettingsComeBack(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(1 << 40))
	Cap = 96 << 20
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	Hold()
	Hold()
	live := make([][]byte, 0, 64)
	for range 64 {
		live = append(live, make([]byte, 1<<20))
	}
	runtime.ReadMemStats(&after)
	if after.NumGC != before.NumGC {
		t.Fatalf("%d cycles while held", after.NumGC-before.NumGC)
	}
	Release()
	p, held := current()
	if p != -1 {
		t.Fatalf("one of two holds ended: GOGC %d, want still off", p)
	}
	Release()
	runtime.ReadMemStats(&after)
	if p, l := current(); p != -1 || l != held || l < Cap || after.NumGC != before.NumGC {
		t.Fatalf("after the holds: GOGC %d, limit %d MB (the hold's %d MB, cap %d MB), %d cycles: the next cycle should come at the hold's limit",
			p, l>>20, held>>20, Cap>>20, after.NumGC-before.NumGC)
	}
	deadline := time.Now().Add(5 * time.Second)
	for p, _ := current(); p != 100 && time.Now().Before(deadline); p, _ = current() {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	p, l := current()
	if p != 100 || l != 1<<40 {
		t.Fatalf("GOGC %d, limit %d after the next cycles, want the 100 and 1 TiB the hold found", p, l)
	}
	if got := debug.SetGCPercent(100); got != 100 {
		t.Fatalf("the runtime's GOGC is %d, want 100", got)
	}
	runtime.KeepAlive(live)
}

// A hold bounds the heap by its cap: garbage past it is collected (a cycle
// at the cap, not never), and the heap in use stays near it.
func TestAHoldCollectsAtItsCap(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(1 << 40))
	Cap = 32 << 20
	defer func() { Cap = DefaultCap }()
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	Hold()
	peak := uint64(0)
	for range 256 { // 256 MB of garbage, 1 MB at a time
		sink = append(sink[:0], make([]byte, 1<<20))
		var m runtime.MemStats
		if len(sink) == 1 {
			runtime.ReadMemStats(&m)
			peak = max(peak, m.HeapAlloc)
		}
	}
	runtime.ReadMemStats(&after)
	Release()
	if after.NumGC == before.NumGC {
		t.Fatalf("no cycle in 256 MB of garbage under a cap of 32 MB")
	}
	// Twice the cap: a cycle runs concurrently with the allocations, and on a
	// busy machine under -race it fell behind them to 54 MB (a clean-clone
	// run, Dec 6); with no cycle at the cap the heap would reach 256 MB.
	if peak > 64<<20 {
		t.Fatalf("the heap reached %d MB under a cap of 32 MB", peak>>20)
	}
}

// With no cap, holds change nothing.
func TestNoCapNoHold(t *testing.T) {
	Cap = 0
	defer func() { Cap = DefaultCap }()
	p := debug.SetGCPercent(100)
	defer debug.SetGCPercent(p)
	Hold()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Fatalf("GOGC %d under a hold without a cap", got)
	}
	Release()
}

// Room leaves the heap with the room asked for free, grown in one step (one
// collection), and does nothing more when the room is there: a second Room
// runs no cycle. It never asks past Cap in all.
func TestRoomGrowsTheHeapOnceBeforeALargeCall(t *testing.T) {
	// No memory limit: one under what Room grows would start cycles of its own.
	underCap(t, 1<<30)
	free, _ := heapFree()
	n := free + 128<<20
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	Room(n)
	runtime.ReadMemStats(&after)
	got, _ := heapFree()
	if got < n-1<<20 { // within Go's 512 KB steps and its own metadata
		t.Fatalf("after Room(%d MB): %d MB free", n>>20, got>>20)
	}
	if after.NumGC != before.NumGC+1 {
		t.Fatalf("Room ran %d cycles, want 1", after.NumGC-before.NumGC)
	}
	Room(got)
	runtime.ReadMemStats(&before)
	if before.NumGC != after.NumGC {
		t.Fatalf("a second Room with the room there ran %d cycles", before.NumGC-after.NumGC)
	}
	// Under a cap: the heap in use plus what Room may add is at most Cap.
	free, total := heapFree()
	Cap = total + 64<<20
	Room(1 << 40)
	if f, got := heapFree(); got > Cap+8<<20 || f < free+56<<20 {
		t.Fatalf("Room(1 TiB) under a cap of %d MB: %d MB taken (was %d), %d MB free (was %d)", Cap>>20, got>>20, total>>20, f>>20, free>>20)
	}
}

// A held call whose live heap outgrows the cap (a tree of 4× the cap built
// in 1 MB pieces, Tick between pieces as between slices) gets a limit that
// grows with it, as GOGC=100 would: a few cycles, not one at every piece
// past the cap. Without Tick the limit stayed at the cap and every
// allocation past it ran a cycle that freed nothing (a create held for over
// a minute in make bench-worker, issue 25).
func TestAHeldCallThatOutgrowsTheCapRunsFewCycles(t *testing.T) {
	underCap(t, 32<<20)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	Hold()
	live := make([][]byte, 0, 128)
	for range 128 {
		live = append(live, make([]byte, 1<<20))
		Tick()
	}
	runtime.ReadMemStats(&after)
	Release()
	if n := after.NumGC - before.NumGC; n > 8 {
		_, l := current()
		t.Fatalf("%d cycles while a held call grew its live heap to 128 MB under a cap of 32 MB (limit now %d MB); GOGC=100 runs 2 or 3", n, l>>20)
	}
	runtime.KeepAlive(live)
}

// Busy holds that end and begin again, each call leaving garbage (a steady
// load of writes), keep the limit near the cap: the heap a run of them may
// take does not rise with each last release.
func TestHoldsOneAfterAnotherKeepTheLimitNearTheCap(t *testing.T) {
	underCap(t, 32<<20)
	peak := int64(0)
	for range 40 {
		Hold()
		for range 24 { // 24 MB of garbage a call
			sink = append(sink[:0], make([]byte, 1<<20))
			Tick()
		}
		Release()
		_, l := current()
		peak = max(peak, l)
	}
	sink = nil
	// Twice the cap: a cycle that marks while the loop allocates counts what
	// it allocates meanwhile as live (on a busy machine under -race, 53 MB
	// once under a cap of 32), where the fault this guards against rose
	// with every release, past five times the cap.
	if peak > 2*Cap+overhead() {
		t.Fatalf("the limit reached %d MB over 40 busy holds under a cap of %d MB", peak>>20, Cap>>20)
	}
}

// underCap sets Cap to c for one test, with GOGC=100 and no memory limit
// whatever a hold before left pending, and puts them back after it. What the
// test grew stays taken until the scavenger gives it back, and a memory limit
// counts it: it is given back then, for the tests after (-count).
func underCap(t *testing.T, c int64) {
	p := debug.SetGCPercent(100)
	l := debug.SetMemoryLimit(math.MaxInt64)
	old := Cap
	Cap = c
	t.Cleanup(func() {
		debug.FreeOSMemory()
		Cap = old
		debug.SetMemoryLimit(l)
		debug.SetGCPercent(p)
	})
	runtime.GC()
}

// current reads Percent and Limit as the collector's lock holds them: a
// release's restore sets them from the finalizer goroutine.
func current() (percent, limit int64) {
	mu.Lock()
	defer mu.Unlock()
	return Percent, Limit
}
