package core

import (
	"strconv"
	"testing"
)

// appendOpsJSON is a batch of n appends as the JS API's apply sends it.
func appendOpsJSON(n int) []byte {
	buf := []byte{'['}
	for i := range n {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, `{"op":"append","message":{"role":"user","content":"message `...)
		buf = strconv.AppendInt(buf, int64(i), 10)
		buf = append(buf, `"}}`...)
	}
	return append(buf, ']')
}

// BenchmarkApplyAppend10k parses and applies 10k appends in one batch on a
// fresh tree, as the JS API's apply does (the workload of bench-js "apply").
func BenchmarkApplyAppend10k(b *testing.B) {
	data := appendOpsJSON(10_000)
	b.ReportAllocs()
	for b.Loop() {
		tr := New()
		ops, err := ParseOps(data)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := tr.Apply(ops, 1); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRegenerate1k rewinds and appends 1k times at depth 1k with rising
// times, one call each (the workload of bench-js "regenerate"); building the
// chain is not timed.
func BenchmarkRegenerate1k(b *testing.B) {
	m := msg("assistant", "again")
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		tr := New()
		parent := ""
		for i := range 1000 {
			id, err := tr.Append(msg("user", "turn"), 1)
			if err != nil {
				b.Fatal(err)
			}
			if i == 998 {
				parent = id
			}
		}
		b.StartTimer()
		for i := range 1000 {
			if _, err := tr.Rewind(parent, int64(i)); err != nil {
				b.Fatal(err)
			}
			if _, err := tr.Append(m, int64(i)); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkApplyAppendOps10k applies 10k appends built as the wasm bridge's
// applyOps builds them (a copied, unvalidated message and a time per op).
func BenchmarkApplyAppendOps10k(b *testing.B) {
	texts := make([][]byte, 10_000)
	for i := range texts {
		texts[i] = strconv.AppendInt([]byte(`{"role":"user","content":"message `), int64(i), 10)
		texts[i] = append(texts[i], `"}`...)
	}
	b.ReportAllocs()
	for b.Loop() {
		tr := New()
		ops := make([]Op, len(texts))
		for i, m := range texts {
			ops[i] = Op{Op: "append", Message: append(Message(nil), m...), At: int64(i), HasAt: true}
		}
		if _, err := tr.Apply(ops, 1); err != nil {
			b.Fatal(err)
		}
	}
}
