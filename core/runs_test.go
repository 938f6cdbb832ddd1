package core

import (
	"math/rand"
	"reflect"
	"slices"
	"strconv"
	"testing"
)

// TestSubtreeInRunsAnswersWhatTheWalkAnswers: random chats with a fork every
// 5, 50 and 2,000 messages, labels set and cleared, branches made at old
// messages, rewinds, deleted branches, prunes, labelled inserts and batches
// that roll back; after each step Subtree in runs (from the index of runs)
// lists exactly what the walk of every node lists, from the roots and from
// random nodes, at random depths and limits, and never falls back to the walk.
func TestSubtreeInRunsAnswersWhatTheWalkAnswers(t *testing.T) {
	for _, every := range []int{5, 50, 2000} {
		for seed := int64(1); seed <= 4; seed++ {
			rng := rand.New(rand.NewSource(seed*7919 + int64(every)))
			tr := New(counterIDs())
			mustAppend(t, tr, msg("user", "first"), 1)
			// mirror takes tr's changes as rows (ApplyRows), as a second tab does.
			mirror := tr.Clone()
			tr.TakeChanges()
			ids := []string{tr.Root()}
			var at int64 = 1
			steps := 600
			if every == 2000 {
				steps = 5000
			}
			check := func(step int, op string) {
				t.Helper()
				where := "every " + strconv.Itoa(every) + " seed " + strconv.FormatInt(seed, 10) + " step " + strconv.Itoa(step) + " (" + op + ")"
				checkRuns(t, rng, tr, ids, where)
				if mirror != nil {
					checkRuns(t, rng, mirror, ids, where+", the copy kept by ApplyRows")
				}
			}
			for step := 0; step < steps; step++ {
				at++
				op := "append"
				r := rng.Intn(100)
				switch {
				case len(ids) > 2 && step > 0 && step%every == 0:
					op = "fork"
					if _, err := tr.Edit(ids[rng.Intn(len(ids))], msg("user", "again "+strconv.Itoa(step)), at); err != nil {
						t.Fatal(err)
					}
				case len(ids) > 2 && r < 2:
					op = "label"
					_ = tr.Label(ids[rng.Intn(len(ids))], "l"+strconv.Itoa(step))
				case len(ids) > 2 && r < 3:
					op = "clear label"
					_ = tr.ClearLabel(ids[rng.Intn(len(ids))])
				case len(ids) > 2 && r < 4:
					op = "branch at an old message"
					_, _ = tr.Branch(ids[rng.Intn(len(ids))], "", at)
					if rng.Intn(2) == 0 {
						_ = tr.SwitchBranch("main")
					}
				case len(ids) > 2 && r < 5:
					op = "rewind"
					_, _ = tr.Rewind(ids[rng.Intn(len(ids))], at)
				case r < 6:
					op = "delete a branch"
					for _, b := range tr.Branches() {
						if b.Name != tr.ActiveBranch() {
							_ = tr.DeleteBranch(b.Name)
							break
						}
					}
				case r < 7 && every != 2000:
					op = "prune"
					_, _ = tr.Prune()
				case len(ids) > 2 && r < 8:
					op = "labelled insert"
					id := "ins" + strconv.Itoa(step)
					if tr.InsertNode(id, ids[rng.Intn(len(ids))], msg("user", "inserted"), "ins", at) == nil {
						ids = append(ids, id)
					}
				case len(ids) > 2 && r < 9:
					op = "batch that rolls back"
					_, _ = tr.Apply([]Op{{Op: "append", Message: msg("user", "kept?")}, {Op: "switch", Branch: "no such branch"}}, at)
				case r < 11:
					op = "a send"
					_, _ = tr.Apply([]Op{{Op: "append", Message: msg("user", "q")}, {Op: "append", Message: msg("assistant", "a")}}, at)
				default:
					role := "user"
					if step%2 == 1 {
						role = "assistant"
					}
					id, err := tr.Append(msg(role, "m"+strconv.Itoa(step)), at)
					if err != nil {
						t.Fatal(err)
					}
					ids = append(ids, id)
				}
				if op != "append" {
					ids = ids[:0]
					for id := range tr.nodes {
						ids = append(ids, id)
					}
					// Map order is random: sorted, a seed replays.
					slices.Sort(ids)
				}
				if mirror != nil {
					root, active, bs, ns := delta(tr)
					if err := mirror.ApplyRows(root, active, true, bs, ns); err != nil {
						t.Fatalf("ApplyRows: %v", err)
					}
				}
				if every != 2000 || step%97 == 0 || op != "append" {
					check(step, op)
				}
				if step%150 == 149 {
					// Saved and loaded: the loader finds the runs in its blocks.
					loaded, err := Unmarshal(tr.Marshal(), WithIDSource(func() string { at++; return "L" + strconv.FormatInt(at, 10) }))
					if err != nil {
						t.Fatal(err)
					}
					if loaded.loaded == nil {
						t.Fatalf("every %d seed %d step %d: a load left no blocks for the runs", every, seed, step)
					}
					if rng.Intn(2) == 0 {
						// Appended to before the first read: the blocks and the attach log.
						id := mustAppend(t, loaded, msg("user", "after the load"), at)
						ids = append(ids, id)
					}
					checkRuns(t, rng, loaded, ids, "loaded at step "+strconv.Itoa(step))
					if loaded.loaded != nil || !loaded.runs.sound {
						t.Fatalf("every %d seed %d step %d: the first read after a load kept its blocks", every, seed, step)
					}
					tr, mirror = loaded, nil
					tr.TakeChanges()
				}
			}
			check(steps, "end")
		}
	}
}

