// Package core is the conversation tree: every message of a chat is a node with
// a parent, the user can rewind to any earlier message and continue (a fork),
// every line of work stays addressable under a branch name, and the active branch
// projects to the plain message list a model consumes.
//
// Nothing here does I/O or keeps globals, but for the optional yield hook a
// single-threaded host sets once (SetYield, yield.go); every operation that
// records a time takes it as an argument. No operation recurses over the tree, loops forever or
// panics, whatever the input; projections of a corrupt tree fail with CodeCorrupt.
package core

import (
	"slices"

	"github.com/sessiontree/sessiontree/core/rawjson"
)

// MainBranch is the branch every tree starts with.
const MainBranch = "main"

// Tree is a conversation tree. The zero value is not usable; call New, FromLinear
// or Unmarshal. A Tree is not safe for concurrent use.
type Tree struct {
	root     string
	active   string
	nodes    map[string]*node
	roots    []string // parentless nodes, ordered like children
	branches map[string]*branch
	tombs    map[string]*tombstone // deleted branch names → which instances and when (see DeleteBranchAt), for Merge
	shelf    map[string][]Summary  // summaries no branch shows, by branch family, for Merge (see appendKeptSummaries)
	hidden   map[string]*branch    // conflict branches a merge hides but remembers, for Merge (see normalize); a live branch of the same name masks one
	names    freshNames
	clock    int64 // last value given to branch.used
	newID    func() string
	ownIDs   bool    // newID is this tree's own randomIDs source (not WithIDSource's): a copy gets one of its own
	dups     []*node // later nodes of duplicate keys in a loaded file, for Validate
	// keyDups holds the nodes whose message names a key twice, by id, with
	// where: loaded with KeepDuplicateKeys, for Validate and Repair. Every
	// walk up a path fails closed on one (walkUp), so no projection or export
	// sends a model one reading of a message a page shows with the other.
	keyDups     map[string]string
	keepKeyDups bool
	journal     *journal // open during Apply
	spare       *journal // the last journal, kept to reuse its memory
	changed     *changes // nil unless TrackChanges was called
	watched     *changes // nil unless TakeWatched was called (change events, independent of the store's feed)
	synced      *changes // nil unless TakeSynced was called (a sync client's feed, independent of both)
	version     uint64   // counts the changes noted (noteNode, noteBranch, noteMeta): see Version
	rest        *Changes // the part of a feed TakeChangesUpTo has yet to hand out, or nil
	slab        []node   // nodes set aside for appends: a block at a time, or a whole Apply batch
	branchSlab  []branch // branches set aside for new ones, a block at a time (newBranch)
	childSlab   []string // room for first children, a block at a time (firstChild)
	act         *branch  // memo of branches[active], valid while actGen == branchGen
	actGen      uint64
	// branchGen counts adds and removals of branches on this tree (journal.go),
	// so that the memo of the active branch never outlives its map entry.
	branchGen uint64
	// recent heads the chain of branches by last use (recent.go), valid
	// while recentOK and recentGen == branchGen.
	recent, recentTail *branch
	recentLen          int
	recentGen          uint64
	recentOK           bool
	// shapeGen counts the changes that can move a node's place (a node
	// removed, up pointers relinked), so that the title Title remembers
	// never outlives them; adding a node moves none.
	shapeGen uint64
	// runs is what Subtree knows of the tree's chains (runs.go), kept up
	// to date by every add and label change; valid while shapeGen is as it
	// saw it.
	runs *runIndex
	ends *branchEnds // where branches end, for Subtree (ends.go); nil until read
	// loaded holds the blocks of nodes a load made, every one in the map,
	// as of loadedAt: until the first read of runs, which finds them there
	// faster than in the map.
	loaded   [][]node
	loadedAt Revision
	// inOrder holds the blocks of nodes a load made when the file listed
	// them strictly sorted by key, each stored under its id (a canonical
	// file): their order is the keys' order while shapeGen is inOrderGen (no
	// node removed or relinked), so a first store feed, Validate or a save of
	// a loaded tree lists its keys without sorting them (200k generated ids,
	// sharing their first 8 bytes, took ~0.5 s to sort in the browser, in
	// one task of an import). inOrderAdded lists the nodes added since.
	inOrder      [][]node
	inOrderGen   uint64
	inOrderAdded []string
	// canon is the "nodes" object of the file a load read, when that file
	// wrote it byte for byte as Marshal writes the nodes (loader.canonical):
	// valid while shapeGen is canonShape and nodeGen is canonGen (no node
	// added, removed, relinked or changed since), so that a save copies it
	// whole instead of writing each node again (issue 26).
	canon      []byte
	canonShape uint64
	canonGen   uint64
	// nodeGen counts the changes to nodes noted (noteNode).
	nodeGen uint64
	// title is the last non-empty Title and the root and shapeGen it was
	// read at: messages never change, so only a new root or a removal near
	// it can change a title once there is one (subtree.go).
	title struct {
		text, root string
		gen        uint64
	}
	// attaches logs the nodes added, and memos holds data other packages
	// derive from the tree (revision.go): neither is copied by Clone or kept
	// by a Merge.
	attaches  ringLog[Attach]
	branchLog ringLog[string] // the branch rows changed last (BranchesChangedSince)
	memos     []memo
	// summarized: the branches with a summary as of revision summarizedAt
	// (BranchSummaries), kept up from the branch-change log.
	summarized   map[string]bool
	summarizedAt Revision
	// keys checks each new message for keys named twice, its lists kept
	// from one append to the next (an append allocates nothing for them).
	keys rawjson.Keys
}

