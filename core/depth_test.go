package core

import (
	"encoding/json"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
)

// plainPath walks the parent ids from leaf to a root through the map, root
// first: the reference the depths are checked against. ok is false for a
// dangling leaf or parent or a cycle.
func plainPath(tr *Tree, leaf string) (path []string, ok bool) {
	for id := leaf; id != ""; {
		n := tr.nodes[id]
		if n == nil || len(path) > len(tr.nodes) {
			return nil, false
		}
		path = append(path, id)
		id = n.parent
	}
	slices.Reverse(path)
	return path, true
}

// plainLatestThrough is latestBranchThrough by walking every branch's path.
func plainLatestThrough(tr *Tree, paths map[string][]string, id string) string {
	var best *branch
	for name, b := range tr.branches {
		if !slices.Contains(paths[name], id) {
			continue
		}
		if best == nil || b.used > best.used ||
			(b.used == best.used && (b.name == tr.active || (best.name != tr.active && b.name < best.name))) {
			best = b
		}
	}
	return name(best)
}

// plainSiblings lists the nodes whose parent is id's, by (created, id).
func plainSiblings(tr *Tree, id string) ([]string, int) {
	parent := tr.nodes[id].parent
	var sib []string
	for k, n := range tr.nodes {
		if n.parent == parent {
			sib = append(sib, k)
		}
	}
	slices.SortFunc(sib, tr.byAge)
	return sib, slices.Index(sib, id)
}

// navCheck asks the tree what a chat view asks and compares each answer with
// the plain walk: every branch's PathLen, and for some nodes PathIndex,
// OnPath, Siblings and the branch Open would pick.
func navCheck(t *testing.T, where string, rng *rand.Rand, tr *Tree) {
	t.Helper()
	paths := make(map[string][]string, len(tr.branches))
	for name, b := range tr.branches {
		p, ok := plainPath(tr, b.leaf)
		if !ok {
			t.Fatalf("%s: branch %s has a broken path in a tree that should be sound", where, name)
		}
		paths[name] = p
		if n, err := tr.PathLen(name); err != nil || n != len(p) {
			t.Fatalf("%s: PathLen(%s) = %d, %v; the plain walk counts %d", where, name, n, err, len(p))
		}
	}
	ids := tr.sortedKeys()
	if len(ids) == 0 {
		return
	}
	active := paths[tr.active]
	var some []string
	for range 12 {
		some = append(some, ids[rng.IntN(len(ids))])
	}
	if len(active) > 0 {
		// Nodes on the active path too, near its root and near its leaf.
		some = append(some, active[0], active[len(active)-1], active[rng.IntN(len(active))], active[len(active)/2])
	}
	some = append(some, "no-such-node")
	on, err := tr.OnPath(some)
	if err != nil {
		t.Fatalf("%s: OnPath: %v", where, err)
	}
	// And one question with more ids than the path has nodes over 64 (the
	// walk that marks the path).
	many := append(slices.Clone(some), ids...)
	onMany, err := tr.OnPath(many)
	if err != nil {
		t.Fatalf("%s: OnPath of %d ids: %v", where, len(many), err)
	}
	for i, id := range many {
		want := slices.Index(active, id)
		if i < len(some) {
			if on[i] != (want >= 0) {
				t.Fatalf("%s: OnPath(%s) = %v; the plain walk says %v", where, id, on[i], want >= 0)
			}
			if got, err := tr.PathIndex(id); err != nil || got != want {
				t.Fatalf("%s: PathIndex(%s) = %d, %v; the plain walk says %d", where, id, got, err, want)
			}
		}
		if onMany[i] != (want >= 0) {
			t.Fatalf("%s: OnPath(%s) among %d ids = %v; the plain walk says %v", where, id, len(many), onMany[i], want >= 0)
		}
	}
	for _, id := range some[:len(some)-1] {
		if got, want := name(tr.latestBranchThrough(id)), plainLatestThrough(tr, paths, id); got != want {
			t.Fatalf("%s: the branch Open picks for %s is %s; the plain walk says %s", where, id, got, want)
		}
		for k, n := range tr.nodes {
			if n.mark != 0 {
				t.Fatalf("%s: asking which branch runs through %s left a mark on %s", where, id, k)
			}
		}
		sib, i, err := tr.Siblings(id)
		wantSib, wantI := plainSiblings(tr, id)
		if err != nil || !slices.Equal(sib, wantSib) || i != wantI {
			t.Fatalf("%s: Siblings(%s) = %v %d %v; the plain walk says %v %d", where, id, sib, i, err, wantSib, wantI)
		}
		label, count, at, err := tr.Switcher(id)
		if err != nil || label != tr.nodes[id].labelText() || count != len(wantSib) || at != wantI {
			t.Fatalf("%s: Switcher(%s) = %q %d %d %v; the plain walk says %d siblings, at %d", where, id, label, count, at, err, len(wantSib), wantI)
		}
	}
}

