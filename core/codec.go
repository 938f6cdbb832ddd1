package core

import (
	"strings"

	"github.com/sessiontree/sessiontree/core/rawjson"
)

// FormatVersion is the version of the .tree.json format this package writes.
// Unmarshal refuses files of a newer version.
const FormatVersion = 1

// Marshal writes the tree as canonical .tree.json: one compact line, the keys of
// tree structures in a fixed order, maps sorted by key, absent optional values
// omitted and messages exactly as they came in. Unmarshal of the result gives a
// tree whose Marshal is the same bytes.
func (t *Tree) Marshal() []byte {
	return t.AppendMarshal(make([]byte, 0, t.MarshalSize()))
}

// AppendMarshal appends the tree's canonical .tree.json (Marshal) to buf and
// returns the extended buffer: a caller that saves often reuses one buffer.
func (t *Tree) AppendMarshal(buf []byte) []byte {
	return t.appendMarshal(buf, false)
}

// MarshalParts appends to buf what Marshal writes before the "nodes" object
// and returns it with that object, when the object is the one the tree was
// loaded from, unchanged since (no node added, removed or changed: a branch
// made, switched to or summarized changes none): Marshal is head, nodes and
// "}", and nodes is the tree's own memory, to be read before the tree
// changes. ok is false, and head and nodes nil, otherwise. A caller that can
// take the file in parts (JavaScript decodes each into a string) writes the
// nodes of a large loaded tree nowhere.
func (t *Tree) MarshalParts(buf []byte) (head, nodes []byte, ok bool) {
	if nodes = t.canonicalNodes(); nodes == nil {
		return nil, nil, false
	}
	return t.appendMarshal(buf, true), nodes, true
}

// appendMarshal is AppendMarshal, or with head what it writes before the
// nodes (MarshalParts).
func (t *Tree) appendMarshal(buf []byte, head bool) []byte {
	if !head {
		if need := len(buf) + t.MarshalSize(); cap(buf) < need {
			buf = append(make([]byte, 0, need), buf...)
		}
	}
	buf = append(buf, `{"format":"sessiontree","version":`...)
	buf = rawjson.AppendInt(buf, FormatVersion)
	if t.root != "" {
		buf = append(buf, `,"root":`...)
		buf = rawjson.AppendString(buf, t.root)
	}
	buf = append(buf, `,"active_branch":`...)
	buf = rawjson.AppendString(buf, t.active)
	buf = append(buf, `,"branches":{`...)
	for i, name := range t.branchKeys() {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = rawjson.AppendString(buf, name)
		buf = append(buf, ':')
		buf = t.appendBranchJSON(buf, name)
	}
	buf = append(buf, `},"nodes":`...)
	if head {
		return buf
	}
	if nodes := t.canonicalNodes(); nodes != nil {
		buf = append(buf, nodes...)
		return append(buf, '}')
	}
	c := MarshalCursor{t: t, version: t.version, nodes: t.sortedNodes(), started: true}
	buf, _ = c.appendNodes(buf, -1)
	return buf
}

// A MarshalCursor writes Marshal's bytes in pieces (Tree.MarshalInPieces), so
// that a caller that hands each piece on (a file written as it comes) never
// holds the whole file.
type MarshalCursor struct {
	t       *Tree
	version uint64      // the tree's when the cursor began
	nodes   []keyedNode // sorted, once the head is written
	next    int         // the next node to write
	started bool        // the head is written
}

// MarshalInPieces returns a cursor over Marshal's bytes.
func (t *Tree) MarshalInPieces() *MarshalCursor { return &MarshalCursor{t: t, version: t.version} }

// Next appends the next piece of Marshal's bytes to buf: at least one node,
// and nodes until buf holds size bytes or more; the first piece starts with
// what comes before the nodes, the last ends the file. more is false once
// the last piece was written. A tree changed since the cursor began fails
// with CodeInvalidInput, as the pieces would not make one file.
func (c *MarshalCursor) Next(buf []byte, size int) (out []byte, more bool, err error) {
	t := c.t
	if c.version != t.version {
		return buf, false, newError(CodeInvalidInput, "the tree changed while it was being saved in pieces; save it again")
	}
	if !c.started {
		c.started = true
		buf = t.appendMarshal(buf, true)
		if nodes := t.canonicalNodes(); nodes != nil {
			c.next = -1
			return append(append(buf, nodes...), '}'), false, nil
		}
		c.nodes = t.sortedNodes()
	}
	if c.next < 0 || c.next > len(c.nodes) {
		return buf, false, nil
	}
	buf, more = c.appendNodes(buf, size)
	return buf, more, nil
}

// appendNodes writes the nodes object from the next node on, until buf holds
// limit bytes or more (-1: to the end) after one node at least, and the file's
// end after the last node; more says whether nodes are left.
func (c *MarshalCursor) appendNodes(buf []byte, limit int) ([]byte, bool) {
	if c.next == 0 {
		buf = append(buf, '{')
	}
	for c.next < len(c.nodes) {
		tick()
		kn := c.nodes[c.next]
		if c.next > 0 {
			buf = append(buf, ',')
		}
		buf = rawjson.AppendString(buf, kn.key)
		buf = append(buf, ':')
		buf = kn.n.appendJSON(buf)
		c.next++
		if limit >= 0 && len(buf) >= limit && c.next < len(c.nodes) {
			return buf, true
		}
	}
	c.next++ // past the end: a further Next writes nothing
	return append(buf, "}}"...), false
}

// MarshalSize is a close upper bound of the size of Marshal's output, in one
// pass over the nodes: a buffer of that capacity takes AppendMarshal without
// growing.
func (t *Tree) MarshalSize() int {
	size := 128 + 64*len(t.branches)
	for _, n := range t.nodes {
		size += 96 + 2*len(n.id) + len(n.parent) + len(n.msg) + len(n.labelText()) + 20*len(n.children)
	}
	return size
}

