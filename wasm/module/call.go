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
func call(m, handle uint32, in []byte, at float64) (res []byte, ok bool) {
	r := &request{handle: handle}
	defer func() {
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
	args, err := splitArgs(in)
	if err != nil {
		return errorResult(err), false
	}
	r.args = args
	if spec.needTree {
		if r.tree = trees[handle]; r.tree == nil {
			return errorJSON(core.CodeInvalidInput, "this SessionTree was freed (handle "+
				strconv.FormatUint(uint64(handle), 10)+"); make or load a new one"), false
		}
	}
	out, err := spec.run(r)
	if err != nil {
		return errorResult(err), false
	}
	return out, true
}

// splitArgs reads the arguments: each is a little-endian uint32 length and then
// that many bytes.
func splitArgs(in []byte) ([][]byte, error) {
	var args [][]byte
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

// message returns argument i as a validated message that owns its bytes.
func (r *request) message(i int) (core.Message, error) {
	b, err := r.arg(i, "message")
	if err != nil {
		return nil, err
	}
	return core.ParseMessage(append([]byte(nil), b...))
}

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
