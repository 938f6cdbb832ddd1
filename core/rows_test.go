package core

import (
	"bytes"
	"math/rand"
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
	s.write(tr)
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