// branchKeys lists the members of the file's "branches": every live branch,
// every deleted name (a tombstone, see DeleteBranchAt) and every hidden
// conflict branch (see hiddenRecord), sorted.
func (t *Tree) branchKeys() []string {
	names := t.branchNames()
	if len(t.tombs) == 0 && len(t.hidden) == 0 {
		return names
	}
	for name := range t.tombs {
		if t.branches[name] == nil {
			names = append(names, name)
		}
	}
	for name := range t.hidden {
		if _, dead := t.tombs[name]; !dead && t.branches[name] == nil {
			names = append(names, name)
		}
	}
	sortStrings(names)
	return names
}

// hiddenRecord returns the hidden conflict branch a file lists under name: one
// Merge hides because another branch reaches its leaf, but remembers so that
// its value keeps its name against older ones (written as the branch with
// "hidden":true). A live branch of the same name masks it.
func (t *Tree) hiddenRecord(name string) *branch {
	if t.branches[name] != nil {
		return nil
	}
	return t.hidden[name]
}

// movedDefault is the time of a branch's last move that the file leaves out:
// the later of the branch's creation and its leaf's (an Append, a new branch).
func (t *Tree) movedDefault(b *branch) int64 {
	if n := t.nodes[b.leaf]; n != nil {
		return max(b.created, n.created)
	}
	return b.created
}

// appendBranchJSON writes the value of "branches".name: the live branch, which
// carries its name's tombstone if the name was deleted before, or the
// tombstone {"name","deleted_at_ms"?,"deleted_instances"?} of a deleted name
// (see tombstone.appendJSON). Old files have none of these fields, and files
// written before instances were recorded only "deleted_at_ms".
func (t *Tree) appendBranchJSON(buf []byte, name string) []byte {
	tomb := t.tombs[name]
	b := t.branches[name]
	if h := t.hiddenRecord(name); h != nil {
		buf = h.appendJSON(buf, t.movedDefault(h))
		buf = append(buf[:len(buf)-1], `,"hidden":true}`...)
		if tomb != nil {
			buf = tomb.appendJSON(buf)
		}
		return t.appendKeptSummaries(buf, name)
	}
	if b == nil {
		buf = append(buf, `{"name":`...)
		buf = rawjson.AppendString(buf, name)
		return t.appendKeptSummaries(tomb.appendJSON(append(buf, '}')), name)
	}
	buf = b.appendJSON(buf, t.movedDefault(b))
	if tomb != nil {
		buf = tomb.appendJSON(buf)
	}
	return t.appendKeptSummaries(buf, name)
}

// appendKeptSummaries adds "kept_summaries" to the branch object that ends buf
// when name is the home of its family's kept summaries (see shelfHome):
// summaries written on the family that no branch shows now, which Merge keeps so
// that merges in any order agree. Files written before have none.
func (t *Tree) appendKeptSummaries(buf []byte, name string) []byte {
	kept := t.shelf[family(name)]
	if len(kept) == 0 || t.shelfHome(family(name)) != name {
		return buf
	}
	buf = append(buf[:len(buf)-1], `,"kept_summaries":[`...)
	for i := range kept {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = appendSummaryJSON(buf, &kept[i])
	}
	return append(buf, "]}"...)
}

// shelfHome is the member of "branches" that carries the kept summaries of a
// branch family: the family's own name when it is a branch or a deleted name
// (which it then stays for good), else the smallest name of the family.
func (t *Tree) shelfHome(fam string) string {
	if _, dead := t.tombs[fam]; dead || t.branches[fam] != nil {
		return fam
	}
	home := ""
	for name := range t.branches {
		if family(name) == fam && (home == "" || name < home) {
			home = name
		}
	}
	for name := range t.tombs {
		if family(name) == fam && (home == "" || name < home) {
			home = name
		}
	}
	return home
}

type keyedNode struct {
	key string
	n   *node
}

// sortedNodes lists the nodes by key, with no map lookup after the sort.
//
// It sorts positions, not the (key, node) pairs: moving pairs writes pointers,
// and while a collection is under way (a save allocates its whole output) every
// pointer write pays a write barrier, which made the sort most of a save in
// WebAssembly. The pairs move once, into their sorted places.
func (t *Tree) sortedNodes() []keyedNode {
	if list := t.nodesInOrder(); list != nil {
		return list
	}
	list := make([]keyedNode, 0, len(t.nodes))
	for k, n := range t.nodes {
		list = append(list, keyedNode{k, n})
	}
	// Compare the first 8 bytes of two keys as one integer (ids are random:
	// that almost always decides), the whole keys only when those are equal.
	order := make([]int32, len(list))
	prefix := make([]uint64, len(list))
	for i, kn := range list {
		order[i] = int32(i)
		prefix[i] = keyPrefix(kn.key)
	}
	sortFunc(order, func(a, b int32) int {
		if pa, pb := prefix[a], prefix[b]; pa != pb {
			if pa < pb {
				return -1
			}
			return 1
		}
		return strings.Compare(list[a].key, list[b].key)
	})
	sorted := make([]keyedNode, len(list))
	for i, o := range order {
		sorted[i] = list[o]
	}
	return sorted
}

