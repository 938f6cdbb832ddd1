package treecalls

import (
	"encoding/binary"
	"math"
	"runtime"
	"runtime/debug"
	"strconv"
	"testing"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/wasm/internal/bridge"
	"github.com/sessiontree/sessiontree/wasm/internal/gcpace"
)

// A large load leaves no collection under way (issue 26): the call given
// its buffer holds the collector (bridge.Reserve with gcpace, as both
// modules install it), so the load starts no cycle to drag over the calls
// after it with write barriers on, and the next goal lies past the heap the
// load left. In WebAssembly (GOOS=js: one thread, the collector's workers run
// only when a goroutine yields) the cycle a load started is still under way
// at its end without the hold; natively a worker on another thread may
// finish it first.
func TestALargeLoadLeavesNoCollectionUnderWay(t *testing.T) {
	hold, release, settled := bridge.HoldCollector, bridge.ReleaseCollector, bridge.Settled
	defer func() { bridge.HoldCollector, bridge.ReleaseCollector, bridge.Settled = hold, release, settled }()
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	gcpace.Install()
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	defer runtime.GC() // the limit the load's end set comes off before the next test (GOGC after it)
	tr := core.New()
	for i := range 50000 {
		if _, err := tr.Append(core.Message(`{"role":"user","content":"message `+strconv.Itoa(i)+`"}`), int64(i)); err != nil {
			t.Fatal(err)
		}
	}
	// The file in the input buffer, as JavaScript writes it; nothing else
	// of its making left in the heap.
	in := binary.LittleEndian.AppendUint32(nil, 0)
	in = tr.AppendMarshal(in)
	binary.LittleEndian.PutUint32(in, uint32(len(in)-4))
	n := len(in)
	copy(bridge.Reserve(n), in)
	in, tr = nil, nil
	load := 0
	for i, m := range served {
		if m.Name == "load" {
			load = i + 1
		}
	}
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	res, ok := bridge.Do(uint32(load), 0, bridge.Reserve(n)[:n], 1000)
	runtime.ReadMemStats(&after)
	if !ok {
		t.Fatal(string(res))
	}
	defer must(t, "free", handleOf(t, string(res)))
	grown := after.TotalAlloc - before.TotalAlloc
	t.Logf("the load of %d MB allocated %d MB: heap %d → %d MB, goal %d → %d MB, %d cycles ended during it",
		n>>20, grown>>20, before.HeapAlloc>>20, after.HeapAlloc>>20, before.NextGC>>20, after.NextGC>>20, after.NumGC-before.NumGC)
	// GOGC=100's goal, counted from the heap marked just now (the reserve
	// already holds the collector: the runtime's own goal says nothing).
	if goal := 2 * before.HeapAlloc; before.HeapAlloc+grown < goal {
		t.Fatalf("the load allocated %d MB, short of the goal of %d MB GOGC=100 sets (%d MB in use): it would start no cycle, and the test shows nothing",
			grown>>20, goal>>20, before.HeapAlloc>>20)
	}
	if after.HeapAlloc >= after.NextGC/10*7 {
		t.Fatalf("after the load the heap is %d MB of a goal of %d MB: a cycle may be under way", after.HeapAlloc>>20, after.NextGC>>20)
	}
}