// node is the stored form of a Node. key is its map key; id is what the file said
// (they differ only in a corrupt file).
type node struct {
	id       string
	parent   string
	children []string
	msg      Message
	lab      *nodeLabel // nil when the node was never labelled
	created  int64
	up       *node    // the node called parent; nil for a root or a dangling parent
	jump     *node    // an ancestor further up, once depth is known (depth.go)
	depth    int32    // the nodes from here up to the root; 0 until known (depth.go)
	mark     uint8    // scratch for walks that visit each node once; always 0 between calls
	run      *runSpan // the run this node starts or ends (runs.go); nil inside one
}

type branch struct {
	name    string
	leaf    string
	summary *Summary
	created int64
	moved   int64 // when leaf was last set, for Merge (see movedDefault)
	used    int64 // logical clock of the last time this branch was active
	// newer and older chain the branches by use (recent.go).
	newer, older *branch
}

// Node is a read-only view of one message in the tree.
type Node struct {
	ID          string
	Parent      string   // "" for a root
	Children    []string // ordered by (CreatedAtMs, ID)
	Message     Message
	Label       string // "" when unlabelled
	CreatedAtMs int64
}

// Branch is a read-only view of a named line of work.
type Branch struct {
	Name        string
	Leaf        string   // "" for a branch with no messages yet
	Summary     *Summary // nil when not summarized
	CreatedAtMs int64
}

// Summary condenses a branch as of one of its nodes.
type Summary struct {
	Summary     string
	NodeID      string // the node the summary is as of, normally the branch's leaf
	Branch      string
	ModelID     string // "" for a caller-written summary
	CreatedAtMs int64
}

// Option configures a Tree made by New, FromLinear or Unmarshal.
type Option func(*Tree)

// WithIDSource makes the tree take new node ids from next, for deterministic
// tests. Ids it returns that are already in use are skipped.
func WithIDSource(next func() string) Option {
	return func(t *Tree) { t.newID = next }
}

// KeepDuplicateKeys makes Unmarshal keep a message that names a key twice
// (which it otherwise refuses as CodeCorrupt), as a problem for Validate to
// report and Repair to fix; until then a projection through it fails closed.
// It is how a file written before such messages were refused is opened.
func KeepDuplicateKeys() Option {
	return func(t *Tree) { t.keepKeyDups = true }
}

// New returns an empty tree: no nodes, one leafless branch MainBranch, active.
func New(opts ...Option) *Tree {
	t := empty(opts)
	t.runs = &runIndex{sound: true}
	t.addBranch(&branch{name: MainBranch})
	t.active = MainBranch
	return t
}

func empty(opts []Option) *Tree {
	t := &Tree{
		nodes:    make(map[string]*node),
		branches: make(map[string]*branch),
		names:    freshNames{low: 1},
	}
	for _, o := range opts {
		o(t)
	}
	if t.newID == nil {
		t.newID, t.ownIDs = randomIDs(), true
	}
	return t
}

// FromLinear builds the single-path tree of msgs, each stamped atMs, with
// MainBranch's leaf at the last message. Zero messages give New().
func FromLinear(msgs []Message, atMs int64, opts ...Option) (*Tree, error) {
	t := New(opts...)
	if len(msgs) == 0 {
		return t, nil // exactly New(): main keeps New's stamp, and no "moved_at_ms"
	}
	t.branches[MainBranch].created = atMs
	for i, m := range msgs {
		if _, err := t.Append(m, atMs); err != nil {
			return nil, newError(CodeInvalidInput, "message "+itoa(i)+": "+err.(*Error).Message)
		}
	}
	// One move, at atMs: the appends dated each move just after the last
	// (setLeaf), which would put main's move len(msgs) ms after atMs.
	t.branches[MainBranch].moved = atMs
	return t, nil
}

