package core

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
)

// opGen makes random operations over a tree, mostly valid, sometimes not.
type opGen struct {
	r        *rand.Rand
	deletes  bool // allow deleteBranch (which may leave nodes on no branch)
	nameSeed int
}

func (g *opGen) node(tr *Tree) string {
	if tr.Len() == 0 || g.r.IntN(20) == 0 {
		return "missing-" + strconv.Itoa(g.r.IntN(3))
	}
	ids := tr.sortedKeys()
	return ids[g.r.IntN(len(ids))]
}

func (g *opGen) branch(tr *Tree) string {
	if g.r.IntN(20) == 0 {
		return "nope"
	}
	names := tr.branchNames()
	return names[g.r.IntN(len(names))]
}

func (g *opGen) message() Message {
	roles := []string{"user", "assistant", "tool", "system"}
	texts := []string{"hi", "é😀", "line\nbreak", `"quoted"`, "", "__proto__"}
	m := `{"role":"` + roles[g.r.IntN(len(roles))] + `","content":` + strconv.Quote(texts[g.r.IntN(len(texts))])
	if g.r.IntN(4) == 0 {
		m += `,"n":1.50,"x":[null,{"k":true}]`
	}
	return Message(m + "}")
}

func (g *opGen) op(tr *Tree) Op {
	at := int64(g.r.IntN(1000))
	names := []string{"", "", "idea", "__proto__", "constructor", "🌳", "branch-2"}
	switch k := g.r.IntN(14); {
	case k < 4:
		return Op{Op: "append", Message: g.message(), At: at, HasAt: true}
	case k == 4:
		return Op{Op: "rewind", Node: g.node(tr), At: at, HasAt: true}
	case k == 5:
		return Op{Op: "branch", From: g.node(tr), Name: names[g.r.IntN(len(names))], At: at, HasAt: true}
	case k == 6:
		return Op{Op: "switch", Branch: g.branch(tr)}
	case k == 7:
		return Op{Op: "label", Node: g.node(tr), Label: []string{"", "x", "✓"}[g.r.IntN(3)]}
	case k == 8:
		return Op{Op: "clearLabel", Node: g.node(tr)}
	case k == 9:
		return Op{Op: []string{"checkout", "open"}[g.r.IntN(2)], Node: g.node(tr), At: at, HasAt: true}
	case k == 10:
		return Op{Op: "edit", Node: g.node(tr), Message: g.message(), At: at, HasAt: true}
	case k == 11:
		return Op{Op: "regenerate", Node: g.node(tr), Message: g.message(), At: at, HasAt: true}
	case k == 12:
		return Op{Op: "summarize", Branch: g.branch(tr), Summary: "s" + strconv.Itoa(g.r.IntN(9)), ModelID: []string{"", "m"}[g.r.IntN(2)], At: at, HasAt: true}
	default:
		if g.deletes {
			return Op{Op: "deleteBranch", Branch: g.branch(tr)}
		}
		return Op{Op: "switch", Branch: g.branch(tr)}
	}
}

// reachable lists the nodes on no branch's path.
func unreachable(tr *Tree) []string {
	on := map[string]bool{}
	for _, b := range tr.Branches() {
		p, _ := tr.PathOf(b.Name)
		for _, id := range p {
			on[id] = true
		}
	}
	var out []string
	for _, id := range tr.orderedIDs() {
		if !on[id] {
			out = append(out, id)
		}
	}
	return out
}

func checkInvariants(t *testing.T, seed uint64, step int, tr *Tree, deletes bool) {
	t.Helper()
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("seed %d step %d: "+format, append([]any{seed, step}, args...)...)
	}
	if p := tr.Validate(); len(p) != 0 {
		fail("Validate: %+v", p)
	}
	for _, b := range tr.Branches() {
		msgs, err := tr.LinearProjectionOf(b.Name)
		if err != nil {
			fail("branch %s does not project: %v", b.Name, err)
		}
		// Windows agree with the path: its length, and the last few nodes.
		path, _ := tr.PathOf(b.Name)
		if n, err := tr.PathLen(b.Name); err != nil || n != len(path) {
			fail("branch %s: PathLen %d, %v; the path has %d", b.Name, n, err, len(path))
		}
		skip, count := step%3, 1+step%5
		ids, win, err := tr.AppendTailOf(nil, nil, b.Name, skip, count)
		end := max(0, len(path)-skip)
		start := max(0, end-count)
		if err != nil || !slices.Equal(ids, path[start:end]) || len(win) != end-start || (len(win) > 0 && !bytes.Equal(win[0], msgs[start])) {
			fail("branch %s: window (%d, %d) = %v, %v; the path's slice is %v", b.Name, skip, count, ids, err, path[start:end])
		}
	}
	if !deletes {
		if u := unreachable(tr); len(u) > 0 {
			fail("nodes on no branch: %v", u)
		}
	}
	b := tr.Marshal()
	back, err := Unmarshal(b)
	if err != nil {
		fail("reload: %v", err)
	}
	if b2 := back.Marshal(); !bytes.Equal(b, b2) {
		fail("save/load not byte-stable")
	}
}

func runProperty(t *testing.T, deletes bool) {
	seeds, steps := 40, 150
	if testing.Short() || isWasm {
		seeds = 10
	}
	for s := range seeds {
		seed := uint64(s) + 1
		if deletes {
			seed += 1000
		}
		g := &opGen{r: rand.New(rand.NewPCG(seed, 7)), deletes: deletes}
		tr := New(counterIDs())
		for step := range steps {
			if g.r.IntN(10) == 0 {
				// A batch whose last op fails changes nothing.
				before := tr.Marshal()
				batch := []Op{g.op(tr), g.op(tr), g.op(tr), {Op: "switch", Branch: "never-a-branch"}}
				if _, err := tr.Apply(batch, 1); err == nil {
					t.Fatalf("seed %d step %d: failing batch succeeded", seed, step)
				}
				if !bytes.Equal(before, tr.Marshal()) {
					t.Fatalf("seed %d step %d: failing batch changed the tree", seed, step)
				}
			}
			op := g.op(tr)
			before := tr.Marshal()
			if _, err := tr.Apply([]Op{op}, 1); err != nil {
				if _, ok := err.(*Error); !ok {
					t.Fatalf("seed %d step %d: %+v: error without a code: %v", seed, step, op, err)
				}
				if !bytes.Equal(before, tr.Marshal()) {
					t.Fatalf("seed %d step %d: failed op %q changed the tree", seed, step, op.Op)
				}
			}
			checkInvariants(t, seed, step, tr, deletes)
		}
		if deletes {
			want := unreachable(tr)
			got, err := tr.Prune()
			slices.Sort(want)
			slices.Sort(got)
			if err != nil || !slices.Equal(got, want) {
				t.Fatalf("seed %d: Prune removed %v, want %v (%v)", seed, got, want, err)
			}
			checkInvariants(t, seed, steps, tr, false)
		}
	}
}

func TestPropertyRandomOperationsKeepEveryInvariant(t *testing.T) { runProperty(t, false) }

func TestPropertyPruneRemovesExactlyWhatDeletedBranchesLeftBehind(t *testing.T) {
	runProperty(t, true)
}
