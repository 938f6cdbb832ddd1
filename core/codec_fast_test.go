package core

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
)

// loadBoth loads data with the fast paths (fastNode, linkByID) and without
// them, so that a test can compare the two.
func loadBoth(data []byte) (fast, slow *Tree, fastErr, slowErr error) {
	fast, fastErr = UnmarshalOwned(bytes.Clone(data))
	fastLoad = false
	defer func() { fastLoad = true }()
	slow, slowErr = Unmarshal(data)
	return fast, slow, fastErr, slowErr
}

// sameLoad fails unless the two loads of one file agree: the same error, or
// trees with the same file, problems, nodes and parent links.
func sameLoad(t *testing.T, what string, data []byte) {
	t.Helper()
	fast, slow, fe, se := loadBoth(data)
	if (fe == nil) != (se == nil) || (fe != nil && fe.Error() != se.Error()) {
		t.Fatalf("%s: the fast load says %v, node says %v", what, fe, se)
	}
	if fe != nil {
		return
	}
	if !bytes.Equal(fast.Marshal(), slow.Marshal()) {
		t.Fatalf("%s: the fast load saves\n%s\nnode's load saves\n%s", what, fast.Marshal(), slow.Marshal())
	}
	sameSave(t, what, fast)
	if a, b := problemsText(fast.Validate()), problemsText(slow.Validate()); a != b {
		t.Fatalf("%s: problems differ: %s, want %s", what, a, b)
	}
	if len(fast.dups) != len(slow.dups) || len(fast.roots) != len(slow.roots) {
		t.Fatalf("%s: %d duplicates and %d roots, want %d and %d", what, len(fast.dups), len(fast.roots), len(slow.dups), len(slow.roots))
	}
	for k, n := range slow.nodes {
		f := fast.nodes[k]
		if f == nil || f.id != n.id || f.parent != n.parent || string(f.msg) != string(n.msg) ||
			f.labelText() != n.labelText() || f.labelTime() != n.labelTime() || f.created != n.created ||
			strconv.Quote(upID(f)) != strconv.Quote(upID(n)) || len(f.children) != len(n.children) {
			t.Fatalf("%s: node %q differs", what, k)
		}
	}
	for b := range slow.branches {
		pf, ef := fast.LinearProjectionOf(b)
		ps, es := slow.LinearProjectionOf(b)
		if (ef == nil) != (es == nil) || len(pf) != len(ps) {
			t.Fatalf("%s: branch %q projects to %d messages (%v), want %d (%v)", what, b, len(pf), ef, len(ps), es)
		}
	}
}

func upID(n *node) string {
	if n.up == nil {
		return "<nil>"
	}
	return n.up.id
}

func problemsText(ps []Problem) string {
	var b []byte
	for _, p := range ps {
		b = append(b, p.Kind...)
		b = append(b, ' ')
		b = append(b, p.Message...)
		b = append(b, '\n')
	}
	return string(b)
}

// A file as Marshal writes it loads by the fast path to the tree node's own
// reading gives, for random trees: labels, escaped and non-ASCII text, forks,
// summaries, long ids and ids that share their first 16 bytes.
func TestFastLoadReadsRandomTreesAsNodeDoes(t *testing.T) {
	ids := []func(r *rand.Rand, i int) string{
		func(r *rand.Rand, i int) string { return "n" + strconv.Itoa(i) },
		func(r *rand.Rand, i int) string { return "a-shared-prefix-of-more-than-16-bytes-" + strconv.Itoa(i) },
		func(r *rand.Rand, i int) string { return strconv.Itoa(i) + "é" }, // not plain: node reads it
		func(r *rand.Rand, i int) string { return "0123456789abcdef"[:1+i%16] + strconv.Itoa(i/16) },
	}
	for seed := range uint64(24) {
		r := rand.New(rand.NewPCG(seed, 3))
		mk := ids[seed%uint64(len(ids))]
		i := 0
		tr := New(WithIDSource(func() string { i++; return mk(r, i) }))
		g := &opGen{r: r}
		for range 60 {
			tr.Apply([]Op{g.op(tr)}, 1)
		}
		data := tr.Marshal()
		sameLoad(t, "seed "+strconv.Itoa(int(seed)), data)
		if fast, _ := UnmarshalOwned(bytes.Clone(data)); !bytes.Equal(fast.Marshal(), data) {
			t.Fatalf("seed %d: the fast load does not save the file byte for byte", seed)
		}
	}
}