// Root is the id of the tree's first node, or "" for an empty tree.
func (t *Tree) Root() string { return t.root }

// ActiveBranch is the name of the branch that appends go to.
func (t *Tree) ActiveBranch() string { return t.active }

// Len is the number of nodes.
func (t *Tree) Len() int { return len(t.nodes) }

// Node returns the node with id, or false.
func (t *Tree) Node(id string) (Node, bool) {
	tick()
	n := t.nodes[id]
	if n == nil {
		return Node{}, false
	}
	return Node{ID: id, Parent: n.parent, Children: slices.Clone(n.children), Message: n.msg,
		Label: n.labelText(), CreatedAtMs: n.created}, true
}

// Branches lists every branch, ordered by name.
func (t *Tree) Branches() []Branch {
	out := make([]Branch, 0, len(t.branches))
	for _, name := range t.branchNames() {
		out = append(out, t.branches[name].view())
	}
	return out
}

// LookupBranch returns the branch called name, or false.
func (t *Tree) LookupBranch(name string) (Branch, bool) {
	b := t.branches[name]
	if b == nil {
		return Branch{}, false
	}
	return b.view(), true
}

func (b *branch) view() Branch {
	v := Branch{Name: b.name, Leaf: b.leaf, CreatedAtMs: b.created}
	if b.summary != nil {
		s := *b.summary
		v.Summary = &s
	}
	return v
}

// NodeID returns the id of the node whose id is the bytes b, as the tree
// keeps it, and true; or false when there is no such node. A caller holding
// an id as bytes (the module's input buffer) finds the node without copying
// them into a string of its own.
func (t *Tree) NodeID(b []byte) (string, bool) {
	if n := t.nodes[string(b)]; n != nil {
		return n.id, true
	}
	return "", false
}

// HasBranches reports whether the tree has more than its main branch, i.e. is no
// longer the plain linear session.
func (t *Tree) HasBranches() bool { return len(t.branches) > 1 }

func (t *Tree) branchNames() []string {
	names := make([]string, 0, len(t.branches))
	for name := range t.branches {
		names = append(names, name)
	}
	sortStrings(names)
	return names
}

// Clone returns an independent copy of the tree. Messages are immutable and shared.
func (t *Tree) Clone() *Tree {
	c := &Tree{root: t.root, active: t.active, clock: t.clock, newID: t.idSource(), ownIDs: t.ownIDs,
		nodes:    make(map[string]*node, len(t.nodes)),
		branches: make(map[string]*branch, len(t.branches)),
		roots:    slices.Clone(t.roots),
		names:    t.names.clone(),
	}
	if t.tombs != nil {
		// Tombstones are never changed in place, only replaced.
		c.tombs = make(map[string]*tombstone, len(t.tombs))
		for k, v := range t.tombs {
			c.tombs[k] = v
		}
	}
	if t.shelf != nil {
		// Kept lists are never changed in place, only replaced.
		c.shelf = make(map[string][]Summary, len(t.shelf))
		for k, v := range t.shelf {
			c.shelf[k] = v
		}
	}
	for k, n := range t.nodes {
		cn := *n
		cn.children = slices.Clone(n.children)
		cn.run = nil // the runs are the tree's (runs.go)
		c.nodes[k] = &cn
	}
	for k, b := range t.branches {
		cb := *b
		if b.summary != nil {
			s := *b.summary
			cb.summary = &s
		}
		c.branches[k] = &cb
	}
	if t.hidden != nil {
		// Hidden records are never changed in place, only replaced.
		c.hidden = make(map[string]*branch, len(t.hidden))
		for k, h := range t.hidden {
			c.hidden[k] = h
		}
	}
	for _, d := range t.dups {
		cd := *d
		c.dups = append(c.dups, &cd)
	}
	if t.keyDups != nil {
		c.keyDups = make(map[string]string, len(t.keyDups))
		for k, v := range t.keyDups {
			c.keyDups[k] = v
		}
	}
	c.linkUp()
	return c
}

// before orders siblings by (created, id).
func before(aCreated int64, aID string, bCreated int64, bID string) bool {
	if aCreated != bCreated {
		return aCreated < bCreated
	}
	return aID < bID
}

