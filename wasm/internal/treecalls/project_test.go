package treecalls

import (
	"encoding/binary"
	"testing"
)

// projection decodes a project result: the slots and the messages sent.
func projection(t *testing.T, res string) (slots []uint32, sent []string) {
	t.Helper()
	b := []byte(res)
	n := int(binary.LittleEndian.Uint32(b))
	b = b[4:]
	for range n {
		slots = append(slots, binary.LittleEndian.Uint32(b))
		b = b[4:]
	}
	for len(b) > 0 {
		at, size := binary.LittleEndian.Uint32(b), int(binary.LittleEndian.Uint32(b[4:]))
		sent = append(sent, messageAt(t, at, size))
		b = b[8:]
	}
	return slots, sent
}

// messageAt finds the message a result names by its address and length, as JS
// reads it from the module's memory, among the messages of every live tree's
// slots (the address is the low 32 bits of one in a native build).
func messageAt(t *testing.T, at uint32, size int) string {
	t.Helper()
	for _, e := range trees {
		for i := range e.slots.len() {
			if m := e.slots.at(i); keyOf(m) == at && len(m) == size {
				return string(m)
			}
		}
	}
	t.Fatalf("no message of %d bytes at %#x", size, at)
	return ""
}

func TestAProjectionSendsEachMessageItsSlotOnceAndOnlyUnseenBytes(t *testing.T) {
	lin := handleOf(t, must(t, "fromLinear", 0, `[{"role":"user","content":"a"},{"role":"assistant","content":"b"}]`))
	if slots, sent := projection(t, must(t, "project", lin)); len(slots) != 2 || slots[1] != 1 || len(sent) != 0 {
		t.Fatalf("fromLinear: JS holds what it sent, slots 0…n-1: %v, sent %q", slots, sent)
	}
	h := handleOf(t, must(t, "new", 0)) // apply makes no slots: the bytes cross once
	must(t, "apply", h, `[{"op":"append","message":{"role":"user","content":"a"}},{"op":"append","message":{"role":"assistant","content":"b"}}]`)
	slots, sent := projection(t, must(t, "project", h))
	if len(slots) != 2 || slots[0] != 0 || slots[1] != 1 || len(sent) != 2 || sent[1] != `{"role":"assistant","content":"b"}` {
		t.Fatalf("first projection: slots %v, sent %q", slots, sent)
	}
	must(t, "append", h, `{"role":"user","content":"c"}`) // JS holds it: slot 2
	slots, sent = projection(t, must(t, "project", h))
	if len(slots) != 3 || slots[2] != 2 || len(sent) != 0 {
		t.Fatalf("after an append: slots %v, sent %q", slots, sent)
	}
	c := handleOf(t, must(t, "clone", h))
	if slots, sent = projection(t, must(t, "project", c)); len(slots) != 3 || len(sent) != 0 {
		t.Fatalf("a clone keeps the slots: %v, %q", slots, sent)
	}
	if _, ok := do(t, "project", h, "nope"); ok {
		t.Fatal("an unknown branch must fail")
	}
	must(t, "prune", h) // forgets every slot
	slots, sent = projection(t, must(t, "project", h))
	if len(slots) != 3 || slots[0] != 0 || len(sent) != 3 {
		t.Fatalf("after prune: slots %v, sent %q", slots, sent)
	}
}
