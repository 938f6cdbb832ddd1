//go:build js && wasm

package main

import (
	"errors"

	"github.com/hack-pad/safejs"
	"github.com/sessiontree/sessiontree/wasm/edge"
)

// pacer is the isolate's edge.Pacer: the glue asks it how long a tenant's
// fan-out frames and live-socket upgrades must wait (isolate.mjs, pace).
var pacer edge.Pacer

// servePace is globalThis.sessiontreePace(key, n, rate, nowMs): the
// milliseconds to wait before key's next n units under rate a second
// (edge.Pacer.Delay), or -1 for arguments it cannot read.
func servePace(_ safejs.Value, args []safejs.Value) any {
	d, err := paceCall(args)
	if err != nil {
		return -1
	}
	return d
}

func paceCall(args []safejs.Value) (int, error) {
	if len(args) != 4 {
		return 0, errors.New("sessiontreePace takes 4 arguments")
	}
	key, err := args[0].String()
	if err != nil {
		return 0, err
	}
	n, err := args[1].Int()
	if err != nil {
		return 0, err
	}
	rate, err := args[2].Float()
	if err != nil {
		return 0, err
	}
	now, err := args[3].Float()
	if err != nil {
		return 0, err
	}
	return int(pacer.Delay(key, n, rate, int64(now))), nil
}