func (b *branch) appendJSON(buf []byte, movedDefault int64) []byte {
	buf = append(buf, `{"name":`...)
	buf = rawjson.AppendString(buf, b.name)
	if b.leaf != "" {
		buf = append(buf, `,"leaf":`...)
		buf = rawjson.AppendString(buf, b.leaf)
	}
	if s := b.summary; s != nil {
		buf = append(buf, `,"summary":`...)
		buf = appendSummaryJSON(buf, s)
	}
	buf = append(buf, `,"created_at_ms":`...)
	buf = rawjson.AppendInt(buf, b.created)
	if b.moved != movedDefault {
		buf = append(buf, `,"moved_at_ms":`...)
		buf = rawjson.AppendInt(buf, b.moved)
	}
	if b.used != 0 {
		buf = append(buf, `,"used":`...)
		buf = rawjson.AppendInt(buf, b.used)
	}
	return append(buf, '}')
}

func appendSummaryJSON(buf []byte, s *Summary) []byte {
	buf = append(buf, `{"summary":`...)
	buf = rawjson.AppendString(buf, s.Summary)
	buf = append(buf, `,"node_id":`...)
	buf = rawjson.AppendString(buf, s.NodeID)
	buf = append(buf, `,"branch":`...)
	buf = rawjson.AppendString(buf, s.Branch)
	if s.ModelID != "" {
		buf = append(buf, `,"model_id":`...)
		buf = rawjson.AppendString(buf, s.ModelID)
	}
	buf = append(buf, `,"created_at_ms":`...)
	buf = rawjson.AppendInt(buf, s.CreatedAtMs)
	return append(buf, '}')
}

func (n *node) appendJSON(buf []byte) []byte {
	buf = append(buf, `{"id":`...)
	buf = rawjson.AppendString(buf, n.id)
	if n.parent != "" {
		buf = append(buf, `,"parent":`...)
		buf = rawjson.AppendString(buf, n.parent)
	}
	buf = append(buf, `,"children":`...)
	buf = rawjson.AppendStrings(buf, n.children)
	buf = append(buf, `,"message":`...)
	buf = append(buf, n.msg...)
	if n.labelText() != "" {
		buf = append(buf, `,"label":`...)
		buf = rawjson.AppendString(buf, n.labelText())
	}
	if n.labelTime() != 0 {
		buf = append(buf, `,"label_at_ms":`...)
		buf = rawjson.AppendInt(buf, n.labelTime())
	}
	buf = append(buf, `,"created_at_ms":`...)
	buf = rawjson.AppendInt(buf, n.created)
	return append(buf, '}')
}

// Unmarshal reads a .tree.json file. It is strict about syntax and types
// (CodeCorrupt, naming the field and byte offset), refuses newer versions
// (CodeUnsupportedVersion), and keeps structural problems — dangling links,
// cycles, duplicate ids — for Validate to report and Repair to fix. data is
// copied; the caller may reuse it.
func Unmarshal(data []byte, opts ...Option) (*Tree, error) {
	data, nodes := cloneCounting(data, childrenKey)
	return unmarshal(data, nodes, opts)
}

// UnmarshalOwned is Unmarshal without the copy: the tree keeps data, whose
// bytes its messages and ids then are, so the caller must never modify data
// afterwards (a buffer handed over, such as a file read for this load alone).
// It saves a copy of the file, its size in memory at the peak of a load, and
// the pass that counts the nodes (see loader.refill).
func UnmarshalOwned(data []byte, opts ...Option) (*Tree, error) {
	return unmarshal(data, -1, opts)
}

func unmarshal(data []byte, nodes int, opts []Option) (*Tree, error) {
	t := empty(opts)
	l := loader{t: t, d: rawjson.NewDecoder(data), count: nodes}
	if err := l.top(); err != nil {
		return nil, err
	}
	if err := l.d.End(); err != nil {
		return nil, l.syntax(err)
	}
	l.link()
	return t, nil
}

// loader holds the state of one Unmarshal.
type loader struct {
	t     *Tree
	d     *rawjson.Decoder
	seen  map[string]bool // top-level keys
	keys  rawjson.Keys    // checks each message for a key named twice
	moved []*branch       // branches without "moved_at_ms", set in link
	slab  []node          // nodes of the last block not yet handed out
	all   [][]node        // the blocks of nodes, in file order, for link
	kids  []string        // children lists, one after another
	last  string          // the last node key read while the keys are sorted
	mixed bool            // the node keys are not strictly increasing
	alias bool            // some node's id differs from its key
	count int             // how often childrenKey occurs in the file, or -1: not counted
	from  int             // where "nodes" starts
	read  int             // the nodes read
	// canon stays true while fastNode read every node so far, each under its
	// own id (see canonical); canonLen sums the members' sizes ("key":{…}),
	// and end is where "nodes" ends.
	canon    bool
	canonLen int
	end      int
}

// childrenKey is the member every node object has exactly once.
var childrenKey = []byte(`"children":`)

// cloneCounting copies data and counts the occurrences of pat in the copy, a
// cache-sized chunk at a time so that the input is read from memory once. pat
// must not overlap itself.
func cloneCounting(data, pat []byte) ([]byte, int) {
	const chunk = 64 << 10
	out := make([]byte, 0, len(data))
	c := newCounter(pat)
	n, from := 0, 0 // from: where a match not yet counted may start
	for len(out) < len(data) {
		tickBytes(chunk) // megabytes copied and counted: 50 ms in one piece under load
		out = append(out, data[len(out):min(len(out)+chunk, len(data))]...)
		n += c.count(out[from:])
		from = max(from, len(out)-len(pat)+1)
	}
	return out, n
}

// counter counts a pattern that cannot overlap itself, skipping ahead by the
// last byte of each window (Horspool): bytes.Count falls back to a rolling
// hash over every byte in WebAssembly, which was a seventh of a load.
type counter struct {
	pat  []byte
	skip [256]uint8
}

func newCounter(pat []byte) *counter {
	c := &counter{pat: pat}
	for i := range c.skip {
		c.skip[i] = uint8(len(pat))
	}
	for i := 0; i < len(pat)-1; i++ {
		c.skip[pat[i]] = uint8(len(pat) - 1 - i)
	}
	return c
}

