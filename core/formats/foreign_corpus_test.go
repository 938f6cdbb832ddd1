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

// The foreign files (a Grok export, a Chatbot UI export) are none of the
// formats: auto refuses each with invalid_input and a sentence naming the
// formats it reads, never an error of a format it is not. The claude.ai
// export among them is foreign no more: auto reads it as claudeai.
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
		if want := nowRead[filepath.Base(f)]; want != "" {
			if _, rep, err := formats.Import(formats.Auto, data); err != nil || rep.Format != want {
				t.Errorf("%s: read as %q (%v), want %s", filepath.Base(f), rep.Format, err, want)
			}
			continue
		}
		_, _, err = formats.Import(formats.Auto, data)
		var e *core.Error
		if !errors.As(err, &e) || e.Code != core.CodeInvalidInput || !strings.HasPrefix(e.Message, "cannot tell the format of the input") ||
			!strings.Contains(e.Message, "chatgpt, openwebui, librechat, claudecode, pi, codex, claudeai, sillytavern, openai") {
			t.Errorf("%s: %v", filepath.Base(f), err)
		}
	}
}

// nowRead names the files of interop/foreign/ that a format added since reads.
var nowRead = map[string]string{"owi-importer-claude_thinking_example.json": formats.ClaudeAI}
