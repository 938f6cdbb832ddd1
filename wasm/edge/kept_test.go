package edge

import (
	"fmt"
	"testing"
)

func keptNames(k *Kept[int], names ...string) []string {
	var in []string
	for _, n := range names {
		if _, ok := k.entries[n]; ok {
			in = append(in, n)
		}
	}
	return in
}

func TestKeptTreesOverTheByteBudgetGoLeastRecentlyUsedFirst(t *testing.T) {
	k := NewKept[int](256, 10<<20)
	for i, n := range []string{"a", "b", "c"} {
		k.Put(n, i)
		k.Sized(n, 3<<20)
	}
	k.Get("a") // b is now the least recently used
	k.Put("d", 3)
	k.Sized("d", 3<<20) // 12 MiB: over 10, b goes
	if got := fmt.Sprint(keptNames(k, "a", "b", "c", "d")); got != "[a c d]" {
		t.Fatalf("kept %s, want [a c d] (b least recently used)", got)
	}
	if k.Bytes() != 9<<20 {
		t.Fatalf("bytes %d, want %d", k.Bytes(), 9<<20)
	}
	// A tree that grows past the budget by a write pushes out the others,
	// least recently used first, never itself.
	k.Sized("c", 9<<20)
	if got := fmt.Sprint(keptNames(k, "a", "b", "c", "d")); got != "[c]" {
		t.Fatalf("kept %s after c grew to 9 MiB, want [c]", got)
	}
	k.Sized("c", 20<<20)
	if got := fmt.Sprint(keptNames(k, "a", "b", "c", "d")); got != "[c]" || k.Bytes() != 20<<20 {
		t.Fatalf("kept %s (%d bytes): the one being served stays however large", got, k.Bytes())
	}
	k.Put("e", 4)
	if got := fmt.Sprint(keptNames(k, "c", "e")); got != "[e]" {
		t.Fatalf("kept %s after e came in beside a tree over the budget, want [e]", got)
	}
}

func TestKeptTreesAreBoundedByCountWithoutAByteBudget(t *testing.T) {
	k := NewKept[int](3, 0)
	for i, n := range []string{"a", "b", "c"} {
		k.Put(n, i)
		k.Sized(n, 1<<30)
	}
	if k.Len() != 3 {
		t.Fatalf("kept %d, want 3: no byte budget", k.Len())
	}
	k.Get("a")
	k.Put("d", 3)
	if got := fmt.Sprint(keptNames(k, "a", "b", "c", "d")); got != "[a c d]" {
		t.Fatalf("kept %s, want [a c d]", got)
	}
	if v, ok := k.Get("c"); !ok || v != 2 {
		t.Fatalf("Get(c) = %d, %v", v, ok)
	}
	k.Delete("c")
	if _, ok := k.Get("c"); ok || k.Bytes() != 1<<30 { // a; d is not sized yet
		t.Fatalf("after Delete: c kept %v, bytes %d", ok, k.Bytes())
	}
}

// Before a large write, MakeRoom drops the least recently used others until
// the write's working set fits beside what stays, never the writer's own;
// the kept bytes are the stored ones again after it.
func TestMakeRoomDropsOthersForALargeWrite(t *testing.T) {
	k := NewKept[int](256, 32<<20)
	for i, n := range []string{"a", "b", "c", "w"} {
		k.Put(n, i)
		k.Sized(n, 7<<20)
	}
	k.Get("a") // b, then c, are the least recently used
	k.MakeRoom("w", 5<<20)
	if got := fmt.Sprint(keptNames(k, "a", "b", "c", "w")); got != "[a c w]" || k.Bytes() != 21<<20 {
		t.Fatalf("kept %s (%d bytes) after room for 5 MiB, want [a c w] (21 MiB)", got, k.Bytes())
	}
	k.MakeRoom("w", 22<<20)
	if got := fmt.Sprint(keptNames(k, "a", "b", "c", "w")); got != "[w]" || k.Bytes() != 7<<20 {
		t.Fatalf("kept %s (%d bytes) after room for 22 MiB, want [w] (7 MiB)", got, k.Bytes())
	}
	k.MakeRoom("w", 64<<20) // more than the budget: only the writer stays
	if got := fmt.Sprint(keptNames(k, "a", "b", "c", "w")); got != "[w]" {
		t.Fatalf("kept %s, want [w]", got)
	}
	NewKept[int](256, 0).MakeRoom("w", 1<<30) // no byte bound: nothing to do
}