func (c *counter) count(s []byte) int {
	m, n := len(c.pat), 0
	last := c.pat[m-1]
	for i := 0; i+m <= len(s); {
		b := s[i+m-1]
		if b == last && string(s[i:i+m]) == string(c.pat) {
			n++
			i += m
			continue
		}
		i += int(c.skip[b])
	}
	return n
}

func (l *loader) corrupt(where, msg string) error {
	return newError(CodeCorrupt, where+": "+msg+" (at byte "+itoa(l.d.Pos())+")")
}

func (l *loader) syntax(err error) error {
	if e, ok := err.(*Error); ok {
		return e
	}
	return newError(CodeCorrupt, "not a valid .tree.json file: "+err.Error())
}

func (l *loader) top() error {
	if c := l.d.Peek(); c != '{' {
		if c == 0 && len(l.d.Rest()) == 0 {
			return newError(CodeCorrupt, "not a .tree.json file: it is empty")
		}
		return newError(CodeCorrupt, "not a .tree.json file: the top level is not a JSON object")
	}
	l.seen = make(map[string]bool)
	err := l.d.Object(func(key string) error {
		if l.seen[key] {
			return l.corrupt(key, "duplicate top-level field")
		}
		l.seen[key] = true
		switch key {
		case "format":
			s, err := l.d.String()
			if err != nil || s != "sessiontree" {
				return l.corrupt("format", `expected "sessiontree"`)
			}
		case "version":
			v, err := l.d.Int64()
			if err != nil && wholeNumber(l.d.Rest()) {
				// A positive integer past int64: a newer version, not a broken file.
				return newError(CodeUnsupportedVersion, "this file is a format version past 64 bits; this build reads versions up to "+
					itoa(FormatVersion)+", upgrade sessiontree to read it")
			}
			if err != nil || v < 1 {
				return l.corrupt("version", "expected a positive integer")
			}
			if v > FormatVersion {
				return newError(CodeUnsupportedVersion, "this file is format version "+itoa(int(v))+
					"; this build reads versions up to "+itoa(FormatVersion)+", upgrade sessiontree to read it")
			}
		case "root":
			id, err := l.id("root")
			if err != nil {
				return err
			}
			l.t.root = id
		case "active_branch":
			name, err := l.name("active_branch")
			if err != nil {
				return err
			}
			l.t.active = name
		case "branches":
			return l.branches()
		case "nodes":
			return l.nodes()
		default:
			return l.corrupt(key, "unknown top-level field")
		}
		return nil
	})
	if err != nil {
		return l.syntax(err)
	}
	for _, k := range []string{"format", "version", "active_branch", "branches", "nodes"} {
		if !l.seen[k] {
			return newError(CodeCorrupt, "not a .tree.json file: the field "+quote(k)+" is missing")
		}
	}
	return nil
}

// id reads a string that must be a valid id.
func (l *loader) id(where string) (string, error) { return l.nodeID(where, "") }

// nodeID reads an id found at nodes.<key>.<field>; the location is only spelled
// out on error, keeping the hot path free of allocations.
func (l *loader) nodeID(key, field string) (string, error) {
	s, err := l.d.StringView()
	if err == nil {
		err = checkStoredName("id", s)
	}
	if err != nil {
		where := key
		if field != "" {
			where = "nodes." + key + "." + field
		}
		msg := "expected a string id"
		if e, ok := err.(*Error); ok {
			msg = e.Message
		}
		return "", l.corrupt(where, msg)
	}
	return s, nil
}

func (l *loader) name(where string) (string, error) {
	s, err := l.d.String()
	if err != nil {
		return "", l.corrupt(where, "expected a string branch name")
	}
	if err := checkStoredName("branch name", s); err != nil {
		return "", l.corrupt(where, err.(*Error).Message)
	}
	return s, nil
}

// text reads a non-empty, valid UTF-8 string (labels, summaries).
func (l *loader) text(where string) (string, error) {
	s, err := l.d.String()
	if err != nil || s == "" {
		return "", l.corrupt(where, "expected a non-empty string")
	}
	return s, nil
}

func (l *loader) branches() error {
	return l.d.Object(func(key string) error {
		tick()
		where := "branches." + key
		if err := checkStoredName("branch name", key); err != nil {
			return l.corrupt("branches", err.(*Error).Message)
		}
		if l.t.branches[key] != nil {
			return l.corrupt(where, "duplicate branch name")
		}
		b := &branch{}
		fields, err := l.object(where, func(f string) error {
			var err error
			switch f {
			case "name":
				b.name, err = l.name(where + ".name")
			case "leaf":
				b.leaf, err = l.id(where + ".leaf")
			case "summary":
				b.summary, err = l.summary(where + ".summary")
			case "created_at_ms":
				b.created, err = l.int(where + ".created_at_ms")
			case "used":
				b.used, err = l.clock(where + ".used")
			case "moved_at_ms":
				b.moved, err = l.clock(where + ".moved_at_ms")
			case "kept_summaries":
				err = l.d.Array(func() error {
					s, err := l.summary(where + ".kept_summaries")
					if err == nil {
						l.t.shelve(family(key), *s)
					}
					return err
				})
			case "hidden":
				if v, e := l.d.Raw(); e != nil || string(v) != "true" {
					err = l.corrupt(where+".hidden", "expected true")
				}
			case "deleted_at_ms", "deleted_instances":
				err = l.deleted(key, where+"."+f, f == "deleted_at_ms")
			default:
				err = l.corrupt(where+"."+f, "unknown field")
			}
			return err
		})
		if err != nil {
			return err
		}
		other := len(fields)
		if fields["kept_summaries"] {
			other--
		}
		dead := false
		for _, f := range [...]string{"deleted_at_ms", "deleted_instances"} {
			if fields[f] {
				dead = true
				other--
			}
		}
		if dead && other == 1 && fields["name"] {
			if b.name != key {
				return l.corrupt(where, "a deleted branch's name differs from its key")
			}
			return nil // the tombstone of a deleted name
		}
		if !fields["name"] || !fields["created_at_ms"] {
			return l.corrupt(where, `a branch needs "name" and "created_at_ms"`)
		}
		if !fields["moved_at_ms"] {
			l.moved = append(l.moved, b)
		}
		if fields["hidden"] {
			if b.name != key || b.leaf == "" || b.summary != nil {
				return l.corrupt(where, "a hidden branch needs its own name and a leaf, and has no summary")
			}
			if l.t.hidden == nil {
				l.t.hidden = make(map[string]*branch)
			}
			l.t.hidden[key] = b
			return nil
		}
		l.t.branches[key] = b
		l.t.names.add(key)
		l.t.clock = max(l.t.clock, b.used)
		return nil
	})
}

