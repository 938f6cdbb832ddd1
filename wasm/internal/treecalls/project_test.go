package treecalls

import (
	"encoding/binary"
	"strings"
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

// held splits a project result asked with a held length into the slots sent
// and how many messages of the held list stay.
func held(t *testing.T, res string) (slots []uint32, kept uint32) {
	t.Helper()
	kept = binary.LittleEndian.Uint32([]byte(res[len(res)-4:]))
	slots, _ = projection(t, res[:len(res)-4])
	return slots, kept
}

func TestAProjectionBuildsOnTheListJSHoldsOnlyWhileOnlyAppendsFollowed(t *testing.T) {
	h := handleOf(t, must(t, "fromLinear", 0, `[{"role":"user","content":"a"},{"role":"assistant","content":"b"}]`))
	if slots, kept := held(t, must(t, "project", h, "", "")); len(slots) != 2 || kept != 0 {
		t.Fatalf("first: slots %v, kept %d; want the path, 0", slots, kept)
	}
	if slots, kept := held(t, must(t, "project", h, "", "2")); len(slots) != 0 || kept != 2 {
		t.Fatalf("unchanged: slots %v, kept %d; want none, 2", slots, kept)
	}
	must(t, "append", h, `{"role":"user","content":"c"}`)
	must(t, "append", h, `{"role":"assistant","content":"d"}`)
	if slots, kept := held(t, must(t, "project", h, "", "2")); len(slots) != 2 || slots[0] != 2 || kept != 2 {
		t.Fatalf("after two appends: slots %v, kept %d; want slots 2 and 3, 2", slots, kept)
	}
	if slots, kept := held(t, must(t, "project", h, "", "3")); len(slots) != 4 || kept != 0 {
		t.Fatalf("JS holds another length: slots %v, kept %d; want the path, 0", slots, kept)
	}
	first := strings.Split(must(t, "pathOf", h), "\n")[1]
	must(t, "rewind", h, first) // any other change: the whole path again
	must(t, "append", h, `{"role":"user","content":"e"}`)
	must(t, "append", h, `{"role":"assistant","content":"f"}`)
	must(t, "append", h, `{"role":"user","content":"g"}`)
	if slots, kept := held(t, must(t, "project", h, "", "4")); len(slots) != 5 || kept != 0 {
		t.Fatalf("after a rewind and three appends: slots %v, kept %d; want the 5-message path, 0", slots, kept)
	}
	if slots, kept := held(t, must(t, "project", h, "", "5")); len(slots) != 0 || kept != 5 {
		t.Fatalf("unchanged again: slots %v, kept %d; want none, 5", slots, kept)
	}
	if slots, kept := held(t, must(t, "project", h, "branch-1", "5")); len(slots) != 4 || kept != 0 {
		t.Fatalf("another branch: slots %v, kept %d; want its 4-message path, 0", slots, kept)
	}
}
