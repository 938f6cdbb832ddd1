package bridge

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"math/rand"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/sessiontree/sessiontree/core"
)

// frame writes args as JavaScript does: each a little-endian uint32 length and
// its bytes, in the input buffer.
func frame(args ...string) []byte {
	var in []byte
	for _, a := range args {
		in = binary.LittleEndian.AppendUint32(in, uint32(len(a)))
		in = append(in, a...)
	}
	buf := Reserve(len(in))
	copy(buf, in)
	return buf[:len(in)]
}

func envelope(t *testing.T, res []byte) (code, msg string) {
	t.Helper()
	var e struct{ Code, Message string }
	if err := json.Unmarshal(res, &e); err != nil || e.Code == "" || e.Message == "" {
		t.Fatalf("not a {code,message} envelope: %q", res)
	}
	return e.Code, e.Message
}

func serveTest() {
	Serve([]Method{
		{"echo", func(c *Call) ([]byte, error) {
			a, err := c.Str(0, "first")
			if err != nil {
				return nil, err
			}
			return []byte(a + "|" + string(c.Args[len(c.Args)-1])), nil
		}},
		{"fail", func(c *Call) ([]byte, error) {
			return nil, &core.Error{Code: core.CodeBranchNotFound, Message: "no branch x"}
		}},
		{"plain", func(c *Call) ([]byte, error) { return nil, errors.New("plain error") }},
		{"boom", func(c *Call) ([]byte, error) { panic("kaboom") }},
	})
}

func TestCallZeroListsTheTableInCallNumberOrder(t *testing.T) {
	serveTest()
	res, ok := Do(0, 0, nil, 0)
	if !ok || string(res) != "methods\necho\nfail\nplain\nboom" {
		t.Fatalf("methods = %q, %v", res, ok)
	}
}

func TestArgumentsCrossAsLengthPrefixedBytes(t *testing.T) {
	serveTest()
	res, ok := Do(1, 7, frame("héllo 😀", "", "last"), 12)
	if !ok || string(res) != "héllo 😀|last" {
		t.Fatalf("echo = %q, %v", res, ok)
	}
	if current.Args[0] != nil {
		t.Fatal("the call's views of the input buffer are kept after the call")
	}
}

func TestEveryFailureIsACodeAndASentence(t *testing.T) {
	serveTest()
	cases := []struct {
		method uint32
		in     []byte
		at     float64
		code   string
		says   string
	}{
		{1, nil, 0, "invalid_input", "echo: missing argument first"},
		{2, nil, 0, "branch_not_found", "no branch x"},
		{3, nil, 0, "invalid_input", "plain error"},
		{4, nil, 0, "corrupt", "internal error in boom"},
		{99, nil, 0, "invalid_input", "unknown method number 99"},
		{1, []byte{1, 0}, 0, "invalid_input", "truncated argument header"},
		{1, []byte{9, 0, 0, 0, 'a'}, 0, "invalid_input", "argument longer than the input"},
		{1, frame("a"), 1.5, "invalid_input", "integer number of milliseconds"},
		{1, frame("a"), 1e300, "invalid_input", "integer number of milliseconds"},
	}
	for _, c := range cases {
		res, ok := Do(c.method, 0, c.in, c.at)
		if ok {
			t.Errorf("call %d: succeeded with %q", c.method, res)
			continue
		}
		code, msg := envelope(t, res)
		if code != c.code || !strings.Contains(msg, c.says) {
			t.Errorf("call %d = %s %q, want %s saying %q", c.method, code, msg, c.code, c.says)
		}
	}
	if res, ok := Do(1, 0, frame("still", "working"), 0); !ok || string(res) != "still|working" {
		t.Fatalf("after the failures: %q", res)
	}
}

