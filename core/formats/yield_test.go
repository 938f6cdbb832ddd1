package formats

import (
	"runtime"
	"sort"
	"strconv"
	"testing"

	"github.com/sessiontree/sessiontree/core"
)

// An export yields as it goes (core.Tick, core.TickBytes): in the edge worker
// an export runs in slices between other tenants' requests, and an exporter
// whose per-message loop did not tick rendered a 70,000-message tree in one
// piece, another tenant's 1-node read waiting 3.9-12.9 s behind it (issue 25's
// hostile pass: only claudecode, codex, markdown and pi ticked). Measured as
// the memory allocated between two yields, never as time: no stretch of an
// export may allocate more than maxStretch, beside three copies of the
// export's bytes (the file joined from its parts: one copy a few ms long).
func TestEveryExportYieldsAsItRenders(t *testing.T) {
	const maxStretch = 1 << 20
	tr := core.New()
	var fork string
	for i := range 6000 {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		id, err := tr.Append(core.Message(`{"role":"`+role+`","content":"message `+strconv.Itoa(i)+`: an ordinary chat reply of a sentence or two, long enough to count"}`), int64(1_700_000_000_000+i))
		if err != nil {
			t.Fatal(err)
		}
		if i == 3000 {
			fork = id
		}
	}
	if _, err := tr.Rewind(fork, 1_700_000_100_000); err != nil {
		t.Fatal(err)
	}
	for i := range 2000 {
		if _, err := tr.Append(core.Message(`{"role":"user","content":"on the fork `+strconv.Itoa(i)+`"}`), int64(1_700_000_100_001+i)); err != nil {
			t.Fatal(err)
		}
	}
	var names []string
	for name := range exporters {
		names = append(names, name)
	}
	sort.Strings(names)
	var ms runtime.MemStats
	for _, name := range names {
		var last, worst uint64
		yields := 0
		mark := func() {
			runtime.ReadMemStats(&ms)
			worst = max(worst, ms.TotalAlloc-last)
			last = ms.TotalAlloc
		}
		core.SetYield(func() { yields++; mark() })
		runtime.ReadMemStats(&ms)
		last = ms.TotalAlloc
		out, err := Export(tr, name)
		mark()
		core.SetYield(nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if limit := uint64(maxStretch + 3*len(out)); worst > limit {
			t.Errorf("%s: %d yields over a %d-byte export; the longest stretch between two allocated %d KiB, want at most %d KiB", name, yields, len(out), worst>>10, limit>>10)
		}
	}
}
