//go:build js && wasm

package main

import (
	"errors"
	"syscall/js"
	"time"
)

// awaitLimit bounds a wait for the runtime: a request canceled meanwhile (its
// client went away) never settles its promises, and the goroutine must not
// hold a tree's lock for ever.
const awaitLimit = 20 * time.Second

// await blocks the calling goroutine until the JS promise p settles.
func await(p js.Value) (js.Value, error) {
	type settled struct {
		v   js.Value
		err error
	}
	ch := make(chan settled, 1)
	var then, catch js.Func
	then = js.FuncOf(func(_ js.Value, args []js.Value) any {
		ch <- settled{v: args[0]}
		return nil
	})
	catch = js.FuncOf(func(_ js.Value, args []js.Value) any {
		msg := "promise rejected"
		if len(args) > 0 {
			if m := args[0].Get("message"); m.Type() == js.TypeString {
				msg = m.String()
			} else {
				msg = args[0].Call("toString").String()
			}
		}
		ch <- settled{err: errors.New(msg)}
		return nil
	})
	p.Call("then", then, catch)
	timer := time.NewTimer(awaitLimit)
	defer timer.Stop()
	select {
	case s := <-ch:
		then.Release()
		catch.Release()
		return s.v, s.err
	case <-timer.C:
		// then and catch stay registered: the promise may still settle.
		return js.Value{}, errors.New("no answer from the runtime in " + awaitLimit.String())
	}
}

// jsCall calls fn, turning a thrown JS exception into an error.
func jsCall(fn func() js.Value) (v js.Value, err error) {
	defer func() {
		if p := recover(); p != nil {
			if je, ok := p.(js.Error); ok {
				err = errors.New(je.Error())
				return
			}
			err = errors.New("a JavaScript call failed")
		}
	}()
	return fn(), nil
}
