package treecalls

import (
	"strconv"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/wasm/internal/bridge"
)

// Request is one call from JavaScript on a tree: its arguments, time and tree.
// The framing (buffers, argument lengths, the {code,message} envelope, the one
// recover) is wasm/internal/bridge's.
type Request struct {
	method string
	args   [][]byte // views into the input buffer: copy what is kept
	at     int64
	handle uint32
	tree   *core.Tree // nil for methods that make a tree
	slots  *slotTable // the tree's message slots; nil with tree
	entry  *entry     // the tree's entry; nil with tree
}

// Method is one exported operation: its name in the call table, whether it
// runs on the tree behind the call's handle, and what it does. It returns the
// result bytes.
type Method struct {
	Name string
	Need Need
	Run  func(r *Request) ([]byte, error)
}

// Need is what a method needs before it runs.
type Need uint8

const (
	NoTree Need = iota // nothing: the handle is not looked up
	Tree               // the tree behind the handle
	// WholeTree: the tree, and room for twice its estimated size in memory:
	// the method writes, copies or walks all of it into a result.
	WholeTree
	// Save: as WholeTree, or room for one piece when the call is part of a
	// save in pieces (savePiece), which then stays under way.
	Save
)

// served is the table handed to the bridge by the last Serve.
var served []Method

// Serve hands the bridge the call table (methods[i] is call number i+1). A
// module calls it once, before JavaScript makes its first call.
func Serve(methods []Method) {
	served = methods
	table := make([]bridge.Method, len(methods))
	for i := range methods {
		m := &methods[i]
		table[i] = bridge.Method{Name: m.Name, Run: m.call}
	}
	bridge.Serve(table)
}

// current is the request of the call under way: calls never overlap, so one
// request serves every call.
var current Request

// call looks up the tree behind the handle, when the method needs one, asks
// the memory it needs (Need), and runs the method.
func (m *Method) call(c *bridge.Call) ([]byte, error) {
	r := &current
	*r = Request{method: m.Name, args: c.Args, at: c.At, handle: c.Handle}
	defer func() { *r = Request{} }() // keep no tree alive between calls
	if m.Need != NoTree {
		e := trees[c.Handle]
		if e == nil {
			return nil, invalid("this SessionTree was freed (handle " +
				strconv.FormatUint(uint64(c.Handle), 10) + "); make or load a new one")
		}
		if e.broken != "" && m.Name != "save" && m.Name != "validate" {
			return nil, &core.Error{Code: core.CodeCorrupt, Message: "an internal error in " + e.broken +
				" (a bug in sessiontree) may have left this tree half changed, so it takes no more calls but save() and validate(): load it again (from your store, or from its save(), then repair())"}
		}
		// A panic in a call leaves the tree as far as the call got (the bridge
		// answers it with an error and the module goes on): the tree is marked
		// and fails closed from then on, so a half-done change is neither
		// built on nor stored by a change feed.
		defer func() {
			if p := recover(); p != nil {
				e.broken = m.Name
				panic(p)
			}
		}()
		r.tree, r.slots, r.entry = e.tree, &e.slots, e
		for _, a := range c.Args {
			e.size += len(a)
		}
		piece := 0
		if m.Need == Save {
			piece = savePiece(c.At, e)
		}
		if piece == 0 {
			e.saving = nil // a save in pieces ends with any other call
		}
		if m.Need >= WholeTree {
			need := 2 * e.size
			if piece > 0 {
				need = piece + piece/8 // a piece's buffer, not the file's size
			}
			if err := bridge.Room(need); err != nil {
				return nil, err
			}
		}
	}
	return m.Run(r)
}

// arg returns argument i, or fails naming it.
func (r *Request) arg(i int, name string) ([]byte, error) {
	if i >= len(r.args) {
		return nil, invalid(r.method + ": missing argument " + name)
	}
	return r.args[i], nil
}

// str returns argument i as a string (a copy).
// nodeID returns argument i, a node id, as the tree keeps it when the tree
// has that node (no copy), else as a copy (for the call's not-found error).
func (r *Request) nodeID(i int, name string) (string, error) {
	b, err := r.arg(i, name)
	if err != nil {
		return "", err
	}
	if id, ok := r.tree.NodeID(b); ok {
		return id, nil
	}
	return string(b), nil
}

func (r *Request) str(i int, name string) (string, error) {
	b, err := r.arg(i, name)
	return string(b), err
}

// Arg returns argument i (a view of the input buffer: copy what is kept), or
// fails naming it.
func (r *Request) Arg(i int, name string) ([]byte, error) { return r.arg(i, name) }

// NArgs returns the number of arguments.
func (r *Request) NArgs() int { return len(r.args) }

// Str returns argument i as a string (a copy), or fails naming it.
func (r *Request) Str(i int, name string) (string, error) { return r.str(i, name) }

// Tree returns the tree behind the call's handle (nil for a method that does
// not need one).
func (r *Request) Tree() *core.Tree { return r.tree }

// message returns argument i as a message that owns its bytes, not validated
// yet: the tree's methods validate what they store.
func (r *Request) message(i int) (core.Message, error) {
	b, err := r.arg(i, "message")
	if err != nil {
		return nil, err
	}
	return core.Message(append([]byte(nil), b...)), nil
}

// sent gives msg, the argument of a call that stored it, a slot: JS holds its
// text. The tree keeps an argument that is already compact as it is (JSON.stringify
// writes compact JSON), so msg is then the stored message; if the tree stored a
// compacted copy instead, the slot is never looked up, and a projection sends
// that copy's bytes once, under a slot of its own.
func (r *Request) sent(msg core.Message) { r.slots.add(msg) }

func invalid(msg string) error { return bridge.Invalid(msg) }
