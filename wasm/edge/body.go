package edge

import (
	"bytes"
	"strconv"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/rawjson"
)

func errInput(msg string) *apiError {
	return errf(statusBadRequest, string(core.CodeInvalidInput), msg)
}

// checkJSON reports a body that is not one valid JSON object, or one that
// names a key twice in any object at any depth: JSON.parse reads the last of
// the two and core's readers the first, so a message stored so would mean
// one thing on a page and another to a model.
func checkJSON(body []byte, shape string) *apiError {
	if _, err := rawjson.CompactUnique(nil, body); err != nil {
		return badBody("the body", err)
	}
	if body[0] != '{' {
		return errInput("the body must be a JSON object: " + shape)
	}
	return nil
}

// badBody is the 400 of a body (or socket message) CompactUnique refused.
func badBody(what string, err error) *apiError {
	if de, ok := err.(*rawjson.DuplicateKeyError); ok {
		return errInput(what + " names the key " + quote(de.Key) + " twice (at " + de.Where() + "); send each key once")
	}
	return errBadJSON(what, err)
}

// Times an op may carry ("at", milliseconds since the epoch): from
// 2000-01-01 to an hour past the worker's clock. A time far in the future
// would win every merge of a label or a branch.
const (
	minAtMs      = 946_684_800_000
	maxAtAheadMs = 60 * 60 * 1000
)

// maxNameLen bounds the names an op gives to something new (a branch's
// "name") and a summary's "modelId" (core's own limit for new names).
// maxStoredNameLen bounds the names an op looks up ("node", "from",
// "branch"): a tree may hold longer ones than an op can make (a merge keeps a
// second leaf of a branch as name~leaf, a second content of an id as id~hash;
// a file brings its own), up to core's limit for stored names, and an op must
// reach every one of them (before Dec 6 (night) such a branch could not be switched
// to or deleted over /ops).
const (
	maxNameLen       = 256
	maxStoredNameLen = 64 << 10
)

// checkOp refuses, before anything is applied or stored, an op whose fields
// are over their limits (413) or whose time is outside the window (400).
func (h *Handler) checkOp(i int, op core.Op, now int64) *apiError {
	where := "op " + itoa(i)
	if len(op.Summary) > h.limits.Message {
		return errTooLarge("the summary of " + where + " is " + itoa(len(op.Summary)) +
			" bytes; a summary may have at most " + itoa(h.limits.Message))
	}
	if len(op.Label) > h.limits.Label {
		return errTooLarge("the label of " + where + " is " + itoa(len(op.Label)) +
			" bytes; a label may have at most " + itoa(h.limits.Label))
	}
	for _, f := range [...]struct {
		name, v string
		max     int
	}{{"node", op.Node, maxStoredNameLen}, {"from", op.From, maxStoredNameLen}, {"branch", op.Branch, maxStoredNameLen},
		{"name", op.Name, maxNameLen}, {"modelId", op.ModelID, maxNameLen}} {
		if len(f.v) > f.max {
			what := "a new branch name or model id"
			if f.max == maxStoredNameLen {
				what = "a name looked up (a node id or a branch name)"
			}
			return errTooLarge(`"` + f.name + `" of ` + where + " is " + itoa(len(f.v)) +
				" bytes; " + what + " may have at most " + itoa(f.max))
		}
	}
	if op.HasAt && (op.At < minAtMs || op.At > now+maxAtAheadMs) {
		return errInput(`"at" of ` + where + " is " + strconv.FormatInt(op.At, 10) +
			"; a time must be in milliseconds since the epoch, from 2000-01-01 to an hour from now")
	}
	return nil
}

// checkBrought refuses what the rows of doc (a .tree.json file or a delta:
// its "nodes" and "branches", as checkJSON passed them) bring in past the
// limits an op has, before anything is applied: a time later than an hour
// from now (400 naming it: the later time wins a merge of a label, a
// branch's leaf, a deletion or a summary, so such a time won every merge
// after it) or a label over Limits.Label (413). Times in the past pass as
// they are: a past time wins nothing, files of other tools carry old dates,
// and an empty tree's main branch is stamped 0. held, if not nil, is the
// stored tree: what its row of the same key holds already passes (a copy of
// a tree stored before these checks brings it back).
func (h *Handler) checkBrought(doc []byte, held *core.Tree) *apiError {
	now := h.now()
	for _, set := range [...]string{"nodes", "branches"} {
		raw, ok := rawjson.Lookup(doc, set)
		if !ok || len(raw) == 0 || raw[0] != '{' {
			continue
		}
		d := rawjson.NewDecoder(raw)
		var bad *apiError
		d.Object(func(key string) error {
			row, err := d.Raw()
			if err != nil {
				return err
			}
			bad = h.checkRowBrought(set == "nodes", key, row, now, held)
			if bad != nil {
				return bad
			}
			return nil
		})
		if bad != nil {
			return bad
		}
	}
	return nil
}

