package core

import (
	"encoding/json"
	"math/rand/v2"
	"runtime"
	"strconv"
	"testing"
)

// Benchmarks at 1k, 10k and 100k nodes. Mutating operations run inside a journal
// and are rolled back after each iteration, so the tree keeps its size and the
// numbers compare sizes fairly; `make bench` prints the ratios. Operations that
// take a node act on the messages of the active branch, as a user on a chat page
// does (the nodes they can see), so the numbers compare the algorithm rather than
// cache misses on nodes picked at random across the whole tree.

var benchSizes = []int{1_000, 10_000, 100_000}

func sizeName(n int) string { return strconv.Itoa(n/1000) + "k" }

// visible returns the ids on the active branch.
func visible(tb testing.TB, tr *Tree) []string {
	p, err := tr.ActivePath()
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// benchTree builds a conversation of n nodes: a main line of 100 turns, then
// forks of 100 turns from random earlier turns, as regenerations and edits make.
func benchTree(tb testing.TB, n int) (*Tree, []string) {
	r := rand.New(rand.NewPCG(uint64(n), 9))
	tr := New()
	ids := make([]string, 0, n)
	m := Message(`{"role":"user","content":"a message of ordinary length, about as long as a short chat turn is"}`)
	for len(ids) < n {
		if len(ids) >= 100 && len(ids)%100 == 0 {
			if _, err := tr.Branch(ids[r.IntN(len(ids))], "", 1); err != nil {
				tb.Fatal(err)
			}
		}
		id, err := tr.Append(m, int64(len(ids)))
		if err != nil {
			tb.Fatal(err)
		}
		ids = append(ids, id)
	}
	if err := tr.SwitchBranch(MainBranch); err != nil {
		tb.Fatal(err)
	}
	return tr, ids
}

// undoEach runs op b.N times, rolling each change back.
func undoEach(b *testing.B, tr *Tree, op func(i int) error) {
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		tr.openJournal()
		if err := op(i); err != nil {
			b.Fatal(err)
		}
		tr.rollback()
		tr.closeJournal()
	}
}

func BenchmarkAppend(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(sizeName(n), func(b *testing.B) {
			tr, _ := benchTree(b, n)
			m := msg("user", "hello")
			undoEach(b, tr, func(int) error { _, err := tr.Append(m, 1); return err })
		})
	}
}

func BenchmarkRewind(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(sizeName(n), func(b *testing.B) {
			tr, _ := benchTree(b, n)
			ids := visible(b, tr)
			undoEach(b, tr, func(i int) error { _, err := tr.Rewind(ids[i%len(ids)], 1); return err })
		})
	}
}

func BenchmarkBranch(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(sizeName(n), func(b *testing.B) {
			tr, _ := benchTree(b, n)
			ids := visible(b, tr)
			undoEach(b, tr, func(i int) error { _, err := tr.Branch(ids[i%len(ids)], "", 1); return err })
		})
	}
}

func BenchmarkSwitch(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(sizeName(n), func(b *testing.B) {
			tr, _ := benchTree(b, n)
			names := tr.branchNames()
			undoEach(b, tr, func(i int) error { return tr.SwitchBranch(names[i%len(names)]) })
		})
	}
}

func BenchmarkLabel(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(sizeName(n), func(b *testing.B) {
			tr, _ := benchTree(b, n)
			ids := visible(b, tr)
			undoEach(b, tr, func(i int) error { return tr.Label(ids[i%len(ids)], "important") })
		})
	}
}

// BenchmarkProjection projects the main branch, 100 turns deep in every size:
// the cost must not grow with the tree.
func BenchmarkProjection(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(sizeName(n), func(b *testing.B) {
			tr, _ := benchTree(b, n)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := tr.LinearProjection(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkProjectionDepth projects chains of 1k, 10k and 100k turns: the cost
// grows with depth, linearly.
func BenchmarkProjectionDepth(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(sizeName(n), func(b *testing.B) {
			tr := New()
			m := msg("user", "x")
			for i := 0; i < n; i++ {
				tr.Append(m, 1)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := tr.LinearProjection(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkSave(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(sizeName(n), func(b *testing.B) {
			tr, _ := benchTree(b, n)
			b.SetBytes(int64(len(tr.Marshal())))
			b.ReportAllocs()
			for b.Loop() {
				tr.Marshal()
			}
		})
	}
}

func BenchmarkLoad(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(sizeName(n), func(b *testing.B) {
			tr, _ := benchTree(b, n)
			data := tr.Marshal()
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Unmarshal(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkLoadEncodingJSON is the baseline for Load: encoding/json decoding the
// same file into map[string]any.
func BenchmarkLoadEncodingJSON(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(sizeName(n), func(b *testing.B) {
			tr, _ := benchTree(b, n)
			data := tr.Marshal()
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				var v map[string]any
				if err := json.Unmarshal(data, &v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkHeapPerNode reports the live heap a node costs beyond its message
// bytes, for a tree built by Append and for one loaded from a file.
func BenchmarkHeapPerNode(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(sizeName(n), func(b *testing.B) {
			var built, loaded float64
			for b.Loop() {
				before := liveHeap()
				tr, _ := benchTree(b, n)
				after := liveHeap()
				msgBytes := tr.Stats().MessageBytes
				built = float64(int64(after)-int64(before)-int64(msgBytes)) / float64(n)
				data := tr.Marshal()
				tr = nil
				before = liveHeap()
				back, err := Unmarshal(data)
				if err != nil {
					b.Fatal(err)
				}
				after = liveHeap()
				// A loaded tree keeps its file as one buffer that the messages
				// point into; everything else is per-node structure.
				loaded = float64(int64(after)-int64(before)-int64(len(data))) / float64(n)
				runtime.KeepAlive(back)
			}
			b.ReportMetric(built, "B/node")
			b.ReportMetric(loaded, "loadedB/node")
		})
	}
}

func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}
