// Package corpus finds the outside corpora the corpus-tagged tests read: the
// public sample files of ../shared/testdata and the real-world sessions of
// ../shared/interop, never copied into the repository (make test-corpus).
package corpus

import (
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
)

// Dir is the shared folder: $SESSIONTREE_SHARED, or ../shared beside the
// module root.
func Dir() string {
	if d := os.Getenv("SESSIONTREE_SHARED"); d != "" {
		return d
	}
	_, file, _, _ := runtime.Caller(0) // core/internal/corpus/corpus.go
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "..", "shared")
}

// Files lists, sorted, the files (not the .md notes) that the patterns match
// under Dir: "interop/codex", "testdata/*" (a folder each). It fails t when
// none match: a corpus test never passes on no files.
func Files(t testing.TB, patterns ...string) []string {
	t.Helper()
	var out []string
	for _, p := range patterns {
		fs, _ := filepath.Glob(filepath.Join(Dir(), p, "*"))
		for _, f := range fs {
			if !strings.HasSuffix(f, ".md") {
				out = append(out, f)
			}
		}
	}
	if len(out) == 0 {
		t.Fatalf("no corpus files for %v under %s (set SESSIONTREE_SHARED)", patterns, Dir())
	}
	sort.Strings(out)
	return out
}

// Format is the format a corpus file's folder names: "auto" for foreign/.
func Format(path string) string {
	if f := filepath.Base(filepath.Dir(path)); f != "foreign" {
		return f
	}
	return "auto"
}
