package treecalls

import (
	"strconv"
	"strings"
	"testing"
)

// fileOf returns a .tree.json of one path of messages with the given ids and
// contents, each a user message, the last one main's leaf.
func fileOf(ids, contents []string) string {
	var nodes []string
	for i, id := range ids {
		node := `"` + id + `":{"id":"` + id + `",`
		if i > 0 {
			node += `"parent":"` + ids[i-1] + `",`
		}
		children := `[]`
		if i+1 < len(ids) {
			children = `["` + ids[i+1] + `"]`
		}
		node += `"children":` + children + `,"message":{"role":"user","content":"` + contents[i] + `"},"created_at_ms":` + strconv.Itoa(i+1) + `}`
		nodes = append(nodes, node)
	}
	return `{"format":"sessiontree","version":1,"root":"` + ids[0] + `","active_branch":"main","branches":{"main":{"name":"main","leaf":"` +
		ids[len(ids)-1] + `","created_at_ms":0,"used":1}},"nodes":{` + strings.Join(nodes, ",") + `}}`
}

func TestReplaceSwapsTheTreeBehindTheSameHandle(t *testing.T) {
	before := fileOf([]string{"n1", "n2"}, []string{"a", "b"})
	h := handleOf(t, must(t, "load", 0, before))
	after := must(t, "save", handleOf(t, must(t, "load", 0, fileOf([]string{"n1", "n2", "n3"}, []string{"a", "b", "c"}))))
	if res := must(t, "replace", h, after); res != "" {
		t.Fatalf("replace returned %q", res)
	}
	if got := must(t, "save", h); got != after {
		t.Fatalf("after replace, save() = %s", got)
	}
	// A file that does not load leaves the tree as it was.
	if res, ok := do(t, "replace", h, "not json"); ok || code(t, res) != "corrupt" {
		t.Fatalf("replace with junk: %s", res)
	}
	if res, ok := do(t, "replace", h); ok || !strings.Contains(res, "json") {
		t.Fatalf("replace without a file: %s", res)
	}
	if got := must(t, "save", h); got != after {
		t.Fatal("a failed replace changed the tree")
	}
}

// JS keeps its message cache across a replace: the messages it holds keep their
// slots, and a slot is never handed out for a message whose bytes differ.
func TestReplaceKeepsTheSlotsOfMessagesBothTreesHaveAndNoOther(t *testing.T) {
	h := handleOf(t, must(t, "load", 0, fileOf([]string{"n1", "n2", "n3"}, []string{"a", "b", "c"})))
	slots, sent := projection(t, must(t, "project", h))
	if len(slots) != 3 || len(sent) != 3 {
		t.Fatalf("first projection: %v %q", slots, sent)
	}
	// n1 as before, n2 with other bytes under the same id (stale if served
	// from slot 1), n3 gone, n4 new.
	must(t, "replace", h, fileOf([]string{"n1", "n2", "n4"}, []string{"a", "B", "d"}))
	slots, sent = projection(t, must(t, "project", h))
	if len(slots) != 3 || slots[0] != 0 || slots[1] < 3 || slots[2] < 3 || slots[1] == slots[2] {
		t.Fatalf("after replace: slots %v (want 0, then two new ones)", slots)
	}
	if len(sent) != 2 || sent[0] != `{"role":"user","content":"B"}` || sent[1] != `{"role":"user","content":"d"}` {
		t.Fatalf("after replace, sent %q: only the messages JS lacks", sent)
	}
	// A second replace remaps the new slots too, and a tree with none of the
	// messages leaves every slot empty.
	must(t, "replace", h, fileOf([]string{"n1", "n2", "n4"}, []string{"a", "B", "d"}))
	if s2, sent := projection(t, must(t, "project", h)); len(sent) != 0 || s2[1] != slots[1] || s2[2] != slots[2] {
		t.Fatalf("replace by the same tree: slots %v, sent %q", s2, sent)
	}
	must(t, "replace", h, fileOf([]string{"x1"}, []string{"a"}))
	if s3, sent := projection(t, must(t, "project", h)); len(s3) != 1 || s3[0] < 5 || len(sent) != 1 {
		t.Fatalf("replace by an unrelated tree: slots %v, sent %q", s3, sent)
	}
}

func TestReplaceOfATreeWithBrokenLinksStillEnds(t *testing.T) {
	h := handleOf(t, must(t, "load", 0, fileOf([]string{"n1", "n2"}, []string{"a", "b"})))
	projection(t, must(t, "project", h))
	// n1 and n2 are each other's parents: a cycle with no root.
	cycle := `{"format":"sessiontree","version":1,"root":"n1","active_branch":"main","branches":{"main":{"name":"main","leaf":"n2","created_at_ms":0,"used":1}},` +
		`"nodes":{"n1":{"id":"n1","parent":"n2","children":["n2"],"message":{"role":"user","content":"a"},"created_at_ms":1},` +
		`"n2":{"id":"n2","parent":"n1","children":["n1"],"message":{"role":"user","content":"b"},"created_at_ms":2}}}`
	if res, ok := do(t, "replace", h, cycle); ok {
		if !strings.Contains(must(t, "validate", h), "cycle") {
			t.Fatal("the broken tree is not the one held")
		}
	} else if code(t, res) != "corrupt" {
		t.Fatalf("replace with a cycle: %s", res)
	}
}