func TestABigInputBufferIsReusedByCallsThatFillItAndReleasedAfterOneThatDoesNot(t *testing.T) {
	serveTest()
	big := strings.Repeat("x", bigBuffer+1)
	if res, ok := Do(1, 0, frame(big), 0); !ok || len(res) != 2*len(big)+1 {
		t.Fatalf("big echo: %v", ok)
	}
	kept := unsafe.SliceData(input)
	if cap(input) < len(big) {
		t.Fatalf("input buffer of %d bytes released after a call that filled it", cap(input))
	}
	if res, ok := Do(1, 0, frame(big), 0); !ok || len(res) != 2*len(big)+1 || unsafe.SliceData(input) != kept {
		t.Fatal("a second call of the same size did not reuse the buffer")
	}
	before := debt
	if _, ok := Do(1, 0, frame("small"), 0); !ok {
		t.Fatal("small echo failed")
	}
	if cap(input) > bigBuffer {
		t.Fatalf("input buffer of %d bytes kept after a call that used %d bytes of it", cap(input), 9)
	}
	if debt-before < uint64(len(big)) {
		t.Fatalf("the released buffer was not counted as garbage (debt %d → %d)", before, debt)
	}
}

func TestTakeInputHandsOverOnlyABigBufferAndTheNextCallGetsANewOne(t *testing.T) {
	var view []byte
	Serve([]Method{{"keep", func(c *Call) ([]byte, error) {
		if !TakeInput() {
			return []byte("copied"), nil
		}
		view = c.Args[0]
		return []byte("taken"), nil
	}}})
	if res, _ := Do(1, 0, frame("small"), 0); string(res) != "copied" || cap(input) == 0 {
		t.Fatalf("a small buffer: %q, input cap %d", res, cap(input))
	}
	big := strings.Repeat("y", bigBuffer+1)
	if res, _ := Do(1, 0, frame(big), 0); string(res) != "taken" {
		t.Fatalf("a big buffer was not handed over: %q", res)
	}
	if input != nil {
		t.Fatal("the bridge still holds the buffer it handed over")
	}
	buf := Reserve(len(big) + 4)
	if unsafe.SliceData(buf) == unsafe.SliceData(view) {
		t.Fatal("the next call was given the buffer a call took")
	}
	copy(buf, strings.Repeat("z", len(buf)))
	if string(view) != big {
		t.Fatal("the taken view changed")
	}
}

func TestOutReusesOneAlignedBufferAndReleasesItWhenACallUsesLittle(t *testing.T) {
	b := Out(bigBuffer + 8)
	if uintptr(unsafe.Pointer(unsafe.SliceData(b)))%8 != 0 {
		t.Fatal("Out is not 8-byte aligned")
	}
	settle(0)
	if c := Out(bigBuffer); unsafe.SliceData(c) != unsafe.SliceData(b) {
		t.Fatal("Out did not reuse its buffer for a result of similar size")
	}
	settle(0)
	settle(0) // a call that does not use Out leaves it be
	if outBuf == nil {
		t.Fatal("a call that did not use Out released it")
	}
	Out(10)
	settle(0)
	if outBuf != nil {
		t.Fatal("a large result buffer was kept after a call that used 10 bytes of it")
	}
}

func TestACallTheMemoryCannotHoldFailsTooLargeBeforeItRuns(t *testing.T) {
	ran := false
	Serve([]Method{{"big", func(c *Call) ([]byte, error) {
		if err := Room(5 << 30); err != nil {
			return nil, err
		}
		ran = true
		return nil, nil
	}}})
	res, ok := Do(1, 0, frame("x"), 0)
	if ok || ran {
		t.Fatal("a call needing 5 GiB ran")
	}
	code, msg := envelope(t, res)
	if code != "too_large" || !strings.Contains(msg, "nothing was changed") || !strings.Contains(msg, "4 GiB") {
		t.Fatalf("got %s %q", code, msg)
	}
	if Reserve(5<<30) != nil {
		t.Fatal("Reserve gave a 5 GiB buffer")
	}
}

func TestFreeCountsTheMemoryNeverTakenAndHalfTheIdleHeap(t *testing.T) {
	cases := []struct{ sys, idle, want uint64 }{
		{0, 0, memoryLimit - headroom},
		{1 << 30, 0, memoryLimit - headroom - 1<<30},
		{memoryLimit, 0, 0},
		{memoryLimit, 100 << 20, 50 << 20},
		{memoryLimit - headroom + 1, 0, 0},
	}
	for _, c := range cases {
		if got := free(c.sys, c.idle); got != c.want {
			t.Errorf("free(%d, %d) = %d, want %d", c.sys, c.idle, got, c.want)
		}
	}
}

