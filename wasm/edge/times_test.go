//go:build !js || stock

package edge

import (
	"context"
	"strings"
	"testing"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/formats"
)

// year3000 is a time far in the future, in milliseconds since the epoch.
const year3000 = int64(32_503_680_000_000)

// treeOf reads the tree file of id as c sees it.
func treeOf(t *testing.T, c *client, id string) (*core.Tree, string) {
	t.Helper()
	r := c.do("GET", "/v1/trees/"+id, "")
	tr, err := core.Unmarshal(r.body)
	if err != nil {
		t.Fatal(err)
	}
	return tr, r.header.Get("ETag")
}

// leafOf is the leaf of tr's main branch.
func leafOf(tr *core.Tree) string {
	b, _ := tr.LookupBranch(core.MainBranch)
	return b.Leaf
}

// wantRefusedNaming checks a 400 invalid_input whose message names field.
func wantRefusedNaming(t *testing.T, what string, r reply, field string) {
	t.Helper()
	if r.status != 400 || !strings.Contains(string(r.body), `"invalid_input"`) || !strings.Contains(string(r.body), field) {
		t.Fatalf("%s: %d %.400s, want 400 invalid_input naming %s", what, r.status, r.body, field)
	}
}

// A time far in the future wins every later merge of its label, branch or
// deletion (the later time wins). /ops refused such an "at" (from 2000-01-01
// to an hour from now), but /merge, /delta, a create from a file and an
// import stored any time their body carried: a copy labelled in year 3000
// won every merge after it. Every time a body brings in (a node's created
// and label times, a branch's created, moved and deleted times, a summary's)
// may now be at most an hour from now, or the write is 400 naming the
// field, and nothing is stored. Times in the past are kept as they are:
// files of other tools carry old dates, and an empty tree's main branch
// is stamped 0.
func TestATimeFromTheFutureIsRefusedOnEveryWriteRoute(t *testing.T) {
	store := NewMemStore()
	c := newClient(t, newTestHandler(store), "alice")
	id := c.create(`{"messages":[{"role":"user","content":"hi"}]}`)
	tr, etag := treeOf(t, c, id)
	leaf := leafOf(tr)
	before := store.RowWrites

	labelled, _ := treeOf(t, c, id)
	if err := labelled.LabelAt(leaf, "pinned", year3000); err != nil {
		t.Fatal(err)
	}
	wantRefusedNaming(t, "a merge of a copy labelled in year 3000", c.do("POST", "/v1/trees/"+id+"/merge", string(labelled.Marshal())), "label_at_ms")

	delta, deltaETag := deltaOf(t, c, id, func(tr *core.Tree) {
		if err := tr.LabelAt(leaf, "pinned", year3000); err != nil {
			t.Fatal(err)
		}
	})
	wantRefusedNaming(t, "a delta labelled in year 3000", c.do("POST", "/v1/trees/"+id+"/delta", delta, "If-Match", deltaETag), "label_at_ms")

	branched, _ := treeOf(t, c, id)
	if _, err := branched.Branch(leaf, "ahead", year3000); err != nil {
		t.Fatal(err)
	}
	wantRefusedNaming(t, "a merge of a branch made in year 3000", c.do("POST", "/v1/trees/"+id+"/merge", string(branched.Marshal()), "If-Match", etag), "created_at_ms")

	deleted, _ := treeOf(t, c, id)
	if _, err := deleted.Branch(leaf, "gone", 1); err != nil {
		t.Fatal(err)
	}
	if err := deleted.SwitchBranch(core.MainBranch); err != nil {
		t.Fatal(err)
	}
	if err := deleted.DeleteBranchAt("gone", year3000); err != nil {
		t.Fatal(err)
	}
	wantRefusedNaming(t, "a merge of a branch deleted in year 3000", c.do("POST", "/v1/trees/"+id+"/merge", string(deleted.Marshal()), "If-Match", etag), "deleted_instances")

	future, err := core.FromLinear([]core.Message{core.Message(`{"role":"user","content":"from the future"}`)}, year3000)
	if err != nil {
		t.Fatal(err)
	}
	wantRefusedNaming(t, "a create of a file from year 3000", c.do("POST", "/v1/trees", string(future.Marshal())), "created_at_ms")
	wantRefusedNaming(t, "an import of a file from year 3000", c.do("POST", "/v1/trees?format=sessiontree", string(future.Marshal())), "created_at_ms")
	if file, err := formats.Export(future, formats.ClaudeCode); err != nil {
		t.Fatal(err)
	} else {
		wantRefusedNaming(t, "an import of a Claude Code session from year 3000", c.do("POST", "/v1/trees?format=claudecode", string(file)), "created_at_ms")
	}
	if store.RowWrites != before {
		t.Fatalf("refused writes stored %d rows", store.RowWrites-before)
	}
	if trees := c.do("GET", "/v1/trees", "").json(t)["trees"].([]any); len(trees) != 1 {
		t.Fatalf("refused creates made trees: %d listed", len(trees))
	}

	// Within the window, and in the past, the same routes go in.
	now, _ := treeOf(t, c, id)
	if err := now.Label(leaf, "pinned"); err != nil {
		t.Fatal(err)
	}
	if r := c.do("POST", "/v1/trees/"+id+"/merge", string(now.Marshal())); r.status != 200 {
		t.Fatalf("a merge labelled now: %d %s", r.status, r.body)
	}
	old, err := core.FromLinear([]core.Message{core.Message(`{"role":"user","content":"1999"}`)}, 915_148_800_000)
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/v1/trees", "/v1/trees?format=sessiontree"} {
		if r := c.do("POST", path, string(old.Marshal())); r.status != 201 {
			t.Fatalf("a file from 1999 to %s: %d %s", path, r.status, r.body)
		}
	}
	if r := c.do("POST", "/v1/trees", string(core.New().Marshal())); r.status != 201 {
		t.Fatalf("an empty tree's file (main stamped 0): %d %s", r.status, r.body)
	}
}

