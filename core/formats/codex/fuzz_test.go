package codex_test

import (
	"testing"

	"github.com/sessiontree/sessiontree/core/formats/codex"
)

// Whatever a rollout holds, the export of its import is one Codex reads.
func FuzzExportIsRead(f *testing.F) {
	f.Add([]byte(meta + item("1", "user", "one") + item("2", "assistant", "answer one") + rollback + item("6", "user", "instead")))
	f.Add([]byte(`{"id":"x","timestamp":"2025-04-01T00:00:00.000Z"}` + "\n" + `{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, _, err := codex.Import(data)
		if err != nil {
			return
		}
		out, err := codex.Export(tr)
		if err != nil {
			return // a corrupt projection is refused with an error
		}
		if errs := rolloutErrors(out); len(errs) > 0 {
			t.Fatalf("Codex would not read %v:\n%s", errs, out)
		}
	})
}
