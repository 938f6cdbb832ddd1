package claudecode_test

import (
	"bytes"
	"os"
	"testing"

	"github.com/sessiontree/sessiontree/core/formats/claudecode"
)

// Whatever a transcript holds, importing its export gives the imported tree
// back: every line is written so that the link phase places it where the
// tree has it, or it says where in "sessiontree"; and every line the export
// writes is one the readers accept.
func FuzzExportRoundTrip(f *testing.F) {
	f.Add([]byte(user("u1", "", "q") + toolUse("a2", "u1", "m1", "c1") + progress("p3", "a2") + toolUse("a4", "p3", "m1", "c2") +
		toolResult("r5", "a2", "c1") + toolResult("r6", "a4", "c2") + assistant("a7", "r6", "m2", "done")))
	f.Add([]byte(user("u1", "", "q") + toolUse("a2", "", "m1", "c1") + toolResult("r3", "", "c1") + user("u1", "r3", "dup")))
	if data, err := os.ReadFile("../testdata/torn.claudecode.jsonl"); err == nil {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, _, err := claudecode.Import(data)
		if err != nil {
			return
		}
		out, err := claudecode.Export(tr)
		if err != nil {
			t.Fatalf("export: %v", err)
		}
		back, _, err := claudecode.Import(out)
		if err != nil {
			t.Fatalf("import of the export: %v", err)
		}
		if !same(tr, back) {
			t.Fatalf("import(export(t)) != t\n%s\n%s\n%s", out, tr.Marshal(), back.Marshal())
		}
		for _, l := range bytes.Split(bytes.TrimSpace(out), []byte("\n")) {
			if ok, why := claudecode.Accepted(l); !ok {
				t.Fatalf("%s: %s", l, why)
			}
		}
	})
}
