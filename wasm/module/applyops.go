package main

import (
	"strconv"
	"strings"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/rawjson"
)

// applyOps is apply with one argument per op, so that the plainest op, an
// append, crosses without a JSON object around its message and JS keeps the
// message's text in its cache. Each argument starts with a kind:
//
//	a<message JSON>             {"op":"append","message":…}
//	A<at>\n<message JSON>       {"op":"append","message":…,"at":<at>}
//	J<op JSON>                  any op, as core.ParseOps reads it
//
// It returns what apply returns, and gives the messages of the a and A ops
// slots, in order (JS pushes their texts when the call succeeds).
func applyOps(r *request) ([]byte, error) {
	ops := make([]core.Op, len(r.args))
	for i, a := range r.args {
		op, err := opOf(i, a)
		if err != nil {
			return nil, err
		}
		ops[i] = op
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
	return rawjson.AppendStrings(nil, results), nil
}

// opOf reads argument i of applyOps. The message of an append is copied (the
// tree keeps it) and validated by Apply, which names the op if it is bad.
func opOf(i int, a []byte) (core.Op, error) {
	if len(a) == 0 {
		return core.Op{}, invalid("op " + strconv.Itoa(i) + ": empty")
	}
	switch a[0] {
	case 'a':
		return core.Op{Op: "append", Message: append(core.Message(nil), a[1:]...)}, nil
	case 'A':
		nl := 1
		for nl < len(a) && a[nl] != '\n' {
			nl++
		}
		at, err := strconv.ParseInt(string(a[1:nl]), 10, 64)
		if err != nil || nl == len(a) {
			return core.Op{}, invalid("op " + strconv.Itoa(i) + `: "at" must be an integer number of milliseconds`)
		}
		return core.Op{Op: "append", Message: append(core.Message(nil), a[nl+1:]...), At: at, HasAt: true}, nil
	case 'J':
		data := make([]byte, 0, len(a)+1)
		data = append(append(append(data, '['), a[1:]...), ']')
		ops, err := core.ParseOps(data)
		if err != nil {
			return core.Op{}, renumber(err, i)
		}
		if len(ops) != 1 {
			return core.Op{}, invalid("op " + strconv.Itoa(i) + ": must be one JSON object")
		}
		return ops[0], nil
	}
	return core.Op{}, invalid("op " + strconv.Itoa(i) + ": unknown kind " + strconv.Quote(string(a[:1])))
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
