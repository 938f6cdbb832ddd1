package core

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

const yieldEvery = 256

// SetYield sets the function the node loops call every so often (nil: none).
// It is meant for a single-threaded host (GOOS=js), set once at start-up: the
// call counter is not synchronised.
func SetYield(fn func()) { yieldFn = fn }

func tick() {
	if yieldFn != nil {
		yieldTicks++
		if yieldTicks%yieldEvery == 0 {
			yieldFn()
		}
	}
}

// Tick is a yield point for loops outside core that do per-node work of their
// own (an exporter's per-message rendering, a body decoder's per-element
// parse): call it once per node or element.
func Tick() { tick() }
