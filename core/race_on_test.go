//go:build race

package core

// raceEnabled: the race detector is on; its sync.Pool drops items at random,
// so allocation counts differ from a plain build's.
const raceEnabled = true