// navMutate makes one random change of the kinds a chat client makes, some
// of them (a failed batch, a merge, a save and load, a clone, a repair) the
// ones that relink or rebuild what the depths depend on. It returns the tree
// to go on with and what it did.
func navMutate(t *testing.T, rng *rand.Rand, tr *Tree, at int64) (*Tree, string) {
	t.Helper()
	ids := tr.sortedKeys()
	pick := func() string { return ids[rng.IntN(len(ids))] }
	names := tr.branchNames()
	someBranch := names[rng.IntN(len(names))]
	switch k := rng.IntN(16); k {
	case 0:
		_, _ = tr.Rewind(pick(), at)
		return tr, "rewind"
	case 1:
		_, _ = tr.Branch(pick(), "", at)
		return tr, "branch"
	case 2:
		_, _ = tr.Edit(pick(), msg("user", "edited"), at)
		return tr, "edit"
	case 3:
		if b := tr.branches[tr.active]; b.leaf != "" {
			_, _ = tr.Regenerate(b.leaf, msg("assistant", "again"), at)
		}
		return tr, "regenerate"
	case 4:
		_ = tr.SwitchBranch(someBranch)
		return tr, "switch"
	case 5:
		_ = tr.DeleteBranchAt(someBranch, at)
		return tr, "deleteBranch"
	case 6:
		if _, err := tr.Prune(); err != nil {
			t.Fatalf("prune: %v", err)
		}
		return tr, "prune"
	case 7:
		// Another copy went on elsewhere; merging it in rebuilds every node.
		other := tr.Clone()
		_, _ = other.Rewind(pick(), at)
		for i := range 3 {
			_, _ = other.Append(msg("assistant", "far "+strconv.Itoa(i)), at)
		}
		_, _ = tr.Append(msg("user", "near"), at)
		if _, err := tr.Merge(other); err != nil {
			t.Fatalf("merge: %v", err)
		}
		return tr, "merge"
	case 8:
		// A batch that fails at its end is rolled back whole.
		_, err := tr.Apply([]Op{{Op: "append", Message: msg("user", "a")}, {Op: "edit", Node: pick(), Message: msg("user", "b")},
			{Op: "append", Message: msg("user", "c")}, {Op: "switch", Branch: "no such branch"}}, at)
		if err == nil {
			t.Fatal("a batch with a bad switch succeeded")
		}
		return tr, "failed apply"
	case 9:
		_, _ = tr.Open(pick(), at)
		return tr, "open"
	case 10:
		_, _ = tr.Checkout(pick(), at)
		return tr, "checkout"
	case 11:
		loaded, err := Unmarshal(tr.Marshal(), WithIDSource(tr.newID))
		if err != nil {
			t.Fatalf("load: %v", err)
		}
		return loaded, "save and load"
	case 12:
		return tr.Clone(), "clone"
	case 13:
		tr.Repair()
		return tr, "repair"
	case 14:
		// Another copy's changes arrive as rows (sync): nodes added in any
		// order, pruned ones removed.
		other := tr.Clone()
		other.TakeChanges()
		_, _ = other.Rewind(pick(), at)
		for i := range 4 {
			_, _ = other.Append(msg("assistant", "row "+strconv.Itoa(i)), at)
		}
		if rng.IntN(2) == 0 {
			_ = other.DeleteBranchAt(someBranch, at)
			_, _ = other.Prune()
		}
		root, active, bs, ns := delta(other)
		if err := tr.ApplyRows(root, active, rng.IntN(2) == 0, bs, ns); err != nil {
			t.Fatalf("rows: %v", err)
		}
		return tr, "rows"
	default:
		_ = tr.Label(pick(), "l")
		return tr, "label"
	}
}

