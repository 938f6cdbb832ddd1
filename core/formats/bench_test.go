package formats_test

import (
	"bytes"
	"runtime"
	"strconv"
	"testing"

	"github.com/sessiontree/sessiontree/core/formats"
)

// benchSize is the size of the generated inputs (about 20 MB).
const benchSize = 20 << 20

var text = bytes.Repeat([]byte("lorem ipsum dolor sit amet "), 20)

func genClaudeCode() []byte {
	var b bytes.Buffer
	parent := "null"
	for i := 0; b.Len() < benchSize; i++ {
		id := "u" + strconv.Itoa(i)
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		b.WriteString(`{"parentUuid":` + parent + `,"isSidechain":false,"type":"` + role + `","uuid":"` + id + `","timestamp":"2025-07-01T10:00:00.000Z","message":{"role":"` + role + `","content":[{"type":"text","text":"` + string(text) + `"}]}}` + "\n")
		parent = `"` + id + `"`
	}
	return b.Bytes()
}

func genPi() []byte {
	var b bytes.Buffer
	b.WriteString(`{"type":"session","version":3,"id":"s","timestamp":"2025-07-01T10:00:00.000Z"}` + "\n")
	parent := "null"
	for i := 0; b.Len() < benchSize; i++ {
		id := "e" + strconv.Itoa(i)
		b.WriteString(`{"type":"message","id":"` + id + `","parentId":` + parent + `,"timestamp":"2025-07-01T10:00:00.000Z","message":{"role":"user","content":[{"type":"text","text":"` + string(text) + `"}]}}` + "\n")
		parent = `"` + id + `"`
	}
	return b.Bytes()
}

func genCodex() []byte {
	var b bytes.Buffer
	b.WriteString(`{"timestamp":"2026-01-01T00:00:00.000Z","type":"session_meta","payload":{"id":"t"}}` + "\n")
	for i := 0; b.Len() < benchSize; i++ {
		b.WriteString(`{"timestamp":"2026-01-01T00:00:01.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"` + string(text) + `"}]}}` + "\n")
	}
	return b.Bytes()
}

func genChatGPT() []byte {
	var b bytes.Buffer
	b.WriteString(`[{"title":"t","mapping":{"root":{"id":"root","message":null,"parent":null,"children":["n0"]}`)
	parent := "root"
	for i := 0; b.Len() < benchSize; i++ {
		id := "n" + strconv.Itoa(i)
		b.WriteString(`,"` + id + `":{"id":"` + id + `","message":{"id":"` + id + `","author":{"role":"user"},"create_time":1714585031.150442,"content":{"content_type":"text","parts":["` + string(text) + `"]}},"parent":"` + parent + `","children":["n` + strconv.Itoa(i+1) + `"]}`)
		parent = id
	}
	b.WriteString(`},"current_node":"` + parent + `"}]`)
	return b.Bytes()
}

func benchImport(b *testing.B, format string, data []byte) {
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var heap uint64
	for i := 0; i < b.N; i++ {
		tr, _, err := formats.Import(format, data)
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		heap = ms.HeapAlloc
		runtime.KeepAlive(tr)
	}
	// Live heap after import, input included, as a multiple of the input size.
	b.ReportMetric(float64(heap)/float64(len(data)), "heap/input")
}

func BenchmarkImportClaudeCode(b *testing.B) { benchImport(b, "claudecode", genClaudeCode()) }
func BenchmarkImportPi(b *testing.B)         { benchImport(b, "pi", genPi()) }
func BenchmarkImportCodex(b *testing.B)      { benchImport(b, "codex", genCodex()) }
func BenchmarkImportChatGPT(b *testing.B)    { benchImport(b, "chatgpt", genChatGPT()) }
