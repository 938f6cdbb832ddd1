package treecalls

import (
	"bytes"
	"compress/gzip"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/wasm/internal/bridge"
)

// loadInSlices loads file as js/sessiontree.js loadFrom does: loadBegin, the
// file written into the load's own buffer, then loadStep until it answers. A
// slice of 0 ms parks the load at every yield point of core (every 256 nodes),
// so the number of slices does not depend on the machine's speed. between
// runs after every slice that left the load pending.
func loadInSlices(t *testing.T, file []byte, between func()) (res string, ok bool, slices int) {
	t.Helper()
	num, _, _ := strings.Cut(must(t, "loadBegin", 0, strconv.Itoa(len(file))), " ")
	n, _ := strconv.ParseUint(num, 10, 32)
	copy(LoadBuffer(uint32(n)), file)
	for {
		res, ok := do(t, "loadStep", 0, num, "0")
		if !ok || res != "pending" {
			return res, ok, slices
		}
		slices++
		if between != nil {
			between()
		}
	}
}

// randomFile saves a random tree of about n nodes: appends, rewinds, edits,
// labels, named branches and switches; ids plain, long with a shared prefix,
// or not ASCII (which the loader reads on its slow path).
func randomFile(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, 16))
	i := 0
	idOf := []func() string{
		func() string { return "n" + strconv.Itoa(i) },
		func() string { return "a-shared-prefix-of-more-than-16-bytes-" + strconv.Itoa(i) },
		func() string { return strconv.Itoa(i) + "é" },
	}[seed%3]
	tr := core.New(core.WithIDSource(func() string { i++; return idOf() }))
	var ids []string
	msg := func() core.Message {
		return core.Message(`{"role":"user","content":"m` + strconv.Itoa(r.IntN(1e6)) + ` \"q\" é"}`)
	}
	for at := int64(1); tr.Len() < n; at++ {
		pick := func() string { return ids[r.IntN(len(ids))] }
		switch k := r.IntN(20); {
		case k < 15 || len(ids) == 0:
			if id, err := tr.Append(msg(), at); err == nil {
				ids = append(ids, id)
			}
		case k == 15:
			tr.Rewind(pick(), at)
		case k == 16:
			if id, err := tr.Edit(pick(), msg(), at); err == nil {
				ids = append(ids, id)
			}
		case k == 17:
			tr.Label(pick(), "label "+strconv.Itoa(r.IntN(9)))
		case k == 18:
			tr.Branch(pick(), "b"+strconv.Itoa(r.IntN(50)), at)
		default:
			tr.SwitchBranch("main")
		}
	}
	return tr.Marshal()
}

// saved returns the file of tree handle h and frees it.
func saved(t *testing.T, h string) string {
	t.Helper()
	s := must(t, "save", handleOf(t, h))
	must(t, "free", handleOf(t, h))
	return s
}

// A load in slices gives the tree load gives, byte for byte, for random trees,
// while other calls on other trees run between its slices: appends and saves
// on another tree, loads and frees of small files, and the shared input
// buffer overwritten whole (the load reads a buffer of its own).
func TestASlicedLoadGivesTheTreeLoadGivesForRandomTrees(t *testing.T) {
	other := handleOf(t, must(t, "new", 0))
	defer must(t, "free", other)
	small := string(randomFile(99, 20))
	for seed := range uint64(12) {
		file := randomFile(seed, 300+int(seed)*250)
		want, ok := do(t, "load", 0, string(file))
		if !ok {
			t.Fatalf("seed %d: load: %s", seed, want)
		}
		wantFile := saved(t, want)
		if wantFile != string(file) {
			t.Fatalf("seed %d: load does not save the file it read", seed)
		}
		got, ok, slices := loadInSlices(t, file, func() {
			must(t, "append", other, `{"role":"user","content":"between slices"}`)
			must(t, "save", other)
			h := must(t, "load", 0, small)
			must(t, "free", handleOf(t, h))
			buf := bridge.Reserve(len(file))
			for i := range buf {
				buf[i] = 'x'
			}
		})
		if !ok {
			t.Fatalf("seed %d: the sliced load failed: %s", seed, got)
		}
		if slices < 1 {
			t.Fatalf("seed %d: a load of %d nodes ran in one slice", seed, 300+int(seed)*250)
		}
		if s := saved(t, got); s != wantFile {
			t.Fatalf("seed %d: after %d slices the tree saves\n%.300s\nwant\n%.300s", seed, slices, s, wantFile)
		}
	}
	if Loads() != 0 || bridge.Pending() != 0 {
		t.Fatalf("%d loads and %d calls left pending", Loads(), bridge.Pending())
	}
}