// nodeLabel is a node's label and when it was last set or cleared (LabelAt), for
// Merge. Few nodes have one, so it lives behind a pointer; it is never modified,
// only replaced.
type nodeLabel struct {
	text string
	at   int64 // 0 if never timed
}

func newLabel(text string, at int64) *nodeLabel {
	if text == "" && at == 0 {
		return nil
	}
	return &nodeLabel{text: text, at: at}
}

func (n *node) labelText() string {
	if n.lab == nil {
		return ""
	}
	return n.lab.text
}

func (n *node) labelTime() int64 {
	if n.lab == nil {
		return 0
	}
	return n.lab.at
}

// linkUp sets every node's up pointer from its parent id, and forgets what
// the nodes knew of their depths (depth.go).
func (t *Tree) linkUp() {
	t.shapeGen++
	for _, n := range t.nodes {
		n.up, n.jump, n.depth = nil, nil, 0
		if n.parent != "" {
			n.up = t.nodes[n.parent]
		}
	}
}

// byAge compares node ids by (created, id), the order of children.
func (t *Tree) byAge(a, b string) int {
	na, nb := t.nodes[a], t.nodes[b]
	switch {
	case a == b:
		return 0
	case before(na.created, a, nb.created, b):
		return -1
	}
	return 1
}

// siblingList returns the ordered list that holds children of parent: the
// parent's children, or the roots for "".
func (t *Tree) siblingList(parent string) *[]string {
	if parent == "" {
		return &t.roots
	}
	if p := t.nodes[parent]; p != nil {
		return &p.children
	}
	return nil
}

// insertOrdered puts id into list at its (created, id) position: after the
// last entry that sorts before it (or that is not a node).
func (t *Tree) insertOrdered(list *[]string, id string, created int64) {
	l := *list
	if n := len(l); n == 0 || t.sortsBefore(l[n-1], created, id) != 0 {
		if cap(l) == 0 {
			l = t.firstChild()
		}
		*list = append(l, id) // the usual case: the newest child
		return
	}
	i := t.insertionPoint(l, id, created)
	l = append(l, "") // slices.Insert, written out: one instantiation less in the browser module
	copy(l[i+1:], l[i:])
	l[i] = id
	*list = l
}

// firstChild returns an empty list with room for one child, from a block of
// childBlock: most nodes of a chat have one child, and an append then
// allocates nothing for its parent's list (a second child moves the list out).
func (t *Tree) firstChild() []string {
	if len(t.childSlab) == 0 {
		t.childSlab = make([]string, childBlock)
	}
	l := t.childSlab[:0:1]
	t.childSlab = t.childSlab[1:]
	return l
}

// childBlock is how many one-child lists firstChild allocates at a time.
const childBlock = 64

// sortsBefore reports 1 when sibling sorts before (created, id), -1 when it
// sorts after, and 2 when it is not a node.
func (t *Tree) sortsBefore(sibling string, created int64, id string) int {
	prev := t.nodes[sibling]
	switch {
	case prev == nil:
		return 2
	case before(prev.created, sibling, created, id):
		return 1
	}
	return 0
}

// insertionPoint finds where id goes in l, whose last entry sorts after it,
// by a binary search over the siblings (regenerating one reply a thousand
// times in a millisecond gives it a thousand siblings of one time); an entry
// that is not a node, which only a corrupt tree holds, falls back to the
// walk from the end that insertOrdered defines. Each sibling looked at ticks.
func (t *Tree) insertionPoint(l []string, id string, created int64) int {
	lo, hi := 0, len(l)-1 // l[hi] sorts after id; everything below lo before it
	for lo < hi {
		tick()
		mid := int(uint(lo+hi) >> 1)
		switch t.sortsBefore(l[mid], created, id) {
		case 1:
			lo = mid + 1
		case 0:
			hi = mid
		default:
			i := len(l) - 1
			for i > 0 && t.sortsBefore(l[i-1], created, id) == 0 {
				tick()
				i--
			}
			return i
		}
	}
	return lo
}

// Not inlined: a cold helper, one copy instead of one per call site (module size).
//
//go:noinline
func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var buf [20]byte
	i := len(buf)
	neg := n < 0
	if neg {
		n = -n
	}
	for n > 0 {
		i--
		buf[i] = byte('0' + n%10)
		n /= 10
	}
	if neg {
		i--
		buf[i] = '-'
	}
	return string(buf[i:])
}