// The depths and jump pointers the nodes remember (depth.go) never give
// another answer than the plain walk: over random chats with a fork every 5,
// 50 and 2,000 messages, changed in between by every kind of change (append,
// rewind, branch, edit, regenerate, switch, delete a branch, prune, merge, a
// failed batch, open, checkout, save and load, clone, repair, rows of
// another copy, label) and asked
// at random moments, PathLen, PathIndex, OnPath, Siblings and the branch Open
// picks are what walking says.
func TestPropertyNavigationAgreesWithThePlainWalk(t *testing.T) {
	for _, c := range []struct{ every, size, seeds int }{{5, 1200, 6}, {50, 2500, 4}, {2000, 7000, 2}} {
		for seed := uint64(1); seed <= uint64(c.seeds); seed++ {
			rng := rand.New(rand.NewPCG(seed, uint64(c.every)))
			next := 0
			tr := New(WithIDSource(func() string { next++; return "n" + strconv.Itoa(next) }))
			did := "new"
			for step := 0; tr.Len() < c.size; step++ {
				where := "fork every " + strconv.Itoa(c.every) + ", seed " + strconv.FormatUint(seed, 10) +
					", step " + strconv.Itoa(step) + " (after " + did + ")"
				at := int64(step)
				if tr.Len() > 0 && rng.IntN(c.every) == 0 {
					tr, did = navMutate(t, rng, tr, at)
				} else {
					if _, err := tr.Append(msg([]string{"user", "assistant"}[step%2], "m"), at); err != nil {
						t.Fatalf("%s: %v", where, err)
					}
					did = "append"
				}
				if did != "append" || rng.IntN(max(20, c.every/2)) == 0 {
					navCheck(t, where, rng, tr)
				}
			}
		}
	}
}

// corruptLoad loads a 300-message chat (with a fork) whose file was edited by
// change: a loaded corrupt tree.
func corruptLoad(t *testing.T, change func(nodes map[string]map[string]any, ids []string)) (*Tree, []string) {
	t.Helper()
	texts := make([]string, 300)
	for i := range texts {
		texts[i] = "m" + strconv.Itoa(i)
	}
	tr, ids := chain(t, texts...)
	if _, err := tr.Regenerate(ids[150], msg("assistant", "other"), 9000); err != nil {
		t.Fatal(err)
	}
	var file map[string]any
	if err := json.Unmarshal(tr.Marshal(), &file); err != nil {
		t.Fatal(err)
	}
	nodes := map[string]map[string]any{}
	for id, n := range file["nodes"].(map[string]any) {
		nodes[id] = n.(map[string]any)
	}
	change(nodes, ids)
	data, err := json.Marshal(file)
	if err != nil {
		t.Fatal(err)
	}
	loaded, err := Unmarshal(data)
	if err != nil {
		t.Fatal(err)
	}
	return loaded, ids
}

