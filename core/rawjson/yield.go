package rawjson

// A scan of a large value (a body of megabytes) calls the host's yield
// function every yieldBytes, as core's node loops do every few hundred nodes
// (core.SetYield sets both): a single-threaded host (a Cloudflare isolate)
// may pause the scan there and let other requests run.
var yieldFn func()

// yieldBytes is how much JSON a scan reads between two yields: about as
// long as core's loops take between theirs.
const yieldBytes = 64 << 10

// SetYield sets the function a long scan calls every so often (nil: none).
// Like core.SetYield, it is meant to be set once at start-up by a
// single-threaded host; core.SetYield calls it.
func SetYield(fn func()) { yieldFn = fn }
