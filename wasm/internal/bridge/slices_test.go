package bridge

import (
	"strings"
	"testing"

	"github.com/sessiontree/sessiontree/core"
)

// work is a sliced call's body: n of core's yield points (every 256 ticks),
// then its result.
func work(points int, res string) func() ([]byte, error) {
	return func() ([]byte, error) {
		for range points * 256 {
			core.Tick()
		}
		return []byte(res), nil
	}
}

// A call with a slice of 0 parks at every yield point it reaches: it answers
// pending, a new number each time, until it ends with its result; work outside
// a sliced call (between its slices) never parks.
func TestASlicedCallParksAtItsYieldPointsAndEndsWithItsResult(t *testing.T) {
	res, n, err := Sliced(0, work(3, "done"))
	slices := 0
	for n != 0 {
		slices++
		for range 1024 {
			core.Tick() // another call between slices: runs through
		}
		res, n, err = Resume(n, 0)
	}
	if err != nil || string(res) != "done" {
		t.Fatalf("got %q, %v", res, err)
	}
	if slices < 2 || Pending() != 0 {
		t.Fatalf("%d slices for 3 yield points, %d left pending", slices, Pending())
	}
}

// A long slice runs a short call to its end at once.
func TestACallShorterThanItsSliceAnswersAtOnce(t *testing.T) {
	res, n, err := Sliced(1<<40, work(3, "whole"))
	if n != 0 || err != nil || string(res) != "whole" {
		t.Fatalf("got %q, pending %d, %v", res, n, err)
	}
}

// Two sliced calls at once keep their own results; one given up unwinds and
// leaves nothing; a number that is not pending is refused.
func TestTwoSlicedCallsAtOnceAndOneGivenUp(t *testing.T) {
	_, a, _ := Sliced(0, work(4, "a"))
	_, b, _ := Sliced(0, work(4, "b"))
	_, c, _ := Sliced(0, work(4, "c"))
	if a == 0 || b == 0 || c == 0 || Pending() != 3 {
		t.Fatalf("pending %d %d %d (%d parked)", a, b, c, Pending())
	}
	Cancel(c)
	var ra, rb []byte
	for a != 0 || b != 0 {
		if a != 0 {
			ra, a, _ = Resume(a, 0)
		}
		if b != 0 {
			rb, b, _ = Resume(b, 0)
		}
	}
	if string(ra) != "a" || string(rb) != "b" || Pending() != 0 {
		t.Fatalf("got %q and %q, %d left pending", ra, rb, Pending())
	}
	if _, _, err := Resume(c, 0); err == nil || !strings.Contains(err.Error(), "no pending call") {
		t.Fatalf("resuming a call given up: %v", err)
	}
	Cancel(c) // harmless
}

// A panic in any slice is an error with a code, and the module goes on.
func TestAPanicInASliceIsAnErrorAndTheNextCallRuns(t *testing.T) {
	_, n, _ := Sliced(0, func() ([]byte, error) {
		for range 2 * 256 {
			core.Tick()
		}
		panic("kaboom")
	})
	var err error
	for n != 0 {
		_, n, err = Resume(n, 0)
	}
	e, ok := err.(*core.Error)
	if !ok || e.Code != core.CodeCorrupt || !strings.Contains(e.Message, "kaboom") {
		t.Fatalf("got %v", err)
	}
	if res, n, err := Sliced(1<<40, work(1, "next")); n != 0 || err != nil || string(res) != "next" {
		t.Fatalf("after the panic: %q, %d, %v", res, n, err)
	}
}
