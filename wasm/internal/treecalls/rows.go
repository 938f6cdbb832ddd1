package treecalls

import (
	"strconv"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/rawjson"
)

// Rows: a store that keeps one record per node and per branch (IndexedDB, a
// SQL table) writes what a change touched, not the whole tree (issue 16).

// takeChanges returns the rows a store must write since the previous call,
// one field per line: "all" or "changes" (followed by " more" when the feed
// goes on in the next calls), the root, the active branch, the number of
// branch rows, then each branch's name and row, then each node's id and row. A
// row is the canonical JSON of the record (what .tree.json holds under its
// key: one line, never empty), an empty line for a record removed; names and
// ids hold no line breaks. The first call on a tree answers every row ("all")
// and starts the recording; every later one what changed. With argument 0
// "stored" (a tree made from a store's rows, which holds them all already), a
// first call starts the recording and answers no row. With argument 1, a
// number n > 0, at most n rows are answered (core's TakeChangesUpTo): "more"
// says the rest of the same feed comes from the next calls, before anything
// changed since, so that a huge first feed is written without holding all of
// its rows at once (only its first part is "all"). With argument 0 "sync",
// the rows of a sync client's feed (core's TakeSynced), kept apart from the
// store's: "all" with no rows on its first call (push the whole tree).
func takeChanges(r *Request) ([]byte, error) {
	t := r.tree
	var c core.Changes
	more := false
	limit := 0
	if len(r.args) > 1 {
		n, ok := rawjson.Atoi(string(r.args[1]))
		if !ok || n < 1 {
			return nil, invalid("takeChanges: the limit must be a whole number above 0")
		}
		limit = n
	}
	kind := "changes"
	if len(r.args) > 0 && string(r.args[0]) == "sync" {
		// A sync client's feed (core's TakeSynced), apart from the store's:
		// "all" with no rows on its first call: the client pushes the tree.
		if c = t.TakeSynced(); c.All {
			kind, c = "all", core.Changes{}
		}
	} else if !r.entry.tracking && len(r.args) > 0 && string(r.args[0]) == "stored" {
		r.entry.tracking = true
		t.TakeChangesUpTo(0) // starts the recording, drops a feed under way
	} else if r.entry.tracking {
		c, more = t.TakeChangesUpTo(limit)
	} else {
		r.entry.tracking = true
		c, more = t.TakeEverythingUpTo(limit) // starts the recording
		kind = "all"
	}
	// Sized once and written in place: every row of a 200k-node tree built
	// as a string each and appended to a growing buffer took the module from
	// 138 MB to 918 MB for a 93 MB file.
	size := 256
	if kind == "all" && !more && len(c.Nodes) > 0 {
		size += t.MarshalSize() + 24*len(c.Nodes)
	} else {
		for _, id := range c.Nodes {
			if n, ok := t.Node(id); ok {
				size += 160 + 2*len(id) + len(n.Message) + 20*len(n.Children)
			}
		}
		size += 128 * len(c.Branches)
	}
	b := grow(size)
	if more {
		kind += " more"
	}
	b = line(b, kind)
	b = line(line(b, t.Root()), t.ActiveBranch())
	b = line(b, strconv.Itoa(len(c.Branches)))
	for _, name := range c.Branches {
		b = line(b, name)
		b, _ = t.AppendBranchJSON(b, name)
		b = append(b, '\n')
	}
	for _, id := range c.Nodes {
		b = line(b, id)
		b, _ = t.AppendNodeJSON(b, id)
		b = append(b, '\n')
	}
	return b, nil
}

// line appends s and a line break.
func line(b []byte, s string) []byte { return append(append(b, s...), '\n') }

