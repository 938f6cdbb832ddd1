package bridge

import (
	"strconv"
	_ "unsafe" // go:linkname

	"github.com/sessiontree/sessiontree/core"
)

// Calls in slices (issue 16: a 100 MB load is a main-thread task of seconds
// on a page). Go in WebAssembly is never preempted, and JavaScript waits for
// an export to return, so a long call blocks the page for as long as it runs.
// A sliced call therefore runs in its own goroutine, and core's node loops
// call the yield function (core.SetYield) every few hundred nodes: once the
// call has run for its slice, yield parks the goroutine and the export
// returns, answering that the call is pending (a number). JavaScript lets the
// event loop run (rendering, input, other calls on other trees) and resumes
// it for the next slice (Resume), or gives it up (Cancel). The call's
// goroutine owns everything it works on: it must not touch the input buffer,
// the current Call or anything another call may change (a load reads a buffer
// of its own and builds a tree nobody else sees until it is done).
//
// This file is plain Go, so the same code runs in native tests, where the
// channels hand the one turn to run between the goroutines as the wasm
// scheduler does.

type slice struct {
	resume chan bool     // true: give up (Cancel)
	done   chan sliceEnd // the end of each slice: the call's, or a yield
	until  int64         // nanotime at which the slice is used up
	budget int64         // nanoseconds
}

// sliceEnd is how a slice ended: the call's result, or yielded. (One channel
// for both: a select would link the runtime's selectgo, ~4 KB of the lean
// module gzipped.)
type sliceEnd struct {
	res     []byte
	err     error
	yielded bool
}

// cancelled is what a given-up call's yield panics with, unwinding its goroutine.
type cancelled struct{}

var (
	running   *slice                // the sliced call whose goroutine runs now, or nil
	parked    = map[uint32]*slice{} // calls waiting for Resume, by number
	nextSlice uint32
)

func init() { core.SetYield(yieldSlice) }

// yieldSlice parks the running sliced call when its slice is used up. Outside
// a sliced call it returns at once.
func yieldSlice() {
	s := running
	if s == nil || nanotime() < s.until {
		return
	}
	running = nil
	s.done <- sliceEnd{yielded: true}
	if <-s.resume {
		panic(cancelled{})
	}
	running = s
	s.until = nanotime() + s.budget
}

// Give parks the running sliced call at once, whatever is left of its slice,
// as a yield parks it when the slice is used up: Sliced or Resume answers
// pending, and the call goes on from here at the next Resume. A call that
// hands out its results one at a time (fullcalls' importNext: a
// conversation each) gives after each.
func Give() {
	if s := running; s != nil {
		s.until = 0
		yieldSlice()
	}
}

// Sliced runs fn in slices of budget nanoseconds: it returns fn's result when fn ends
// within the first slice, or pending, a number for Resume and Cancel, when fn
// yielded. fn runs in a goroutine of its own; a panic in it is the error a
// panic in any call is, and leaves the module usable.
func Sliced(budget int64, fn func() ([]byte, error)) (res []byte, pending uint32, err error) {
	s := &slice{resume: make(chan bool), done: make(chan sliceEnd, 1), budget: budget}
	go s.run(fn)
	return s.wait()
}

func (s *slice) run(fn func() ([]byte, error)) {
	var end sliceEnd
	defer func() {
		if p := recover(); p != nil {
			if _, ok := p.(cancelled); ok {
				end = sliceEnd{err: &core.Error{Code: core.CodeInvalidInput, Message: "the call was given up"}}
			} else {
				end = sliceEnd{err: &core.Error{Code: core.CodeCorrupt, Message: "internal error in a sliced call" +
					" (a bug in sessiontree; the module keeps working): " + panicText(p)}}
			}
		}
		running = nil // before done: the caller may start another sliced call then
		s.done <- end
	}()
	running = s
	s.until = nanotime() + s.budget
	end.res, end.err = fn()
}

// wait lets the call's goroutine run until it ends or yields.
func (s *slice) wait() ([]byte, uint32, error) {
	if e := <-s.done; !e.yielded {
		return e.res, 0, e.err
	}
	nextSlice++
	for nextSlice == 0 || parked[nextSlice] != nil {
		nextSlice++
	}
	parked[nextSlice] = s
	return nil, nextSlice, nil
}

// Resume runs the next slice, of budget nanoseconds, of the pending call n: its result,
// or pending again (a new number).
func Resume(n uint32, budget int64) ([]byte, uint32, error) {
	s := parked[n]
	if s == nil {
		return nil, 0, Invalid("no pending call numbered " + strconv.FormatUint(uint64(n), 10))
	}
	delete(parked, n)
	s.budget = budget
	s.resume <- false
	return s.wait()
}

// Cancel gives up the pending call n: its goroutine unwinds from the yield
// point and ends. Giving up a call that is not pending does nothing.
func Cancel(n uint32) {
	s := parked[n]
	if s == nil {
		return
	}
	delete(parked, n)
	s.resume <- true
	<-s.done
}

// Pending is the number of calls parked between slices (tests read it).
func Pending() int { return len(parked) }

// nanotime is the runtime's monotonic clock (nanoseconds). The time package
// would add ~370 KB to the module for time.Now; the runtime keeps this name
// linkable on purpose (runtime/time_nofake.go).
//
//go:linkname nanotime runtime.nanotime
func nanotime() int64
