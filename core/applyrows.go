package core

import (
	"bytes"
	"slices"

	"github.com/sessiontree/sessiontree/core/rawjson"
)

// ApplyRows brings into t what another copy of the tree changed, given as the
// rows that copy's TakeChanges named (its NodeJSON and BranchJSON, a nil JSON
// for a record it removed), with that copy's root. It is what a second tab or
// device does with a delta instead of reloading or merging the whole tree:
// applied to a copy that was equal to the other before its changes, the copy
// is equal to it after (Marshal gives the same bytes), active branch aside.
//
// The active branch stays t's own unless follow is set or t's is gone; then it
// becomes active (when that names a live branch after the rows).
//
// Rows are checked before anything changes: a row that is not valid JSON of
// its record is CodeCorrupt; a node row that contradicts a node t has (another
// parent, time or message under the same id), or a node or branch whose
// parent or leaf is in neither t nor the rows, is CodeConflict: the copies
// diverged beyond what a delta can carry, and the caller merges instead. On
// error t is unchanged. A node t has keeps the children only t knows of, and
// the later of the two labels, so a delta never loses a local message. Only
// what the rows change is told (Version, the feeds): rows t already holds,
// a delta delivered twice, change nothing.
func (t *Tree) ApplyRows(root, active string, follow bool, branches, nodes []Fragment) error {
	var liveB, liveN []Fragment
	for _, f := range branches {
		if f.JSON != nil {
			liveB = append(liveB, f)
		}
	}
	for _, f := range nodes {
		if f.JSON != nil {
			liveN = append(liveN, f)
		}
	}
	// The rows decode as the members of a file do; a root or active branch
	// they do not hold is fine here (checked against t below).
	p, err := UnmarshalOwned(rowsFile("", MainBranch, liveB, liveN))
	if err != nil {
		return newError(CodeCorrupt, "the changes do not decode: "+err.(*Error).Message)
	}
	if len(p.dups) > 0 || len(p.nodes) != len(liveN) {
		return newError(CodeCorrupt, "the changes name a node twice")
	}
	if len(p.branches)+len(p.tombs)+len(p.hidden) < len(liveB) {
		return newError(CodeCorrupt, "the changes name a branch twice")
	}
	gone := make(map[string]bool)
	for _, f := range nodes {
		if f.JSON == nil {
			gone[f.Key] = true
		}
	}
	has := func(id string) bool { return p.nodes[id] != nil || (t.nodes[id] != nil && !gone[id]) }
	for id, n := range p.nodes {
		if n.id != id {
			return newError(CodeCorrupt, "the changes' row "+quote(id)+" holds the node "+quote(n.id)+"; a row is keyed by its node's id")
		}
		if e := t.nodes[id]; e != nil && (e.parent != n.parent || e.created != n.created || !bytes.Equal(e.msg, n.msg)) {
			return newError(CodeConflict, "node "+quote(id)+" differs between the two copies; merge them instead")
		}
		if n.parent != "" && !has(n.parent) {
			return newError(CodeConflict, "node "+quote(id)+"'s parent "+quote(n.parent)+" is in neither copy; merge or reload instead")
		}
	}
	for name, b := range p.branches {
		// A file may keep a branch stored under another name for Validate
		// and Repair; another copy's rows never hold one (found by
		// FuzzApplyRows).
		if b.name != name {
			return newError(CodeCorrupt, "the changes' row "+quote(name)+" holds the branch "+quote(b.name)+"; a row is keyed by its branch's name")
		}
		if b.leaf != "" && !has(b.leaf) {
			return newError(CodeConflict, "branch "+quote(b.name)+"'s leaf "+quote(b.leaf)+" is in neither copy; merge or reload instead")
		}
	}
	for id := range gone {
		if e := t.nodes[id]; e != nil {
			for _, c := range e.children {
				if !gone[c] {
					return newError(CodeConflict, "node "+quote(id)+" was removed in the other copy, but this copy has a child of it, "+quote(c)+"; merge them instead")
				}
			}
		}
	}
	// A branch of t that ends at a removed node, and that the rows leave as it
	// is, would point at nothing (found by a random run of the JS API: the
	// other copy had deleted the branch, then pruned its messages, in feeds
	// this copy did not take in).
	if len(gone) > 0 {
		named := make(map[string]bool, len(branches))
		for _, f := range branches {
			named[f.Key] = true
		}
		stale := ""
		for name, b := range t.branches {
			if gone[b.leaf] && !named[name] && (stale == "" || name < stale) {
				stale = name
			}
		}
		if stale != "" {
			return newError(CodeConflict, "node "+quote(t.branches[stale].leaf)+" was removed in the other copy, but this copy's branch "+quote(stale)+" ends at it; merge them instead")
		}
	}
	// A loop of parent links can only be among the rows' new nodes (a node t
	// has is equal in the rows, and t has none), so the rows' own tree shows it.
	keys := make([]string, len(liveN))
	for i, f := range liveN {
		keys[i] = f.Key
	}
	if loops := p.cycleEntries(keys); len(loops) > 0 {
		return newError(CodeCorrupt, "the changes' parent links through node "+quote(loops[0])+" form a cycle")
	}
	if root != "" && !has(root) {
		return newError(CodeConflict, "the root "+quote(root)+" is in neither copy; merge or reload instead")
	}
	if r := p.nodes[root]; root != "" && (r != nil && r.parent != "" || r == nil && t.nodes[root].parent != "") {
		return newError(CodeCorrupt, "the changes' root "+quote(root)+" has a parent")
	}
	// Every tree has "main" (DeleteBranch refuses it): rows that would leave
	// none are not another copy's.
	for _, f := range branches {
		if f.Key == MainBranch && p.branches[MainBranch] == nil {
			return newError(CodeCorrupt, `the changes remove the branch "main", which every tree keeps`)
		}
	}

	version := t.version // what the rows change moves it; nothing else does
	// A branch row is told of when the name's record differs after all the
	// rows, not when it differs from the one it replaces: a row before it
	// may have changed it already (moved its family's kept summaries here).
	was := make([][]byte, len(branches))
	for i, f := range branches {
		was[i] = t.branchRecord(f.Key)
	}

	// Nodes: removals first (a pruned subtree goes whole), then additions, each
	// linked under its parent in (created, id) order.
	var dropped []*node
	for _, f := range nodes {
		if n := t.nodes[f.Key]; f.JSON == nil && n != nil {
			t.dropNode(f.Key)
			dropped = append(dropped, n)
		}
	}
	if orphans(t, dropped) {
		t.forgetDepths() // what the orphans' subtrees knew of their depths is no longer true
	}
	var added []*node
	for _, f := range liveN {
		n := p.nodes[f.Key]
		if e := t.nodes[f.Key]; e != nil {
			if n.labelTime() >= e.labelTime() && (n.labelText() != e.labelText() || n.labelTime() != e.labelTime()) {
				e.lab = n.lab
				t.runs = nil // runs.go builds them again
				t.noteNode(e.id)
			}
			continue
		}
		n.children, n.up, n.jump, n.depth, n.run = nil, nil, nil, 0, nil
		t.nodes[n.id] = n
		t.noteNode(n.id)
		added = append(added, n)
	}
	for _, n := range added {
		t.logAttach(n.parent, n.id)
		if n.parent == "" {
			t.insertOrdered(&t.roots, n.id, n.created)
			continue
		}
		n.up = t.nodes[n.parent]
		t.insertOrdered(&n.up.children, n.id, n.created)
		t.noteNode(n.parent)
	}

	// Branch records: each row replaces the name's record whole (live,
	// deleted or hidden) and, at its family's home, the kept summaries.
	for _, f := range branches {
		name := f.Key
		fam := family(name)
		wasHome := len(t.shelf[fam]) > 0 && t.shelfHome(fam) == name
		if b := t.branches[name]; b != nil {
			delete(t.branches, name)
			t.names.remove(name)
		}
		delete(t.tombs, name)
		delete(t.hidden, name)
		if b := p.branches[name]; b != nil {
			t.branches[name] = b
			t.names.add(name)
			t.clock = max(t.clock, b.used)
		}
		if s := p.tombs[name]; s != nil {
			if t.tombs == nil {
				t.tombs = make(map[string]*tombstone)
			}
			t.tombs[name] = s
		}
		if h := p.hidden[name]; h != nil {
			if t.hidden == nil {
				t.hidden = make(map[string]*branch)
			}
			t.hidden[name] = h
		}
		for _, b := range [...]*branch{p.branches[name], p.hidden[name]} {
			if b != nil {
				if _, ok := rawjson.Lookup(f.JSON, "moved_at_ms"); !ok {
					b.moved = t.movedDefault(b)
				}
			}
		}
		if kept := p.shelf[fam]; len(kept) > 0 {
			if t.shelf == nil {
				t.shelf = make(map[string][]Summary)
			}
			t.shelf[fam] = kept
		} else if wasHome {
			delete(t.shelf, fam)
		}
	}
	for i, f := range branches {
		if !bytes.Equal(t.branchRecord(f.Key), was[i]) { // a record is never empty
			t.noteBranch(f.Key)
		}
	}
	if len(branches) > 0 {
		t.branchGen++ // the records are new ones, whatever they hold (edit.go's memo)
	}
	wasRoot, wasActive := t.root, t.active

	// The sender's root, or with none named (a copy with no nodes of its own
	// yet) t's while it stands: nodes that only t has stay, and so does the
	// root over them.
	if n := t.nodes[root]; n != nil {
		root = n.id
	} else if r := t.nodes[t.root]; r != nil && r.parent == "" {
		root = t.root
	} else {
		root = t.firstRoot()
	}
	t.root = root
	if follow || t.branches[t.active] == nil {
		if b := t.branches[active]; b != nil {
			t.active = b.name
		}
	}
	if t.branches[t.active] == nil {
		t.active = MainBranch // the other copy deleted this copy's branch and names none that stands
	}
	if t.version != version || t.root != wasRoot || t.active != wasActive {
		// Rows that change nothing (a delta of nothing, or one delivered
		// twice) move neither the version nor a feed: before Dec 5 they did,
		// and a sync client took its tree for edited, and every listener
		// heard of it.
		t.noteMeta()
	}
	return nil
}

