//go:build corpus

package formats_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/formats"
	"github.com/sessiontree/sessiontree/core/formats/internal/formattest"
)

// The foreign files (a claude.ai export, a Grok export, a Chatbot UI export)
// are none of the formats: auto refuses each with invalid_input and a
// sentence naming the formats it reads, never an error of a format it is not.
func TestCorpusForeignFilesAreRefusedClearly(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(formattest.SharedDir(), "interop", "foreign", "*.json"))
	if len(files) == 0 {
		files, _ = filepath.Glob(filepath.Join("..", "..", "..", "shared", "interop", "foreign", "*.json"))
	}
	if len(files) == 0 {
		t.Fatal("no foreign files (set SESSIONTREE_SHARED)")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = formats.Import(formats.Auto, data)
		var e *core.Error
		if !errors.As(err, &e) || e.Code != core.CodeInvalidInput || !strings.HasPrefix(e.Message, "cannot tell the format of the input") ||
			!strings.Contains(e.Message, "chatgpt, openwebui, librechat, claudecode, pi, codex, openai") {
			t.Errorf("%s: %v", filepath.Base(f), err)
		}
	}
}