// checkRowsBrought is checkBrought of a tree's rows (core.Tree.Rows): an
// import's, whose times its format carried.
func (h *Handler) checkRowsBrought(nodes, branches []core.Fragment) *apiError {
	now := h.now()
	for i, set := range [2][]core.Fragment{nodes, branches} {
		for _, f := range set {
			if ae := h.checkRowBrought(i == 0, f.Key, f.JSON, now, nil); ae != nil {
				return ae
			}
		}
	}
	return nil
}

// checkRowBrought checks one row of a node (isNode) or a branch, keyed key:
// see checkBrought.
func (h *Handler) checkRowBrought(isNode bool, key string, row []byte, now int64, held *core.Tree) *apiError {
	what := "branch " + quote(key)
	if isNode {
		what = "node " + quote(key)
	}
	var buf [16]rawjson.Field
	fields := rawjson.Fields(row, buf[:0])
	if isNode {
		if v, ok := rawjson.Get(fields, "label"); ok && v[0] == '"' && len(v)-2 > h.limits.Label {
			if label := rawjson.Unquote(v); len(label) > h.limits.Label && !heldLabel(held, key, label) {
				return errTooLarge("the label of " + what + " is " + itoa(len(label)) +
					" bytes; a label may have at most " + itoa(h.limits.Label))
			}
		}
	}
	var bad *apiError
	eachTime(isNode, fields, func(field string, at int64) bool {
		if at > now+maxAtAheadMs && !heldTime(held, isNode, key, at) {
			bad = errInput(quote(field) + " of " + what + " is " + strconv.FormatInt(at, 10) +
				"; a time may be at most an hour from now (milliseconds since the epoch)")
			return false
		}
		return true
	})
	return bad
}

// The times of a node's row and of a branch's (besides its summaries').
var (
	nodeTimes   = []string{"created_at_ms", "label_at_ms"}
	branchTimes = []string{"created_at_ms", "moved_at_ms", "deleted_at_ms"}
)

// eachTime calls fn with each time of a row's fields (a node's created and
// label times; a branch's created, moved and deleted times, its deleted
// instances' and its summaries'), until fn answers false. A time that is not a whole number is
// left to core's reader, which refuses it.
func eachTime(isNode bool, fields []rawjson.Field, fn func(field string, at int64) bool) bool {
	names := branchTimes
	if isNode {
		names = nodeTimes
	}
	for _, name := range names {
		if v, ok := rawjson.Get(fields, name); ok {
			if at, ok := rawjson.ParseInt(string(v)); ok && !fn(name, at) {
				return false
			}
		}
	}
	if isNode {
		return true
	}
	// A deletion of branch instances: [[created_at_ms, deleted_at_ms, leaf?]…].
	if list, ok := rawjson.Get(fields, "deleted_instances"); ok && len(list) > 0 && list[0] == '[' {
		more := true
		d := rawjson.NewDecoder(list)
		d.Array(func() error {
			entry, err := d.Raw()
			if err != nil || !more || len(entry) == 0 || entry[0] != '[' {
				return err
			}
			e := rawjson.NewDecoder(entry)
			i := 0
			return e.Array(func() error {
				v, err := e.Raw()
				if at, ok := rawjson.ParseInt(string(v)); err == nil && ok && more && i < 2 {
					more = fn("deleted_instances", at)
				}
				i++
				return err
			})
		})
		if !more {
			return false
		}
	}
	summaryTime := func(s []byte) bool {
		if v, ok := rawjson.Lookup(s, "created_at_ms"); ok {
			if at, ok := rawjson.ParseInt(string(v)); ok {
				return fn("created_at_ms", at)
			}
		}
		return true
	}
	if s, ok := rawjson.Get(fields, "summary"); ok && !summaryTime(s) {
		return false
	}
	if list, ok := rawjson.Get(fields, "kept_summaries"); ok && list[0] == '[' {
		d := rawjson.NewDecoder(list)
		more := true
		d.Array(func() error {
			s, err := d.Raw()
			if err == nil && more {
				more = summaryTime(s)
			}
			return err
		})
		return more
	}
	return true
}

// heldTime reports whether the stored tree held has the time at in its row
// of the node or branch key already (or, for a branch, as the time its leaf
// was made, a branch's moved time by default).
func heldTime(held *core.Tree, isNode bool, key string, at int64) bool {
	if held == nil {
		return false
	}
	var row []byte
	var ok bool
	if isNode {
		row, ok = held.NodeJSON(key)
	} else {
		row, ok = held.BranchJSON(key)
	}
	if !ok {
		return false
	}
	found := false
	eachTime(isNode, rawjson.Fields(row, nil), func(_ string, t int64) bool {
		found = t == at
		return !found
	})
	if !found && !isNode {
		if leaf, ok := rawjson.LookupString(row, "leaf"); ok {
			n, ok := held.Node(leaf)
			found = ok && n.CreatedAtMs == at
		}
	}
	return found
}

