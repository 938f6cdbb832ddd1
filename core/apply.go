package core

import (
	"strings"

	"github.com/sessiontree/sessiontree/core/rawjson"
)

// Op is one operation of a batch for Apply, named after the method it calls, with
// that method's arguments. Fields an operation does not use are ignored.
type Op struct {
	Op      string // append, rewind, branch, switch, label, clearLabel, checkout, open, edit, regenerate, summarize, deleteBranch
	Message Message
	Node    string // rewind, label, clearLabel, checkout, open, edit, regenerate
	From    string // branch
	Name    string // branch (optional)
	Branch  string // switch, summarize, deleteBranch
	Label   string
	Summary string
	ModelID string
	At      int64 // the time to record; used only when HasAt
	HasAt   bool

	parsed bool // Message was validated by ParseOps
}

// Apply runs ops in order as one atomic change: if any fails, the tree is left
// exactly as it was and the error names the failing op's index. It returns one
// result per op: the new id (append, edit, regenerate), the preserved branch
// (rewind, "" for a no-op), the branch name (branch, checkout, open), or "". Ops without
// a time use nowMs.
func (t *Tree) Apply(ops []Op, nowMs int64) ([]string, error) {
	if t.journal != nil {
		return nil, newError(CodeConflict, "Apply cannot be nested")
	}
	t.openJournal()
	// Most ops record one change (a batch's repeated leaf moves and touches of
	// one branch are recorded once): size the journal once.
	if n := len(ops) + 4; cap(t.journal.undo) < n {
		t.journal.undo = make([]undo, 0, n) // empty: openJournal emptied it
	}
	t.reserve(ops)
	defer func() {
		if r := recover(); r != nil {
			t.rollback()
			t.closeJournal()
			panic(r)
		}
		t.closeJournal()
	}()
	results := make([]string, len(ops))
	for i, op := range ops {
		tickBytes(len(op.Message))
		at := nowMs
		if op.HasAt {
			at = op.At
		}
		res, err := t.apply(op, at)
		if err != nil {
			t.rollback()
			e, _ := err.(*Error)
			if e == nil {
				e = newError(CodeInvalidInput, err.Error())
			}
			return nil, &Error{Code: e.Code, Message: "op " + itoa(i) + " (" + op.Op + "): " + e.Message}
		}
		results[i] = res
	}
	t.journal.went, t.journal.after = true, t.version
	return results, nil
}

// reserve makes room for the nodes a batch adds: a map grown once instead of
// step by step when the batch at least doubles the tree, and one slab for the
// nodes its appends create.
func (t *Tree) reserve(ops []Op) {
	adds, appends := 0, 0
	for i := range ops {
		switch ops[i].Op {
		case "append":
			appends++
			adds++
		case "edit", "regenerate":
			adds++
		}
	}
	if adds > 64 && adds >= len(t.nodes) {
		grown := make(map[string]*node, len(t.nodes)+adds)
		for k, n := range t.nodes {
			grown[k] = n
		}
		t.nodes = grown
	}
	if appends > 1 {
		t.slab = make([]node, appends)
	}
}

func (t *Tree) apply(op Op, at int64) (string, error) {
	switch op.Op {
	case "append":
		if op.parsed {
			return t.appendValid(op.Message, at)
		}
		return t.Append(op.Message, at)
	case "rewind":
		return t.Rewind(op.Node, at)
	case "branch":
		return t.Branch(op.From, op.Name, at)
	case "switch":
		return "", t.SwitchBranch(op.Branch)
	case "label":
		return "", t.LabelAt(op.Node, op.Label, at)
	case "clearLabel":
		return "", t.ClearLabelAt(op.Node, at)
	case "checkout":
		return t.Checkout(op.Node, at)
	case "open":
		return t.Open(op.Node, at)
	case "edit":
		return t.Edit(op.Node, op.Message, at)
	case "regenerate":
		return t.Regenerate(op.Node, op.Message, at)
	case "summarize":
		return "", t.SummarizeBranch(op.Branch, op.Summary, op.ModelID, at)
	case "deleteBranch":
		return "", t.DeleteBranchAt(op.Branch, at)
	}
	return "", newError(CodeInvalidInput, "unknown op "+quote(op.Op))
}