// checkRuns compares Subtree in runs with the walk on tr, from the roots and
// from a random node of ids, at random depths and limits.
func checkRuns(t *testing.T, rng *rand.Rand, tr *Tree, ids []string, where string) {
	t.Helper()
	froms := []string{""}
	if len(ids) > 0 {
		froms = append(froms, ids[rng.Intn(len(ids))])
	}
	leafOf := map[string][]string{}
	for _, name := range tr.branchNames() {
		if b := tr.branches[name]; b.leaf != "" {
			leafOf[b.leaf] = append(leafOf[b.leaf], name)
		}
	}
	// OnPath of the boxes' first and last nodes and of random nodes, from
	// the runs and without them.
	if entries, _, ok := tr.subtreeInRuns(tr.roots, -1, 0, leafOf); ok {
		var ask []string
		for _, e := range entries {
			ask = append(ask, e.ID, e.Last)
		}
		for _, some := range [][]string{ask, {ids[rng.Intn(len(ids))], "no such node"}} {
			got, err1 := tr.OnPath(some)
			runs := tr.runs
			tr.runs = nil
			want, err2 := tr.OnPath(some)
			tr.runs = runs
			if (err1 == nil) != (err2 == nil) || !slices.Equal(got, want) {
				t.Fatalf("%s: OnPath by runs %v (%v), by depths %v (%v)", where, got, err1, want, err2)
			}
		}
	}
	// Subtree itself, with the branch ends the tree keeps (ends.go), against
	// the walk with the ends listed afresh.
	if got, _, err := tr.Subtree("", -1, 0, true); err != nil {
		t.Fatalf("%s: Subtree: %v", where, err)
	} else if want, _, _ := tr.subtreeWalk(tr.roots, -1, 0, true, leafOf); !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: Subtree with the kept branch ends:\n%+v\nwalk with fresh ones:\n%+v", where, got, want)
	}
	// SubtreeAround the active leaf and a random node, at random limits.
	nears := []string{}
	if b := tr.branches[tr.active]; b != nil && b.leaf != "" {
		nears = append(nears, b.leaf)
	}
	if len(ids) > 0 {
		nears = append(nears, ids[rng.Intn(len(ids))])
	}
	for _, near := range nears {
		for _, limit := range []int{1, 1 + rng.Intn(8), 5 + rng.Intn(60), 1000000} {
			got, above, more, err := tr.SubtreeAround(near, limit)
			if tr.nodes[near] == nil {
				if err == nil {
					t.Fatalf("%s: SubtreeAround of the removed node %q: no error", where, near)
				}
				continue
			}
			want, wabove, wmore := aroundByWalk(tr, leafOf, near, limit)
			if err != nil || more != wmore || above != wabove || !reflect.DeepEqual(got, want) {
				t.Fatalf("%s, SubtreeAround(%q, %d): %v\nruns  %+v (above %d, more %v)\nwalk  %+v (above %d, more %v)", where, near, limit, err, got, above, more, want, wabove, wmore)
			}
		}
	}
	for _, from := range froms {
		tops := tr.roots
		if from != "" {
			if tr.nodes[from] == nil {
				continue
			}
			tops = []string{from}
		}
		for _, q := range [][2]int{{-1, 0}, {rng.Intn(6), 0}, {-1, 1 + rng.Intn(12)}, {rng.Intn(4), 1 + rng.Intn(5)}} {
			fast, fmore, ok := tr.subtreeInRuns(tops, q[0], q[1], leafOf)
			if !ok {
				t.Fatalf("%s: the runs could not answer for a sound tree", where)
			}
			slow, smore, _ := tr.subtreeWalk(tops, q[0], q[1], true, leafOf)
			if fmore != smore || !reflect.DeepEqual(fast, slow) {
				t.Fatalf("%s, from %q depth %d limit %d:\nruns  %+v (more %v)\nwalk  %+v (more %v)", where, from, q[0], q[1], fast, fmore, slow, smore)
			}
		}
	}
}

