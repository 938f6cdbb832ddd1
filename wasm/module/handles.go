package main

import "github.com/sessiontree/sessiontree/core"

// trees holds every live tree by handle. Handle 0 is never used: it means
// "no tree" for the calls that make one.
var (
	trees      = map[uint32]*core.Tree{}
	nextHandle uint32
)

// keep stores t and returns its new handle.
func keep(t *core.Tree) uint32 {
	nextHandle++
	for nextHandle == 0 || trees[nextHandle] != nil {
		nextHandle++
	}
	trees[nextHandle] = t
	return nextHandle
}