// A loaded tree whose parent links form a cycle or dangle fails closed: every
// question about the broken paths is CodeCorrupt or "not on it", never a
// loop, and the sound branch still answers.
func TestNavigationOfALoadedCorruptTreeFailsClosed(t *testing.T) {
	cases := map[string]func(nodes map[string]map[string]any, ids []string){
		"a cycle": func(nodes map[string]map[string]any, ids []string) {
			nodes[ids[100]]["parent"] = ids[200] // 100 → 200 → … → 101 → 100
		},
		"a dangling parent": func(nodes map[string]map[string]any, ids []string) {
			nodes[ids[100]]["parent"] = "gone"
		},
	}
	for what, change := range cases {
		tr, ids := corruptLoad(t, change)
		// main ends at ids[299], through the break; the regenerated reply's
		// branch (active) forks at ids[150], also below it.
		for _, b := range []string{MainBranch, tr.active} {
			_, err := tr.PathLen(b)
			wantCode(t, err, CodeCorrupt)
		}
		_, err := tr.PathIndex(ids[50])
		wantCode(t, err, CodeCorrupt)
		_, err = tr.OnPath([]string{ids[50]})
		wantCode(t, err, CodeCorrupt)
		// Nodes above the break are sound: their depths answer.
		if d := tr.depth(tr.nodes[ids[50]]); d != 51 {
			t.Fatalf("%s: the 51st node's depth is %d", what, d)
		}
		// Open of a node below the break (a branch runs through it by
		// walking) and above it (none does: the paths above it are broken)
		// ends, with a branch.
		for _, id := range []string{ids[250], ids[50]} {
			if _, err := tr.Open(id, 9999); err != nil {
				t.Fatalf("%s: Open(%s): %v", what, id, err)
			}
		}
		if _, _, err := tr.Subtree("", -1, 0, true); err != nil {
			t.Fatalf("%s: Subtree: %v", what, err)
		}
	}
}

// depthsAsLoaded checks what a load taught tr's nodes: a node on a sound path
// knows its depth (the plain walk's length) and an ancestor to jump to, from
// which every ancestor is found; a node on a broken path knows nothing; no
// mark is left set.
func depthsAsLoaded(t *testing.T, where string, rng *rand.Rand, tr *Tree) {
	t.Helper()
	for id, n := range tr.nodes {
		if n.mark != 0 {
			t.Fatalf("%s: %s keeps a mark", where, id)
		}
		path, ok := plainPath(tr, id)
		if !ok {
			if n.depth != 0 {
				t.Fatalf("%s: %s on a broken path has depth %d", where, id, n.depth)
			}
			continue
		}
		if int(n.depth) != len(path) || n.jump == nil {
			t.Fatalf("%s: %s has depth %d (jump %v) after the load, the walk says %d", where, id, n.depth, n.jump != nil, len(path))
		}
		d := 1 + rng.IntN(len(path))
		if a := ancestorAtDepth(n, d); a == nil || a.id != path[d-1] {
			t.Fatalf("%s: the ancestor of %s at depth %d is wrong", where, id, d)
		}
	}
}

// A load teaches every node on a sound path its depth (so the first request
// or path length after it walks nothing), in any file order (ids are
// random, the file sorted by them), and leaves the nodes of a cycle or below
// a dangling parent unknown, as the lazy walk would.
func TestALoadTeachesEveryNodeItsDepth(t *testing.T) {
	for seed := uint64(1); seed <= 6; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		tr := New()
		var ids []string
		for step := 0; step < 1500; step++ {
			var id string
			var err error
			switch {
			case len(ids) > 2 && rng.IntN(40) == 0:
				id, err = tr.Regenerate(ids[rng.IntN(len(ids))], msg("assistant", "again"), int64(step))
			case len(ids) > 2 && rng.IntN(40) == 0:
				_, err = tr.Open(ids[rng.IntN(len(ids))], int64(step))
			default:
				id, err = tr.Append(msg([]string{"user", "assistant"}[step%2], "m"), int64(step))
			}
			if err != nil {
				t.Fatalf("seed %d step %d: %v", seed, step, err)
			}
			if id != "" {
				ids = append(ids, id)
			}
		}
		loaded, err := Unmarshal(tr.Marshal())
		if err != nil {
			t.Fatal(err)
		}
		depthsAsLoaded(t, "seed "+strconv.FormatUint(seed, 10), rng, loaded)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	for what, change := range map[string]func(nodes map[string]map[string]any, ids []string){
		"a cycle":           func(nodes map[string]map[string]any, ids []string) { nodes[ids[100]]["parent"] = ids[200] },
		"a dangling parent": func(nodes map[string]map[string]any, ids []string) { nodes[ids[100]]["parent"] = "gone" },
		"a node its own parent": func(nodes map[string]map[string]any, ids []string) {
			nodes[ids[10]]["parent"] = ids[10]
		},
	} {
		tr, _ := corruptLoad(t, change)
		depthsAsLoaded(t, what, rng, tr)
	}
}
