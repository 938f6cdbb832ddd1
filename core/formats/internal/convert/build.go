package convert

import (
	"sort"
	"strconv"
	"unicode/utf8"

	"github.com/sessiontree/sessiontree/core"
)

// Builder grows an imported tree record by record. Records may name a parent
// that comes later in the file (they wait for it), a parent that never comes
// (they become roots, reported), or an id already used (renamed, reported):
// nothing is dropped.
type Builder struct {
	Tree   *core.Tree
	Report *Report
	ids    []string // inserted, in insertion order
	// state of every id added: known, inserted, and (once inserted) whether a
	// node was inserted under it.
	state map[string]uint8
	// waiting holds records whose parent has not been inserted yet, by parent.
	waiting map[string][]*waiting
	queue   []*waiting // every waiting record, in arrival order
	// unnamed holds the leaves an export left on no branch (the tree-level
	// extension's "unnamed"), which an import leaves so.
	unnamed map[string]bool
	// Within a conversation (BeginConversation): the id each of its
	// records was given, by the id in the file, and the records whose
	// parent the conversation has not given yet, in arrival order.
	local      map[string]string
	localWait  map[string][]*waiting
	localQueue []*waiting
	added      int // records added
	// tildes holds, for each id a record duplicated, the next "id~N" to try
	// (unused), and freshK the first "branch-N" freshName tries: every name
	// below them was taken when last looked at, and ids and branches are only
	// ever added while a file is read. Without them each duplicate and each
	// unnamed leaf counted from 2 (from 1) again: a 65 KB SillyTavern file of
	// 50 messages × 250 swipes took 145 s in the worker.
	tildes map[string]int
	freshK int
	probes int // names looked at by unused and freshName (tests)
}

type waiting struct {
	line              int
	id, parent, label string
	msg               core.Message
	at                int64
	done              bool
	local             bool // waiting in localWait
	seq               int  // arrival: Flush keeps the order of the file
}

// NewBuilder starts an empty tree (core.New with opts) for format.
func NewBuilder(format string, opts []core.Option) *Builder {
	return &Builder{
		Tree:    core.New(opts...),
		Report:  &Report{Format: format},
		state:   make(map[string]uint8),
		waiting: make(map[string][]*waiting),
	}
}

// Has reports whether a record with id was added (inserted or waiting).
func (b *Builder) Has(id string) bool { return b.state[id]&known != 0 }

// Inserted reports whether id is a node of the tree already.
func (b *Builder) Inserted(id string) bool { return b.state[id]&inserted != 0 }

const (
	known uint8 = 1 << iota
	inserted
	parentOfSome
)

// IDs lists the inserted nodes in insertion order.
func (b *Builder) IDs() []string { return b.ids }

// Add adds a record as node id under parent ("" for a root) and returns the id
// it was given: id itself, or a renamed id when id is taken or not a legal id.
// Within a conversation, parent names the record the conversation gave that
// id (renamed or not); see BeginConversation.
func (b *Builder) Add(line int, id, parent string, msg core.Message, label string, at int64) string {
	orig := id
	if !legalID(id) {
		fresh := "line-" + strconv.Itoa(line)
		if line == 0 {
			fresh = "record-" + strconv.Itoa(len(b.state)+1)
		}
		fresh = b.unused(fresh)
		if id == "" {
			b.Report.Problemf(line, "", "record has no id: kept as "+strconv.Quote(fresh))
		} else {
			b.Report.Problemf(line, "", "id "+strconv.Quote(id)+" is not a legal node id: kept as "+strconv.Quote(fresh))
		}
		id = fresh
	} else if b.Has(id) {
		fresh := b.unused(id + "~2")
		b.Report.Problemf(line, id, "duplicate id: this record kept as "+strconv.Quote(fresh))
		id = fresh
	}
	b.added++
	w := &waiting{line: line, id: id, parent: parent, msg: msg, label: label, at: at, seq: b.added}
	if b.local != nil {
		if _, seen := b.local[orig]; !seen && orig != "" {
			b.local[orig] = id
		}
		if parent != "" {
			p, ok := b.local[parent]
			if !ok {
				// Not given by this conversation yet: it may come later.
				b.state[id] |= known
				w.local = true
				b.localWait[parent] = append(b.localWait[parent], w)
				b.localQueue = append(b.localQueue, w)
				b.adopt(orig, id)
				return id
			}
			w.parent = p
		}
	}
	if w.parent == id {
		b.Report.Problemf(line, id, "record is its own parent: kept as a root")
		w.parent = ""
	}
	b.state[id] |= known
	b.place(w)
	if b.local != nil {
		b.adopt(orig, id)
	}
	return id
}

