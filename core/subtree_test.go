package core

import (
	"math/rand"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// forked: a b c d on main; at b, branch "side" continues with e f; c is labelled.
func forked(t *testing.T) (*Tree, map[string]string) {
	t.Helper()
	tr, ids := chain(t, "a", "b", "c", "d")
	at := map[string]string{"a": ids[0], "b": ids[1], "c": ids[2], "d": ids[3]}
	if _, err := tr.Branch(ids[1], "side", 10); err != nil {
		t.Fatal(err)
	}
	at["e"] = mustAppend(t, tr, msg("user", "e"), 11)
	at["f"] = mustAppend(t, tr, msg("assistant", "f"), 12)
	if err := tr.Label(ids[2], "mid"); err != nil {
		t.Fatal(err)
	}
	return tr, at
}

func TestASubtreeListsEveryNodeDepthFirstWithoutMessages(t *testing.T) {
	tr, at := forked(t)
	got, more, err := tr.Subtree("", -1, 0, false)
	if err != nil || more {
		t.Fatalf("Subtree: %v, more %v", err, more)
	}
	var order []string
	for _, e := range got {
		order = append(order, e.Preview)
		if e.Run != 1 || e.Last != e.ID {
			t.Fatalf("an entry of a plain read is a run: %+v", e)
		}
	}
	if want := []string{"a", "b", "c", "d", "e", "f"}; !slices.Equal(order, want) {
		t.Fatalf("order %v, want %v", order, want)
	}
	b := got[1]
	if b.ID != at["b"] || b.Parent != at["a"] || b.Depth != 1 || b.Children != 2 || b.Role != "assistant" {
		t.Fatalf("b: %+v", b)
	}
	if c := got[2]; c.Label != "mid" || c.Depth != 2 {
		t.Fatalf("c: %+v", c)
	}
	if d, f := got[3], got[5]; !slices.Equal(d.Branches, []string{"main"}) || !slices.Equal(f.Branches, []string{"side"}) || got[0].Branches != nil {
		t.Fatalf("branch ends: d %v, f %v, a %v", d.Branches, f.Branches, got[0].Branches)
	}
}

func TestASubtreeInRunsFoldsEachChainWithoutAForkLabelOrBranchEnd(t *testing.T) {
	tr, at := forked(t)
	got, _, err := tr.Subtree("", -1, 0, true)
	if err != nil {
		t.Fatal(err)
	}
	type run struct {
		id, last string
		n, depth int
	}
	var runs []run
	for _, e := range got {
		runs = append(runs, run{e.ID, e.Last, e.Run, e.Depth})
	}
	// a b (b forks) · c (labelled: a run of its own) · d · e f
	want := []run{{at["a"], at["b"], 2, 0}, {at["c"], at["c"], 1, 1}, {at["d"], at["d"], 1, 2}, {at["e"], at["f"], 2, 1}}
	if !slices.Equal(runs, want) {
		t.Fatalf("runs %+v, want %+v", runs, want)
	}
	if got[0].Children != 2 || got[1].Label != "mid" || !slices.Equal(got[2].Branches, []string{"main"}) || got[1].Parent != at["b"] || got[2].Parent != at["c"] {
		t.Fatalf("entries %+v", got)
	}
}

func TestALongChatWithoutForksIsOneRun(t *testing.T) {
	texts := make([]string, 5000)
	for i := range texts {
		texts[i] = "m"
	}
	tr, ids := chain(t, texts...)
	got, more, err := tr.Subtree("", -1, 1, true)
	if err != nil || more || len(got) != 1 || got[0].Run != 5000 || got[0].Last != ids[4999] {
		t.Fatalf("got %+v more %v err %v", got, more, err)
	}
}

func TestASubtreeStopsAtItsDepthAndLimit(t *testing.T) {
	tr, at := forked(t)
	got, more, _ := tr.Subtree(at["b"], 1, 0, false)
	if more || len(got) != 3 || got[0].ID != at["b"] || got[0].Depth != 0 || got[1].ID != at["c"] || got[2].ID != at["e"] {
		t.Fatalf("from b, depth 1: %+v (more %v)", got, more)
	}
	if got[1].Children != 1 {
		t.Fatal("an entry at the depth bound does not count its children")
	}
	got, more, _ = tr.Subtree("", -1, 3, false)
	if !more || len(got) != 3 {
		t.Fatalf("limit 3: %d entries, more %v", len(got), more)
	}
	got, more, _ = tr.Subtree("", -1, 6, false)
	if more || len(got) != 6 {
		t.Fatalf("limit 6 of 6: %d entries, more %v", len(got), more)
	}
	_, _, err := tr.Subtree("nope", -1, 0, false)
	wantCode(t, err, CodeNotFound)
}

func TestASubtreeOfACorruptTreeListsEachNodeOnceAndEnds(t *testing.T) {
	tr, at := forked(t)
	// d claims a as its child: a cycle through the children lists.
	tr.nodes[at["d"]].children = []string{at["a"], "gone"}
	for _, runs := range []bool{false, true} {
		got, _, err := tr.Subtree("", -1, 0, runs)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, e := range got {
			n += e.Run
		}
		if n != 6 {
			t.Fatalf("runs %v: %d nodes listed, want 6", runs, n)
		}
	}
	for _, n := range tr.nodes {
		if n.mark != 0 {
			t.Fatal("a mark was left behind")
		}
	}
}

func TestAPreviewIsOneShortLine(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"  hello\\n\\n  world ", "hello world"},
		{"", ""},
		{strings.Repeat("é", 100), strings.Repeat("é", 60) + "…"},
		{strings.Repeat("x", 120), strings.Repeat("x", 120)},
	} {
		if got := preview(c.in); got != c.want {
			t.Errorf("preview(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// OnPath answers what the active path holds without reading its ids: over
// random trees (every kind of step the row tests take), each node's answer is
// whether ActivePath lists it, an unknown id is off the path, and no mark is
// left behind.
func TestOnPathIsMembershipOfTheActivePath(t *testing.T) {
	for seed := int64(1); seed <= 30; seed++ {
		rng := rand.New(rand.NewSource(seed))
		tr := New()
		for step := 0; step < 120; step++ {
			randomStep(rng, tr, step)
			if step%20 != 19 {
				continue
			}
			path, err := tr.ActivePath()
			if err != nil {
				t.Fatal(err)
			}
			ids := []string{"no-such-node", ""}
			for id := range tr.nodes {
				ids = append(ids, id)
			}
			on, err := tr.OnPath(ids)
			if err != nil {
				t.Fatal(err)
			}
			for i, id := range ids {
				if want := id != "" && slices.Contains(path, id); on[i] != want {
					t.Fatalf("seed %d step %d: OnPath(%q) = %v, the active path says %v", seed, step, id, on[i], want)
				}
			}
			for _, n := range tr.nodes {
				if n.mark != 0 {
					t.Fatal("a mark was left behind")
				}
			}
		}
	}
}

func TestOnPathFailsClosedOnACycle(t *testing.T) {
	tr, at := forked(t)
	// a's parent is d: the active path from d never reaches a root.
	tr.nodes[at["a"]].parent, tr.nodes[at["a"]].up = at["d"], tr.nodes[at["d"]]
	if err := tr.SwitchBranch("main"); err != nil {
		t.Fatal(err)
	}
	_, err := tr.OnPath([]string{at["a"]})
	wantCode(t, err, CodeCorrupt)
	for _, n := range tr.nodes {
		if n.mark != 0 {
			t.Fatal("a mark was left behind")
		}
	}
}

// PathIndex is the node's index in ActivePath, or -1, over the same random trees.
func TestPathIndexIsTheIndexInTheActivePath(t *testing.T) {
	for seed := int64(1); seed <= 20; seed++ {
		rng := rand.New(rand.NewSource(seed))
		tr := New()
		for step := 0; step < 100; step++ {
			randomStep(rng, tr, step)
			if step%25 != 24 {
				continue
			}
			path, _ := tr.ActivePath()
			for id := range tr.nodes {
				got, err := tr.PathIndex(id)
				if want := slices.Index(path, id); err != nil || got != want {
					t.Fatalf("seed %d: PathIndex(%q) = %d, %v; ActivePath has it at %d", seed, id, got, err, want)
				}
			}
			if got, _ := tr.PathIndex("no-such-node"); got != -1 {
				t.Fatalf("an unknown node is at %d", got)
			}
		}
	}
}

func TestTitleIsTheFirstUserMessageFromTheRootOnOneLine(t *testing.T) {
	tr := New()
	if tr.Title() != "" {
		t.Fatalf("an empty tree's title: %q", tr.Title())
	}
	for _, m := range []string{`{"role":"system","content":"be brief"}`, `{"role":"user","content":"  How do\nI  fork\ta branch?  "}`, `{"role":"assistant","content":"Like this."}`} {
		if _, err := tr.Append(Message(m), 1); err != nil {
			t.Fatal(err)
		}
	}
	if got := tr.Title(); got != "How do I fork a branch?" {
		t.Fatalf("title %q", got)
	}
	long := New()
	if _, err := long.Append(Message(`{"role":"user","content":"`+strings.Repeat("é", 200)+`"}`), 1); err != nil {
		t.Fatal(err)
	}
	if got := long.Title(); len(got) > PreviewBytes+len("…") || !strings.HasSuffix(got, "…") || !utf8.ValidString(got) {
		t.Fatalf("a long title: %d bytes %q", len(got), got)
	}
	none := New()
	for i := 0; i < 10; i++ {
		if _, err := none.Append(Message(`{"role":"assistant","content":"x"}`), 1); err != nil {
			t.Fatal(err)
		}
	}
	if none.Title() != "" {
		t.Fatalf("a tree without a user message near the root: %q", none.Title())
	}
}

// Title answers from its memo only while the nodes it read stay: after a
// prune removes the first exchange, the title is the next first message.
func TestTitleFollowsARemovalOfTheFirstUserMessage(t *testing.T) {
	tr := New()
	s := mustAppend(t, tr, msg("system", "be brief"), 1)
	if _, err := tr.Branch(s, "first-try", 2); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, tr, msg("user", "first"), 3)
	if err := tr.SwitchBranch("main"); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, tr, msg("user", "second"), 4)
	if got := tr.Title(); got != "first" {
		t.Fatalf("title %q, want the first child's", got)
	}
	if err := tr.DeleteBranch("first-try"); err != nil {
		t.Fatal(err)
	}
	if _, err := tr.Prune(); err != nil {
		t.Fatal(err)
	}
	if got := tr.Title(); got != "second" {
		t.Fatalf("title after the first exchange was pruned: %q", got)
	}
}

// A preview read from a plain content string in place is the preview of the
// message's text, for every kind of message.
func TestAPreviewOfAMessageIsThePreviewOfItsText(t *testing.T) {
	long := strings.Repeat("plain words ", 20)
	for _, m := range []Message{
		msg("user", long),
		msg("user", "short"),
		msg("user", strings.Repeat("x", 121)),
		msg("user", strings.Repeat("x", 120)),
		msg("user", strings.Repeat(" ", 200)+"late"),
		msg("user", long+"\nwith a newline"),
		msg("user", "é"+long),
		msg("user", `a \n literal `+long),
		Message(`{"role":"assistant","content":"` + strings.Repeat("y", 130) + `","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]}`),
		Message(`{"role":"assistant","content":"tiny","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]}`),
		Message(`{"role":"user","content":[{"type":"text","text":"` + long + `"}]}`),
	} {
		if got, want := previewOf(m), preview(m.Text()); got != want {
			t.Errorf("previewOf(%s) = %q, want %q", m, got, want)
		}
	}
}

// forkedEvery is a chat of n messages with an edited question and its answer
// every `every` messages (the demo's bench shape), on main at the end.
func forkedEvery(t *testing.T, n, every int) *Tree {
	t.Helper()
	tr := New()
	ids := make([]string, n)
	for i := range n {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		ids[i] = mustAppend(t, tr, msg(role, "turn"), int64(i))
	}
	for i := every; i < n-10; i += every {
		if _, err := tr.Edit(ids[i-i%2], msg("user", "again"), int64(n+i)); err != nil {
			t.Fatal(err)
		}
		mustAppend(t, tr, msg("assistant", "other"), int64(n+i))
	}
	if err := tr.SwitchBranch(MainBranch); err != nil {
		t.Fatal(err)
	}
	return tr
}

// TestSubtreeAroundCostsItsLimitNotTheTree: around the leaf of a chat forking
// every 50 messages, a read of 200 boxes allocates as much at 50,000 messages
// (1,000 branches) as at 5,000 (100): neither the branches nor the boxes
// outside the limit are listed, once the tree's runs and branch ends are
// kept (the first read builds them); a branch moved between reads costs its
// own update.
func TestSubtreeAroundCostsItsLimitNotTheTree(t *testing.T) {
	cost := func(n int) callCost {
		tr := forkedEvery(t, n, 50)
		leaf := tr.branches[MainBranch].leaf
		if _, _, _, err := tr.SubtreeAround(leaf, 200); err != nil {
			t.Fatal(err)
		}
		return measureCalls(20, func(i int) {
			got, _, _, err := tr.SubtreeAround(leaf, 200)
			if err != nil || len(got) < 190 || len(got) > 200 {
				t.Fatalf("SubtreeAround: %d entries, %v", len(got), err)
			}
		})
	}
	small, big := cost(5000), cost(50000)
	if big.bytes > 1.3*small.bytes || big.allocs > 1.3*small.allocs {
		t.Fatalf("a read of 200 boxes: %.0f bytes in %.0f allocations at 5,000 messages, %.0f in %.0f at 50,000", small.bytes, small.allocs, big.bytes, big.allocs)
	}
}
