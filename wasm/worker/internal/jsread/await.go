//go:build js && wasm

// Package jsread reads what the JavaScript runtime answers the worker, through
// github.com/hack-pad/safejs: a promise's settlement, an array's items, a
// row's columns. Every failure, a JS exception or a value of the wrong type,
// is an error naming what was expected; nothing here panics. (A property
// getter that throws is out of reach: wasm_exec.js reads properties without a
// try/catch, so no Go code can catch that; D1's results are plain data.)
package jsread

import (
	"errors"
	"time"

	"github.com/hack-pad/safejs"
)

// Await blocks the calling goroutine until the JS promise p settles, or until
// limit has passed (a request canceled meanwhile never settles its promises).
// A rejection is an error carrying the reason's message.
func Await(p safejs.Value, limit time.Duration) (safejs.Value, error) {
	type settled struct {
		v   safejs.Value
		err error
	}
	ch := make(chan settled, 1)
	then, err := safejs.FuncOf(func(_ safejs.Value, args []safejs.Value) any {
		ch <- settled{v: first(args)}
		return nil
	})
	if err != nil {
		return safejs.Value{}, err
	}
	catch, err := safejs.FuncOf(func(_ safejs.Value, args []safejs.Value) any {
		ch <- settled{err: errors.New(rejection(first(args)))}
		return nil
	})
	if err != nil {
		then.Release()
		return safejs.Value{}, err
	}
	if _, err := p.Call("then", then, catch); err != nil {
		then.Release()
		catch.Release()
		return safejs.Value{}, errors.New("not a promise: " + err.Error())
	}
	timer := time.NewTimer(limit)
	defer timer.Stop()
	select {
	case s := <-ch:
		then.Release()
		catch.Release()
		return s.v, s.err
	case <-timer.C:
		// then and catch stay registered: the promise may still settle.
		return safejs.Value{}, errors.New("no answer from the runtime in " + limit.String())
	}
}

// first is args[0], or undefined if there is none.
func first(args []safejs.Value) safejs.Value {
	if len(args) == 0 {
		return safejs.Undefined()
	}
	return args[0]
}

// rejection is the message of a promise's rejection reason: the reason itself
// if it is a string, its message property if that is one, else its
// toString(), else a fixed sentence (the reason may be undefined, or an object
// whose toString throws).
func rejection(reason safejs.Value) string {
	if s, ok := stringOf(reason); ok {
		return s
	}
	if m, err := reason.Get("message"); err == nil {
		if s, ok := stringOf(m); ok {
			return s
		}
	}
	if v, err := reason.Call("toString"); err == nil {
		if s, ok := stringOf(v); ok {
			return s
		}
	}
	return "promise rejected"
}

// stringOf returns v if it is a JS string.
func stringOf(v safejs.Value) (string, bool) {
	if v.Type() != safejs.TypeString {
		return "", false
	}
	s, err := v.String()
	return s, err == nil
}
