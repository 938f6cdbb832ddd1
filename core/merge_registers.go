package core

import "strings"

// Branch names as a join-semilattice (see Merge).
//
// The state a merge joins is the union of nodes, the tombstones of names (per
// deleted instance and the leaf its branch had then, the later deletion; per
// name the later whole-name deletion; see tombstone) and, for every register
// (a branch name that is not a conflict name), the set of its values: where
// the name pointed (leaf), when it was moved there (moved), when the branch
// was made (created: the instance, which every move keeps), with the copy's
// "used" clock (the larger of two). A value v of register r is dropped when
//
//	dead:       an entry e of r's tombstone deleted v's instance (v.created)
//	            at or after v.moved, and v.leaf is e's leaf or above it (the
//	            deleting copy saw that position) or e knows no leaf (a whole
//	            instance); or r's whole name was deleted at or after v.moved;
//	superseded: another value w of r of the same instance (any instance for
//	            main, which is never deleted) is newer (laterMove) and w's
//	            leaf is v's leaf or below it (the name only went further down).
//
// So a value another copy moved below what the deletion saw, no later (an
// append racing the deletion), is not dead: it keeps its message on a branch.
//
// Both hold in every larger state: the tombstone only grows, w stays, and
// "at or above" holds for good once it holds, since a node's parent never
// changes and nodes are only added (a deletion whose leaf Prune removes keeps
// the ids above it that Prune removed, so the answer does not change where no
// copy has the leaf any more: deletion.saw, Tree.keepDeletedPaths).
// And a dropped value never drops another one that no kept value drops: if w
// supersedes v and w is superseded by w2, then w2 (of the same instance, newer
// still, further below) supersedes v; if w is dead by e, then v, of the same
// instance, at w's leaf or above it, so at e's leaf or above it, and moved no
// later than w, no later than e, is dead by e too. So dropping before or
// after a union leaves the same set, norm(x ∪ y) = norm(norm(x) ∪ y), and
// merging, the union followed by norm, is the least upper bound of two
// normalized states: commutative, associative and idempotent. The "at or
// above" test is the walk up the parent links that superseded uses
// (Tree.reaches), and only for a value whose instance a deletion no earlier
// than its move names.
//
// That is why a value supersedes only values of its own instance: were a
// newer instance at b to drop an older one at a above it, a deletion of the
// newer instance arriving later would leave a on no branch, while a grouping
// that saw the deletion first keeps the older instance at a.
//
// The branches are a function of the normalized state (resolve), and the
// state is read back from branches and hidden records alone (addTree, with
// registerOf): each kept value is stored once, the newest under its register's
// name and every other one under register + "~" + leaf, which registerOf maps
// back. So a merge result merged again (or saved, loaded and merged) yields
// the same state, and the saved bytes depend on nothing else.
//
// A name a user gives that has the shape of a conflict name at its own leaf
// ("idea~x" at x) is read as a value of "idea" too.

// regValue is one value of a branch register.
type regValue struct {
	leaf    string
	moved   int64
	created int64
	used    int64
}

// later orders values of one register: the newer move first (see laterMove).
func (v *regValue) later(w *regValue) bool {
	return laterMove(v.moved, v.leaf, v.created, w.moved, w.leaf, w.created)
}

// registerOf returns the register that a record stored under key at leaf is a
// value of: key without any trailing "~" + leaf. A conflict name thus always
// leads back to the register whose value it keeps, and a branch a user moved
// away from its conflict leaf (an append to "main~x") is a register of its own.
func registerOf(key, leaf string) string {
	for leaf != "" && len(key) > len(leaf)+1 && strings.HasSuffix(key, leaf) && key[len(key)-len(leaf)-1] == '~' {
		key = key[:len(key)-len(leaf)-1]
	}
	return key
}

// registers holds the values of every register during one merge.
type registers map[string][]regValue

// add joins v into register name.
func (rs registers) add(name string, b *branch) {
	v := regValue{leaf: b.leaf, moved: b.moved, created: b.created, used: b.used}
	vals := rs[name]
	for i := range vals {
		if w := &vals[i]; w.leaf == v.leaf && w.moved == v.moved && w.created == v.created {
			w.used = max(w.used, v.used)
			return
		}
	}
	rs[name] = append(vals, v)
}

// addTree joins in every value t stores: its branches and the hidden records
// no branch masks (as a save writes them) whose leaf is a node.
func (rs registers) addTree(t *Tree) {
	for key, b := range t.branches {
		rs.add(registerOf(key, b.leaf), b)
	}
	for key, h := range t.hidden {
		if t.branches[key] == nil && t.nodes[h.leaf] != nil {
			rs.add(registerOf(key, h.leaf), h)
		}
	}
}

// reaches reports whether a pointer at leaf reaches the node at anc: anc is
// leaf or above it. Every leaf reaches the empty pointer of a leafless branch.
// By the nodes' depths and jump pointers (onPathOf): O(log depth), where a
// walk up from leaf made a merge of k values of one register on a path d long
// O(k²·d) (2,000 "main~…" branches at depth 2,000: 26 s).
func (r *Tree) reaches(leaf, anc string) bool {
	if anc == "" || leaf == anc {
		return true
	}
	on, _ := r.onPathOf(r.nodes[leaf], r.nodes[anc])
	return on
}

