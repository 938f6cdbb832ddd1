package formats_test

import (
	"runtime"
	"strings"
	"testing"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/formats/librechat"
	"github.com/sessiontree/sessiontree/core/formats/markdown"
)

// A message of many tool results or calls exports in memory in proportion to
// its size. Before Dec 5 LibreChat's text of a message of results and
// Markdown's list of a message's calls grew a string by += at each one, which
// copied all of it: 10,000 results (760 KB) took 2.9 s to export to
// LibreChat, 10,000 calls 0.7 s to Markdown.
func TestAMessageOfManyPartsExportsInLinearMemory(t *testing.T) {
	const n = 3000
	results := strings.Repeat(`{"type":"tool_result","tool_use_id":"t","content":"xxxxxxxxxxxxxxxx"},`, n)
	calls := strings.Repeat(`{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}},`, n)
	for _, c := range []struct {
		name   string
		msg    string
		export func(*core.Tree) ([]byte, error)
	}{
		{"librechat", `{"role":"user","content":[` + results[:len(results)-1] + `]}`, librechat.Export},
		{"markdown", `{"role":"assistant","content":"","tool_calls":[` + calls[:len(calls)-1] + `]}`, markdown.Export},
	} {
		tr := core.New()
		if _, err := tr.Append(core.Message(c.msg), 1); err != nil {
			t.Fatal(err)
		}
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		out, err := c.export(tr)
		runtime.ReadMemStats(&m1)
		if err != nil || len(out) < n*8 {
			t.Fatalf("%s: %d bytes, %v", c.name, len(out), err)
		}
		if alloc := m1.TotalAlloc - m0.TotalAlloc; alloc > 64*uint64(len(c.msg)) {
			t.Errorf("%s: allocated %d bytes to export a %d-byte message: more than 64 times its size", c.name, alloc, len(c.msg))
		}
	}
}