// A tree stored before that check may hold a time from the future already.
// A copy of it carries the same time back: that is no new time, and the
// copy's merge goes in (otherwise no full copy of such a tree could ever
// be merged again).
func TestACopyCarryingAFutureTimeTheTreeAlreadyHoldsMergesStill(t *testing.T) {
	store := NewMemStore()
	c := newClient(t, newTestHandler(store), "alice")
	id := c.create(`{"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"}]}`)
	tr, _ := treeOf(t, c, id)
	leaf := leafOf(tr)
	// As stored by an earlier version: the leaf labelled in year 3000.
	if err := tr.LabelAt(leaf, "pinned", year3000); err != nil {
		t.Fatal(err)
	}
	row, _ := tr.NodeJSON(leaf)
	m, err := store.Meta(context.Background(), "alice", id)
	if err != nil {
		t.Fatal(err)
	}
	next := m
	next.Version++
	next.ETag = newETag(next.Version)
	if err := store.Commit(context.Background(), m.Version, Write{Meta: next, PutNodes: []core.Fragment{{Key: leaf, JSON: row}}}); err != nil {
		t.Fatal(err)
	}
	copied, etag := treeOf(t, c, id)
	if err := copied.Label(copied.Root(), "first"); err != nil {
		t.Fatal(err)
	}
	if r := c.do("POST", "/v1/trees/"+id+"/merge", string(copied.Marshal()), "If-Match", etag); r.status != 200 {
		t.Fatalf("a merge of a copy carrying the tree's own future label time: %d %s", r.status, r.body)
	}
	// A delta of an append carries its parent's row, the label's time with it.
	delta, deltaETag := deltaOf(t, c, id, appendText("under the labelled node"))
	if !strings.Contains(delta, `"label_at_ms":32503680000000`) {
		t.Fatalf("the delta does not carry the parent's label time: %s", delta)
	}
	if r := c.do("POST", "/v1/trees/"+id+"/delta", delta, "If-Match", deltaETag); r.status != 200 {
		t.Fatalf("a delta carrying the tree's own future label time: %d %s", r.status, r.body)
	}
}

// A label may have at most 4 KiB on every route that brings one in, as on
// /ops: a merge, a delta and a create of a file with a longer one are 413
// too_large naming the label, and store nothing.
func TestALabelOverItsLimitIsRefusedOnEveryWriteRoute(t *testing.T) {
	store := NewMemStore()
	c := newClient(t, newTestHandler(store), "alice")
	id := c.create(`{"messages":[{"role":"user","content":"hi"}]}`)
	tr, _ := treeOf(t, c, id)
	leaf := leafOf(tr)
	long := strings.Repeat("l", DefaultLimits.Label+1)
	before := store.RowWrites

	// core's Label refuses such a label; a file or a delta of rows need not
	// come from it.
	labelled, _ := treeOf(t, c, id)
	if err := labelled.Label(leaf, "pinned"); err != nil {
		t.Fatal(err)
	}
	longer := func(s string) string { return strings.Replace(s, `"label":"pinned"`, `"label":"`+long+`"`, 1) }
	file := longer(string(labelled.Marshal()))
	wantError(t, c.do("POST", "/v1/trees/"+id+"/merge", file), 413, "too_large")
	delta, etag := deltaOf(t, c, id, func(tr *core.Tree) {
		if err := tr.Label(leaf, "pinned"); err != nil {
			t.Fatal(err)
		}
	})
	r := c.do("POST", "/v1/trees/"+id+"/delta", longer(delta), "If-Match", etag)
	wantError(t, r, 413, "too_large")
	if !strings.Contains(string(r.body), "label") {
		t.Fatalf("the 413 does not name the label: %s", r.body)
	}
	for _, path := range []string{"/v1/trees", "/v1/trees?format=sessiontree"} {
		wantError(t, c.do("POST", path, file), 413, "too_large")
	}
	if store.RowWrites != before {
		t.Fatalf("refused writes stored %d rows", store.RowWrites-before)
	}
	// At the limit, it goes in.
	atLimit, _ := treeOf(t, c, id)
	if err := atLimit.Label(leaf, long[1:]); err != nil {
		t.Fatal(err)
	}
	if r := c.do("POST", "/v1/trees/"+id+"/merge", string(atLimit.Marshal())); r.status != 200 {
		t.Fatalf("a label of 4 KiB by merge: %d %.300s", r.status, r.body)
	}
}
