package treecalls

import (
	"strconv"

	"github.com/sessiontree/sessiontree/core"
)

// path and slotBuf are the reusable buffers of project: the path's messages and
// their slots.
var (
	path    []core.Message
	slotBuf []uint32
)

// project returns the messages of argument 0's branch (the active one when
// there is no argument) as slots: a little-endian uint32 count, the slots, then
// for each slot new to JS, in slot order, a uint32 length and the message.
func project(r *Request) ([]byte, error) {
	branch := r.tree.ActiveBranch()
	if len(r.args) > 0 {
		branch = string(r.args[0])
	}
	msgs, err := r.tree.AppendProjectionOf(path[:0], branch)
	path = msgs
	defer clear(msgs) // the buffer must not keep a freed tree's messages alive
	if err != nil {
		return nil, err
	}
	return slotted(r.slots, msgs, 0), nil
}

// slotted writes msgs as slots (see project), with room for extra more bytes
// after them.
func slotted(s *slotTable, msgs []core.Message, extra int) []byte {
	known := s.len()
	slots := slotBuf[:0]
	size := 4 + 4*len(msgs) + extra
	for _, m := range msgs {
		slot, ok := s.lookup(m)
		if !ok {
			slot = s.add(m)
			size += 4 + len(m)
		}
		slots = append(slots, slot)
	}
	slotBuf = slots
	b := grow(size)
	b = appendUint32(b, uint32(len(msgs)))
	for _, slot := range slots {
		b = appendUint32(b, slot)
	}
	for i := known; i < s.len(); i++ {
		m := s.at(i)
		b = appendUint32(b, uint32(len(m)))
		b = append(b, m...)
	}
	return b
}

// appendUint32 appends v little-endian (encoding/binary would pull reflect into
// the module).
func appendUint32(b []byte, v uint32) []byte {
	return append(b, byte(v), byte(v>>8), byte(v>>16), byte(v>>24))
}

// windowIDs is the reusable id buffer of window.
var windowIDs []string

// window returns path[start:end] of a branch as JavaScript's Array slice
// reads it (negative indexes count from the leaf, an absent end is the
// path's end): its messages as slots (see project) followed by its ids, one
// per line. Arguments: the branch ("" for the active one), start, and end
// ("" for none). A window at the leaf end walks only its own nodes; any other
// counts the path first (no allocation).
func window(r *Request) ([]byte, error) {
	branch, err := r.str(0, "branch")
	if err != nil {
		return nil, err
	}
	if branch == "" {
		branch = r.tree.ActiveBranch()
	}
	start, err := intArg(r, 1, "start")
	if err != nil {
		return nil, err
	}
	endArg, err := r.arg(2, "end")
	if err != nil {
		return nil, err
	}
	end, hasEnd := 0, len(endArg) > 0
	if hasEnd {
		if end, err = intArg(r, 2, "end"); err != nil {
			return nil, err
		}
	}
	var skip, count int
	switch {
	case start < 0 && !hasEnd:
		skip, count = 0, -start
	case start < 0 && end < 0:
		skip, count = -end, end-start
	default:
		n, err := r.tree.PathLen(branch)
		if err != nil {
			return nil, err
		}
		if !hasEnd {
			end = n
		}
		s, e := clampIndex(start, n), clampIndex(end, n)
		skip, count = n-e, e-s
	}
	ids, msgs, err := r.tree.AppendTailOf(windowIDs[:0], path[:0], branch, skip, count)
	windowIDs, path = ids, msgs
	defer clear(msgs)
	defer clear(ids)
	if err != nil {
		return nil, err
	}
	size := 0
	for _, id := range ids {
		size += len(id) + 1
	}
	b := slotted(r.slots, msgs, size)
	return appendLines(b, ids), nil
}

// clampIndex reads i as Array.prototype.slice does for a length of n.
func clampIndex(i, n int) int {
	if i < 0 {
		return max(0, n+i)
	}
	return min(i, n)
}

// pathLength returns the number of nodes on argument 0's branch ("" or none:
// the active one), in decimal.
func pathLength(r *Request) ([]byte, error) {
	branch := r.tree.ActiveBranch()
	if len(r.args) > 0 && len(r.args[0]) > 0 {
		branch = string(r.args[0])
	}
	n, err := r.tree.PathLen(branch)
	if err != nil {
		return nil, err
	}
	return text(strconv.Itoa(n)), nil
}

// intArg reads argument i as a decimal integer within ±2⁵³.
func intArg(r *Request, i int, name string) (int, error) {
	b, err := r.arg(i, name)
	if err != nil {
		return 0, err
	}
	v, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil || v > 1<<53 || v < -(1<<53) {
		return 0, invalid(r.method + ": " + name + " must be an integer")
	}
	return int(v), nil
}