// place inserts w, or makes it wait for its parent.
func (b *Builder) place(w *waiting) {
	if w.parent != "" && !b.Inserted(w.parent) {
		b.waiting[w.parent] = append(b.waiting[w.parent], w)
		b.queue = append(b.queue, w)
		return
	}
	b.insert(w.line, w.id, w.parent, w.msg, w.label, w.at)
	b.release(w.id)
}

// adopt places the records of the conversation that named orig as their
// parent before it came, under id.
func (b *Builder) adopt(orig, id string) {
	ws := b.localWait[orig]
	if len(ws) == 0 {
		return
	}
	delete(b.localWait, orig)
	for _, w := range ws {
		w.local, w.parent = false, id
		if w.parent == w.id {
			b.Report.Problemf(w.line, w.id, "record is its own parent: kept as a root")
			w.parent = ""
		}
		b.place(w)
	}
}

// BeginConversation starts a conversation of a file of several: until
// EndConversation, a parent id names the record this conversation gave that
// id, not another conversation's record of the same id (Open WebUI's
// "Clone", a copied ChatGPT conversation share their ids). Before, the
// copy's records hung on the original's.
func (b *Builder) BeginConversation() {
	b.local = make(map[string]string)
	b.localWait = make(map[string][]*waiting)
	b.localQueue = nil
}

// Local returns the id the current conversation gave the record with id in
// the file (id itself outside a conversation or when it gave none).
func (b *Builder) Local(id string) string {
	if v, ok := b.local[id]; ok {
		return v
	}
	return id
}

// EndConversation ends the conversation BeginConversation started: a record
// whose parent it never gave takes the parent's id as it is in the tree (or
// waits for it, see Flush).
func (b *Builder) EndConversation() {
	for _, w := range b.localQueue {
		if w.local {
			w.local = false
			b.place(w)
		}
	}
	b.local, b.localWait, b.localQueue = nil, nil, nil
}

// unused returns id when it is free, else the first free "base~N" from N = 2
// on, base being id up to its last "~" (id itself without one).
func (b *Builder) unused(id string) string {
	b.probes++
	if !b.Has(id) {
		return id
	}
	base := id
	if i := lastTilde(id); i >= 0 {
		base = id[:i]
	}
	n := max(2, b.tildes[base])
	for ; ; n++ {
		b.probes++
		if cand := base + "~" + strconv.Itoa(n); !b.Has(cand) {
			if b.tildes == nil {
				b.tildes = make(map[string]int)
			}
			b.tildes[base] = n + 1 // (Add takes cand)
			return cand
		}
	}
}

func lastTilde(s string) int {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '~' {
			return i
		}
	}
	return -1
}

func legalID(id string) bool {
	if id == "" || len(id) > 256 {
		return false
	}
	if !utf8.ValidString(id) {
		return false
	}
	for _, r := range id {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return false
		}
	}
	return true
}

func (b *Builder) insert(line int, id, parent string, msg core.Message, label string, at int64) {
	if err := b.Tree.InsertNode(id, parent, msg, label, at); err != nil {
		// Only a label that is not UTF-8 can get here: keep the node without it.
		b.Report.Problemf(line, id, err.Error()+": label dropped")
		if err := b.Tree.InsertNode(id, parent, msg, "", at); err != nil {
			b.Report.Problemf(line, id, err.Error())
			return
		}
	}
	b.state[id] |= inserted
	if parent != "" {
		b.state[parent] |= parentOfSome
	}
	b.ids = append(b.ids, id)
}

// release inserts every record waiting (transitively) for id.
func (b *Builder) release(id string) {
	if len(b.waiting) == 0 {
		return
	}
	stack := []string{id}
	for len(stack) > 0 {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		ws := b.waiting[p]
		delete(b.waiting, p)
		for _, w := range ws {
			if w.done {
				continue
			}
			w.done = true
			b.insert(w.line, w.id, p, w.msg, w.label, w.at)
			stack = append(stack, w.id)
		}
	}
}

// Flush makes roots of the records whose parent never came (or that wait for
// each other in a cycle), reporting each one.
func (b *Builder) Flush() {
	// A conversation's records may have queued out of the file's order
	// (EndConversation): the first to arrive is the first made a root.
	sort.SliceStable(b.queue, func(i, j int) bool { return b.queue[i].seq < b.queue[j].seq })
	for _, w := range b.queue {
		if w.done {
			continue
		}
		w.done = true
		if b.Has(w.parent) {
			b.Report.Problemf(w.line, w.id, "parent "+strconv.Quote(w.parent)+" is in a cycle: kept as a root")
		} else {
			b.Report.Problemf(w.line, w.id, "parent "+strconv.Quote(w.parent)+" is not in the file: kept as a root")
		}
		b.insert(w.line, w.id, "", w.msg, w.label, w.at)
		b.release(w.id)
	}
	b.queue = nil
	b.waiting = map[string][]*waiting{}
}