// corruptFixtures returns core's corrupt fixtures (gunzipped) and a large file
// whose fault is at its end, found by the last slice.
func corruptFixtures(t *testing.T) map[string][]byte {
	t.Helper()
	dir := filepath.Join("..", "..", "..", "core", "testdata", "corrupt")
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) == 0 {
		t.Fatalf("no corrupt fixtures in %s: %v", dir, err)
	}
	files := map[string][]byte{}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(e.Name(), ".gz") {
			zr, err := gzip.NewReader(bytes.NewReader(b))
			if err != nil {
				t.Fatal(err)
			}
			if b, err = io.ReadAll(zr); err != nil {
				t.Fatal(err)
			}
		}
		files[e.Name()] = b
	}
	big := randomFile(7, 3000)
	files["late fault: a trailing comma"] = append(bytes.Clone(big[:len(big)-1]), ",}"...)
	files["late fault: data after the end"] = append(bytes.Clone(big), " {}"...)
	i := bytes.LastIndex(big, []byte(`"created_at_ms":`))
	files["late fault: a time that is not an integer"] = append(append(bytes.Clone(big[:i]), `"created_at_ms":1.5`...), big[bytes.IndexByte(big[i:], '}')+i:]...)
	return files
}

// For every corrupt fixture, and for faults that only a late slice meets, a
// load in slices fails with the code and the sentence load fails with, or
// loads the same tree; the module keeps working after each.
func TestASlicedLoadFailsAsLoadDoesOnEveryCorruptFile(t *testing.T) {
	for name, file := range corruptFixtures(t) {
		want, wantOK := do(t, "load", 0, string(file))
		got, gotOK, _ := loadInSlices(t, file, nil)
		if wantOK != gotOK {
			t.Fatalf("%s: load says %.200s, the sliced load %.200s", name, want, got)
		}
		if !wantOK {
			if got != want {
				t.Fatalf("%s: the sliced load fails with\n%s\nload with\n%s", name, got, want)
			}
			continue
		}
		if a, b := saved(t, got), saved(t, want); a != b {
			t.Fatalf("%s: the two loads give different trees", name)
		}
	}
	if Loads() != 0 || bridge.Pending() != 0 {
		t.Fatalf("%d loads and %d calls left pending after the failures", Loads(), bridge.Pending())
	}
	file := randomFile(3, 600)
	got, ok, _ := loadInSlices(t, file, nil)
	if !ok || saved(t, got) != string(file) {
		t.Fatalf("after the failures a load gives %.200s", got)
	}
}

// Two loads in slices at once, their slices alternating, each give their own
// tree; a third given up midway leaves nothing pending, and its number is
// refused afterwards.
func TestTwoSlicedLoadsRunAtOnceAndOneGivenUpLeavesNothing(t *testing.T) {
	a, b, c := randomFile(20, 2000), randomFile(21, 1500), randomFile(22, 1500)
	begin := func(file []byte) string {
		num, _, _ := strings.Cut(must(t, "loadBegin", 0, strconv.Itoa(len(file))), " ")
		n, _ := strconv.ParseUint(num, 10, 32)
		copy(LoadBuffer(uint32(n)), file)
		return num
	}
	na, nb, nc := begin(a), begin(b), begin(c)
	if res := must(t, "loadStep", 0, nc, "0"); res != "pending" {
		t.Fatalf("a load of 1,500 nodes answered %q in its first slice", res)
	}
	var ha, hb string
	for ha == "" || hb == "" {
		for _, s := range []struct {
			num string
			h   *string
		}{{na, &ha}, {nb, &hb}} {
			if *s.h != "" {
				continue
			}
			if res := must(t, "loadStep", 0, s.num, "0"); res != "pending" {
				*s.h = res
			}
		}
	}
	if saved(t, ha) != string(a) || saved(t, hb) != string(b) {
		t.Fatal("two loads at once did not give their own trees")
	}
	must(t, "loadCancel", 0, nc)
	if Loads() != 0 || bridge.Pending() != 0 {
		t.Fatalf("%d loads and %d calls left pending after a load was given up", Loads(), bridge.Pending())
	}
	if res, ok := do(t, "loadStep", 0, nc, "0"); ok || code(t, res) != "invalid_input" {
		t.Fatalf("a step of a load given up answered %q", res)
	}
	must(t, "loadCancel", 0, nc) // giving up twice is harmless
}