// branchRecord is the row of name (BranchJSON's), nil when t has no record of
// it: live, deleted or hidden.
func (t *Tree) branchRecord(name string) []byte {
	if t.branches[name] == nil && t.tombs[name] == nil && t.hiddenRecord(name) == nil {
		return nil
	}
	return t.appendBranchJSON(nil, name)
}

// orphans reports whether a node of dropped left a child behind (the checks
// above refuse that; kept in case).
func orphans(t *Tree, dropped []*node) bool {
	for _, n := range dropped {
		for _, c := range n.children {
			if t.nodes[c] != nil {
				return true
			}
		}
	}
	return false
}

// dropNode removes node id for ApplyRows: out of its parent's children (or the
// roots), and its children, if any stay, are left without a parent node.
func (t *Tree) dropNode(id string) {
	t.shapeGen++
	n := t.nodes[id]
	delete(t.nodes, id)
	t.noteNode(id)
	if list := t.siblingList(n.parent); list != nil {
		if i := slices.Index(*list, id); i >= 0 {
			*list = slices.Delete(*list, i, i+1)
		}
		t.noteNode(n.parent)
	}
	for _, c := range n.children {
		if k := t.nodes[c]; k != nil && k.up == n {
			k.up = nil
		}
	}
}

// TakeOver makes t, another copy's whole tree (a delta of every row: the
// rows TakeChanges answered with All, as a file), the next state of old, the
// copy it replaces, or says why it cannot: each node both hold keeps the later
// of its two labels (by label time), as ApplyRows and Merge keep them; the
// active branch is keep when keep is not "" and t holds it (the copy's own
// place), else t's; a node both hold must be the same message at the same
// place and time (CodeConflict otherwise); and t must be sound (Validate
// finds nothing), or it is CodeCorrupt and old stays as it was. Without the check, rows with no branch
// (a "sync" feed's first answer, which means "push the whole tree", or the
// first part of a feed taken in parts) replaced a tree with nothing, every
// message gone; without the labels, a label set or cleared on old after the
// other copy's came back (both found by the JS API's random run).
func (t *Tree) TakeOver(old *Tree, keep string) error {
	for id, n := range t.nodes {
		// A node both hold is one message at one place, as ApplyRows requires
		// of a delta: before Dec 5 a delta of every row put another copy's
		// content over old's under the same id, and the sync feed then named a
		// node a synced copy refused.
		if o := old.nodes[id]; o != nil && (o.parent != n.parent || o.created != n.created || !bytes.Equal(o.msg, n.msg)) {
			return newError(CodeConflict, "node "+quote(id)+" differs between the two copies; merge them instead")
		}
	}
	for id, n := range t.nodes {
		if o := old.nodes[id]; o != nil && o.lab != nil && o.labelTime() > n.labelTime() {
			l := *o.lab
			n.lab = &l
			t.runs = nil // runs.go builds them again
			t.noteNode(id)
		}
	}
	if keep != "" && keep != t.active && t.branches[keep] != nil {
		if err := t.SwitchBranch(keep); err != nil {
			return err
		}
	}
	if p := t.Validate(); len(p) > 0 {
		return newError(CodeCorrupt, "the rows do not make a whole tree ("+p[0].Message+"); a delta with every row carries the other copy's whole tree")
	}
	return nil
}

