package treecalls

import (
	"math/rand/v2"
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

// A loaded file's path comes to the table as a long stretch of ascending
// addresses (slices of one buffer), which it keeps as a run instead of
// hashing. Whatever the mix of runs, hashed slots, slots added twice,
// truncations and clones, a lookup finds what a scan would: the newest slot
// holding those bytes.
func TestALookupFindsTheNewestSlotOfTheBytesWhetherHashedOrInARun(t *testing.T) {
	buf := make([]byte, 40000)
	for i := range buf {
		buf[i] = 'x'
	}
	msgs := make([]core.Message, 10000) // ascending addresses, 4 bytes each
	for i := range msgs {
		msgs[i] = core.Message(buf[4*i : 4*i+4 : 4*i+4])
	}
	scan := func(s *slotTable, m core.Message) (uint32, bool) {
		for i := s.len() - 1; i >= 0; i-- {
			if keyOf(s.at(i)) == keyOf(m) {
				return uint32(i), true
			}
		}
		return 0, false
	}

	// A first list of 3,000 in order is one run, and nothing is hashed.
	var s slotTable
	for _, m := range msgs[:3000] {
		s.add(m)
	}
	s.catchUp()
	if len(s.runs) != 1 || s.used != 0 || s.index != nil {
		t.Fatalf("3,000 ascending slots: %d runs, %d hashed", len(s.runs), s.used)
	}
	for _, i := range []int{0, 1, 1500, 2998, 2999, 1499, 1498, 7} {
		if slot, ok := s.lookup(msgs[i]); !ok || slot != uint32(i) {
			t.Fatalf("lookup #%d = %d, %v", i, slot, ok)
		}
	}
	if _, ok := s.lookup(msgs[3000]); ok {
		t.Fatal("a message never added was found")
	}
	if _, ok := s.lookup(append(core.Message(nil), msgs[5]...)); ok {
		t.Fatal("a copy of a message in the run was taken for it")
	}
	// Descending stretches are hashed.
	var d slotTable
	for i := 2999; i >= 0; i-- {
		d.add(msgs[i])
	}
	d.catchUp()
	if len(d.runs) != 0 || d.used != 3000 {
		t.Fatalf("3,000 descending slots: %d runs, %d hashed", len(d.runs), d.used)
	}

	rng := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 200; round++ {
		var s slotTable
		var clones []slotTable
		for step := 0; step < 30; step++ {
			switch k := rng.IntN(10); {
			case k < 4: // a stretch of ascending messages, maybe long enough for a run
				a := rng.IntN(len(msgs))
				b := min(len(msgs), a+1+rng.IntN(3*runMin))
				for _, m := range msgs[a:b] {
					s.add(m)
				}
			case k < 6: // a few messages anywhere, some added again
				for range rng.IntN(20) {
					s.add(msgs[rng.IntN(len(msgs))])
				}
			case k < 7:
				s.catchUp()
			case k < 8:
				if s.len() > 0 {
					s.truncate(rng.IntN(s.len()))
				}
			case k < 9:
				clones = append(clones, s.clone())
			default:
				for range 50 {
					m := msgs[rng.IntN(len(msgs))]
					want, wok := scan(&s, m)
					if got, ok := s.lookup(m); ok != wok || got != want {
						t.Fatalf("round %d: lookup = %d, %v; the newest slot is %d, %v (runs %v)", round, got, ok, want, wok, s.runs)
					}
				}
			}
			if len(s.runs) > maxRuns {
				t.Fatalf("round %d: %d runs", round, len(s.runs))
			}
		}
		for _, c := range clones {
			for range 50 {
				m := msgs[rng.IntN(len(msgs))]
				want, wok := scan(&c, m)
				if got, ok := c.lookup(m); ok != wok || got != want {
					t.Fatalf("round %d, a clone: lookup = %d, %v; want %d, %v", round, got, ok, want, wok)
				}
			}
		}
	}
}