// opFields returns the fields op requires and allows (beyond "op" and "at"),
// and false for an unknown op. A switch over statically initialized lists, not
// a map literal: the map's initialization would cost the wasm module ~6 KB of
// code.
func opFields(op string) (required, optional []string, ok bool) {
	switch op {
	case "append":
		return fieldsMessage, nil, true
	case "rewind", "clearLabel", "checkout", "open":
		return fieldsNode, nil, true
	case "branch":
		return fieldsFrom, fieldsName, true
	case "switch", "deleteBranch":
		return fieldsBranch, nil, true
	case "label":
		return fieldsNodeLabel, nil, true
	case "edit", "regenerate":
		return fieldsNodeMessage, nil, true
	case "summarize":
		return fieldsBranchSummary, fieldsModelID, true
	}
	return nil, nil, false
}

var (
	fieldsMessage       = []string{"message"}
	fieldsNode          = []string{"node"}
	fieldsFrom          = []string{"from"}
	fieldsName          = []string{"name"}
	fieldsBranch        = []string{"branch"}
	fieldsNodeLabel     = []string{"node", "label"}
	fieldsNodeMessage   = []string{"node", "message"}
	fieldsBranchSummary = []string{"branch", "summary"}
	fieldsModelID       = []string{"modelId"}
)

// opKeys counts the "op" keys of a body of operations (ParseOps).
var opKeys = newCounter([]byte(`"op"`))

// ParseOps reads a JSON array of operations as the JS API's apply and the
// worker's /ops route take them: {"op":"append","message":{…},"at":123}, with the
// methods' argument names. Every problem is CodeInvalidInput naming the op's index
// and field. The ops' messages point into data, which must not change afterwards.
func ParseOps(data []byte) ([]Op, error) {
	d := rawjson.NewDecoder(data)
	// Every op has an "op" key: count them to size the slice once (capped, so
	// that text which only repeats "op" cannot make it much larger than data).
	// The count runs in pieces that tick, like the parse: over a body of
	// megabytes it is a long loop of its own (a key split between two
	// pieces is missed; the slice then grows once). The counter skips ahead
	// as bytes.Count does not in WebAssembly (a rolling hash over every
	// byte: 18 ms of each 7 MB batch in the worker's profile).
	count := 0
	for rest := data; len(rest) > 0; {
		n := min(len(rest), 64<<10)
		count += opKeys.count(rest[:n])
		tickBytes(n)
		rest = rest[n:]
	}
	ops := make([]Op, 0, min(count, len(data)/24+1))
	err := d.Array(func() error {
		i := len(ops)
		op, err := parseOp(d, i)
		if err != nil {
			return err
		}
		tickBytes(len(op.Message))
		if len(ops) == cap(ops) {
			// Double: append's gentler growth copies a long batch of these
			// large structs several times over.
			grown := make([]Op, len(ops), 2*cap(ops)+16)
			copy(grown, ops)
			ops = grown
		}
		ops = append(ops, op)
		return nil
	})
	if err == nil {
		err = d.End()
	}
	if err != nil {
		if e, ok := err.(*Error); ok {
			return nil, e
		}
		return nil, newError(CodeInvalidInput, "ops must be a JSON array of objects: "+err.Error())
	}
	return ops, nil
}

