package main

import (
	"unsafe"

	"github.com/sessiontree/sessiontree/core"
)

// slotTable numbers the messages of one tree that JavaScript holds, 0, 1, 2, …
// in the order they reached it. JS keeps message slot i at index i of an array,
// so a projection crosses as a list of small integers plus the bytes of the
// messages JS has not seen yet, and JS never parses a message twice.
//
// Both sides keep one rule: JS holds slot i exactly when i < len(msgs). A slot
// is made only where JS gets the message in the same call: its bytes in the
// result, or the text JS itself sent (append, edit, regenerate, apply).
//
// Messages are immutable and a tree never changes one in place, so a slot is
// keyed by the address of the message's first byte. The table holds each
// message, so those bytes are never freed and reused for another message while
// the key exists. Two live messages starting at one address are the same bytes
// (a JSON object starting there ends at one place), so nodes sharing bytes
// share a slot, which is right: their messages are equal.
type slotTable struct {
	of   map[*byte]uint32
	msgs []core.Message
}

func keyOf(m core.Message) *byte { return unsafe.SliceData(m) }

// add makes a new slot for m, which JavaScript holds now, and returns it.
func (s *slotTable) add(m core.Message) uint32 {
	if s.of == nil {
		s.of = make(map[*byte]uint32)
	}
	slot := uint32(len(s.msgs))
	s.of[keyOf(m)] = slot
	s.msgs = append(s.msgs, m)
	return slot
}

// lookup returns the slot of m, or false.
func (s *slotTable) lookup(m core.Message) (uint32, bool) {
	slot, ok := s.of[keyOf(m)]
	return slot, ok
}

// reset forgets every slot (JS drops its cache in the same call), so that the
// messages of pruned nodes are not kept alive by the table.
func (s *slotTable) reset() {
	s.of = nil
	s.msgs = nil
}

// clone copies the table for a cloned tree, which shares the messages.
func (s *slotTable) clone() slotTable {
	c := slotTable{msgs: append([]core.Message(nil), s.msgs...)}
	if s.of != nil {
		c.of = make(map[*byte]uint32, len(s.of))
		for k, v := range s.of {
			c.of[k] = v
		}
	}
	return c
}
