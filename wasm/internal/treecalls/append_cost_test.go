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

// The three steps of make bench-peers's issue-26 lines, as the module sees
// them (go test -bench Steps -benchmem, GOOS=js GOARCH=wasm for wasm's
// prices): 10k appends to a new tree, one call each; the same 10k as one
// applyOps call; 1,000 regenerates of one reply at depth 1,000. Reported per
// message.
func BenchmarkStepsAppend(b *testing.B)     { benchSteps(b, "append") }
func BenchmarkStepsApply(b *testing.B)      { benchSteps(b, "apply") }
func BenchmarkStepsRegenerate(b *testing.B) { benchSteps(b, "regenerate") }

func benchSteps(b *testing.B, step string) {
	const n = 10000
	batch := &caller{}
	for i := range served {
		if served[i].Name == "applyOps" {
			batch.method = uint32(i + 1)
		}
	}
	appends := make([]*caller, n)
	regens := make([]*caller, 1000)
	for i := range appends {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		m := `{"role":"` + role + `","content":"message ` + strconv.Itoa(i) + `: ` + strings.Repeat("a sentence of an ordinary chat reply, ", 6) + `"}`
		appends[i] = callerOf(b, "append", 0, m)
		if i < len(regens) {
			regens[i] = callerOf(b, "regenerate", 0, "0123456789abcdef", m)
		}
		batch.in = binary.LittleEndian.AppendUint32(batch.in, uint32(1+len(m)))
		batch.in = append(append(batch.in, 'a'), m...)
	}
	b.ReportAllocs()
	ops := 0
	for b.Loop() {
		h := newHandle(b)
		switch step {
		case "append":
			for i, c := range appends {
				c.handle = h
				c.call(b, float64(1+i))
			}
			ops += n
		case "apply":
			batch.handle = h
			batch.call(b, 1)
			ops += n
		case "regenerate":
			b.StopTimer()
			var id string
			for i, c := range appends[:1000] {
				c.handle = h
				id = c.call(b, float64(1+i))
			}
			b.StartTimer()
			for i, c := range regens {
				c.handle = h
				copy(c.in[4:], id) // the node: every id is 16 bytes
				c.call(b, float64(2000+i))
			}
			ops += len(regens)
		}
		callerOf(b, "free", h).call(b, 0)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(ops), "ns/msg")
}
