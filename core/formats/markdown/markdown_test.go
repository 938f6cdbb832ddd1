package markdown_test

import (
	"testing"

	"github.com/sessiontree/sessiontree/core/formats/internal/formattest"
	"github.com/sessiontree/sessiontree/core/formats/markdown"
	"github.com/sessiontree/sessiontree/core/formats/pi"
)

// A forked pi session with a tool call renders as the active branch, one
// section per message, then the other branch's summary
// (testdata/forked.golden.md, read by eye).
func TestExportGolden(t *testing.T) {
	in := `{"type":"session","version":3,"id":"s1","timestamp":"2025-01-01T00:00:00.000Z"}
{"type":"message","id":"e1","parentId":null,"timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"List the files.\nThen stop."}]}}
{"type":"message","id":"e2","parentId":"e1","timestamp":"2025-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"First try"}]}}
{"type":"message","id":"e3","parentId":"e1","timestamp":"2025-01-01T00:00:03.000Z","message":{"role":"assistant","content":"","tool_calls":[{"id":"c1","type":"function","function":{"name":"ls","arguments":"{\"dir\":\".\"}"}}]}}
{"type":"message","id":"e4","parentId":"e3","timestamp":"2025-01-01T00:00:04.000Z","message":{"role":"tool","tool_call_id":"c1","content":"a.txt"}}
{"type":"branch_summary","id":"e5","parentId":"e4","timestamp":"2025-01-01T00:00:05.000Z","fromId":"e2","summary":"answered without looking"}
`
	tr, _, err := pi.Import([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	out, err := markdown.Export(tr)
	if err != nil {
		t.Fatal(err)
	}
	const path = "testdata/forked.golden.md"
	formattest.Golden(t, path, out)
}
