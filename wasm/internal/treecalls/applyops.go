package treecalls

import (
	"math"
	"strconv"
	"strings"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/rawjson"
)

// applyOps is apply with one argument per op, so that the plainest op, an
// append, crosses without a JSON object around its message and JS keeps the
// message's text in its cache. Each argument starts with a kind:
//
//	a<message JSON>                 {"op":"append","message":…}
//	T<at: float64 LE><message JSON> {"op":"append","message":…,"at":<at>}
//	J<op JSON>                      any op, as core.ParseOps reads it
//
// It returns the per-op results (see appendResults), and gives the messages of
// the a and T ops slots, in order (JS pushes their texts when the call
// succeeds).
func applyOps(r *Request) ([]byte, error) {
	// The appends' messages are copied into one buffer (the tree keeps them),
	// so a batch of n appends allocates once, not n times.
	size := 0
	for _, a := range r.args {
		size += len(a)
	}
	arena := make([]byte, 0, size)
	ops := opsBuffer(len(r.args))
	defer clearOps(ops, r.args)
	for i, a := range r.args {
		if err := opOf(&ops[i], i, a, &arena); err != nil {
			return nil, err
		}
	}
	results, err := r.tree.Apply(ops, r.at)
	if err != nil {
		return nil, err
	}
	for i, a := range r.args {
		if a[0] != 'J' {
			r.sent(ops[i].Message)
		}
	}
	return appendResults(results), nil
}

// opsBuf is the reusable op list of applyOps (calls never overlap). Its ops
// are zero between calls. A call sets only the fields its ops use and clears
// only those: while the collector runs, which in wasm is most of the time
// during a burst of calls, every pointer written costs a write barrier, and a
// whole core.Op holds ten.
var opsBuf []core.Op

func opsBuffer(n int) []core.Op {
	if cap(opsBuf) < n {
		opsBuf = make([]core.Op, n)
	}
	return opsBuf[:n]
}

// clearOps zeroes what opOf set from args, so the buffer keeps no freed
// tree's messages alive and no op's state reaches the next call.
func clearOps(ops []core.Op, args [][]byte) {
	for i := range ops {
		if a := args[i]; len(a) > 0 && a[0] != 'J' {
			op := &ops[i]
			op.Op, op.Message, op.At, op.HasAt = "", nil, 0, false
		} else {
			ops[i] = core.Op{} // ParseOps's op, with its unexported state
		}
	}
}

// appendResults writes results as "L" and one result per line: ids and branch
// names hold no control characters, and splitting lines in JS is far cheaper
// than JSON.parse. A result with a newline (none can have one) would make it
// "J" and a JSON array instead, so the answer is right whatever the tree holds.
func appendResults(results []string) []byte {
	size := 1
	for _, s := range results {
		if strings.IndexByte(s, '\n') >= 0 {
			return rawjson.AppendStrings(append(grow(0), 'J'), results)
		}
		size += len(s) + 1
	}
	b := append(grow(size), 'L')
	for i, s := range results {
		if i > 0 {
			b = append(b, '\n')
		}
		b = append(b, s...)
	}
	return b
}

// opOf reads argument i of applyOps into op, which is zero. The message of an
// append is copied to arena (the tree keeps it) and validated by Apply, which
// names the op if it is bad.
func opOf(op *core.Op, i int, a []byte, arena *[]byte) error {
	if len(a) == 0 {
		return invalid("op " + strconv.Itoa(i) + ": empty")
	}
	switch a[0] {
	case 'a':
		op.Op, op.Message = "append", keepIn(arena, a[1:])
		return nil
	case 'T':
		if len(a) < 9 {
			return invalid("op " + strconv.Itoa(i) + ": truncated time")
		}
		v := math.Float64frombits(uint64(a[1]) | uint64(a[2])<<8 | uint64(a[3])<<16 | uint64(a[4])<<24 |
			uint64(a[5])<<32 | uint64(a[6])<<40 | uint64(a[7])<<48 | uint64(a[8])<<56)
		if math.IsNaN(v) || v < -(1<<53) || v > 1<<53 || v != math.Trunc(v) {
			return invalid("op " + strconv.Itoa(i) + `: "at" must be an integer number of milliseconds`)
		}
		op.Op, op.Message, op.At, op.HasAt = "append", keepIn(arena, a[9:]), int64(v), true
		return nil
	case 'J':
		data := make([]byte, 0, len(a)+1)
		data = append(append(append(data, '['), a[1:]...), ']')
		ops, err := core.ParseOps(data)
		if err != nil {
			return renumber(err, i)
		}
		if len(ops) != 1 {
			return invalid("op " + strconv.Itoa(i) + ": must be one JSON object")
		}
		*op = ops[0]
		return nil
	}
	return invalid("op " + strconv.Itoa(i) + ": unknown kind " + string(rawjson.AppendString(nil, string(a[:1]))))
}

// keepIn appends b to arena and returns the copy, its capacity cut to its
// length so that nothing appended to it can reach the next message.
func keepIn(arena *[]byte, b []byte) core.Message {
	start := len(*arena)
	*arena = append(*arena, b...)
	return core.Message((*arena)[start:len(*arena):len(*arena)])
}

// renumber makes ParseOps's "op 0" of a one-op batch name op i.
func renumber(err error, i int) error {
	e, ok := err.(*core.Error)
	if !ok {
		return err
	}
	msg, found := strings.CutPrefix(e.Message, "op 0")
	if !found {
		return e
	}
	return &core.Error{Code: e.Code, Message: "op " + strconv.Itoa(i) + msg}
}