// deleted reads into the tombstone of the branch name key the value of its
// "deleted_at_ms" (whole, a deletion of the whole name) or its
// "deleted_instances": a non-empty list of [created_at_ms, deleted_at_ms,
// leaf, above…] lists (above: the ids over a leaf that a prune removed, and
// the first it kept; none in files written before Dec 5, evening), or
// [created_at_ms, deleted_at_ms] pairs for a whole instance, strictly by
// creation time and leaf (a pair first).
func (l *loader) deleted(key, where string, whole bool) error {
	s := l.t.tombs[key]
	if s == nil {
		if l.t.tombs == nil {
			l.t.tombs = make(map[string]*tombstone)
		}
		s = &tombstone{}
		l.t.tombs[key] = s
	}
	if whole {
		at, err := l.int(where)
		s.add(deletion{created: wholeName, at: at})
		return err
	}
	n := 0
	err := l.d.Array(func() error {
		var d deletion
		k := 0
		err := l.d.Array(func() error {
			var err error
			switch k {
			case 0:
				d.created, err = l.int(where)
			case 1:
				d.at, err = l.int(where)
			case 2:
				d.leaf, err = l.id(where)
			default:
				var a string
				if a, err = l.id(where); err == nil {
					d.above = append(d.above, a)
				}
			}
			k++
			return err
		})
		last := deletion{created: wholeName}
		if len(s.deleted) > 0 {
			last = s.deleted[len(s.deleted)-1]
		}
		if err == nil && (k < 2 || d.created == wholeName || !d.after(last)) {
			err = l.corrupt(where, "expected [created_at_ms, deleted_at_ms, leaf, above…] lists or [created_at_ms, deleted_at_ms] pairs, in order of creation and leaf, each once")
		}
		s.add(d)
		n++
		return err
	})
	if err == nil && n == 0 {
		err = l.corrupt(where, "expected at least one deleted instance")
	}
	return err
}

// object walks the object that is next, refusing a field that appears twice,
// and returns the set of fields it saw; fn reads each field's value.
func (l *loader) object(where string, fn func(field string) error) (map[string]bool, error) {
	fields := map[string]bool{}
	err := l.d.Object(func(f string) error {
		if fields[f] {
			return l.corrupt(where+"."+f, "duplicate field")
		}
		fields[f] = true
		return fn(f)
	})
	return fields, err
}

