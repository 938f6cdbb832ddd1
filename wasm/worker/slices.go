//go:build js && wasm

package main

import (
	"time"

	"github.com/hack-pad/safejs"
	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/wasm/worker/internal/collector"
)

// Calls in slices. One thread runs the whole isolate (under wrangler dev:
// the router and every object), and Go on wasm is never preempted, so a call
// that works for seconds (an export of a 50,000-node tree, its first load, an
// import) would hold every other tenant's request for as long. An object's
// call therefore runs in its own goroutine, and the loops of core over a
// tree's nodes call yield (core.SetYield): once the call has run for
// sliceBudget, yield parks the goroutine, and the call answers the glue
// the number n of the paused call. The glue lets the event loop run (other requests, other
// objects, the router) and calls sessiontreeResume(n), which wakes the
// goroutine for its next slice. The glue serialises the calls of one object,
// so a parked call's tree is touched by nobody else meanwhile; calls of other
// objects run between its slices.

// sliceBudget is how long one slice of a call may run before it yields, and
// sliceNodes how many of core's yield points (each 256 nodes) it may pass: a
// clock that does not move during a synchronous call (workerd may hold it
// still until the next I/O) must not make a slice endless.
const (
	sliceBudget = 4 * time.Millisecond
	sliceNodes  = 1
)

type slicedCall struct {
	yielded chan struct{}
	resume  chan struct{}
	done    chan any
	since   time.Time
	points  int
	held    bool // the call holds the collector (it yielded once at least)
}

var (
	running *slicedCall             // the call whose goroutine runs now, or nil
	parked  = map[int]*slicedCall{} // calls waiting for sessiontreeResume
	nextID  int
	inTx    int // > 0 while Go runs inside a storage transaction: never yield there
)

func init() { core.SetYield(yieldSlice) }

// yieldSlice parks the running call if its slice is used up.
func yieldSlice() {
	c := running
	if c == nil || inTx > 0 {
		return
	}
	if c.points++; c.points < sliceNodes && time.Since(c.since) < sliceBudget {
		return
	}
	running = nil
	c.yielded <- struct{}{}
	<-c.resume
	running = c
	c.since, c.points = time.Now(), 0
}

// runSliced runs fn as a call in slices and returns its answer, or the
// number n of the paused call if it yielded.
func runSliced(fn func() any) any {
	c := &slicedCall{yielded: make(chan struct{}), resume: make(chan struct{}), done: make(chan any, 1), since: time.Now()}
	go func() {
		running = c
		res := fn()
		running = nil
		if c.held {
			collector.Release()
		}
		c.done <- res
	}()
	return c.wait()
}

func (c *slicedCall) wait() any {
	select {
	case res := <-c.done:
		return res
	case <-c.yielded:
		// A call that yields is a long one: Go's collector waits for its
		// end (up to collector.Cap), since each of its cycles would be one
		// piece between two of its slices.
		if !c.held {
			c.held = true
			collector.Hold()
		} else {
			collector.Tick()
		}
		// The answer is the paused call's number, a JavaScript number: an
		// object ({pending: n}, as it was) cost a js.Value, whose finalizer
		// runs in Go's one piece of finalizers after a collection, at
		// every slice of every long call.
		nextID++
		parked[nextID] = c
		return nextID
	}
}

// serveResume is globalThis.sessiontreeResume(n): the next slice of parked call n.
func serveResume(_ safejs.Value, args []safejs.Value) any {
	if len(args) != 1 {
		return internalAnswer(errString("sessiontreeResume takes 1 argument"))
	}
	n, err := args[0].Int()
	if err != nil {
		return internalAnswer(err)
	}
	c := parked[n]
	if c == nil {
		return internalAnswer(errString("no paused call of that number"))
	}
	delete(parked, n)
	c.resume <- struct{}{}
	return c.wait()
}

type errString string

func (e errString) Error() string { return string(e) }