func TestALargeCallCollectsTheGarbageCountedBeforeIt(t *testing.T) {
	before := collected
	owe(bigCall)
	if err := Room(bigCall); err != nil {
		t.Fatal(err)
	}
	if collected != before+1 || debt != 0 {
		t.Fatalf("collections %d → %d, debt %d", before, collected, debt)
	}
	if err := Room(bigCall); err != nil || collected != before+1 {
		t.Fatal("a large call collected with no garbage counted")
	}
	owe(bigCall)
	if err := Room(100); err != nil || collected != before+1 {
		t.Fatal("a small call collected")
	}
}

// When the module's memory grew past 64 MB (JavaScript tells it: a reserve of
// nothing), garbage worth many growths is collected, so that the calls after it
// reuse that memory instead of growing it 512 KB at a time (each growth of a
// large memory costs a page a full collection of its JavaScript heap); less
// garbage than that is left for later, and a reserve of something else does not
// collect for it.
func TestAGrowthCollectsTheGarbageThatWouldCoverManyMore(t *testing.T) {
	saved := liveSeen
	defer func() { liveSeen = saved }()
	collect()
	liveSeen = 64 * bigCall // a large live heap: half of it is more than any garbage below
	before := collected
	owe(growCollect - 1)
	Reserve(0)
	if collected != before {
		t.Fatalf("a growth collected %d bytes of garbage, less than %d", growCollect-1, growCollect)
	}
	owe(1)
	Reserve(300)
	if collected != before {
		t.Fatal("a small reserve collected")
	}
	Reserve(0)
	if collected != before+1 || debt != 0 {
		t.Fatalf("a growth with %d bytes of garbage did not collect: collections %d → %d, debt %d", growCollect, before, collected, debt)
	}
	liveSeen = 64 * bigCall
	Reserve(0)
	if collected != before+1 {
		t.Fatal("a growth collected with no garbage counted")
	}
	// JavaScript may learn of a growth while it writes a large call's
	// arguments (after st_reserve): the buffer it writes into stays.
	big := Reserve(2 * bigBuffer)
	if got := Reserve(0); unsafe.SliceData(got) != unsafe.SliceData(big) || cap(input) != cap(big) {
		t.Fatal("a reserve of nothing replaced the large input buffer")
	}
	input = nil
	if got := Reserve(0); cap(got) == 0 {
		t.Fatal("a reserve of nothing with no buffer yet got none")
	}
}

// A tree a call kept (a load) counts as in use until a collection measures
// the heap: a few MB of garbage beside it wait, as they would after one. The
// heap in use was the last collection's alone (0 before the first), and a
// growth after a load collected 7 MB by marking the whole loaded tree.
func TestAGrowthWeighsTheGarbageAgainstTheTreesKeptSinceTheLastCollection(t *testing.T) {
	saved := liveSeen
	defer func() { liveSeen = saved }()
	collect()
	liveSeen = 0
	Kept(32 * bigCall) // a 128 MB tree loaded and kept
	before := collected
	owe(2 * bigCall)
	Reserve(0)
	if collected != before {
		t.Fatalf("%d bytes of garbage beside a kept tree of %d were collected at a growth", 2*bigCall, 32*bigCall)
	}
	owe(14 * bigCall) // 64 MB of garbage now: half the heap in use
	Reserve(0)
	if collected != before+1 || debt != 0 {
		t.Fatalf("garbage of half the heap in use was not collected at a growth: collections %d → %d, debt %d", before, collected, debt)
	}
}

// A load after a free of the same size reuses the freed memory, however large
// the other live trees are: garbage that covers a large call's need is
// collected first, even when it is less than half the heap in use.
func TestALargeCallCollectsGarbageThatCoversItsNeedBesideALargeLiveHeap(t *testing.T) {
	saved := liveSeen
	defer func() { liveSeen = saved }()
	collect()
	liveSeen = 64 * bigCall // a large live heap: half of it is more than the garbage below
	before := collected
	owe(2 * bigCall)
	if err := Room(3 * bigCall); err != nil || collected != before {
		t.Fatalf("garbage short of the need and of half the heap was collected (%v)", err)
	}
	owe(2 * bigCall) // 4 × bigCall of garbage now: the call's need
	liveSeen = 64 * bigCall
	if err := Room(3 * bigCall); err != nil || collected != before+1 {
		t.Fatalf("garbage covering the need was not collected: collections %d → %d (%v)", before, collected, err)
	}
}

