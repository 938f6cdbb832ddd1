package treecalls

import (
	"strconv"
	"unsafe"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/rawjson"
	"github.com/sessiontree/sessiontree/wasm/internal/bridge"
)

// A load in slices (issue 16: SessionTree.loadFrom), so that a page loading a
// 100 MB file never blocks for longer than a slice:
//
//   - loadBegin(size) makes a buffer of size bytes that belongs to this load
//     alone and answers "number address": JavaScript copies the file there,
//     a piece at a time, with other calls free to run in between (they reuse
//     the shared input buffer, never this one);
//   - loadStep(number, sliceMs) reads the file for about sliceMs (core's
//     loader in a goroutine of its own, parked at core's yield points:
//     bridge.Sliced), then measures the active path (remembered: the first
//     pathLength answers at once), and answers "pending", or the new tree's
//     handle when it is done, or the error the file has (the load is over);
//   - loadCancel(number) gives a load up.
//
// The tree is built by the load's goroutine alone and kept (given a handle)
// only when it is whole; it keeps the buffer as its storage, as load keeps a
// large input buffer (bridge.TakeInput).
type slicedLoad struct {
	buf     []byte
	call    uint32 // the parked slice's number; 0 before the first step
	started bool
	tree    *core.Tree // set by the load's goroutine when it is done
}

var (
	loads    = map[uint32]*slicedLoad{}
	nextLoad uint32
)

// makeNoZero makes a byte slice whose bytes are not cleared (what
// strings.Builder grows with: the runtime's bytealg_MakeNoZero, marked there
// for linkname), for a load's buffer, which JavaScript fills whole before the
// first step reads it. make cleared it: in memory reused from freed garbage, a
// 100 MB file's buffer was a clear of 429 ms in one task (headless Chromium, a
// 53k-message chat of an export loaded after 666 others), where the copy that
// overwrites it goes in slices.
//
//go:linkname makeNoZero internal/bytealg.MakeNoZero
func makeNoZero(n int) []byte

// MaxLoad is the largest file a sliced load takes (js/sessiontree.js MAX_INPUT),
// and an import a conversation at a time (fullcalls' importBegin).
const MaxLoad = 1 << 30

func loadBegin(r *Request) ([]byte, error) {
	s, err := r.str(0, "size")
	if err != nil {
		return nil, err
	}
	n, ok := rawjson.Atoi(s)
	if !ok || n < 0 || n > MaxLoad {
		return nil, invalid("loadBegin: the size must be a number of bytes up to " + strconv.Itoa(MaxLoad))
	}
	// Checked as a load checks it: st_reserve's Room(n) for the file, then
	// the call's Room(2n) for the file and the tree's structure over it. The
	// file's need alone decides whether the garbage counted (a freed tree of
	// the same size) is collected first, so that a load after a free reuses
	// that memory rather than growing it.
	if err := bridge.Room(n); err != nil {
		return nil, err
	}
	if err := bridge.Room(2 * n); err != nil {
		return nil, err
	}
	l := &slicedLoad{buf: makeNoZero(max(n, 8))[:n]} // JavaScript writes every byte before the first step
	bridge.HoldCollector()                           // released when the load ends (loadStep, loadCancel)
	nextLoad++
	for nextLoad == 0 || loads[nextLoad] != nil {
		nextLoad++
	}
	loads[nextLoad] = l
	// "number address" (fullcalls' importBegin answers the same way; one
	// helper for both cost the lean module 132 B gzipped, past its ceiling)
	b := strconv.AppendUint(nil, uint64(nextLoad), 10)
	b = append(b, ' ')
	return strconv.AppendUint(b, uint64(uintptr(unsafe.Pointer(unsafe.SliceData(l.buf[:cap(l.buf)])))), 10), nil
}

// loadNumber reads argument 0, a sliced load's number, and finds it.
func loadNumber(r *Request) (uint32, *slicedLoad, error) {
	s, err := r.str(0, "load")
	if err != nil {
		return 0, nil, err
	}
	n, ok := rawjson.ParseUint(s, 32)
	if !ok || loads[uint32(n)] == nil {
		return 0, nil, invalid("no sliced load numbered " + s + " is under way")
	}
	return uint32(n), loads[uint32(n)], nil
}

func loadStep(r *Request) ([]byte, error) {
	n, l, err := loadNumber(r)
	if err != nil {
		return nil, err
	}
	ms := 25
	if s, err := r.str(1, "sliceMs"); err == nil {
		var ok bool
		if ms, ok = rawjson.Atoi(s); !ok || ms < 0 || ms > 60_000 {
			return nil, invalid("loadStep: sliceMs must be a whole number of milliseconds from 0 to 60000 (0: a slice at every yield point)")
		}
	}
	budget := int64(ms) * 1_000_000 // nanoseconds
	var pending uint32
	if !l.started {
		l.started = true
		_, pending, err = bridge.Sliced(budget, func() ([]byte, error) {
			t, err := core.UnmarshalOwned(l.buf)
			if err == nil {
				// The active path's length, measured here in slices and
				// remembered: a chat view's first pathLength (a walk of the
				// whole path, ~0.1 s at 200k messages) then answers at once.
				_, _ = t.PathLen(t.ActiveBranch())
				// So are the runs a tree view reads (core/runs.go: one pass
				// over the nodes): its first Subtree then costs its boxes.
				_, _, _ = t.Subtree("", -1, 1, true)
			}
			l.tree = t
			return nil, err
		})
	} else {
		_, pending, err = bridge.Resume(l.call, budget)
	}
	if pending != 0 {
		l.call = pending
		return []byte("pending"), nil
	}
	delete(loads, n)
	bridge.ReleaseCollector()
	if err != nil {
		bridge.Owe(cap(l.buf))
		return nil, err
	}
	return handleResult(l.tree, len(l.buf)), nil
}

func loadCancel(r *Request) ([]byte, error) {
	s, err := r.str(0, "load")
	if err != nil {
		return nil, err
	}
	n, ok := rawjson.ParseUint(s, 32)
	l := loads[uint32(n)]
	if !ok || l == nil {
		return nil, nil // over already: nothing to give up
	}
	if l.call != 0 {
		bridge.Cancel(l.call)
	}
	delete(loads, uint32(n))
	bridge.ReleaseCollector()
	bridge.Owe(cap(l.buf))
	return nil, nil
}

// LoadBuffer returns the buffer of sliced load n (tests write the file there,
// as JavaScript does at the address loadBegin answers).
func LoadBuffer(n uint32) []byte {
	if l := loads[n]; l != nil {
		return l.buf
	}
	return nil
}

// Loads is the number of sliced loads under way (tests read it).
func Loads() int { return len(loads) }

// tidy runs a step of a full collection for sliceMs (bridge.TidyStep): the
// page calls it in idle time after a large load or build, until it answers
// "done". While a sliced load is under way it answers "later" and collects
// nothing (the load holds the collector; the page tidies after it).
func tidy(r *Request) ([]byte, error) {
	ms := 5
	if s, err := r.str(0, "sliceMs"); err == nil {
		var ok bool
		if ms, ok = rawjson.Atoi(s); !ok || ms < 1 || ms > 1000 {
			return nil, invalid("tidy: sliceMs must be a whole number of milliseconds from 1 to 1000")
		}
	}
	if len(loads) > 0 {
		return []byte("later"), nil
	}
	if bridge.TidyStep(int64(ms) * 1_000_000) {
		return []byte("done"), nil
	}
	return []byte("pending"), nil
}
