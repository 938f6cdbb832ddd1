package core

import "github.com/sessiontree/sessiontree/core/rawjson"

// The loops of a tree over its nodes (loading, marshalling, paths, node
// reads, inserts) call tick once per node. A host whose one thread serves many
// trees (a Cloudflare isolate: every Durable Object of it, and its router)
// sets a yield function with SetYield, which the loops then call every
// yieldEvery nodes: it may pause the work there (the worker parks the
// goroutine and lets other requests run) and resume it later. Unset, tick
// costs one comparison.
var (
	yieldFn    func()
	yieldTicks uint32
)

// yieldEvery is 64: at 256 (or 512 KiB of work on bytes) one slice of a
// large batch held an isolate under load for 15-50 ms, every other
// tenant's request waiting as long at each of its turns (issue 25).
const yieldEvery = 64

// SetYield sets the function the node loops call every so often (nil: none).
// It is meant for a single-threaded host (GOOS=js), set once at start-up: the
// call counter is not synchronised.
// It also sets rawjson's, so that a long scan of JSON yields too.
func SetYield(fn func()) {
	yieldFn = fn
	rawjson.SetYield(fn)
}

func tick() {
	if yieldFn != nil {
		yieldTicks++
		if yieldTicks%yieldEvery == 0 {
			yieldFn()
		}
	}
}

// bytesPerTick weighs work on bytes (a message's text) against the node
// loops: one tick per 2 KiB, so a slice is about 128 KiB of such work.
const bytesPerTick = 2 << 10

// tickBytes is tick for a unit of work on n bytes: a large message counts as
// the nodes its size is worth.
func tickBytes(n int) { tickWork(1 + n/bytesPerTick) }

// tickWork counts units ticks at once, and yields if they reach the next
// yield point.
func tickWork(units int) {
	if yieldFn != nil {
		before := yieldTicks / yieldEvery
		yieldTicks += uint32(units)
		if yieldTicks/yieldEvery != before {
			yieldFn()
		}
	}
}

// Tick is a yield point for loops outside core that do per-node work of their
// own (an exporter's per-message rendering, a body decoder's per-element
// parse): call it once per node or element.
func Tick() { tick() }

// TickBytes is Tick for a unit of work whose cost grows with n bytes (a
// row of a message, a chunk of a body): it weighs one tick per 2 KiB.
func TickBytes(n int) { tickBytes(n) }
