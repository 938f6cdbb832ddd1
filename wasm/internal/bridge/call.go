package bridge

import (
	"math"
	"strconv"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/rawjson"
)

// Call is one call from JavaScript.
type Call struct {
	Name   string   // the method's name, from the table
	Args   [][]byte // views into the input buffer: copy what is kept
	At     int64    // the time argument, integer milliseconds
	Handle uint32   // the tree handle JavaScript passed (0: none)
}

// Method is one entry of a module's call table: a name and what runs it.
type Method struct {
	Name string
	Run  func(c *Call) ([]byte, error)
}

// table is the served call table; number 0 ("methods") is the bridge's own.
var table []Method

// Serve makes methods the call table: methods[i] is call number i+1. A
// module calls it once, from an init function.
func Serve(methods []Method) {
	table = append([]Method{{"methods", listMethods}}, methods...)
}

// listMethods returns the method names, one per line, in call-number order.
func listMethods(*Call) ([]byte, error) {
	var b []byte
	for i, m := range table {
		if i > 0 {
			b = append(b, '\n')
		}
		b = append(b, m.Name...)
	}
	return b, nil
}

// current is the call under way; its argument list is reused by every call.
var current Call

// Do decodes a call (method number, tree handle, argument bytes, time), runs
// it and returns its result, or an encoded {code,message} error and false. It
// is the one place a panic stops: whatever the input, the Go program keeps
// running. st_call runs it; tests call it as JavaScript would.
func Do(method, handle uint32, in []byte, at float64) (res []byte, ok bool) {
	c := &current
	*c = Call{Handle: handle, Args: c.Args[:0]}
	defer func() {
		clear(c.Args) // drop the views of the input buffer
		if p := recover(); p != nil {
			res, ok = ErrorJSON(core.CodeCorrupt, "internal error in "+c.Name+
				" (a bug in sessiontree; the module keeps working): "+panicText(p)), false
		}
	}()
	defer settle(len(in))
	if int(method) >= len(table) {
		return ErrorJSON(core.CodeInvalidInput, "unknown method number "+strconv.Itoa(int(method))), false
	}
	m := table[method]
	c.Name = m.Name
	if math.IsNaN(at) || at < -(1<<53) || at > 1<<53 || at != math.Trunc(at) {
		return ErrorJSON(core.CodeInvalidInput, "the time must be an integer number of milliseconds"), false
	}
	c.At = int64(at)
	if err := Room(2 * len(in)); err != nil {
		return ErrorResult(err), false
	}
	args, err := splitArgs(c.Args, in)
	if err != nil {
		return ErrorResult(err), false
	}
	c.Args = args
	out, err := m.Run(c)
	if err != nil {
		return ErrorResult(err), false
	}
	return out, true
}

// splitArgs appends the arguments to args: each is a little-endian uint32
// length and then that many bytes.
func splitArgs(args [][]byte, in []byte) ([][]byte, error) {
	for len(in) > 0 {
		if len(in) < 4 {
			return nil, Invalid("truncated argument header")
		}
		n := uint32(in[0]) | uint32(in[1])<<8 | uint32(in[2])<<16 | uint32(in[3])<<24
		in = in[4:]
		if uint64(n) > uint64(len(in)) {
			return nil, Invalid("argument longer than the input")
		}
		args = append(args, in[:n:n])
		in = in[n:]
	}
	return args, nil
}

// Arg returns argument i, or fails naming it.
func (c *Call) Arg(i int, name string) ([]byte, error) {
	if i >= len(c.Args) {
		return nil, Invalid(c.Name + ": missing argument " + name)
	}
	return c.Args[i], nil
}

// Str returns argument i as a string (a copy), or fails naming it.
func (c *Call) Str(i int, name string) (string, error) {
	b, err := c.Arg(i, name)
	return string(b), err
}

// Invalid is an invalid_input error with msg.
func Invalid(msg string) error { return &core.Error{Code: core.CodeInvalidInput, Message: msg} }

// ErrorResult encodes err as the {code,message} envelope: a *core.Error keeps
// its code, anything else is invalid_input.
func ErrorResult(err error) []byte {
	if e, ok := err.(*core.Error); ok {
		return ErrorJSON(e.Code, e.Message)
	}
	return ErrorJSON(core.CodeInvalidInput, err.Error())
}

// ErrorJSON encodes {"code":code,"message":msg}.
func ErrorJSON(code core.Code, msg string) []byte {
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
