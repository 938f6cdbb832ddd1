package core

import (
	"bytes"
	"math/rand"
	"slices"
	"strconv"
	"testing"
)

// rowStore keeps a tree as rows, the way the edge worker stores it.
type rowStore struct {
	root, active string
	branches     map[string][]byte
	nodes        map[string][]byte
}

func (s *rowStore) join() []byte {
	var bs, ns []Fragment
	for k, v := range s.branches {
		bs = append(bs, Fragment{k, v})
	}
	for k, v := range s.nodes {
		ns = append(ns, Fragment{k, v})
	}
	return JoinRows(s.root, s.active, bs, ns)
}

// write applies what TakeChanges lists, and nothing else.
func (s *rowStore) write(t *Tree) {
	c := t.TakeChanges()
	for _, id := range c.Nodes {
		if b, ok := t.NodeJSON(id); ok {
			s.nodes[id] = b
		} else {
			delete(s.nodes, id)
		}
	}
	for _, name := range c.Branches {
		if b, ok := t.BranchJSON(name); ok {
			s.branches[name] = b
		} else {
			delete(s.branches, name)
		}
	}
	if c.Meta {
		s.root, s.active = t.Root(), t.ActiveBranch()
	}
}

func TestJoinRowsOfRowsIsMarshal(t *testing.T) {
	tr := New(counterIDs())
	a := mustAppend(t, tr, msg("user", "hi"), 1)
	mustAppend(t, tr, msg("assistant", "hello \u2028 \"x\""), 2)
	if _, err := tr.Branch(a, "idée 🌿", 3); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, tr, msg("user", "other"), 4)
	if err := tr.Label(a, "start"); err != nil {
		t.Fatal(err)
	}
	if err := tr.SummarizeBranch(MainBranch, "sum", "m", 5); err != nil {
		t.Fatal(err)
	}
	bs, ns := tr.Rows()
	if got, want := JoinRows(tr.Root(), tr.ActiveBranch(), bs, ns), tr.Marshal(); !bytes.Equal(got, want) {
		t.Fatalf("JoinRows(Rows()) differs from Marshal:\n%s\n%s", got, want)
	}
	// Any order of fragments gives the same bytes.
	bs[0], bs[len(bs)-1] = bs[len(bs)-1], bs[0]
	ns[0], ns[len(ns)-1] = ns[len(ns)-1], ns[0]
	if got := JoinRows(tr.Root(), tr.ActiveBranch(), bs, ns); !bytes.Equal(got, tr.Marshal()) {
		t.Fatalf("JoinRows depends on the order of fragments")
	}
	eb, en := New().Rows()
	if got := JoinRows("", MainBranch, eb, en); !bytes.Equal(got, New().Marshal()) {
		t.Fatalf("empty tree: %s", got)
	}
}

// Rows updated only where TakeChanges points stay equal to the whole tree:
// the storage of an append does not need to rewrite the tree.
func TestRowsWrittenFromTakeChangesMatchMarshal(t *testing.T) {
	seed := int64(7)
	rng := rand.New(rand.NewSource(seed))
	tr := New(counterIDs())
	s := &rowStore{branches: map[string][]byte{}, nodes: map[string][]byte{}}
	s.write(tr) // starts the recording; the store then holds the tree as it is
	bs, ns := tr.Rows()
	for _, f := range bs {
		s.branches[f.Key] = f.JSON
	}
	for _, f := range ns {
		s.nodes[f.Key] = f.JSON
	}
	s.root, s.active = tr.Root(), tr.ActiveBranch()
	for step := 0; step < 400; step++ {
		randomStep(rng, tr, step) // failures leave the tree as it was; rows must still match
		s.write(tr)
		if got, want := s.join(), tr.Marshal(); !bytes.Equal(got, want) {
			t.Fatalf("seed %d step %d: rows differ from Marshal:\n%s\n%s", seed, step, got, want)
		}
	}
	back, err := Unmarshal(s.join())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(back.Marshal(), tr.Marshal()) {
		t.Fatal("Unmarshal(JoinRows) is not the tree")
	}
}

// writeChanges applies the rows of c, read from t now.
func (s *rowStore) writeChanges(t *Tree, c Changes) {
	for _, id := range c.Nodes {
		if b, ok := t.NodeJSON(id); ok {
			s.nodes[id] = b
		} else {
			delete(s.nodes, id)
		}
	}
	for _, name := range c.Branches {
		if b, ok := t.BranchJSON(name); ok {
			s.branches[name] = b
		} else {
			delete(s.branches, name)
		}
	}
	if c.Meta {
		s.root, s.active = t.Root(), t.ActiveBranch()
	}
}

// takeParts reads a whole feed with TakeChangesUpTo in parts of 1..5 records
// and returns the parts joined.
func takeParts(t *testing.T, rng *rand.Rand, tr *Tree) Changes {
	t.Helper()
	var all Changes
	for i := 0; ; i++ {
		max := 1 + rng.Intn(5)
		c, more := tr.TakeChangesUpTo(max)
		if n := len(c.Nodes) + len(c.Branches); n > max || (more && n != max) {
			t.Fatalf("a part of %d records for max %d (more: %v)", n, max, more)
		}
		all.Nodes = append(all.Nodes, c.Nodes...)
		all.Branches = append(all.Branches, c.Branches...)
		all.Meta = all.Meta || c.Meta
		if !more {
			return all
		}
		if i > 1<<20 {
			t.Fatal("the feed never ends")
		}
	}
}

