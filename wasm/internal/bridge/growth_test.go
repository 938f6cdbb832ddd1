package bridge

import "testing"

// resetGrowth clears what afterCall remembers, for one test, and restores it.
func resetGrowth(t *testing.T) {
	saved := [3]int{int(sizeSeen), smallGrows, holds}
	sizeSeen, smallGrows, holds = 0, 0, 0
	t.Cleanup(func() { sizeSeen, smallGrows, holds = uint64(saved[0]), saved[1], saved[2] })
}

// A burst of small calls that grow the memory half a megabyte at a time (Go's
// heap arenas) takes a step of an eighth of it at the second growth, and the
// step is taken again only after two more: the memory grows a few times over
// a burst, not once every 512 KB (issue 26: V8 collects its whole heap at each
// growth of a module past 64 MB).
func TestSmallCallsGrowTheMemoryInSteps(t *testing.T) {
	resetGrowth(t)
	const arena = 512 << 10
	size := uint64(160 << 20)
	if step := afterCall(size); step != 0 {
		t.Fatalf("the first look took a step of %d", step)
	}
	size += arena
	if step := afterCall(size); step != 0 {
		t.Fatalf("the first small growth took a step of %d", step)
	}
	size += arena
	if step := afterCall(size); step != size/8 {
		t.Fatalf("the second small growth took a step of %d, want %d", step, size/8)
	}
	if step := afterCall(size); step != 0 {
		t.Fatalf("a call that did not grow the memory took a step of %d", step)
	}
	size += arena
	if step := afterCall(size); step != 0 {
		t.Fatalf("the first small growth after a step took one of %d", step)
	}
}

// A call that grows the memory by more than a megabyte (a load, a whole list)
// takes no step and starts the count again; so does the first look; below
// 64 MB no step is taken (V8 collects nothing for a growth there), nor while
// a sliced load runs or when it would not fit under the 4 GiB of wasm32.
func TestLargeCallsAndLoadsTakeNoStep(t *testing.T) {
	resetGrowth(t)
	size := uint64(80 << 20)
	afterCall(size)
	size += 512 << 10
	afterCall(size) // one small growth
	size += 30 << 20
	if step := afterCall(size); step != 0 {
		t.Fatalf("a load's growth took a step of %d", step)
	}
	size += 512 << 10
	if step := afterCall(size); step != 0 {
		t.Fatalf("the first small growth after a load took a step of %d", step)
	}
	Hold()
	size += 512 << 10
	step := afterCall(size)
	Release()
	if step != 0 {
		t.Fatalf("a step of %d while a sliced load runs", step)
	}
	size += 512 << 10
	if step := afterCall(size); step != size/8 {
		t.Fatalf("step %d, want %d", step, size/8)
	}
	resetGrowth(t)
	small := uint64(stepsFrom - 2<<20)
	afterCall(small)
	afterCall(small + 512<<10)
	if step := afterCall(small + 1<<20); step != 0 {
		t.Fatalf("a step of %d below %d MB", step, stepsFrom>>20)
	}
	resetGrowth(t)
	full := uint64(memoryLimit - headroom - 1<<20)
	afterCall(full)
	afterCall(full + 256<<10)
	if step := afterCall(full + 512<<10); step != 0 {
		t.Fatalf("a step of %d past the 4 GiB", step)
	}
}

// A step collects; it allocates its block only when the garbage counted
// since the last collection is less than the step.
func TestAStepCollects(t *testing.T) {
	before, steps := collected, stepped
	debt = 64 << 20
	grow(8 << 20)
	if collected != before+1 || stepped != steps+1 || debt != 0 {
		t.Fatalf("collections %d → %d, steps %d → %d, debt %d", before, collected, steps, stepped, debt)
	}
	grow(1 << 20)
	if collected != before+2 || sink != nil {
		t.Fatalf("collections %d → %d; the block is still held: %v", before, collected, sink != nil)
	}
}
