//go:build corpus

package formats_test

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/sessiontree/sessiontree/core/formats"
)

// realFile reads a file of ../shared (or $SESSIONTREE_SHARED), skipping the
// benchmark when the corpus is not there.
func realFile(b *testing.B, rel string) []byte {
	dir := os.Getenv("SESSIONTREE_SHARED")
	if dir == "" {
		_, file, _, _ := runtime.Caller(0)
		dir = filepath.Join(filepath.Dir(file), "..", "..", "..", "shared")
	}
	data, err := os.ReadFile(filepath.Join(dir, rel))
	if err != nil {
		b.Skip("no corpus: ", err)
	}
	return data
}

func benchExport(b *testing.B, format string, data []byte) {
	tr, _, err := formats.Import(format, data)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := formats.Export(tr, format); err != nil {
			b.Fatal(err)
		}
	}
}

// The largest real file of each format: MB/s of the input, import and export.
const (
	realClaudeCode = "interop/claudecode/spotter-4d5611e5.jsonl"               // 3.2 MB, Claude Code 2.1
	realCodex      = "interop/codex/codemie-rollout-2026-05-11T11-26-55.jsonl" // 748 KB
)

func BenchmarkImportRealClaudeCode(b *testing.B) {
	benchImport(b, "claudecode", realFile(b, realClaudeCode))
}
func BenchmarkExportRealClaudeCode(b *testing.B) {
	benchExport(b, "claudecode", realFile(b, realClaudeCode))
}
func BenchmarkImportRealCodex(b *testing.B) { benchImport(b, "codex", realFile(b, realCodex)) }
func BenchmarkExportRealCodex(b *testing.B) { benchExport(b, "codex", realFile(b, realCodex)) }