// ApplyDelta is ApplyRows of a delta document: the JSON object
// {"root","active","nodes":{id: node},"deleted_nodes":[id…],
// "branches":{name: branch},"deleted_branches":[name…]} whose "nodes" and
// "branches" hold records as .tree.json does (what the edge worker pushes to
// live clients for each stored write). Other members (type, id, etag,
// version…) are the sender's and are skipped. A document that is not one is
// CodeCorrupt, and t is unchanged.
func (t *Tree) ApplyDelta(data []byte, follow bool) error {
	var root, active string
	var branches, nodes []Fragment
	d := rawjson.NewDecoder(data)
	bad := func(what string) error { return newError(CodeCorrupt, "not a delta: "+what) }
	if d.Peek() != '{' {
		return bad("the top level is not a JSON object")
	}
	seen := map[string]bool{}
	members := func(into *[]Fragment) error {
		return d.Object(func(key string) error {
			raw, err := d.Raw()
			if err == nil && raw[0] != '{' {
				err = bad("a record is not an object")
			}
			*into = append(*into, Fragment{Key: key, JSON: raw})
			return err
		})
	}
	removed := func(into *[]Fragment) error {
		return d.Array(func() error {
			key, err := d.String()
			*into = append(*into, Fragment{Key: key})
			return err
		})
	}
	err := d.Object(func(key string) error {
		if seen[key] {
			return bad("the member " + quote(key) + " appears twice")
		}
		seen[key] = true
		var err error
		switch key {
		case "root":
			if !d.Null() {
				root, err = d.String()
			}
		case "active":
			active, err = d.String()
		case "nodes":
			err = members(&nodes)
		case "deleted_nodes":
			err = removed(&nodes)
		case "branches":
			err = members(&branches)
		case "deleted_branches":
			err = removed(&branches)
		default:
			err = d.Skip()
		}
		return err
	})
	if err == nil {
		err = d.End()
	}
	if err != nil {
		if e, ok := err.(*Error); ok {
			return e
		}
		return bad(err.Error())
	}
	if !seen["active"] {
		return bad(`it has no "active" branch`)
	}
	return t.ApplyRows(root, active, follow, branches, nodes)
}
