package main

import (
	"strings"
	"testing"
)

func TestApplyOpsTakesPlainAppendsAndAnyOpAtomically(t *testing.T) {
	h := handleOf(t, must(t, "new", 0))
	res := must(t, "applyOps", h, `a{"role":"user","content":"a"}`, "A7\n"+`{ "role": "assistant", "content": "b" }`, `J{"op":"switch","branch":"main"}`)
	if !strings.HasPrefix(res, `["`) || !strings.HasSuffix(res, `",""]`) || strings.Count(res, ",") != 2 {
		t.Fatalf("results = %s", res)
	}
	path := strings.Split(must(t, "pathOf", h), "\n")
	if len(path) != 2 || !strings.Contains(must(t, "node", h, path[1]), `"createdAtMs":7`) {
		t.Fatalf("the A op's time: %s", must(t, "node", h, path[1]))
	}
	// The plain appends have slots 0 and 1 (JS holds their texts). The tree
	// stored a compacted copy of the spaced one, so its bytes cross once, under
	// a slot of their own; the compact one crosses not at all.
	slots, sent := projection(t, must(t, "project", h))
	if len(slots) != 2 || slots[0] != 0 || slots[1] != 2 || len(sent) != 1 || sent[0] != `{"role":"assistant","content":"b"}` {
		t.Fatalf("slots %v, sent %q", slots, sent)
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{`a{"role":"user"}`, `J{"op":"fly"}`}, `op 1: unknown op \"fly\"`},
		{[]string{`a{"role":"user"}`, `a{"content":"no role"}`}, `op 1`},
		{[]string{"Ax\n{}"}, `op 0: \"at\" must be an integer`},
		{[]string{`Z`}, `op 0: unknown kind`},
		{[]string{``}, `op 0: empty`},
		{[]string{`a{"role":"user"}`, `J{"op":"rewind","node":"ghost"}`}, `op 1 (rewind)`},
	}
	for _, c := range cases {
		res, ok := do(t, "applyOps", h, c.args...)
		if ok || code(t, res) == "" || !strings.Contains(res, c.want) {
			t.Errorf("applyOps(%q) = %s, want an error naming %q", c.args, res, c.want)
		}
	}
	if got := strings.Count(must(t, "pathOf", h), "\n"); got != 1 {
		t.Fatalf("a failed batch changed the tree: %d nodes on the path", got+1)
	}
	if slots, sent := projection(t, must(t, "project", h)); len(slots) != 2 || slots[1] != 2 || len(sent) != 0 {
		t.Fatalf("a failed batch made slots: %v, %q", slots, sent)
	}
}