// JavaScript (js/sessiontree.js send) keeps a buffer's address for later calls
// when it asked no more than bigBuffer bytes, and forgets it after each call
// when it asked more. So a buffer handed out for a small request must stay
// the input buffer across calls that use it: were it a large one left from an
// earlier call, settle would release it and the next call's arguments would be
// written into freed memory (the call then saw no arguments at all).
func TestASmallReserveAfterALargeCallKeepsItsBufferAcrossCalls(t *testing.T) {
	Serve([]Method{{"args", func(c *Call) ([]byte, error) {
		return []byte(strconv.Itoa(len(c.Args))), nil
	}}})
	big := strings.Repeat("b", 2*bigBuffer)
	buf := Reserve(len(big) + 4)
	n := copy(buf, frame(big))
	if res, _ := stDo(1, n); string(res) != "1" {
		t.Fatalf("the large call: %q", res)
	}
	// As JavaScript does: one small reservation, then calls writing into it.
	small := Reserve(32)
	for i := 0; i < 3; i++ {
		n := copy(small, frame("x"))
		n += copy(small[n:], frame("y"))
		if res, _ := stDo(1, n); string(res) != "2" {
			t.Fatalf("call %d after the small reservation saw %q arguments: its buffer was released", i+1, res)
		}
	}
}

// stDo is st_call's use of the input buffer: the first n bytes of it.
func stDo(method uint32, n int) ([]byte, bool) {
	return Do(method, 0, input[:min(n, len(input))], 0)
}

// The property behind the test above, over random runs of calls: JavaScript's
// side of the protocol (js/sessiontree.js send and finish) is modelled — it
// keeps the address and size it reserved, reserves again only when a call's
// arguments do not fit, and forgets them after any call when it had reserved
// more than bigBuffer — and every call must find its arguments in the input
// buffer at the address JavaScript wrote them to, whatever the calls before
// it took, kept or released (a call that takes its large input, calls with
// none, small and large calls, results of every size).
func TestJavaScriptsCachedInputAddressIsAlwaysTheInputBuffer(t *testing.T) {
	sizes := []int{0, 3, 200, 300, 5000, bigBuffer / 4, bigBuffer/4 + 1, bigBuffer - 4, bigBuffer + 1, 2 * bigBuffer, 3 * bigBuffer}
	Serve([]Method{
		{"args", func(c *Call) ([]byte, error) { return []byte(strconv.Itoa(len(c.Args))), nil }},
		{"keep", func(c *Call) ([]byte, error) { TakeInput(); return []byte(strconv.Itoa(len(c.Args))), nil }},
		{"out", func(c *Call) ([]byte, error) {
			b := Out(len(c.Args[0]) * 3)
			return append(b, strconv.Itoa(len(c.Args))...), nil
		}},
	})
	for seed := int64(1); seed <= 12; seed++ {
		rng := rand.New(rand.NewSource(seed))
		var ptr *byte // JavaScript's w.ptr and w.cap
		jsCap := 0
		for step := 0; step < 40; step++ {
			size := sizes[rng.Intn(len(sizes))]
			method := uint32(1 + rng.Intn(3))
			var frameLen int
			if size > 0 {
				frameLen = 4 + size
			}
			if method == 3 && frameLen == 0 {
				method = 1 // out reads its first argument
			}
			if frameLen > jsCap {
				buf := Reserve(frameLen)
				ptr, jsCap = unsafe.SliceData(buf), frameLen
			}
			want := "0"
			if frameLen > 0 {
				if unsafe.SliceData(input) != ptr || cap(input) < jsCap {
					t.Fatalf("seed %d step %d: JavaScript would write %d bytes at an address that is not the input buffer", seed, step, frameLen)
				}
				binary.LittleEndian.PutUint32(input, uint32(size))
				want = "1"
			}
			res, ok := Do(method, 0, input[:min(frameLen, len(input))], 0)
			if !ok || string(res) != want {
				t.Fatalf("seed %d step %d: method %d with %d argument bytes answered %q", seed, step, method, size, res)
			}
			if jsCap > bigBuffer {
				jsCap = 0 // finish: the module may have released or kept it
			}
		}
	}
}
