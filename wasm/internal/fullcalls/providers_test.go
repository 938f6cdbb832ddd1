package fullcalls

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/provider"
)

func toolTree(t *testing.T) *core.Tree {
	t.Helper()
	var msgs []core.Message
	for _, s := range []string{
		`{"role":"user","content":"q"}`,
		`{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]}`,
		`{"role":"tool","tool_call_id":"c1","content":"r"}`,
	} {
		m, err := core.ParseMessage([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, m)
	}
	tr, err := core.FromLinear(msgs, 1)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// projectTree on a live tree and projectFile on its saved bytes return
// core/provider's body and report, {"request","report"}.
func TestProjectTreeAndProjectFileReturnCoreProvidersBody(t *testing.T) {
	tr := toolTree(t)
	h := load(t, tr.Marshal())
	for _, api := range provider.APIs {
		want, err := provider.ProjectTree(tr, "", api, provider.Options{Budget: 100})
		if err != nil {
			t.Fatal(err)
		}
		live, ok := doOn("projectTree", h, []byte(api), nil, []byte("100"), nil)
		if !ok {
			t.Fatalf("projectTree: %s", live)
		}
		file, ok := do("projectFile", []byte(api), nil, []byte("100"), nil, tr.Marshal())
		if !ok {
			t.Fatalf("projectFile: %s", file)
		}
		for _, got := range [][]byte{live, file} {
			var res struct {
				Request json.RawMessage
				Report  struct{ Sent int }
			}
			if err := json.Unmarshal(got, &res); err != nil {
				t.Fatalf("%s: %v", got, err)
			}
			if string(res.Request) != string(want.Body()) || res.Report.Sent != want.Report.Sent {
				t.Errorf("%s: got %s, want %s", api, got, want.Body())
			}
		}
	}
}

func TestProjectTreeRefusesAnUnknownAPIAndABadBudget(t *testing.T) {
	h := load(t, toolTree(t).Marshal())
	for _, args := range [][][]byte{{[]byte("gemini"), nil, nil, nil}, {[]byte("anthropic"), nil, []byte("-3"), nil}, {[]byte("anthropic"), nil, []byte("x"), nil}} {
		res, ok := doOn("projectTree", h, args...)
		if ok || !strings.Contains(string(res), "invalid_input") {
			t.Errorf("%q: %s", args, res)
		}
	}
	if res, ok := doOn("projectTree", h, []byte("anthropic"), []byte("nope"), nil, nil); ok || !strings.Contains(string(res), "branch_not_found") {
		t.Errorf("unknown branch: %s", res)
	}
}

// The serials a caller holds come as runs ("a-b"), single ones and 0s, in
// the caller's order, as the answer wrote them (appendRuns); anything else
// is refused with a sentence.
func TestHeldSerialsAreReadAsRuns(t *testing.T) {
	held, err := heldRuns("40-45,7,0,9-9,0,100-102")
	if err != nil {
		t.Fatal(err)
	}
	run := func(a, b uint64) provider.Run { return provider.Run{First: a, Last: b} }
	want := []provider.Run{run(40, 45), run(7, 7), run(0, 0), run(9, 9), run(0, 0), run(100, 102)}
	if !slices.Equal(held, want) {
		t.Fatalf("got %v, want %v", held, want)
	}
	if got := string(appendRuns(nil, want)); got != "40-45,7,0,9,0,100-102" {
		t.Fatalf("written back as %q", got)
	}
	if held, err := heldRuns(""); err != nil || held == nil || len(held) != 0 {
		t.Fatalf("none held: %v %v", held, err)
	}
	for _, bad := range []string{"0-3", "3-1", "a", "1,,2", "1-", "-4", "5-x", "18446744073709551616", "1-99999999"} {
		if _, err := heldRuns(bad); err == nil || !strings.Contains(err.Error(), `"held"`) {
			t.Errorf("%q: %v", bad, err)
		}
	}
}