func parseOp(d *rawjson.Decoder, i int) (Op, error) {
	var op Op
	var seen uint16
	bad := func(msg string) error { return newError(CodeInvalidInput, "op "+itoa(i)+": "+msg) }
	err := d.Members(func(rawKey []byte) error {
		key := rawjson.KeyView(rawKey) // compared and quoted, never kept
		bit := fieldBit(key)
		if bit != 0 && seen&bit != 0 {
			return bad("duplicate field " + quote(key))
		}
		seen |= bit
		var err error
		str := func(dst *string) {
			if *dst, err = d.String(); err != nil {
				err = bad(quote(key) + " must be a string")
			}
		}
		switch key {
		case "op":
			var name string
			if name, err = d.StringView(); err != nil {
				err = bad(quote(key) + " must be a string")
			}
			op.Op = opName(name)
		case "message":
			var raw []byte
			if raw, err = d.RawUnique(); err != nil {
				if de, ok := err.(*rawjson.DuplicateKeyError); ok {
					return bad("message names the key " + quote(de.Key) + " twice (at " + de.Where() + "); send each key once")
				}
				return bad("message is not valid JSON: " + err.Error())
			}
			// Raw validated and compacted it; only the shape is left to check.
			if role, ok := rawjson.Lookup(raw, "role"); raw[0] != '{' || !ok || role[0] != '"' {
				return bad(`message must be a JSON object with a string "role"`)
			}
			op.Message = Message(raw)
			op.parsed = true
		case "node", "from", "branch":
			// A node or a branch is named by a non-empty string, as the
			// methods refuse "" before they look it up (invalid_input, not
			// not_found).
			dst := &op.Node
			if key == "from" {
				dst = &op.From
			} else if key == "branch" {
				dst = &op.Branch
			}
			if str(dst); err == nil && *dst == "" {
				err = bad(quote(key) + " must be a non-empty string")
			}
		case "name", "modelId":
			// Optional: left out or null for none, as the methods take
			// undefined or null; "" is no name (nor model) and is refused,
			// as the methods refuse it, rather than read as none.
			if d.Null() {
				return nil
			}
			dst := &op.Name
			if key == "modelId" {
				dst = &op.ModelID
			}
			if str(dst); err == nil && *dst == "" {
				err = bad(quote(key) + " must be a non-empty string (leave it out for none)")
			}
		case "label":
			str(&op.Label)
		case "summary":
			str(&op.Summary)
		case "at":
			if d.Null() {
				return nil
			}
			if op.At, err = d.Int64(); err != nil {
				return bad(`"at" must be an integer number of milliseconds`)
			}
			op.HasAt = true
		default:
			return bad("unknown field " + quote(key))
		}
		return err
	})
	if err != nil {
		if _, ok := err.(*Error); ok {
			return op, err
		}
		return op, bad(err.Error())
	}
	required, optional, ok := opFields(op.Op)
	if !ok {
		return op, bad("unknown op " + quote(op.Op))
	}
	allowed := fieldBit("op") | fieldBit("at")
	for _, f := range required {
		if seen&fieldBit(f) == 0 {
			return op, bad(quote(op.Op) + " needs " + quote(f))
		}
		allowed |= fieldBit(f)
	}
	for _, f := range optional {
		allowed |= fieldBit(f)
	}
	if extra := seen &^ allowed; extra != 0 {
		for _, f := range opFieldNames {
			if extra&fieldBit(f) != 0 {
				return op, bad(quote(op.Op) + " takes no field " + quote(f))
			}
		}
	}
	return op, nil
}

// opName returns the op name as a constant when it is one, so that parsing a
// batch allocates no string per op and keeps no view of the input.
func opName(s string) string {
	switch s {
	case "append":
		return "append"
	case "rewind":
		return "rewind"
	case "branch":
		return "branch"
	case "switch":
		return "switch"
	case "label":
		return "label"
	case "clearLabel":
		return "clearLabel"
	case "checkout":
		return "checkout"
	case "open":
		return "open"
	case "edit":
		return "edit"
	case "regenerate":
		return "regenerate"
	case "summarize":
		return "summarize"
	case "deleteBranch":
		return "deleteBranch"
	}
	return strings.Clone(s)
}

// opFieldNames are the fields an op object may have, in bit order.
var opFieldNames = [...]string{"op", "message", "node", "from", "name", "branch", "label", "summary", "modelId", "at"}

// fieldBit is the bit of a known op field, or 0.
func fieldBit(key string) uint16 {
	for i, f := range opFieldNames {
		if f == key {
			return 1 << i
		}
	}
	return 0
}
