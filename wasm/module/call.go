package main

import (
	"math"
	"strconv"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/rawjson"
)

// request is one call from JavaScript: its arguments, time and tree.
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

// call decodes a request, runs the method and returns its result, or an
// encoded {code,message} error and false. It is the one place a panic stops:
// whatever the input, the Go program keeps running.
//
// Calls never overlap (JavaScript waits for each), so every call reuses one
// request and one argument list: a call allocates only what it keeps.
func call(m, handle uint32, in []byte, at float64) (res []byte, ok bool) {
	r := &current
	*r = request{handle: handle, args: r.args[:0]}
	defer func() {
		clear(r.args) // drop the views of the input buffer
		if p := recover(); p != nil {
			res, ok = errorJSON(core.CodeCorrupt, "internal error in "+r.method+
				" (a bug in sessiontree; the module keeps working): "+panicText(p)), false
		}
	}()
	defer releaseBig()
	if int(m) >= len(methods) {
		return errorJSON(core.CodeInvalidInput, "unknown method number "+strconv.Itoa(int(m))), false
	}
	spec := methods[m]
	r.method = spec.name
	if math.IsNaN(at) || at < -(1<<53) || at > 1<<53 || at != math.Trunc(at) {
		return errorJSON(core.CodeInvalidInput, "the time must be an integer number of milliseconds"), false
	}
	r.at = int64(at)
	args, err := splitArgs(r.args, in)
	if err != nil {
		return errorResult(err), false
	}
	r.args = args
	if spec.needTree {
		e := trees[handle]
		if e == nil {
			return errorJSON(core.CodeInvalidInput, "this SessionTree was freed (handle "+
				strconv.FormatUint(uint64(handle), 10)+"); make or load a new one"), false
		}
		r.tree, r.slots = e.tree, &e.slots
	}
	out, err := spec.run(r)
	if err != nil {
		return errorResult(err), false
	}
	return out, true
}

// current is the request of the call under way.
var current request

// splitArgs appends the arguments to args: each is a little-endian uint32
// length and then that many bytes.
func splitArgs(args [][]byte, in []byte) ([][]byte, error) {
	for len(in) > 0 {
		if len(in) < 4 {
			return nil, invalid("truncated argument header")
		}
		n := uint32(in[0]) | uint32(in[1])<<8 | uint32(in[2])<<16 | uint32(in[3])<<24
		in = in[4:]
		if uint64(n) > uint64(len(in)) {
			return nil, invalid("argument longer than the input")
		}
		args = append(args, in[:n:n])
		in = in[n:]
	}
	return args, nil
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

func invalid(msg string) error { return &core.Error{Code: core.CodeInvalidInput, Message: msg} }

// errorResult encodes err as the {code,message} envelope.
func errorResult(err error) []byte {
	if e, ok := err.(*core.Error); ok {
		return errorJSON(e.Code, e.Message)
	}
	return errorJSON(core.CodeInvalidInput, err.Error())
}

func errorJSON(code core.Code, msg string) []byte {
	b := append([]byte(`{"code":`), rawjson.AppendString(nil, string(code))...)
	b = append(b, `,"message":`...)
	b = rawjson.AppendString(b, msg)
	return append(b, '}')
}

func panicText(p any) string {
	switch v := p.(type) {
	case error:
		return v.Error()
	case string:
		return v
	}
	return "unknown panic"
}
