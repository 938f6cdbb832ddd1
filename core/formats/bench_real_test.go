package formats_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/sessiontree/sessiontree/core/formats"
	"github.com/sessiontree/sessiontree/core/internal/corpus"
)

// The largest real file of each format in ../shared (or $SESSIONTREE_SHARED):
// import and export in its own format, MB/s of the file. A benchmark, so it
// only runs with -bench; without the corpus it is skipped.
var realFiles = map[string]string{
	formats.ClaudeCode: "interop/claudecode/spotter-4d5611e5.jsonl",               // 3.2 MB, Claude Code 2.1
	formats.Codex:      "interop/codex/codemie-rollout-2026-05-11T11-26-55.jsonl", // 748 KB
	formats.Pi:         "interop/pi/pimono-before-compaction.jsonl",
	formats.ChatGPT:    "testdata/chatgpt/chatgpt-export.json",
	formats.OpenWebUI:  "interop/openwebui/owi-importer-claude_output.json",
	formats.LibreChat:  "testdata/librechat/librechat-tree.json",
}

func realFile(b *testing.B, format string) []byte {
	data, err := os.ReadFile(filepath.Join(corpus.Dir(), realFiles[format]))
	if err != nil {
		b.Skip("no corpus: ", err)
	}
	return data
}

func benchRealImport(b *testing.B, format string) { benchImport(b, format, realFile(b, format)) }

func benchRealExport(b *testing.B, format string) {
	data := realFile(b, format)
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

func BenchmarkImportRealClaudeCode(b *testing.B) { benchRealImport(b, formats.ClaudeCode) }
func BenchmarkExportRealClaudeCode(b *testing.B) { benchRealExport(b, formats.ClaudeCode) }
func BenchmarkImportRealCodex(b *testing.B)      { benchRealImport(b, formats.Codex) }
func BenchmarkExportRealCodex(b *testing.B)      { benchRealExport(b, formats.Codex) }
func BenchmarkImportRealPi(b *testing.B)         { benchRealImport(b, formats.Pi) }
func BenchmarkExportRealPi(b *testing.B)         { benchRealExport(b, formats.Pi) }
func BenchmarkImportRealChatGPT(b *testing.B)    { benchRealImport(b, formats.ChatGPT) }
func BenchmarkExportRealChatGPT(b *testing.B)    { benchRealExport(b, formats.ChatGPT) }
func BenchmarkImportRealOpenWebUI(b *testing.B)  { benchRealImport(b, formats.OpenWebUI) }
func BenchmarkExportRealOpenWebUI(b *testing.B)  { benchRealExport(b, formats.OpenWebUI) }
func BenchmarkImportRealLibreChat(b *testing.B)  { benchRealImport(b, formats.LibreChat) }
func BenchmarkExportRealLibreChat(b *testing.B)  { benchRealExport(b, formats.LibreChat) }
