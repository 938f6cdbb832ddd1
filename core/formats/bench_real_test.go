package formats_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/sessiontree/sessiontree/core/formats"
)

// The largest real file of each tree format in ../shared, imported and
// exported in its own format (MB/s of the file). Skipped when the shared
// corpus is not there ($SESSIONTREE_SHARED, or ../shared beside the module).
var realFiles = map[string]string{
	formats.Pi:        "interop/pi/pimono-before-compaction.jsonl",
	formats.ChatGPT:   "testdata/chatgpt/chatgpt-export.json",
	formats.OpenWebUI: "interop/openwebui/owi-importer-claude_output.json",
	formats.LibreChat: "testdata/librechat/librechat-tree.json",
}

func realFile(b *testing.B, format string) []byte {
	dir := os.Getenv("SESSIONTREE_SHARED")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared")
	}
	data, err := os.ReadFile(filepath.Join(dir, realFiles[format]))
	if err != nil {
		b.Skipf("no shared corpus: %v", err)
	}
	return data
}

func benchRealImport(b *testing.B, format string) {
	data := realFile(b, format)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, _, err := formats.Import(format, data); err != nil {
			b.Fatal(err)
		}
	}
}

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

func BenchmarkImportRealPi(b *testing.B)        { benchRealImport(b, formats.Pi) }
func BenchmarkExportRealPi(b *testing.B)        { benchRealExport(b, formats.Pi) }
func BenchmarkImportRealChatGPT(b *testing.B)   { benchRealImport(b, formats.ChatGPT) }
func BenchmarkExportRealChatGPT(b *testing.B)   { benchRealExport(b, formats.ChatGPT) }
func BenchmarkImportRealOpenWebUI(b *testing.B) { benchRealImport(b, formats.OpenWebUI) }
func BenchmarkExportRealOpenWebUI(b *testing.B) { benchRealExport(b, formats.OpenWebUI) }
func BenchmarkImportRealLibreChat(b *testing.B) { benchRealImport(b, formats.LibreChat) }
func BenchmarkExportRealLibreChat(b *testing.B) { benchRealExport(b, formats.LibreChat) }
