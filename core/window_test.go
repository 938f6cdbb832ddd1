package core

import (
	"math/rand"
	"slices"
	"strconv"
	"testing"
)

func TestPathLenCountsThePathWithoutReadingIt(t *testing.T) {
	tr, ids := chain(t, "a", "b", "c", "d")
	if n, err := tr.PathLen("main"); err != nil || n != 4 {
		t.Fatalf("PathLen = %d, %v", n, err)
	}
	tr.Rewind(ids[1], 9)
	if n, _ := tr.PathLen("main"); n != 2 {
		t.Fatalf("after a rewind PathLen = %d", n)
	}
	if n, _ := tr.PathLen("branch-1"); n != 4 {
		t.Fatalf("the kept branch has %d nodes", n)
	}
	if _, err := tr.PathLen("nope"); err == nil {
		t.Fatal("PathLen of no branch")
	}
	if n, _ := New().PathLen("main"); n != 0 {
		t.Fatal("an empty tree's path is not empty")
	}
}

func TestATailWindowIsTheSliceOfThePathItNames(t *testing.T) {
	texts := []string{"0", "1", "2", "3", "4", "5", "6"}
	tr, ids := chain(t, texts...)
	for skip := 0; skip <= 8; skip++ {
		for count := 0; count <= 8; count++ {
			gotIDs, gotMsgs, err := tr.AppendTailOf(nil, nil, "main", skip, count)
			if err != nil {
				t.Fatal(err)
			}
			end := max(0, len(ids)-skip)
			start := max(0, end-count)
			if !slices.Equal(gotIDs, ids[start:end]) {
				t.Fatalf("skip %d count %d: ids %v, want %v", skip, count, gotIDs, ids[start:end])
			}
			if got := contents(t, gotMsgs); !slices.Equal(got, texts[start:end]) {
				t.Fatalf("skip %d count %d: messages %v, want %v", skip, count, got, texts[start:end])
			}
		}
	}
}

func TestATailWindowFailsClosedOnACorruptPathItCrosses(t *testing.T) {
	tr, ids := chain(t, "a", "b", "c")
	tr.nodes[ids[1]].up, tr.nodes[ids[1]].parent = nil, "gone"
	if _, _, err := tr.AppendTailOf(nil, nil, "main", 0, 1); err != nil {
		t.Fatalf("a window below the break failed: %v", err)
	}
	ids2, msgs, err := tr.AppendTailOf([]string{"keep"}, nil, "main", 0, 3)
	wantCode(t, err, CodeCorrupt)
	if len(ids2) != 1 || len(msgs) != 0 {
		t.Fatal("a failed window left part of itself in the buffers")
	}
	loop, lids := chain(t, "x", "y")
	loop.nodes[lids[0]].parent, loop.nodes[lids[0]].up = lids[1], loop.nodes[lids[1]]
	_, _, err = loop.AppendTailOf(nil, nil, "main", 0, 100)
	wantCode(t, err, CodeCorrupt)
}

func TestPathLenRemembersOnlyWhatNoChangeMoved(t *testing.T) {
	texts := make([]string, 300)
	for i := range texts {
		texts[i] = "m"
	}
	tr, ids := chain(t, texts...)
	want := func(branch string) {
		t.Helper()
		path, err := tr.PathOf(branch)
		if err != nil {
			t.Fatal(err)
		}
		if n, err := tr.PathLen(branch); err != nil || n != len(path) {
			t.Fatalf("PathLen(%s) = %d, %v; the path has %d", branch, n, err, len(path))
		}
	}
	want("main")
	for i := 0; i < 100; i++ { // appends below a counted leaf
		mustAppend(t, tr, msg("user", "more"), int64(400+i))
		want("main")
	}
	if _, err := tr.Rewind(ids[10], 600); err != nil { // the kept work moves to branch-1
		t.Fatal(err)
	}
	want("main")
	want("branch-1")
	mustAppend(t, tr, msg("user", "fork"), 601)
	want("main")
	if err := tr.DeleteBranch("branch-1"); err != nil {
		t.Fatal(err)
	}
	if _, err := tr.Prune(); err != nil { // removes the counted nodes of branch-1
		t.Fatal(err)
	}
	want("main")
	tr.Repair()
	want("main")
}