// The parts of a feed, joined, are the feed TakeChanges hands out at once: two
// trees changed by the same random steps, one read whole, one in parts.
func TestTakeChangesUpToPartsJoinedAreTheWholeFeed(t *testing.T) {
	for seed := int64(1); seed <= 8; seed++ {
		ra, rb := rand.New(rand.NewSource(seed)), rand.New(rand.NewSource(seed))
		parts := rand.New(rand.NewSource(seed + 100))
		a, b := New(counterIDs()), New(counterIDs())
		mustAppend(t, a, msg("user", "hello"), 1)
		mustAppend(t, b, msg("user", "hello"), 1)
		a.TakeChanges()
		b.TakeChangesUpTo(3)
		for step := 0; step < 300; step++ {
			randomStep(ra, a, step)
			randomStep(rb, b, step)
			whole := a.TakeChanges()
			got := takeParts(t, parts, b)
			if !slices.Equal(got.Nodes, whole.Nodes) || !slices.Equal(got.Branches, whole.Branches) || got.Meta != whole.Meta {
				t.Fatalf("seed %d step %d: parts %+v, whole feed %+v", seed, step, got, whole)
			}
		}
		// The first feed of every record, in parts, is Everything.
		want := a.Everything()
		var got Changes
		c, more := b.TakeEverythingUpTo(4)
		got = c
		if more {
			rest := takeParts(t, parts, b)
			got.Nodes, got.Branches = append(got.Nodes, rest.Nodes...), append(got.Branches, rest.Branches...)
		}
		if !slices.Equal(got.Nodes, want.Nodes) || !slices.Equal(got.Branches, want.Branches) || !got.Meta {
			t.Fatalf("seed %d: everything in parts %+v, Everything %+v", seed, got, want)
		}
	}
}

// A store written part by part, with the tree changing between parts (a user
// sends while a huge import is being stored), holds the tree once the feed and
// the feeds after it are written: nothing changed mid-feed is lost.
func TestTakeChangesUpToWithChangesBetweenPartsKeepsTheStoreWhole(t *testing.T) {
	for seed := int64(1); seed <= 8; seed++ {
		rng := rand.New(rand.NewSource(seed))
		tr := New(counterIDs())
		for i := 0; i < 40; i++ {
			mustAppend(t, tr, msg("user", "m"+strconv.Itoa(i)), int64(i+1))
		}
		s := &rowStore{branches: map[string][]byte{}, nodes: map[string][]byte{}}
		c, more := tr.TakeEverythingUpTo(1 + rng.Intn(6))
		s.writeChanges(tr, c)
		for step := 0; step < 300; step++ {
			randomStep(rng, tr, step)
			if !more && rng.Intn(4) == 0 {
				// A large change's feed, started in parts too.
				c, more = tr.TakeChangesUpTo(1 + rng.Intn(6))
				s.writeChanges(tr, c)
				continue
			}
			if more {
				c, more = tr.TakeChangesUpTo(1 + rng.Intn(6))
				s.writeChanges(tr, c)
			}
			if rng.Intn(10) == 0 {
				// Everything left, then the changes since: the store is the tree.
				c, more = tr.TakeChangesUpTo(0)
				s.writeChanges(tr, c)
				if more {
					t.Fatal("TakeChangesUpTo(0) said more")
				}
				if got, want := s.join(), tr.Marshal(); !bytes.Equal(got, want) {
					t.Fatalf("seed %d step %d: rows differ from Marshal:\n%s\n%s", seed, step, got, want)
				}
			}
		}
		for more {
			c, more = tr.TakeChangesUpTo(3)
			s.writeChanges(tr, c)
		}
		s.writeChanges(tr, tr.TakeChanges())
		if got, want := s.join(), tr.Marshal(); !bytes.Equal(got, want) {
			t.Fatalf("seed %d: rows differ from Marshal at the end:\n%s\n%s", seed, got, want)
		}
	}
}

// Rows writes its nodes' JSON into shared blocks: a 10,000-node tree's rows
// are a few dozen allocations beside the fragments, not one (and its
// regrowths) per node, each one more object for a collector to mark (the
// edge worker's marks held its thread, issue 25). Each fragment is its own
// full slice: appending to one leaves the next as it was.
func TestRowsWriteTheNodesJSONInSharedBlocks(t *testing.T) {
	tr := New()
	for i := range 10_000 {
		if _, err := tr.Append(Message(`{"role":"user","content":"message `+strconv.Itoa(i)+` of a long chat"}`), 1); err != nil {
			t.Fatal(err)
		}
	}
	var nodes []Fragment
	allocs := testing.AllocsPerRun(1, func() { _, nodes = tr.Rows() })
	if allocs > 200 {
		t.Fatalf("Rows of 10,000 nodes made %.0f allocations, want at most 200", allocs)
	}
	for _, f := range nodes {
		if want, _ := tr.NodeJSON(f.Key); !bytes.Equal(f.JSON, want) {
			t.Fatalf("row %s is %s, want %s", f.Key, f.JSON, want)
		}
	}
	next := slices.Clone(nodes[1].JSON)
	_ = append(nodes[0].JSON, "xxxxxxxx"...)
	if !bytes.Equal(nodes[1].JSON, next) {
		t.Fatalf("an append to one row changed the next: %s", nodes[1].JSON)
	}
}
