package treecalls

import (
	"testing"

	"github.com/sessiontree/sessiontree/core"
)

func TestEachMessageJSHoldsHasTheSlotItWasGivenThroughGrowthCloneAndReset(t *testing.T) {
	var s slotTable
	msgs := make([]core.Message, 5000)
	for i := range msgs {
		msgs[i] = core.Message(`{"role":"user","content":"` + string(rune('a'+i%26)) + `"}`)
		if got := s.add(msgs[i]); got != uint32(i) {
			t.Fatalf("add #%d returned slot %d", i, got)
		}
	}
	c := s.clone()
	for i, m := range msgs {
		if string(s.at(i)) != string(m) {
			t.Fatalf("at(%d) = %s", i, s.at(i))
		}
		if slot, ok := s.lookup(m); !ok || slot != uint32(i) {
			t.Fatalf("lookup #%d = %d, %v", i, slot, ok)
		}
		// Equal bytes elsewhere are another message: not held.
		if _, ok := s.lookup(append(core.Message(nil), m...)); ok {
			t.Fatalf("a copy of message #%d was taken for it", i)
		}
	}
	// The same bytes added again take the newer slot; the clone keeps its own.
	if got := s.add(msgs[7]); got != 5000 {
		t.Fatalf("re-add returned %d", got)
	}
	if slot, _ := s.lookup(msgs[7]); slot != 5000 {
		t.Fatalf("after re-add, slot %d", slot)
	}
	if slot, _ := c.lookup(msgs[7]); slot != 7 || c.len() != 5000 {
		t.Fatalf("the clone changed: slot %d, %d messages", slot, c.len())
	}
	// Slots forgotten from 3000 on (across chunks): the rest stay, the next
	// slot is 3000, and the forgotten messages are not held.
	s.truncate(3000)
	if s.len() != 3000 || string(s.at(2999)) != string(msgs[2999]) || s.add(msgs[4500]) != 3000 {
		t.Fatalf("after truncate: %d slots", s.len())
	}
	if slot, ok := s.lookup(msgs[4000]); ok || func() bool { slot, ok := s.lookup(msgs[4500]); return !ok || slot != 3000 }() {
		t.Fatalf("after truncate, a forgotten message has slot %d", slot)
	}
	if slot, ok := s.lookup(msgs[12]); !ok || slot != 12 {
		t.Fatalf("after truncate, lookup #12 = %d, %v", slot, ok)
	}
	s.reset()
	if _, ok := s.lookup(msgs[0]); ok || s.len() != 0 {
		t.Fatal("reset kept a slot")
	}
	if got := s.add(msgs[0]); got != 0 {
		t.Fatalf("after reset, first slot %d", got)
	}
}