// heldLabel reports whether node key of the stored tree held has label.
func heldLabel(held *core.Tree, key, label string) bool {
	if held == nil {
		return false
	}
	n, ok := held.Node(key)
	return ok && n.Label == label
}

func (h *Handler) messageTooLarge(where string, n int) *apiError {
	e := errTooLarge(where + " is " + itoa(n) + " bytes; one message may have at most " +
		itoa(h.limits.Message))
	e.limit = "message" // no other form of the write (the whole tree, in parts) goes in: js/sync.js stops there
	return e
}

// treeFromBody reads the body of POST /v1/trees: empty (or {}) for a new tree,
// {"messages":[…]} for a linear one, or a .tree.json file.
func (h *Handler) treeFromBody(body []byte, now int64) (*core.Tree, *apiError) {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return core.New(), nil
	}
	const shape = `{"messages":[…]}, a .tree.json file, or nothing`
	if ae := checkJSON(body, shape); ae != nil {
		return nil, ae
	}
	if _, ok := rawjson.Lookup(body, "format"); ok {
		if ae := h.checkBrought(body, nil); ae != nil {
			return nil, ae
		}
		return h.treeFromFile(body)
	}
	raw, ok := rawjson.Lookup(body, "messages")
	if !ok {
		if _, err := rawjson.Compact(nil, body); err == nil && len(bytes.TrimSpace(body[1:len(body)-1])) == 0 {
			return core.New(), nil
		}
		return nil, errInput("the body must be " + shape)
	}
	var msgs []core.Message
	d := rawjson.NewDecoder(raw)
	if d.Peek() != '[' {
		return nil, errInput(`"messages" must be an array of message objects`)
	}
	err := d.Array(func() error {
		core.Tick()
		v, err := d.Raw()
		if err != nil {
			return err
		}
		i := len(msgs)
		if len(v) > h.limits.Message {
			return h.messageTooLarge("message "+itoa(i), len(v))
		}
		if len(msgs) >= h.limits.Nodes {
			return errTooLarge("a tree may be created with at most " + itoa(h.limits.Nodes) + " messages")
		}
		// Checked and copied once, by FromLinear's appends (their error
		// names the message as this loop did): a ParseMessage here made a
		// second copy of each and a key list per message, garbage that a
		// 100,000-message create made Go's collector mark more often.
		msgs = append(msgs, core.Message(v))
		return nil
	})
	if err != nil {
		return nil, fromCore(err)
	}
	t, err := core.FromLinear(msgs, now)
	if err != nil {
		return nil, fromCore(err)
	}
	return t, nil
}

// treeFromFile reads an uploaded .tree.json. A file with structural problems
// is refused with the first of them: the worker stores only sound trees.
func (h *Handler) treeFromFile(body []byte) (*core.Tree, *apiError) {
	t, err := core.Unmarshal(body)
	if err != nil {
		return nil, fromCore(err)
	}
	if t.Len() > h.limits.Nodes {
		return nil, errTooLarge("the tree has " + itoa(t.Len()) + " nodes; the limit is " + itoa(h.limits.Nodes))
	}
	if probs := t.Validate(); len(probs) > 0 {
		msg := probs[0].Message
		if len(probs) > 1 {
			msg += " (and " + itoa(len(probs)-1) + " more problems; repair the file first)"
		}
		return nil, errf(statusBadRequest, string(core.CodeCorrupt), msg)
	}
	_, nodes := t.Rows()
	for _, f := range nodes {
		if n, _ := t.Node(f.Key); len(n.Message) > h.limits.Message {
			return nil, h.messageTooLarge("the message of node "+quote(f.Key), len(n.Message))
		}
	}
	return t, nil
}

// opsFromBody reads {"ops":[…]} within the op and message limits.
func (h *Handler) opsFromBody(body []byte) ([]core.Op, *apiError) {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return nil, errInput(`the body must be {"ops":[…]}`)
	}
	if ae := checkJSON(body, `{"ops":[…]}`); ae != nil {
		return nil, ae
	}
	raw, ok := rawjson.Lookup(body, "ops")
	if !ok || raw[0] != '[' {
		return nil, errInput(`the body must be {"ops":[…]} with an array of operations`)
	}
	n := 0
	d := rawjson.NewDecoder(raw)
	d.Array(func() error { n++; return d.Skip() })
	if n > h.limits.Ops {
		return nil, errTooLarge(strconv.Itoa(n) + " ops in one request; the limit is " + itoa(h.limits.Ops))
	}
	if n == 0 {
		return nil, errInput(`"ops" is empty: send at least one operation`)
	}
	ops, err := core.ParseOps(raw)
	if err != nil {
		return nil, fromCore(err)
	}
	now := h.now()
	for i, op := range ops {
		if len(op.Message) > h.limits.Message {
			return nil, h.messageTooLarge("the message of op "+itoa(i), len(op.Message))
		}
		if ae := h.checkOp(i, op, now); ae != nil {
			return nil, ae
		}
	}
	return ops, nil
}