// applyChanges brings into the tree the rows another copy's takeChanges gave
// (core's ApplyRows), in takeChanges's lines, argument 0: "follow" or "keep"
// (whether the active branch becomes the other copy's), the root, the active
// branch, the number of branch rows, then name/row and id/row pairs, an empty
// row for a record removed. It returns nothing; on failure the tree is as it
// was. Applied rows count as changes for this tree's own takeChanges. With
// two arguments, "follow" or "keep" and a delta document (core's ApplyDelta:
// what the edge worker pushes to live clients), it applies that.
func applyChanges(r *Request) ([]byte, error) {
	b, err := r.arg(0, "changes")
	if err != nil {
		return nil, err
	}
	if len(r.args) == 2 {
		return nil, r.tree.ApplyDelta(r.args[1], string(b) == "follow")
	}
	f := lines(b)
	bad := invalid("applyChanges: the changes are not in takeChanges's form")
	if len(f) < 4 || (f[0] != "follow" && f[0] != "keep") {
		return nil, bad
	}
	nb, ok := rawjson.Atoi(f[3])
	if !ok || nb < 0 || 4+2*nb > len(f) || (len(f)-4-2*nb)%2 != 0 {
		return nil, bad
	}
	rows := func(from, n int) []core.Fragment {
		out := make([]core.Fragment, n)
		for i := range out {
			out[i].Key = f[from+2*i]
			if row := f[from+2*i+1]; row != "" {
				out[i].JSON = []byte(row)
			}
		}
		return out
	}
	branches := rows(4, nb)
	nodes := rows(4+2*nb, (len(f)-4-2*nb)/2)
	return nil, r.tree.ApplyRows(f[1], f[2], f[0] == "follow", branches, nodes)
}

// watch answers the tree's version (argument 0 "version"), or takes what
// changed since the previous take (argument 0 "take"; the first starts the
// watch): {"version","all","meta","nodes","branches"} (core's Version and
// TakeWatched), for the change events of t.subscribe.
func watch(r *Request) ([]byte, error) {
	t := r.tree
	if len(r.args) == 0 || string(r.args[0]) != "take" {
		return strconv.AppendUint(nil, t.Version(), 10), nil
	}
	c := t.TakeWatched()
	b := strconv.AppendUint([]byte(`{"version":`), t.Version(), 10)
	b = append(b, `,"all":`...)
	b = strconv.AppendBool(b, c.All)
	b = append(b, `,"meta":`...)
	b = strconv.AppendBool(b, c.Meta)
	b = append(b, `,"nodes":`...)
	b = rawjson.AppendStrings(b, c.Nodes)
	b = append(b, `,"branches":`...)
	b = rawjson.AppendStrings(b, c.Branches)
	return append(b, '}'), nil
}

// helperRows tells the interchange helper how to bring its copy of the tree
// (what t.projectFor projects in the lean flavour) up to date: "all" when
// the copy must be loaded from save() (the first time, or after a change
// that is no list of added nodes: a removal, a merge, a load in place, more
// than 128 nodes or branch changes), else the rows applyChanges takes with
// "follow": the branches whose rows changed since the last call (an empty
// row for one gone) and the nodes added. So a request in a long chat hands
// the helper a few rows, whatever the number of branches.
func helperRows(r *Request) ([]byte, error) {
	t, e := r.tree, r.entry
	m := &e.helper
	added, ok := t.AddedSince(m.rev)
	named, namedOK := t.BranchesChangedSince(m.rev)
	if m.tree != t || !ok || !namedOK {
		*m = helperCopy{tree: t, rev: t.Revision()}
		return []byte("all"), nil
	}
	seen := make(map[string]bool, len(named))
	names := named[:0]
	for _, name := range named {
		if !seen[name] {
			seen[name] = true
			names = append(names, name)
		}
	}
	b := line(line(line([]byte("follow\n"), t.Root()), t.ActiveBranch()), strconv.Itoa(len(names)))
	for _, name := range names {
		b = line(b, name)
		b, _ = t.AppendBranchJSON(b, name) // nothing for one deleted: an empty row
		b = append(b, '\n')
	}
	for _, a := range added {
		b = line(b, a.Child)
		b, _ = t.AppendNodeJSON(b, a.Child)
		b = append(b, '\n')
	}
	m.rev = t.Revision()
	return b[:len(b)-1], nil // no line break after the last row
}

// helperCopy is what helperRows last told the helper: the tree (a load in
// place replaces it) and its revision then.
type helperCopy struct {
	tree *core.Tree
	rev  core.Revision
}
