package formats_test

import (
	"strings"
	"testing"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/formats"
)

// continued imports fixture, exports it to format, appends the lines more
// makes (given main's leaf at export) as the tool would, and imports again.
func continued(t *testing.T, format, fixtureName string, more func(leaf string) string) (*core.Tree, formats.Report) {
	t.Helper()
	first, _, err := formats.Import(format, fixture(t, fixtureName))
	if err != nil {
		t.Fatal(err)
	}
	out, err := formats.Export(first, format)
	if err != nil {
		t.Fatal(err)
	}
	main, _ := first.LookupBranch(core.MainBranch)
	data := strings.TrimRight(string(out), "\n") + "\n" + more(main.Leaf)
	back, rep, err := formats.Import(format, []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	return back, rep
}

// everyLeafNamed fails when a leaf of tr is the leaf of no branch.
func everyLeafNamed(t *testing.T, tr *core.Tree) {
	t.Helper()
	named := map[string]bool{}
	for _, b := range tr.Branches() {
		named[b.Leaf] = true
	}
	roots, _, _ := tr.Siblings(tr.Root())
	stack := append([]string(nil), roots...)
	for len(stack) > 0 {
		id := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		n, _ := tr.Node(id)
		if len(n.Children) == 0 && !named[id] {
			t.Errorf("leaf %q is on no branch", id)
		}
		stack = append(stack, n.Children...)
	}
}

func lastText(t *testing.T, tr *core.Tree) string {
	t.Helper()
	msgs, err := tr.LinearProjection()
	if err != nil || len(msgs) == 0 {
		t.Fatalf("no active path: %v", err)
	}
	return msgs[len(msgs)-1].Text()
}

// The docs: "no line of work is unnamed". A file an export wrote carries its
// branch list; messages the tool added after the export are not in it, and
// were left on no branch, the active path where the export left it.
func TestMessagesAddedInTheToolAfterAnExportAreOnABranch(t *testing.T) {
	piLine := func(id, parent, text string) string {
		return `{"type":"message","id":"` + id + `","parentId":"` + parent + `","timestamp":"2030-01-02T00:00:00.000Z","message":{"role":"user","content":[{"type":"text","text":"` + text + `"}]}}` + "\n"
	}
	ccLine := func(id, parent, text string) string {
		return `{"parentUuid":"` + parent + `","isSidechain":false,"userType":"external","cwd":"/tmp","sessionId":"s","version":"1.0.0","type":"user","uuid":"` + id + `","timestamp":"2030-01-01T00:00:00.000Z","message":{"role":"user","content":"` + text + `"}}` + "\n"
	}
	stLine := `{"name":"Ana","is_user":true,"is_system":false,"send_date":"2024-9-28 @01h 05m 00s 000ms","mes":"One more, please.","extra":{}}` + "\n"

	t.Run("main follows a turn added at its leaf", func(t *testing.T) {
		for _, c := range []struct {
			format, fixture string
			more            func(leaf string) string
		}{
			{"pi", "pi/labels.jsonl", func(leaf string) string { return piLine("new1", leaf, "continued in pi") }},
			{"claudecode", "claudecode/compact-preserved.jsonl", func(leaf string) string { return ccLine("new-1", leaf, "continued in Claude Code") }},
			{"sillytavern", "sillytavern/swipes.jsonl", func(string) string { return stLine }},
		} {
			back, rep := continued(t, c.format, c.fixture, c.more)
			if back.ActiveBranch() != core.MainBranch {
				t.Errorf("%s: active branch %q, want main", c.format, back.ActiveBranch())
			}
			if got := lastText(t, back); !strings.Contains(got, "ontinued in") && !strings.Contains(got, "One more") {
				t.Errorf("%s: active path ends with %q, not the added turn", c.format, got)
			}
			if len(rep.Problems) > 0 {
				t.Errorf("%s: %v", c.format, rep.Problems)
			}
			everyLeafNamed(t, back)
		}
	})

	t.Run("a turn added elsewhere gets a branch of its own, active and reported", func(t *testing.T) {
		first, _, _ := formats.Import("pi", fixture(t, "pi/labels.jsonl"))
		back, rep := continued(t, "pi", "pi/labels.jsonl", func(string) string {
			return piLine("new1", first.Root(), "went back in pi")
		})
		if back.ActiveBranch() == core.MainBranch {
			t.Errorf("main moved to a turn that does not continue it")
		}
		if got := lastText(t, back); got != "went back in pi" {
			t.Errorf("active path ends with %q", got)
		}
		if main, _ := back.LookupBranch(core.MainBranch); main.Leaf != "e7" {
			t.Errorf("main's leaf %q, want e7 as exported", main.Leaf)
		}
		if len(rep.Problems) != 1 || rep.Problems[0].ID != "new1" {
			t.Errorf("want one problem about new1, got %v", rep.Problems)
		}
		everyLeafNamed(t, back)
	})

	t.Run("a leaf the tool added off its current path is named too", func(t *testing.T) {
		first, _, _ := formats.Import("claudecode", fixture(t, "claudecode/compact-preserved.jsonl"))
		main, _ := first.LookupBranch(core.MainBranch)
		n, _ := first.Node(main.Leaf)
		back, _ := continued(t, "claudecode", "claudecode/compact-preserved.jsonl", func(leaf string) string {
			return ccLine("side-1", n.Parent, "a retry") + ccLine("new-1", leaf, "continued in Claude Code")
		})
		if got := lastText(t, back); got != "continued in Claude Code" {
			t.Errorf("active path ends with %q", got)
		}
		everyLeafNamed(t, back)
	})
}
