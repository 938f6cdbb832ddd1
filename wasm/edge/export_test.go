//go:build !js || stock

package edge

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/sessiontree/sessiontree/core/formats"
)

// An export that is JSON lines (one record a line, not one JSON value) is
// served as such, application/x-ndjson and a .jsonl file name, the way the
// tool that reads it names its files: SillyTavern's chat export was served as
// application/json in a .sillytavern.json file (an outside pass, Dec 7).
func TestAnExportOfJSONLinesIsServedAsJSONLines(t *testing.T) {
	c := newClient(t, newTestHandler(NewMemStore()), "alice")
	id := c.create(`{"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"}]}`)
	for _, format := range formats.Names {
		if format == formats.Markdown {
			continue
		}
		r := c.do("GET", "/v1/trees/"+id+"/export?format="+format, "")
		if r.status != 200 {
			t.Fatalf("%s: %d %s", format, r.status, r.body)
		}
		body := bytes.TrimSpace(r.body)
		lines := !json.Valid(body)
		for _, line := range bytes.Split(body, []byte("\n")) {
			if lines && !json.Valid(line) {
				t.Fatalf("%s: neither one JSON value nor JSON lines: %s", format, r.body)
			}
		}
		ct, cd := r.header.Get("Content-Type"), r.header.Get("Content-Disposition")
		if lines != strings.HasPrefix(ct, "application/x-ndjson") || lines != strings.Contains(cd, ".jsonl\"") {
			t.Errorf("%s (JSON lines: %v): Content-Type %q, Content-Disposition %q", format, lines, ct, cd)
		}
	}
}