// PathLen's remembered lengths — its own leaves, and branches that meet one of
// them near their leaves — never give another answer than counting: over
// random trees (the row tests' steps), every branch's PathLen, asked in a
// random order after each step, is the length of its PathOf.
func TestPathLenWithRememberedLengthsIsTheLengthOfThePath(t *testing.T) {
	for seed := int64(1); seed <= 25; seed++ {
		rng := rand.New(rand.NewSource(seed))
		tr := New()
		for step := 0; step < 150; step++ {
			randomStep(rng, tr, step)
			bs := tr.Branches()
			rng.Shuffle(len(bs), func(i, j int) { bs[i], bs[j] = bs[j], bs[i] })
			for _, b := range bs {
				path, perr := tr.PathOf(b.Name)
				n, err := tr.PathLen(b.Name)
				if (err == nil) != (perr == nil) || n != len(path) {
					t.Fatalf("seed %d step %d: PathLen(%s) = %d, %v; PathOf has %d, %v", seed, step, b.Name, n, err, len(path), perr)
				}
			}
		}
	}
}

// The head of a path is its first nodes, root first, as PathOf lists them,
// on every branch of a tree that forks, and a corrupt path fails closed.
func TestAppendHeadOfIsTheStartOfThePath(t *testing.T) {
	tr := New()
	var ids []string
	for i := 0; i < 300; i++ {
		id, err := tr.Append(Message(`{"role":"user","content":"m"}`), int64(i))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
		if i%37 == 36 {
			if _, err := tr.Rewind(ids[i-20], int64(i)); err != nil {
				t.Fatal(err)
			}
			ids = ids[:i-19]
			ids = append(ids, make([]string, 19)...)[:i-19]
		}
	}
	for _, b := range tr.Branches() {
		path, err := tr.PathOf(b.Name)
		if err != nil {
			t.Fatal(err)
		}
		for _, count := range []int{1, 2, 8, 9, len(path) - 1, len(path), len(path) + 5} {
			got, msgs, err := tr.AppendHeadOf(nil, nil, b.Name, count)
			if err != nil {
				t.Fatal(err)
			}
			want := path[:min(count, len(path))]
			if !slices.Equal(got, want) || len(msgs) != len(want) {
				t.Fatalf("branch %s, head of %d: %v, want %v", b.Name, count, got, want)
			}
			i, err := tr.PathIndexOn(b.Name, want[len(want)-1])
			if err != nil || i != len(want)-1 {
				t.Fatalf("branch %s: PathIndexOn = %d, %v; want %d", b.Name, i, err, len(want)-1)
			}
		}
	}
	if _, _, err := tr.AppendHeadOf(nil, nil, "nope", 3); err == nil {
		t.Fatal("a missing branch gave a head")
	}
}

// SharedDepth is the length of the common start of two paths, for any two
// nodes of a deep tree, and fails for what is not a node or a branch.
func TestSharedDepthIsTheCommonStartOfTwoPaths(t *testing.T) {
	tr := New()
	var spine []string
	for i := range 3000 {
		spine = append(spine, mustAppend(t, tr, msg("user", "s"+strconv.Itoa(i)), int64(i)))
	}
	rng := rand.New(rand.NewSource(35))
	var leaves []string
	for f := range 20 { // forks off the spine, each some messages long
		at := spine[rng.Intn(len(spine))]
		name, err := tr.Checkout(at, int64(5000+f))
		if err != nil {
			t.Fatal(err)
		}
		for j := range 1 + rng.Intn(400) {
			mustAppend(t, tr, msg("user", "f"+strconv.Itoa(f)+"."+strconv.Itoa(j)), int64(5000+f))
		}
		leaves = append(leaves, name)
	}
	paths := map[string][]string{}
	for _, b := range append(leaves, "main") {
		p, err := tr.PathOf(b)
		if err != nil {
			t.Fatal(err)
		}
		paths[b] = p
	}
	for range 300 {
		from := paths[leaves[rng.Intn(len(leaves))]]
		up := from[:1+rng.Intn(len(from))] // the path up from id
		id := up[len(up)-1]
		b := leaves[rng.Intn(len(leaves))]
		want := 0
		for want < len(paths[b]) && want < len(up) && paths[b][want] == up[want] {
			want++
		}
		if got, ok := tr.SharedDepth(id, b); !ok || got != want {
			t.Fatalf("SharedDepth(%s, %s) = %d, %v; want %d", id, b, got, ok, want)
		}
	}
	if _, ok := tr.SharedDepth("nope", "main"); ok {
		t.Fatal("an unknown node must not be ok")
	}
	if _, ok := tr.SharedDepth(spine[0], "nope"); ok {
		t.Fatal("an unknown branch must not be ok")
	}
	if got, ok := tr.SharedDepth(spine[0], leaves[0]); !ok || got != 1 {
		t.Fatalf("the root and a branch: %d, %v; want 1", got, ok)
	}
}