// prune drops the dead and superseded values of every register and sorts the
// rest newest first, so that a register's first value is its winner.
func (m *merger) prune(rs registers) {
	r := m.r
	for name, vals := range rs {
		if s := r.tombs[name]; s != nil && name != MainBranch {
			live := vals[:0]
			for _, v := range vals {
				if !s.kills(v.created, v.moved, v.leaf, r) {
					live = append(live, v)
				}
			}
			vals = live
		}
		sortFunc(vals, func(x, y regValue) int {
			if x.later(&y) {
				return -1
			}
			if y.later(&x) {
				return 1
			}
			return 0
		})
		// Asking the kept values suffices: a value superseded by a dropped
		// one is superseded by a kept one too (see the top of this file).
		kept := vals[:0]
		for _, v := range vals {
			superseded := false
			for i := range kept {
				if (kept[i].created == v.created || name == MainBranch) && r.reaches(kept[i].leaf, v.leaf) {
					superseded = true
					break
				}
			}
			if !superseded {
				kept = append(kept, v)
			}
		}
		if len(kept) == 0 {
			delete(rs, name)
		} else {
			rs[name] = kept
		}
	}
}

// loser is a value of a register other than its newest, and the name it is
// stored under.
type loser struct {
	reg  string
	v    regValue
	key  string
	dead bool // a deletion of its conflict name took it (see tombstone.kills)
	hide bool // another branch reaches its leaf
}

// resolve derives the branches from the pruned registers:
//
//   - a register's newest value is the branch of its name;
//   - every other value is kept under register + "~" + leaf (with "~" + leaf
//     repeated while that name is another register's), as a branch unless a
//     deletion of that name took its instance (or the whole name) no earlier
//     than its move, or another branch reaches its leaf: a branch at a leaf
//     below it, or at its leaf a register's branch or a kept value under a
//     smaller name. Those are hidden records, kept so that later merges still
//     know the value.
func (m *merger) resolve(rs registers) {
	r := m.r
	regNames := make([]string, 0, len(rs))
	for name := range rs {
		regNames = append(regNames, name)
	}
	sortStrings(regNames)
	taken := make(map[string]bool, len(rs))
	for _, name := range regNames {
		taken[name] = true
		v := rs[name][0]
		r.branches[name] = &branch{name: name, leaf: v.leaf, moved: v.moved, created: v.created, used: v.used}
	}
	var losers []*loser
	for _, name := range regNames {
		vals := rs[name][1:]
		if len(vals) > 1 {
			// By leaf, and values at one leaf (instances made apart) newest
			// first.
			vals = append([]regValue(nil), vals...)
			sortFunc(vals, func(x, y regValue) int {
				if c := strings.Compare(x.leaf, y.leaf); c != 0 || x == y {
					return c
				}
				if x.later(&y) {
					return -1
				}
				return 1
			})
		}
		for _, v := range vals {
			l := &loser{reg: name, v: v}
			suffix := "~" + v.leaf
			for k := name + suffix; ; k += suffix {
				if r.tombs[k].kills(v.created, v.moved, v.leaf, r) {
					l.dead = true
				}
				if !taken[k] {
					l.key = k
					break
				}
			}
			taken[l.key] = true
			losers = append(losers, l)
		}
	}
	if len(losers) == 0 {
		return
	}
	// What the branches and kept values reach: every node strictly above a
	// leaf of one of them, and who is at each leaf.
	above := make(map[*node]bool)
	mark := func(leaf string) {
		n := r.nodes[leaf]
		if n == nil {
			return
		}
		for p, steps := n.up, 0; p != nil && !above[p] && steps <= len(r.nodes); p, steps = p.up, steps+1 {
			above[p] = true
		}
	}
	atLeaf := make(map[string]string) // leaf → smallest name of a kept value there, or a register's
	for _, name := range regNames {
		b := r.branches[name]
		mark(b.leaf)
		atLeaf[b.leaf] = "" // a register's branch is there: every kept value at it is hidden
	}
	for _, l := range losers {
		if l.dead {
			continue
		}
		mark(l.v.leaf)
		if have, ok := atLeaf[l.v.leaf]; !ok || (have != "" && l.key < have) {
			atLeaf[l.v.leaf] = l.key
		}
	}
	for _, l := range losers {
		b := &branch{name: l.key, leaf: l.v.leaf, moved: l.v.moved, created: l.v.created, used: l.v.used}
		l.hide = l.dead || above[r.nodes[l.v.leaf]] || atLeaf[l.v.leaf] != l.key
		if l.hide {
			if r.hidden == nil {
				r.hidden = make(map[string]*branch)
			}
			r.hidden[l.key] = b
			continue
		}
		r.branches[l.key] = b
		if x, y := m.a.branches[l.key], m.b.branches[l.key]; (x != nil && x.leaf == b.leaf) || (y != nil && y.leaf == b.leaf) {
			continue
		}
		m.conflicts = append(m.conflicts, MergeConflict{Kind: "branch", Node: b.leaf, Branch: l.reg, KeptAs: l.key,
			Message: "both copies moved branch " + quote(l.reg) + "; its other leaf " + quote(b.leaf) + " is kept on " + quote(l.key)})
	}
}
