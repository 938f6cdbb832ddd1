package treecalls

import (
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
	s := r.slots
	known := s.len()
	slots := slotBuf[:0]
	size := 4 + 4*len(msgs)
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
	return b, nil
}

// appendUint32 appends v little-endian (encoding/binary would pull reflect into
// the module).
func appendUint32(b []byte, v uint32) []byte {
	return append(b, byte(v), byte(v>>8), byte(v>>16), byte(v>>24))
}