// A load's arguments are checked: its size, its number, its slice.
func TestASlicedLoadRefusesBadArguments(t *testing.T) {
	for _, c := range []struct {
		method string
		args   []string
	}{
		{"loadBegin", []string{"-1"}},
		{"loadBegin", []string{"x"}},
		{"loadBegin", []string{strconv.Itoa(2 << 30)}},
		{"loadStep", []string{"12345", "10"}},
		{"loadStep", []string{}},
	} {
		if res, ok := do(t, c.method, 0, c.args...); ok || code(t, res) != "invalid_input" {
			t.Errorf("%s %q answered %q", c.method, c.args, res)
		}
	}
	num, _, _ := strings.Cut(must(t, "loadBegin", 0, "2"), " ")
	if res, ok := do(t, "loadStep", 0, num, "-5"); ok || code(t, res) != "invalid_input" {
		t.Errorf("a negative slice answered %q", res)
	}
	must(t, "loadCancel", 0, num)
}

// FuzzSlicedLoad: for any input, a load in slices gives what load gives — the
// same tree or the same error — and leaves nothing pending.
func FuzzSlicedLoad(f *testing.F) {
	f.Add(randomFile(1, 40))
	f.Add([]byte(`{"format":"sessiontree","version":1,"active_branch":"main","branches":{},"nodes":{}}`))
	f.Add([]byte(`{`))
	f.Fuzz(func(t *testing.T, file []byte) {
		want, wantOK := do(t, "load", 0, string(file))
		got, gotOK, _ := loadInSlices(t, file, nil)
		if wantOK != gotOK || (!wantOK && got != want) {
			t.Fatalf("load says %.200s, the sliced load %.200s", want, got)
		}
		if wantOK && saved(t, got) != saved(t, want) {
			t.Fatal("the two loads give different trees")
		}
		if Loads() != 0 || bridge.Pending() != 0 {
			t.Fatalf("%d loads and %d calls left pending", Loads(), bridge.Pending())
		}
	})
}

// After a large load the page runs a full collection in idle slices (tidy):
// steps answer "pending" until the collection is over, then "done", and the
// garbage the load left is freed (the heap's idle pages take it). While a
// sliced load is under way a step collects nothing and answers "later". Its
// slice is checked.
func TestTidyCollectsInStepsAndWaitsForLoads(t *testing.T) {
	num, _, _ := strings.Cut(must(t, "loadBegin", 0, "100"), " ")
	if res := must(t, "tidy", 0, "1"); res != "later" {
		t.Fatalf("a tidy step during a sliced load answered %q, want later", res)
	}
	must(t, "loadCancel", 0, num)
	defer debug.SetGCPercent(debug.SetGCPercent(-1)) // no cycle of its own frees the garbage first
	garbage := make([][]byte, 0, 256)
	for range 256 {
		garbage = append(garbage, make([]byte, 64<<10)) // 16 MB a load left behind
	}
	garbage = nil
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	tidied := bridge.Tidied.Load()
	steps := 0
	for res := ""; res != "done"; steps++ {
		if res = must(t, "tidy", 0, "1"); res != "pending" && res != "done" {
			t.Fatalf("a tidy step answered %q", res)
		}
		if steps > 100000 {
			t.Fatal("the tidy collection never ended")
		}
	}
	runtime.ReadMemStats(&after)
	if bridge.Tidied.Load() != tidied+1 || after.NumGC == before.NumGC {
		t.Fatalf("after %d steps: %d tidy collections and %d cycles, want one", steps, bridge.Tidied.Load()-tidied, after.NumGC-before.NumGC)
	}
	if after.HeapAlloc+8<<20 > before.HeapAlloc {
		t.Fatalf("the heap holds %d MB after the tidy, %d MB before: the 16 MB of garbage were not freed", after.HeapAlloc>>20, before.HeapAlloc>>20)
	}
	for _, bad := range []string{"0", "-1", "x", "1001"} {
		if res, ok := do(t, "tidy", 0, bad); ok || code(t, res) != "invalid_input" {
			t.Fatalf("tidy with sliceMs %q answered %q", bad, res)
		}
	}
}
