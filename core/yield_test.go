package core

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestTheNodeLoopsCallTheYieldFunctionEveryFewHundredNodes(t *testing.T) {
	calls := 0
	SetYield(func() { calls++ })
	defer SetYield(nil)
	tr := New()
	for i := 0; i < 2000; i++ {
		if _, err := tr.Append(Message(`{"role":"user","content":"hi"}`), 1_700_000_000_000); err != nil {
			t.Fatal(err)
		}
	}
	if calls < 2000/yieldEvery-1 {
		t.Fatalf("2,000 appends called yield %d times, want about %d", calls, 2000/yieldEvery)
	}
	calls = 0
	if _, err := Unmarshal(tr.Marshal()); err != nil {
		t.Fatal(err)
	}
	if calls < 2*2000/yieldEvery-1 {
		t.Fatalf("a marshal and an unmarshal of 2,000 nodes called yield %d times, want about %d", calls, 2*2000/yieldEvery)
	}
}

// A batch of ops yields by the size of its messages, not only by their
// number: 40 ops of 256 KiB each (10 MiB) are as much work as tens of
// thousands of small nodes, and a host must get its turns during their
// parse, their scan and their apply (issue 25: a 1,000-op batch of 7 KB
// messages held the worker's thread for seconds, with no yield at all).
func TestAnOpsBatchOfLargeMessagesYieldsByTheirSize(t *testing.T) {
	calls := 0
	SetYield(func() { calls++ })
	defer SetYield(nil)
	var b []byte
	b = append(b, `[`...)
	text := make([]byte, 256<<10)
	for i := range text {
		text[i] = 'a' + byte(i%26)
	}
	for i := 0; i < 40; i++ {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"op":"append","message":{"role":"user","content":"`...)
		b = append(b, text...)
		b = append(b, `"}}`...)
	}
	b = append(b, ']')
	ops, err := ParseOps(b)
	if err != nil {
		t.Fatal(err)
	}
	parsed := calls
	// 10 MiB at one tick per 2 KiB and a yield per 256 ticks: ~20 yields.
	if parsed < 15 {
		t.Fatalf("parsing 40 ops of 256 KiB called yield %d times, want about 20", parsed)
	}
	tr := New()
	if _, err := tr.Apply(ops, 1_700_000_000_000); err != nil {
		t.Fatal(err)
	}
	if applied := calls - parsed; applied < 15 {
		t.Fatalf("applying 40 ops of 256 KiB called yield %d times, want about 20", applied)
	}
}

// Sorting the ids of a large tree (its rows, Validate) yields too: a sort of
// 100,000 ids held the worker's thread for ~0.2 s in one piece.
func TestSortingManyIdsYields(t *testing.T) {
	next := randomIDs()
	keys := make([]string, 100_000)
	for i := range keys {
		keys[i] = next()
	}
	// One source makes its ids in sorting order (randomIDs): shuffled, as a
	// tree merged from many copies or imported holds them.
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	calls := 0
	SetYield(func() { calls++ })
	defer SetYield(nil)
	sortKeys(keys)
	if calls < 20 {
		t.Fatalf("sorting 100,000 ids called yield %d times, want at least 20", calls)
	}
	for i := 1; i < len(keys); i++ {
		if keys[i-1] > keys[i] {
			t.Fatalf("not sorted at %d: %q > %q", i, keys[i-1], keys[i])
		}
	}
}

// ParseOps counts a batch's ops before it parses them: that count over a
// body of megabytes yields too (issue 25: one uninterrupted pass over a 7 MB
// batch held the worker's thread). Here the first op is refused, so every
// yield seen comes from the count.
func TestParseOpsYieldsWhileItCountsTheOps(t *testing.T) {
	calls := 0
	SetYield(func() { calls++ })
	defer SetYield(nil)
	b := []byte(`[{"op":"nonsense"}`)
	fill := make([]byte, 7_000)
	for i := range fill {
		fill[i] = 'y'
	}
	for len(b) < 4<<20 {
		b = append(b, `,{"op":"append","message":{"role":"user","content":"`...)
		b = append(b, fill...)
		b = append(b, `"}}`...)
	}
	b = append(b, ']')
	if _, err := ParseOps(b); err == nil {
		t.Fatal("an op named nonsense was taken")
	}
	if want := (4 << 20) / (bytesPerTick * yieldEvery); calls < want-1 {
		t.Fatalf("counting the ops of a 4 MiB batch called yield %d times, want about %d", calls, want)
	}
}

// A large tree's first load joins its stored rows into a file and copies that
// file: both pass megabytes and yield by their size (issue 25: each held the
// worker's thread 30-60 ms in one piece for an 8 MB tree under load).
func TestJoiningAndCopyingALargeTreesRowsYields(t *testing.T) {
	calls := 0
	SetYield(func() { calls++ })
	defer SetYield(nil)
	fill := strings.Repeat("z", 7_000)
	var nodes []Fragment
	for i := 0; len(nodes) < 600; i++ {
		nodes = append(nodes, Fragment{Key: fmt.Sprintf("n%04d", i), JSON: []byte(`{"id":"n` + fmt.Sprintf("%04d", i) + `","content":"` + fill + `"}`)})
	}
	file := JoinRows("n0000", "main", nil, nodes)
	want := len(file) / (bytesPerTick * yieldEvery)
	if calls < want-1 {
		t.Fatalf("joining %d bytes of rows called yield %d times, want about %d", len(file), calls, want)
	}
	calls = 0
	out, _ := cloneCounting(file, childrenKey)
	if len(out) != len(file) {
		t.Fatalf("the copy has %d bytes of %d", len(out), len(file))
	}
	if calls < want-1 {
		t.Fatalf("copying %d bytes called yield %d times, want about %d", len(file), calls, want)
	}
}

// The rows of a large tree (a create's store, the first feed) begin with its
// keys: collecting them from the map, and from the order a load read them
// in, yields too (issue 25: a worker's profile during 100,000-message creates
// showed the map's keys gathered in one 35 ms piece, ahead of the sort that
// yields).
func TestGatheringTheKeysOfALargeTreeYields(t *testing.T) {
	tr := New()
	for i := 0; i < 20_000; i++ {
		if _, err := tr.Append(Message(`{"role":"user","content":"hi"}`), 1_700_000_000_000); err != nil {
			t.Fatal(err)
		}
	}
	calls := 0
	SetYield(func() { calls++ })
	defer SetYield(nil)
	if keys := tr.keyList(); len(keys) != 20_000 {
		t.Fatalf("keyList gave %d keys, want 20,000", len(keys))
	}
	if calls < 20_000/yieldEvery-1 {
		t.Fatalf("gathering 20,000 keys from the map called yield %d times, want about %d", calls, 20_000/yieldEvery)
	}
	loaded, err := Unmarshal(tr.Marshal())
	if err != nil {
		t.Fatal(err)
	}
	calls = 0
	if list := loaded.nodesInOrder(); len(list) != 20_000 {
		t.Fatalf("a loaded tree's keys in order: %d, want 20,000 (is inOrder still kept by a load?)", len(list))
	}
	if calls < 20_000/yieldEvery-1 {
		t.Fatalf("listing 20,000 loaded keys in order called yield %d times, want about %d", calls, 20_000/yieldEvery)
	}
}

// A sort yields inside its merges: the last passes merge the whole list, and
// 100,000 keys merged with no yield were a 5-9 ms slice of the edge worker
// (issue 25, each slice of a create timed). No stretch between two yields
// compares more than a few slices' worth of elements, and the result is
// sorted and stable.
func TestASortOfManyKeysYieldsInsideItsMerges(t *testing.T) {
	type kv struct{ k, i int }
	r := rand.New(rand.NewPCG(9, 26))
	s := make([]kv, 100_000)
	for i := range s {
		s[i] = kv{r.IntN(50_000), i}
	}
	since, most := 0, 0
	SetYield(func() { most = max(most, since); since = 0 })
	defer SetYield(nil)
	sortFunc(s, func(a, b kv) int { since++; return a.k - b.k })
	most = max(most, since)
	if limit := 4 * yieldEvery * sortWork; most > limit { // an insertion-sorted run of 12 compares up to 66 times
		t.Fatalf("%d comparisons between two yields, want at most %d", most, limit)
	}
	for i := 1; i < len(s); i++ {
		if s[i-1].k > s[i].k || s[i-1].k == s[i].k && s[i-1].i > s[i].i {
			t.Fatalf("not sorted stably at %d: %v then %v", i, s[i-1], s[i])
		}
	}
}
