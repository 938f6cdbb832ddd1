package main

import (
	"strconv"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/wasm/internal/bridge"
)

// request is one call from JavaScript on a tree: its arguments, time and tree.
// The framing (buffers, argument lengths, the {code,message} envelope, the one
// recover) is wasm/internal/bridge's, shared with the interchange module.
type request struct {
	method string
	args   [][]byte // views into the input buffer: copy what is kept
	at     int64
	handle uint32
	tree   *core.Tree // nil for methods that make a tree
	slots  *slotTable // the tree's message slots; nil with tree
}

// method is one exported operation. It returns the result bytes.
type method struct {
	name     string
	needTree bool
	run      func(r *request) ([]byte, error)
}

// serve hands the bridge the call table (methods[i] is call number i+1).
func serve() {
	table := make([]bridge.Method, len(methods))
	for i := range methods {
		table[i] = bridge.Method{Name: methods[i].name, Run: methods[i].call}
	}
	bridge.Serve(table)
}

// current is the request of the call under way: calls never overlap, so one
// request serves every call.
var current request

// call looks up the tree behind the handle, when the method needs one, and
// runs the method.
func (m *method) call(c *bridge.Call) ([]byte, error) {
	r := &current
	*r = request{method: m.name, args: c.Args, at: c.At, handle: c.Handle}
	defer func() { *r = request{} }() // keep no tree alive between calls
	if m.needTree {
		e := trees[c.Handle]
		if e == nil {
			return nil, invalid("this SessionTree was freed (handle " +
				strconv.FormatUint(uint64(c.Handle), 10) + "); make or load a new one")
		}
		r.tree, r.slots = e.tree, &e.slots
	}
	return m.run(r)
}

// arg returns argument i, or fails naming it.
func (r *request) arg(i int, name string) ([]byte, error) {
	if i >= len(r.args) {
		return nil, invalid(r.method + ": missing argument " + name)
	}
	return r.args[i], nil
}

// str returns argument i as a string (a copy).
func (r *request) str(i int, name string) (string, error) {
	b, err := r.arg(i, name)
	return string(b), err
}

// message returns argument i as a message that owns its bytes, not validated
// yet: the tree's methods validate what they store.
func (r *request) message(i int) (core.Message, error) {
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
func (r *request) sent(msg core.Message) { r.slots.add(msg) }

func invalid(msg string) error { return bridge.Invalid(msg) }
