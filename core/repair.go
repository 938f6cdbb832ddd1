package core

import (
	"bytes"
	"slices"

	"github.com/sessiontree/sessiontree/core/rawjson"
)

// Repair fixes every problem Validate reports without dropping a message, and
// returns one Problem per change, describing what it did. Afterwards Validate
// reports nothing.
//
//   - a duplicate node with different content gets a fresh id (an exact copy of
//     the node it duplicates is dropped: nothing is lost);
//   - a node whose id disagrees with its key takes the key;
//   - a dangling parent, or the oldest node of a cycle, becomes a root;
//   - children lists and the roots are rebuilt from the parent links;
//   - a dangling leaf makes its branch leafless; a missing main branch is added
//     leafless; an unknown active branch becomes main;
//   - a summary off its branch is re-pointed at the branch's leaf, or dropped
//     when the branch has none (a summary is not a message);
//   - a message that names a key twice keeps the last of each such key, as
//     JSON.parse reads it (the members it drops were never shown by a page).
func (t *Tree) Repair() []Problem {
	t.ends = nil // it renames branches and clears leaves in place (ends.go)
	var out problems
	did := out.add
	t.repairKeyDups(did)
	dups := t.dups
	t.dups = nil
	for _, d := range dups {
		kept := t.nodes[d.id]
		if kept != nil && kept.parent == d.parent && kept.labelText() == d.labelText() && kept.created == d.created && bytes.Equal(kept.msg, d.msg) {
			did(ProblemDuplicateID, d.id, "", "dropped an exact copy of node "+quote(d.id))
			continue
		}
		id, err := t.freshID()
		if err != nil {
			id = d.id + "~" + itoa(len(t.nodes))
		}
		old := d.id
		d.id, d.children = id, nil
		t.nodes[id] = d
		did(ProblemDuplicateID, id, "", "gave a second node with id "+quote(old)+" the fresh id "+quote(id))
	}
	keys := t.sortedKeys()
	for _, k := range keys {
		n := t.nodes[k]
		if n.id != k {
			did(ProblemIDMismatch, k, "", "node stored under "+quote(k)+" now has id "+quote(k)+" (was "+quote(n.id)+")")
			n.id = k
		}
		if n.parent != "" && t.nodes[n.parent] == nil {
			did(ProblemDanglingParent, k, "", "node "+quote(k)+" lost its missing parent "+quote(n.parent)+" and is now a root")
			n.parent = ""
		}
	}
	for _, k := range t.cycleEntries(keys) {
		oldest := t.oldestOnCycle(k)
		did(ProblemCycle, oldest, "", "broke a cycle by making node "+quote(oldest)+" a root")
		t.nodes[oldest].parent = ""
	}
	want := t.expectedChildren(keys)
	for _, k := range keys {
		n := t.nodes[k]
		if !slices.Equal(n.children, want[k]) {
			did(ProblemChildren, k, "", "rebuilt the children of node "+quote(k)+" from the parent links")
			n.children = want[k]
		}
	}
	if !slices.Equal(t.roots, want[""]) {
		did(ProblemChildren, "", "", "rebuilt the list of roots from the parent links")
		t.roots = want[""]
	}
	if r := t.nodes[t.root]; (r == nil || r.parent != "") && (len(t.nodes) > 0 || t.root != "") {
		old := t.root
		t.root = t.firstRoot()
		did(ProblemBadRoot, t.root, "", "root is now "+quote(t.root)+" (was "+quote(old)+")")
	}
	// The up links as the parents now are, before a summary is checked
	// against a path: they still described a cycle broken above, and a
	// summary as of a node the break took off its branch's path was kept
	// (until Dec 6, night: Validate reported it after Repair; an outside pass).
	t.linkUp()
	for _, name := range t.branchNames() {
		b := t.branches[name]
		if b.name != name {
			did(ProblemBranchName, "", name, "branch stored under "+quote(name)+" now has that name (was "+quote(b.name)+")")
			b.name = name
		}
		if b.leaf != "" && t.nodes[b.leaf] == nil {
			did(ProblemDanglingLeaf, b.leaf, name, "branch "+quote(name)+" pointed at missing node "+quote(b.leaf)+" and is now leafless")
			b.leaf = ""
		}
		if s := b.summary; s != nil && (s.Branch != name || !t.pathContains(b.leaf, s.NodeID)) {
			if b.leaf == "" {
				did(ProblemBadSummary, s.NodeID, name, "dropped the summary of leafless branch "+quote(name))
				b.summary = nil
				continue
			}
			fixed := *s
			fixed.Branch, fixed.NodeID = name, b.leaf
			b.summary = &fixed
			did(ProblemBadSummary, b.leaf, name, "the summary of branch "+quote(name)+" is now as of its leaf "+quote(b.leaf))
		}
	}
	if t.branches[MainBranch] == nil {
		t.addBranch(&branch{name: MainBranch})
		did(ProblemMissingMain, "", MainBranch, `added an empty branch "main"`)
	}
	if t.branches[t.active] == nil {
		did(ProblemUnknownActive, "", t.active, "the active branch is now \"main\" (was "+quote(t.active)+")")
		t.active = MainBranch
	}
	// What each fix touched, for the store's feed and for listeners.
	for _, p := range out {
		if p.Node != "" && t.nodes[p.Node] != nil {
			t.noteNode(p.Node)
		}
		if p.Branch != "" {
			t.noteBranch(p.Branch)
		}
	}
	if len(out) > 0 {
		t.noteMeta()
	}
	return out
}

// oldestOnCycle returns the node with the smallest (created, id) on the parent
// cycle through id.
func (t *Tree) oldestOnCycle(id string) string {
	best := id
	for cur := t.nodes[id].parent; cur != id; cur = t.nodes[cur].parent {
		if n, b := t.nodes[cur], t.nodes[best]; before(n.created, cur, b.created, best) {
			best = cur
		}
	}
	return best
}

// repairKeyDups gives each message that names a key twice the meaning
// JSON.parse reads in it: the last member of each such key.
func (t *Tree) repairKeyDups(did func(kind, node, branch, msg string)) {
	ids := make([]string, 0, len(t.keyDups))
	for id := range t.keyDups {
		ids = append(ids, id)
	}
	sortStrings(ids)
	t.keyDups = nil
	for _, id := range ids {
		n := t.nodes[id]
		if n == nil {
			continue
		}
		msg, dropped, err := rawjson.KeepLastKeys(n.msg)
		if err != nil || len(dropped) == 0 {
			continue
		}
		n.msg = Message(msg)
		t.noteNode(id)
		for _, d := range dropped {
			did(ProblemDuplicateKey, id, "", "node "+quote(id)+": kept the last "+quote(d.Key)+" of its message (dropped an earlier one at "+d.Where()+"), as JSON.parse reads it")
		}
	}
}
