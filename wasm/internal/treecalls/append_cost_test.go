package treecalls

import (
	"encoding/binary"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/sessiontree/sessiontree/wasm/internal/bridge"
)

// caller makes one method's calls as JavaScript does (arguments written into
// the shared input buffer, bridge.Do), with no test helper of its own in the
// way, so that what AllocsPerRun counts is the call.
type caller struct {
	method uint32
	handle uint32
	in     []byte
}

func callerOf(t testing.TB, name string, handle uint32, args ...string) *caller {
	t.Helper()
	for i, m := range served {
		if m.Name == name {
			c := &caller{method: uint32(i + 1), handle: handle}
			for _, a := range args {
				c.in = binary.LittleEndian.AppendUint32(c.in, uint32(len(a)))
				c.in = append(c.in, a...)
			}
			return c
		}
	}
	t.Fatalf("no method %q", name)
	return nil
}

func (c *caller) call(t testing.TB, at float64) string {
	buf := bridge.Reserve(len(c.in))
	copy(buf, c.in)
	res, ok := bridge.Do(c.method, c.handle, buf[:len(c.in)], at)
	if !ok {
		t.Fatalf("call %d: %s", c.method, res)
	}
	return string(res)
}

const costMessage = `{"role":"assistant","content":"a reply of an ordinary length, a sentence of an ordinary chat reply, a sentence of an ordinary chat reply, a sentence of an ordinary chat reply"}`

// costTreeOf makes a tree of size messages on its active path, a regenerate
// every fifty (size/50 abandoned replies, as make bench-peers's conversation
// has), through the module's calls, and returns its handle and the id of the
// node at depth size/2.
func costTreeOf(t testing.TB, size int) (uint32, string) {
	t.Helper()
	h := newHandle(t)
	var mid string
	for i := range size {
		id := callerOf(t, "append", h, `{"role":"user","content":"turn `+strconv.Itoa(i)+`"}`).call(t, float64(1+i))
		if i == size/2 {
			mid = id
		}
		if i%50 == 49 {
			callerOf(t, "regenerate", h, id, costMessage).call(t, float64(1+i))
		}
	}
	return h, mid
}

// An append and a regenerate, through the module's calls as JavaScript makes
// them (the argument in the input buffer, the slot JS keeps, the list memo,
// the change log), allocate as much in a tree of 20,000 messages and 401
// branches as in one of 100 and 3 (issue 26): nothing in the call copies the
// path or the branches, walks them, or names a branch by looking at the
// others. Counted in allocations and bytes, never in time: 2,000 calls of
// each, so that the maps' and lists' growth averages out.
func TestACallToAppendOrRegenerateCostsTheSameInALargeTree(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 20,000-message tree")
	}
	const calls = 2000
	type cost struct{ allocs, bytes float64 }
	for _, op := range []string{"append", "regenerate"} {
		var costs [2]cost
		for k, size := range []int{100, 20000} {
			h, mid := costTreeOf(t, size)
			c := callerOf(t, "append", h, costMessage)
			if op == "regenerate" {
				c = callerOf(t, "regenerate", h, mid, costMessage)
			}
			at := float64(1e6)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			for range calls {
				at++
				c.call(t, at)
			}
			runtime.ReadMemStats(&after)
			costs[k] = cost{float64(after.Mallocs-before.Mallocs) / calls, float64(after.TotalAlloc-before.TotalAlloc) / calls}
			callerOf(t, "free", h).call(t, 0)
		}
		small, large := costs[0], costs[1]
		t.Logf("%s per call: %.1f / %.1f allocations, %.0f / %.0f bytes (100 / 20,000 messages)", op, small.allocs, large.allocs, small.bytes, large.bytes)
		if large.allocs > small.allocs+1 || large.bytes > 1.5*small.bytes+256 {
			t.Errorf("%s costs more in a large tree: %.1f allocations and %.0f bytes a call against %.1f and %.0f in a small one",
				op, large.allocs, large.bytes, small.allocs, small.bytes)
		}
	}
}

// BenchmarkCallAppend and BenchmarkCallRegenerate: one call each, through
// bridge.Do, on a tree of 20,000 messages (go test -bench Call -benchmem).
func BenchmarkCallAppend(b *testing.B)     { benchCall(b, "append") }
func BenchmarkCallRegenerate(b *testing.B) { benchCall(b, "regenerate") }

func benchCall(b *testing.B, op string) {
	h, _ := costTreeOf(b, 20000)
	path := strings.Split(callerOf(b, "pathOf", h).call(b, 0), "\n")
	c := callerOf(b, "append", h, costMessage)
	b.ReportAllocs()
	at := float64(1e6)
	i := 0
	for b.Loop() {
		if op == "regenerate" && i%1000 == 0 {
			// A thousand alternatives to one reply, then the next one: as
			// make bench-peers's regenerate step, whatever b.N is.
			c = callerOf(b, "regenerate", h, path[1000+i/1000%10000], costMessage)
		}
		i++
		at++
		c.call(b, at)
	}
}

func newHandle(t testing.TB) uint32 {
	t.Helper()
	s := callerOf(t, "new", 0).call(t, 0)
	h, err := strconv.ParseUint(s, 10, 32)
	if err != nil {
		t.Fatalf("new: %q", s)
	}
	return uint32(h)
}