func (l *loader) summary(where string) (*Summary, error) {
	s := &Summary{}
	fields, err := l.object(where, func(f string) error {
		var err error
		switch f {
		case "summary":
			s.Summary, err = l.text(where + ".summary")
		case "node_id":
			s.NodeID, err = l.id(where + ".node_id")
		case "branch":
			s.Branch, err = l.name(where + ".branch")
		case "model_id":
			s.ModelID, err = l.text(where + ".model_id")
		case "created_at_ms":
			s.CreatedAtMs, err = l.int(where + ".created_at_ms")
		default:
			err = l.corrupt(where+"."+f, "unknown field")
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if !fields["summary"] || !fields["node_id"] || !fields["branch"] || !fields["created_at_ms"] {
		return nil, l.corrupt(where, `a summary needs "summary", "node_id", "branch" and "created_at_ms"`)
	}
	return s, nil
}

func (l *loader) int(where string) (int64, error) {
	v, err := l.d.Int64()
	if err != nil {
		return 0, l.corrupt(where, "expected an integer (milliseconds)")
	}
	return v, nil
}

// clock reads a branch's move time or use clock: at most maxClock, which a
// move or a switch after it can pass (after).
func (l *loader) clock(where string) (int64, error) {
	v, err := l.int(where)
	if err == nil && v > maxClock {
		err = l.corrupt(where, "past 2^53")
	}
	return v, err
}

func (l *loader) nodes() error {
	// Size the map once, and take the nodes and their children lists from
	// blocks (refill) and one slab instead of two allocations per node: a
	// well-formed file lists each node once as a child.
	l.d.Peek()
	_, l.from = l.d.Data()
	if n := l.refill(); n > 0 {
		l.t.nodes = make(map[string]*node, n)
		l.kids = make([]string, 0, n)
	}
	l.canon = true
	err := l.d.Members(func(rawKey []byte) error {
		tick()
		key := rawjson.KeyView(rawKey)
		if len(l.slab) == 0 {
			l.refill()
		}
		// A key that is its node's id as fastNode read it is a valid one; any
		// other is checked before the node is read, as node needs.
		_, at := l.d.Data()
		n := l.fastNode(key)
		if _, past := l.d.Data(); n == nil || n.id != key {
			l.canon = false
		} else {
			l.canonLen += len(key) + 3 + past - at // "key":{…}
		}
		if n == nil || n.id != key {
			if err := checkStoredName("node key", key); err != nil {
				l.d.Seek(at) // where node would have stopped
				return l.corrupt("nodes", err.(*Error).Message)
			}
		}
		if n == nil {
			var err error
			if n, err = l.node(key); err != nil {
				return err
			}
		}
		l.read++
		if n.id != key {
			l.alias = true
		}
		// A canonical file lists its nodes sorted by key: a key greater than the
		// last cannot repeat one, so only unsorted files pay the lookup.
		if l.mixed || key <= l.last {
			l.mixed = true
			if l.t.nodes[key] != nil {
				l.t.dups = append(l.t.dups, n)
				return nil
			}
		} else {
			l.last = key
		}
		l.t.nodes[key] = n
		if n.parent == "" {
			l.t.roots = append(l.t.roots, key)
		}
		return nil
	})
	_, l.end = l.d.Data()
	return err
}

// fastNode reads the node object that is next when it is laid out as Marshal
// writes it — compact, the fields in Marshal's order, ids, a label and times
// that need no unescaping, no time written that Marshal leaves out — and
// returns nil, having read nothing, otherwise:
// node then reads it, and reports what is wrong with it. It accepts only what
// node accepts, to the same node: the fields it skips looking up by name and the
// checks that its layout makes true are the load's hot path.
func (l *loader) fastNode(key string) *node {
	if !fastLoad {
		return nil
	}
	data, start := l.d.Data()
	kids := len(l.kids)
	var n node
	var ok bool
	i := start
	if !rawjson.HasPrefixAt(data, i, `{"id":`) {
		return nil
	}
	if n.id, i, ok = plainID(data, i+6); !ok {
		return nil
	}
	if n.id == key {
		n.id = key
	}
	if rawjson.HasPrefixAt(data, i, `,"parent":`) {
		if n.parent, i, ok = plainID(data, i+10); !ok {
			return nil
		}
	}
	if !rawjson.HasPrefixAt(data, i, `,"children":[`) {
		return nil
	}
	i += 13
	if i < len(data) && data[i] != ']' {
		for {
			var id string
			if id, i, ok = plainID(data, i); !ok {
				l.kids = l.kids[:kids]
				return nil
			}
			l.kids = append(l.kids, id)
			if i < len(data) && data[i] == ',' {
				i++
				continue
			}
			break
		}
	}
	if i >= len(data) || data[i] != ']' {
		l.kids = l.kids[:kids]
		return nil
	}
	if len(l.kids) > kids {
		n.children = l.kids[kids:len(l.kids):len(l.kids)]
	}
	i++
	if !rawjson.HasPrefixAt(data, i, `,"message":{"role":"`) {
		l.kids = l.kids[:kids]
		return nil
	}
	i += 11
	end, ok := l.keys.CompactValue(data, i)
	if !ok {
		l.kids = l.kids[:kids]
		return nil
	}
	n.msg = Message(data[i:end:end])
	i = end
	var text string
	var at int64
	if rawjson.HasPrefixAt(data, i, `,"label":`) {
		if text, i, ok = rawjson.PlainString(data, i+9); !ok || text == "" {
			l.kids = l.kids[:kids]
			return nil
		}
	}
	if rawjson.HasPrefixAt(data, i, `,"label_at_ms":`) {
		// Marshal leaves a zero time out: one written (or "-0") is node's.
		if at, i, ok = rawjson.PlainInt(data, i+15); !ok || at == 0 {
			l.kids = l.kids[:kids]
			return nil
		}
	}
	if !rawjson.HasPrefixAt(data, i, `,"created_at_ms":`) {
		l.kids = l.kids[:kids]
		return nil
	}
	if n.created, i, ok = rawjson.PlainInt(data, i+17); !ok || i >= len(data) || data[i] != '}' || n.created == 0 && data[i-2] == '-' {
		l.kids = l.kids[:kids]
		return nil
	}
	n.lab = newLabel(text, at)
	l.d.Seek(i + 1)
	p := &l.slab[0]
	l.slab = l.slab[1:]
	*p = n
	return p
}

// canonical returns the file's "nodes" object when it is byte for byte what
// Marshal writes for the nodes read (called once they are linked, when their
// keys were strictly sorted, each its node's id, none twice), else nil.
//
// fastNode reads a node only when it is laid out as Marshal writes it, so
// every node it read is Marshal's, byte for byte. What lies between the nodes
// (keys, colons, commas, white space) is at least as long as Marshal writes
// it, so the object is Marshal's when its size is what Marshal's would be.
// FuzzUnmarshal and FuzzFastLoad check Marshal with and without this copy on
// every file they load.
//
//go:noinline
func (l *loader) canonical() []byte {
	if !l.canon || l.end <= l.from {
		return nil
	}
	want := 2 + l.canonLen + max(l.read-1, 0) // {…}, the members and their commas
	data, _ := l.d.Data()
	if l.end-l.from != want || data[l.from] != '{' || data[l.end-1] != '}' {
		return nil
	}
	return data[l.from:l.end:l.end]
}

// canonicalNodes returns the "nodes" object of the file the tree was loaded
// from while it is what Marshal would write for the nodes, or nil.
//
//go:noinline
func (t *Tree) canonicalNodes() []byte {
	if t.canon != nil && (t.shapeGen != t.canonShape || t.nodeGen != t.canonGen) {
		t.canon = nil
	}
	return t.canon
}

// fastLoad turns fastNode and linkByID on; tests turn them off to compare the
// fast paths with what node and the map say.
var fastLoad = true

// plainID reads an id at data[i] for fastNode: a non-empty string of
// printable ASCII without escapes, which checkStoredName accepts when it is not
// too long.
func plainID(data []byte, i int) (string, int, bool) {
	s, end, ok := rawjson.PlainString(data, i)
	return s, end, ok && s != "" && len(s) <= maxStoredName
}

// refill starts a new block of nodes and returns its size: every node object
// has exactly one "children" member, so the first block is l.count nodes when
// the file was counted, else the count in a sample of what follows, scaled to
// the rest of the file; a later block is the rest of the file at the average
// size of the nodes so far. (A message containing the text only makes a block
// larger; a block too small only means another block.) The map of nodes is
// sized once from the first block.
func (l *loader) refill() int {
	const sample = 256 << 10
	data, pos := l.d.Data()
	rest := len(data) - pos
	n := l.count
	switch {
	case l.read > 0:
		n = rest/max(1, (pos-l.from)/l.read) + 16
	case n < 0:
		s := data[pos:min(len(data), pos+sample)]
		n = newCounter(childrenKey).count(s)
		if len(s) < rest {
			n = n*(rest/len(s)) + n*(rest%len(s))/len(s)
			n += n/32 + 16
		}
	}
	// A node takes more than 60 bytes of the file: `"k":` and
	// {"id":"k","children":[],"message":{"role":""},"created_at_ms":0}.
	n = max(1, min(n, rest/60+1))
	l.slab = make([]node, n)
	l.all = append(l.all, l.slab)
	return n
}

// node reads one node object; where it has the same id as its key, the two
// share one string.
func (l *loader) node(key string) (*node, error) {
	n := &l.slab[0]
	l.slab = l.slab[1:]
	var has [7]bool // id, parent, children, message, label, created_at_ms, label_at_ms
	err := l.d.Members(func(f []byte) error {
		var err error
		var slot int
		switch string(f) {
		case "id":
			slot = 0
			n.id, err = l.nodeID(key, "id")
			if n.id == key {
				n.id = key
			}
		case "parent":
			slot = 1
			n.parent, err = l.nodeID(key, "parent")
		case "children":
			slot = 2
			start := len(l.kids)
			err = l.d.Array(func() error {
				id, err := l.nodeID(key, "children")
				l.kids = append(l.kids, id)
				return err
			})
			if len(l.kids) > start {
				// Capped, so a later append to this list copies it out of the slab.
				n.children = l.kids[start:len(l.kids):len(l.kids)]
			}
		case "message":
			slot = 3
			n.msg, err = l.message(key)
		case "label":
			slot = 4
			var text string
			text, err = l.text("nodes." + key + ".label")
			n.lab = newLabel(text, n.labelTime())
		case "created_at_ms":
			slot = 5
			n.created, err = l.d.Int64()
			if err != nil {
				err = l.corrupt("nodes."+key+".created_at_ms", "expected an integer (milliseconds)")
			}
		case "label_at_ms":
			slot = 6
			var at int64
			at, err = l.d.Int64()
			n.lab = newLabel(n.labelText(), at)
			if err != nil {
				err = l.corrupt("nodes."+key+".label_at_ms", "expected an integer (milliseconds)")
			}
		default:
			return l.corrupt("nodes."+key+"."+string(f), "unknown field")
		}
		if has[slot] {
			return l.corrupt("nodes."+key+"."+string(f), "duplicate field")
		}
		has[slot] = true
		return err
	})
	if err != nil {
		return nil, err
	}
	if !has[0] || !has[2] || !has[3] || !has[5] {
		return nil, l.corrupt("nodes."+key, `a node needs "id", "children", "message" and "created_at_ms"`)
	}
	return n, nil
}

func (l *loader) message(key string) (Message, error) {
	_, at := l.d.Data()
	raw, err := l.keys.Raw(l.d)
	if de, ok := err.(*rawjson.DuplicateKeyError); ok {
		where := "its message names the key " + quote(de.Key) + " twice (at " + de.Where() + ")"
		if !l.t.keepKeyDups {
			return nil, l.corrupt("nodes."+key+".message", "node "+quote(key)+": "+where+
				"; JSON.parse would read the last of the two and a projection the first (load it keeping duplicate keys, then repair it)")
		}
		if l.t.keyDups == nil {
			l.t.keyDups = make(map[string]string)
		}
		l.t.keyDups[key] = where
		l.d.Seek(at)
		raw, err = l.d.Raw()
	}
	if err != nil {
		return nil, l.corrupt("nodes."+key+".message", err.Error())
	}
	if raw[0] != '{' {
		return nil, l.corrupt("nodes."+key+".message", "a message must be a JSON object")
	}
	if role, ok := rawjson.Lookup(raw, "role"); !ok || role[0] != '"' {
		return nil, l.corrupt("nodes."+key+".message", `a message must have a string "role"`)
	}
	return Message(raw), nil
}

// link orders the roots and names the active branch and root with the strings
// the tree already holds.
func (l *loader) link() {
	t := l.t
	l.linkUp()
	l.learnDepths()
	if !l.alias && len(t.dups) == 0 {
		// Every node in the blocks is the map's: runs.go may go through them.
		t.loaded, t.loadedAt = l.all, t.Revision()
		if !l.mixed {
			t.inOrder, t.inOrderGen, t.inOrderAdded = l.all, t.shapeGen, nil
			if nodes := l.canonical(); nodes != nil {
				t.canon, t.canonShape, t.canonGen = nodes, t.shapeGen, t.nodeGen
			}
		}
	}
	for _, b := range l.moved {
		b.moved = t.movedDefault(b)
	}
	sortFunc(t.roots, t.byAge)
	if n := t.nodes[t.root]; n != nil && n.id == t.root {
		t.root = n.id
	}
	t.active = canonBranch(t, t.active)
}

// linkUp sets every node's parent pointer like Tree.linkUp, walking the slab
// in file order rather than the map; duplicates, which the map does not hold,
// are left unlinked.
func (l *loader) linkUp() {
	t := l.t
	if len(l.all) > 0 {
		last := &l.all[len(l.all)-1]
		*last = (*last)[:len(*last)-len(l.slab)]
	}
	if fastLoad && !l.alias && len(t.dups) == 0 && len(l.all) < 1<<15 {
		linkByID(l.all, l.read)
		return
	}
	for _, block := range l.all {
		for i := range block {
			tick()
			if n := &block[i]; n.parent != "" {
				n.up = t.nodes[n.parent]
			}
		}
	}
	for _, d := range t.dups {
		d.up = nil
	}
}

// learnDepths teaches the loaded nodes their depths (learnDepths), in file
// order; duplicates, unlinked, are left unknown.
func (l *loader) learnDepths() {
	learnDepths(func(yield func(*node)) {
		for _, block := range l.all {
			for i := range block {
				yield(&block[i])
			}
		}
	})
}

// canonBranch returns name as the string the branch stored under it holds,
// so the tree keeps one copy of it; when that branch says it has another
// name (a corrupt file, which Validate reports), name itself.
func canonBranch(t *Tree, name string) string {
	if b := t.branches[name]; b != nil && b.name == name {
		return b.name
	}
	return name
}

// linkByID sets the up pointers of the nodes in blocks, n of them, when every
// node's id is its key and no key repeats, so that the node called p is the
// one whose id is p. It looks the parents up in a table of the ids' first 16
// bytes and lengths, which decide equality for ids of up to 16 bytes: in wasm,
// n map lookups hash every id and then read the found node's key from
// wherever the file put it, a cache miss each, and were most of linking.
// Fewer than 1<<15 blocks of fewer than 1<<32 nodes each, ids of at most
// maxStoredName bytes.
func linkByID(blocks [][]node, n int) {
	if linkNear(blocks) {
		return
	}
	size := 1
	for size <= n+n/4 { // at least one empty entry ends every probe
		size <<= 1
	}
	type entry struct{ w0, w1, loc uint64 } // loc: len<<47 | block<<32 | index; 0 when empty
	table := make([]entry, size)
	mask := uint64(size - 1)
	home := func(w0, w1 uint64, l int) uint64 {
		return (w0 ^ w1*0xC2B2AE3D27D4EB4F ^ uint64(l)) * 0x9E3779B97F4A7C15 >> 32 & mask
	}
	for b, block := range blocks {
		for i := range block {
			tick()
			id := block[i].id
			w0, w1 := idWords(id)
			h := home(w0, w1, len(id))
			for table[h].loc != 0 {
				h = (h + 1) & mask
			}
			table[h] = entry{w0, w1, uint64(len(id))<<47 | uint64(b)<<32 | uint64(i)}
		}
	}
	for _, block := range blocks {
		for i := range block {
			tick()
			nd := &block[i]
			p := nd.parent
			if p == "" || nd.up != nil {
				continue
			}
			w0, w1 := idWords(p)
			want := uint64(len(p)) << 47
			for h := home(w0, w1, len(p)); table[h].loc != 0; h = (h + 1) & mask {
				e := &table[h]
				if e.w0 != w0 || e.w1 != w1 || e.loc>>47<<47 != want {
					continue
				}
				up := &blocks[e.loc>>32&(1<<15-1)][uint32(e.loc)]
				if len(p) <= 16 || up.id == p {
					nd.up = up
					break
				}
			}
		}
	}
}

// linkNear links each node whose parent is one of the nearNodes nodes
// listed just before it, and reports whether that linked every node that
// has a parent. A saved tree lists its nodes by id, and the ids one tree
// makes sort in the order it made them, so a chat's parent is the node
// before (or, after a regenerate, a few before): 100k nodes linked without a
// table of their ids, ~15% of a 42 MB open in Node. In a file listed in
// another order it gives up after its first thousand nodes when most of
// them missed, and the table links the rest.
func linkNear(blocks [][]node) bool {
	var near [nearNodes]*node // the nodes just before, as a ring; near[at] the last
	at, tries, missed := 0, 0, 0
	for _, block := range blocks {
		for i := range block {
			tick()
			nd := &block[i]
			if p := nd.parent; p != "" {
				tries++
				for k := range nearNodes {
					if r := near[(at-k)&(nearNodes-1)]; r != nil && r.id == p {
						nd.up = r
						break
					}
				}
				if nd.up == nil {
					if missed++; tries == 1024 && missed > tries/2 {
						return false
					}
				}
			}
			at = (at + 1) & (nearNodes - 1)
			near[at] = nd
		}
	}
	return missed == 0
}

// nearNodes is how many nodes before a node linkNear looks at: a power of 2.
const nearNodes = 8

// idWords packs the first 16 bytes of id into two words, zero-padded.
func idWords(id string) (w0, w1 uint64) {
	if len(id) >= 16 {
		return word(id[:8]), word(id[8:16])
	}
	var b [16]byte
	copy(b[:], id)
	return word(string(b[:8])), word(string(b[8:]))
}

// word reads 8 bytes as a little-endian word, without a loop.
func word(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// wholeNumber reports whether rest (a decoder's, after a failed Int64) starts
// with a value of digits alone: a positive integer, whatever its size.
func wholeNumber(rest []byte) bool {
	for len(rest) > 0 && (rest[0] == ' ' || rest[0] == '\t' || rest[0] == '\n' || rest[0] == '\r') {
		rest = rest[1:]
	}
	i := 0
	for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
		i++
	}
	if i == 0 || rest[0] == '0' {
		return false
	}
	for ; i < len(rest); i++ {
		switch rest[i] {
		case ' ', '\t', '\n', '\r':
			continue
		case ',', '}':
			return true
		}
		return false
	}
	return false
}