// aroundByWalk is SubtreeAround by its definition, over the walk's read of
// the whole tree in runs: the entry holding near, then the highest entry
// above it that starts a run (its parent has other than one child, or one
// of the two a label) whose subtree has at most limit entries, near's run's
// first entry at least; every root when the whole tree fits; then, if the
// run above fits with it, that run, the subtree climbed from and what the
// limit leaves of the others, in order.
func aroundByWalk(tr *Tree, leafOf map[string][]string, near string, limit int) ([]TreeEntry, int, bool) {
	all, _, _ := tr.subtreeWalk(tr.roots, -1, 0, true, leafOf)
	if len(all) <= limit {
		return all, 0, false
	}
	byID, byLast := map[string]int{}, map[string]int{}
	for i, e := range all {
		byID[e.ID], byLast[e.Last] = i, i
	}
	parent := func(i int) int {
		if all[i].Parent == "" {
			return -1
		}
		return byLast[all[i].Parent]
	}
	size := func(i int) int {
		j := i + 1
		for j < len(all) && all[j].Depth > all[i].Depth {
			j++
		}
		return j - i
	}
	head := func(i int) int {
		for p := parent(i); p >= 0 && all[p].Children == 1 && all[i].Label == "" && all[p].Label == ""; p = parent(i) {
			i = p
		}
		return i
	}
	x := near
	for {
		if _, ok := byID[x]; ok {
			break
		}
		x = tr.nodes[x].parent
	}
	top := head(byID[x])
	up := -1
	for size(top) <= limit && parent(top) >= 0 {
		if u := head(parent(top)); size(u) > limit {
			up = u
			break
		}
		top = head(parent(top))
	}
	aboveOf := func(i int) int {
		n := 0
		for p := parent(i); p >= 0; p = parent(p) {
			n += all[p].Run
		}
		return n
	}
	rebase := func(es []TreeEntry, d int) []TreeEntry {
		out := slices.Clone(es)
		for i := range out {
			out[i].Depth -= d
		}
		return out
	}
	if up >= 0 {
		p := parent(top)
		if own := p - up + 1; size(top)+own <= limit {
			out := slices.Clone(all[up : p+1])
			left := limit - own - size(top)
			for c := p + 1; c < p+size(p); c += size(c) {
				if c == top {
					out = append(out, all[c:c+size(c)]...)
					continue
				}
				k := min(size(c), left)
				out = append(out, all[c:c+k]...)
				left -= k
			}
			return rebase(out, all[up].Depth), aboveOf(up), true
		}
	}
	n, more := size(top), false
	if n > limit {
		n, more = limit, true
	}
	return rebase(all[top:top+n], all[top].Depth), aboveOf(top), more
}

// TestSubtreeInRunsFallsBackWhereLinksDisagree: a tree whose children lists
// disagree with its parent links is read by the walk, in runs too.
func TestSubtreeInRunsFallsBackWhereLinksDisagree(t *testing.T) {
	tr, at := forked(t)
	if _, _, err := tr.Subtree("", -1, 0, true); err != nil {
		t.Fatal(err)
	}
	tr.nodes[at["d"]].children = []string{at["e"]} // e's parent is b
	tr.shapeGen++                                  // as a load would start afresh
	if _, _, ok := tr.subtreeInRuns(tr.roots, -1, 0, nil); ok {
		t.Fatal("the index answered for a tree whose links disagree")
	}
}
