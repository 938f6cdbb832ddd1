package treecalls

import (
	"encoding/binary"
	"math"
	"strings"
	"testing"
)

// timed is the T argument of an append at time at.
func timed(at float64, msg string) string {
	return "T" + string(binary.LittleEndian.AppendUint64(nil, math.Float64bits(at))) + msg
}

func TestApplyOpsTakesPlainAppendsAndAnyOpAtomically(t *testing.T) {
	h := handleOf(t, must(t, "new", 0))
	res := must(t, "applyOps", h, `a{"role":"user","content":"a"}`, timed(7, `{ "role": "assistant", "content": "b" }`), `J{"op":"switch","branch":"main"}`)
	if lines := strings.Split(res, "\n"); len(lines) != 3 || len(lines[0]) != 17 || lines[0][0] != 'L' || len(lines[1]) != 16 || lines[2] != "" {
		t.Fatalf("results = %s", res)
	}
	path := strings.Split(must(t, "pathOf", h), "\n")
	if len(path) != 2 || !strings.Contains(must(t, "node", h, path[1]), `"createdAtMs":7`) {
		t.Fatalf("the T op's time: %s", must(t, "node", h, path[1]))
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
		{[]string{timed(math.NaN(), `{"role":"user"}`)}, `op 0: \"at\" must be an integer`},
		{[]string{timed(0.5, `{"role":"user"}`)}, `op 0: \"at\" must be an integer`},
		{[]string{"T1234"}, `op 0: truncated time`},
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

func TestApplyOpsResultsAreOnePerLineAndAnEmptyBatchIsAnEmptyList(t *testing.T) {
	h := handleOf(t, must(t, "new", 0))
	if res := must(t, "applyOps", h); res != "L" {
		t.Fatalf("no ops: %q", res)
	}
	res := must(t, "applyOps", h, `a{"role":"user"}`, `a{"role":"assistant"}`)
	lines := strings.Split(strings.TrimPrefix(res, "L"), "\n")
	if res[0] != 'L' || len(lines) != 2 {
		t.Fatalf("results %q", res)
	}
	if got := strings.Split(must(t, "pathOf", h), "\n"); got[0] != lines[0] || got[1] != lines[1] {
		t.Fatalf("result ids %q, path %q", lines[:2], got)
	}
	if res := must(t, "applyOps", h, `J{"op":"branch","from":"`+lines[0]+`","name":"[x"}`, `J{"op":"label","node":"`+lines[0]+`","label":"l"}`); res != "L[x\n" {
		t.Fatalf("a name and a void result: %q", res)
	}
}

func TestAnAppliedAppendKeepsItsMessageApartFromTheNextOnesBytes(t *testing.T) {
	var arena []byte
	arena = make([]byte, 0, 64)
	a := keepIn(&arena, []byte(`{"role":"user"}`))
	b := keepIn(&arena, []byte(`{"role":"tool"}`))
	_ = append(a, 'X') // must not write over b
	if string(b) != `{"role":"tool"}` || cap(a) != len(a) {
		t.Fatalf("b = %s, cap(a) = %d", b, cap(a))
	}
}

func TestAMessageAppliedAfterAParsedOneIsStillValidated(t *testing.T) {
	h := handleOf(t, must(t, "new", 0))
	must(t, "applyOps", h, `J{"op":"append","message":{"role":"user"}}`)
	for _, bad := range []string{`a{"role":`, `a{"content":"no role"}`, `a[1]`} {
		if res, ok := do(t, "applyOps", h, bad); ok || code(t, res) != "invalid_input" {
			t.Errorf("applyOps(%q) after a parsed append = %s, want invalid_input", bad, res)
		}
	}
}