// Every corrupt fixture, and every one-byte change to a small tree's file, loads
// (or fails) the same by the fast path as by node.
func TestFastLoadAgreesWithNodeOnCorruptAndMutatedFiles(t *testing.T) {
	entries, _ := os.ReadDir(filepath.Join("testdata", "corrupt"))
	for _, e := range entries {
		if b, err := os.ReadFile(filepath.Join("testdata", "corrupt", e.Name())); err == nil {
			sameLoad(t, e.Name(), b)
		}
	}
	tr, ids := chain(t, "q", "a", "b")
	tr.Rewind(ids[0], 9)
	tr.Label(ids[1], "l")
	data := tr.Marshal()
	swaps := []byte{' ', '"', '\\', '}', ']', ',', ':', '0', '-', '.', 'e', 0x7f, 0x80, 'x', '{', '['}
	for i := range data {
		for _, c := range swaps {
			m := bytes.Clone(data)
			m[i] = c
			sameLoad(t, "byte "+strconv.Itoa(i)+" → "+strconv.Quote(string(c)), m)
		}
	}
}

// FuzzFastLoad: for any input, the fast path and node load the same tree or
// fail with the same error.
func FuzzFastLoad(f *testing.F) {
	tr, ids := chain(f, "q", "a", "b")
	tr.Rewind(ids[0], 9)
	tr.Label(ids[1], "l")
	f.Add(tr.Marshal())
	f.Add(New().Marshal())
	f.Fuzz(func(t *testing.T, data []byte) { sameLoad(t, "input", data) })
}

// A saved chat lists each node at most a few after its parent (a tree's ids
// sort in the order it made them; a regenerated reply's sibling comes after
// it), so linkNear links every node without the table of ids. A file listed
// in another order makes it give up, and linkByID's table links the rest:
// each node to the node its parent names, as the map would.
func TestLinkNearLinksASavedChatAndTheTableTheRest(t *testing.T) {
	tr := New()
	for i := range 3000 {
		id := mustAppend(t, tr, msg("user", "turn "+strconv.Itoa(i)), int64(i))
		if i%10 == 9 {
			if _, err := tr.Regenerate(id, msg("assistant", "again"), int64(i)); err != nil {
				t.Fatal(err)
			}
		}
	}
	ids := make([]string, 0, len(tr.nodes))
	for id := range tr.nodes {
		ids = append(ids, id)
	}
	slices.Sort(ids) // the file's order
	blocksOf := func(order []string) ([][]node, []*node) {
		block := make([]node, len(order))
		for i, id := range order {
			n := tr.nodes[id]
			block[i] = node{id: n.id, parent: n.parent}
		}
		ptrs := make([]*node, len(block))
		for i := range block {
			ptrs[i] = &block[i]
		}
		return [][]node{block}, ptrs
	}
	linked := func(what string, ns []*node) {
		t.Helper()
		for _, n := range ns {
			if (n.parent == "") != (n.up == nil) || (n.up != nil && n.up.id != n.parent) {
				t.Fatalf("%s: node %s (parent %q) linked to %q", what, n.id, n.parent, upID(n))
			}
		}
	}
	blocks, ns := blocksOf(ids)
	if !linkNear(blocks) {
		t.Fatal("linkNear left nodes of a saved chat for the table")
	}
	linked("in file order", ns)

	rand.New(rand.NewPCG(1, 2)).Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
	blocks, ns = blocksOf(ids)
	if linkNear(blocks) {
		t.Fatal("linkNear linked every node of a shuffled file")
	}
	linkByID(blocks, len(ns))
	linked("shuffled", ns)
}
