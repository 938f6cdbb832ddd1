package core

import (
	"runtime"
	"slices"
	"strconv"
	"testing"
)

// callCost is what n calls of one operation cost, per call: allocations,
// bytes allocated, and the node loops' ticks (yield.go: every walk over
// nodes ticks once a node).
type callCost struct{ allocs, bytes, ticks float64 }

func measureCalls(n int, op func(i int)) callCost {
	saved := yieldFn
	defer func() { yieldFn = saved }()
	yieldFn = func() {}
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	yieldTicks = 0
	for i := range n {
		op(i)
	}
	ticks := yieldTicks
	runtime.ReadMemStats(&after)
	return callCost{
		allocs: float64(after.Mallocs-before.Mallocs) / float64(n),
		bytes:  float64(after.TotalAlloc-before.TotalAlloc) / float64(n),
		ticks:  float64(ticks) / float64(n),
	}
}

// costTree returns a tree of about size messages on its active path, a
// regenerate every ten (size/10 branches), and the node of the path at half
// its depth (what the calls regenerate and edit), with size/10 alternatives
// already, all of one time.
func costTree(t *testing.T, size int) (*Tree, string) {
	t.Helper()
	tr := New()
	var mid string
	for i := range size {
		id := mustAppend(t, tr, msg("user", "turn "+strconv.Itoa(i)), int64(i))
		if i == size/2 {
			mid = id
			for range size / 10 {
				if _, err := tr.Regenerate(mid, msg("assistant", "other"), 2e6); err != nil {
					t.Fatal(err)
				}
			}
		}
		if i%10 == 9 {
			if _, err := tr.Regenerate(id, msg("assistant", "again"), int64(i)); err != nil {
				t.Fatal(err)
			}
		}
	}
	return tr, mid
}

// An append, a regenerate and an edit cost the same in a tree of 20,000
// messages and 4,000 branches as in one of 100 (issue 26): no copy of the
// path or of the branches, no walk up the path, no naming that looks at every
// branch, no walk over a reply's 2,000 alternatives to place one more.
// Counted in allocations, bytes and ticks, never in time; a thousand calls
// each, so that the maps' and lists' growth averages out. (A binary search
// over the alternatives ticks log₂ of their number: a few ticks more.)
func TestAnAppendCostsTheSameInALargeTree(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 20,000-message tree")
	}
	const calls = 1000
	m := msg("assistant", "a reply of an ordinary length, "+string(slices.Repeat([]byte("words "), 40)))
	ops := []struct {
		name string
		run  func(tr *Tree, mid string, i int) error
	}{
		{"append", func(tr *Tree, _ string, i int) error { _, err := tr.Append(m, int64(1e6+i)); return err }},
		// One time for every call: the new siblings tie on it, as a
		// thousand regenerates within a millisecond do.
		{"regenerate", func(tr *Tree, mid string, _ int) error { _, err := tr.Regenerate(mid, m, 2e6); return err }},
		{"edit", func(tr *Tree, mid string, i int) error { _, err := tr.Edit(mid, m, int64(3e6+i)); return err }},
	}
	for _, op := range ops {
		var costs [2]callCost
		for k, size := range []int{100, 20000} {
			tr, mid := costTree(t, size)
			var err error
			costs[k] = measureCalls(calls, func(i int) {
				if e := op.run(tr, mid, i); e != nil && err == nil {
					err = e
				}
			})
			if err != nil {
				t.Fatalf("%s: %v", op.name, err)
			}
		}
		small, large := costs[0], costs[1]
		t.Logf("%s per call: %.1f / %.1f allocations, %.0f / %.0f bytes, %.1f / %.1f ticks (100 / 20,000 messages)",
			op.name, small.allocs, large.allocs, small.bytes, large.bytes, small.ticks, large.ticks)
		if large.allocs > small.allocs+1 || large.bytes > 2*small.bytes+256 || large.ticks > 1.5*small.ticks+1 {
			t.Errorf("%s costs more in a large tree: %.1f allocations, %.0f bytes, %.1f ticks a call against %.1f, %.0f, %.1f in a small one",
				op.name, large.allocs, large.bytes, large.ticks, small.allocs, small.bytes, small.ticks)
		}
	}
}

// Siblings stay ordered by (created, id) whatever order they arrive in,
// ties on the time included (insertOrdered's binary search).
func TestSiblingsInsertInOrder(t *testing.T) {
	tr := New(counterIDs())
	root := mustAppend(t, tr, msg("user", "q"), 0)
	reply := mustAppend(t, tr, msg("assistant", "a"), 50)
	for i := range 300 {
		at := int64((i * 7919) % 101) // out of order, many ties
		if _, err := tr.Regenerate(reply, msg("assistant", "again"), at); err != nil {
			t.Fatal(err)
		}
	}
	kids := tr.nodes[root].children
	if len(kids) != 301 {
		t.Fatalf("%d children, want 301", len(kids))
	}
	for i := 1; i < len(kids); i++ {
		a, b := tr.nodes[kids[i-1]], tr.nodes[kids[i]]
		if !before(a.created, kids[i-1], b.created, kids[i]) {
			t.Fatalf("children %d and %d out of order: (%d, %s) then (%d, %s)", i-1, i, a.created, kids[i-1], b.created, kids[i])
		}
	}
}

// A tree written one op at a time through Apply (every write of the edge
// worker, a JS apply of one op) keeps no more heap per node than one built
// by Append: the nodes come from the same blocks. Before Dec 6 each Apply
// dropped the rest of its block, so every node held a block of 32 alive:
// ~4 KB a node, 140 MB in a worker after make bench-worker's 30,000 writes
// (issue 25), where a deployed isolate has 128 MB.
func TestNodesWrittenByOneOpApplyTakeTheHeapOfAppendedOnes(t *testing.T) {
	const n = 4000
	heldBy := func(build func(tr *Tree, i int)) float64 {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		tr := New()
		for i := range n {
			build(tr, i)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		runtime.KeepAlive(tr)
		return float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / n
	}
	m := msg("user", "a short message")
	appended := heldBy(func(tr *Tree, i int) { mustAppend(t, tr, m, int64(i)) })
	applied := heldBy(func(tr *Tree, i int) {
		if _, err := tr.Apply([]Op{{Op: "append", Message: m}}, int64(i)); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("heap per node: %.0f B appended, %.0f B applied one op at a time", appended, applied)
	if applied > 1.5*appended+64 {
		t.Fatalf("a node written by a one-op Apply holds %.0f B of heap, one appended %.0f B", applied, appended)
	}
}

// An append allocates nothing of its own for each message (issue 26): its
// node, its id and its parent's list of children come from blocks (newNode,
// randomIDs, firstChild), so what is left per call is the blocks' and the
// map's growth, shared out. Before, the id and the one-child list were two
// allocations a message: half of a JS append's, and as many more objects for
// every collection to mark in a long chat. Counted natively, never timed.
func TestAnAppendAllocatesNothingOfItsOwn(t *testing.T) {
	m := msg("user", "a message the caller already holds")
	tr := New()
	mustAppend(t, tr, m, 0)
	c := measureCalls(4096, func(i int) {
		if _, err := tr.Append(m, int64(1+i)); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("an append: %.2f allocations, %.0f bytes", c.allocs, c.bytes)
	if c.allocs > 0.5 {
		t.Errorf("an append allocates %.2f times, want the blocks' and the map's share (< 0.5)", c.allocs)
	}
}