// Finish flushes waiting records and names the branches. With ext (the
// tree-level "sessiontree" extension a previous export wrote) the branches are
// restored as they were, and then the file's own state wins where the tool
// moved on since: the active branch follows active (see follow) and every
// leaf no branch ends at gets a branch, for messages added after the export.
// Without ext, main ends at active (or, when active is "" or not a node, at
// the last leaf added), named branches are kept, and every other leaf gets a
// branch "branch-N" so no line of work is left unnamed.
func (b *Builder) Finish(active string, named []NamedLeaf, ext []byte) (*core.Tree, *Report) {
	b.Flush()
	t := b.Tree
	if ext != nil && b.applyTreeExt(ext) {
		b.follow(active)
		b.nameLeaves(b.leaves())
		b.count()
		return t, b.Report
	}
	if active != "" && !b.Inserted(active) {
		b.Report.Problemf(0, active, "the active leaf is not a node: main ends at the last leaf instead")
		active = ""
	}
	leaves := b.leaves()
	if active == "" && len(leaves) > 0 {
		active = leaves[len(leaves)-1]
	}
	if active != "" {
		_ = t.SetBranch(core.MainBranch, active, 0)
	}
	for _, nl := range named {
		if !b.Inserted(nl.Leaf) {
			continue
		}
		if _, taken := t.LookupBranch(nl.Name); taken || !legalID(nl.Name) {
			continue
		}
		n, _ := t.Node(nl.Leaf)
		_ = t.SetBranch(nl.Name, nl.Leaf, n.CreatedAtMs)
	}
	b.nameLeaves(leaves)
	b.count()
	return t, b.Report
}

// follow makes the active branch end at current, the node the file says its
// tool is at, when that is a node no restored branch ends at: the tool added
// messages (or moved) after the export wrote the branch list. A branch list
// alone would leave those messages on no branch and the active path where
// the export left it. When current continues the active branch's leaf, the
// branch moves down to it; otherwise the tool went elsewhere in the tree, and
// current gets a branch of its own, made active and reported.
func (b *Builder) follow(current string) {
	t := b.Tree
	if current == "" || !b.Inserted(current) {
		return
	}
	if b.unnamed[current] {
		return
	}
	for _, br := range t.Branches() {
		if br.Leaf == current {
			return
		}
	}
	name := t.ActiveBranch()
	if br, ok := t.LookupBranch(name); ok && (br.Leaf == "" || b.descends(current, br.Leaf)) {
		_ = t.SetBranch(name, current, br.CreatedAtMs)
		return
	}
	fresh := b.freshName()
	n, _ := t.Node(current)
	if err := t.SetBranch(fresh, current, n.CreatedAtMs); err != nil {
		return
	}
	_ = t.SwitchBranch(fresh)
	b.Report.Problemf(0, current, "the file's current message does not continue branch "+strconv.Quote(name)+
		" (the tool moved elsewhere after the export): it ends branch "+strconv.Quote(fresh)+", now the active one")
}

// descends reports whether anc is a proper ancestor of id.
func (b *Builder) descends(id, anc string) bool {
	for i := 0; i <= b.Tree.Len(); i++ {
		n, ok := b.Tree.Node(id)
		if !ok || n.Parent == "" {
			return false
		}
		if n.Parent == anc {
			return true
		}
		id = n.Parent
	}
	return false
}

// nameLeaves gives every leaf no branch ends at a branch "branch-N", except
// those an export left unnamed.
func (b *Builder) nameLeaves(leaves []string) {
	t := b.Tree
	covered := make(map[string]bool)
	for _, br := range t.Branches() {
		covered[br.Leaf] = true
	}
	for _, leaf := range leaves {
		if covered[leaf] || b.unnamed[leaf] {
			continue
		}
		n, _ := t.Node(leaf)
		_ = t.SetBranch(b.freshName(), leaf, n.CreatedAtMs)
	}
}

// freshName returns the first "branch-N" not taken.
func (b *Builder) freshName() string {
	for k := max(1, b.freshK); ; k++ {
		b.probes++
		name := "branch-" + strconv.Itoa(k)
		if _, taken := b.Tree.LookupBranch(name); !taken {
			b.freshK = k // (taken once its caller sets it; looked at again if not)
			return name
		}
	}
}

// NamedLeaf asks Finish for a branch called Name ending at Leaf.
type NamedLeaf struct{ Name, Leaf string }

func (b *Builder) count() {
	t := b.Tree
	b.Report.Nodes, b.Report.Roots, b.Report.Branches = t.Len(), 0, len(t.Branches())
	if t.Root() != "" {
		roots, _, _ := t.Siblings(t.Root())
		b.Report.Roots = len(roots)
	}
}

// leaves lists the childless nodes in insertion order.
func (b *Builder) leaves() []string {
	var out []string
	for _, id := range b.ids {
		if b.state[id]&parentOfSome == 0 {
			out = append(out, id)
		}
	}
	return out
}
