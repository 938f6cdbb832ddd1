package edge

import (
	"sync"
	"testing"
)

// A tenant's work within its burst goes at once; beyond it, each piece waits
// for what its rate allows, counted from the work already asked for; another
// tenant's work is not delayed by it.
func TestAPacerDelaysATenantOverItsRateAndNoOneElse(t *testing.T) {
	var p Pacer
	const rate = 1000 // units a second: a burst of 250
	if d := p.Delay("alice", 250, rate, 0); d != 0 {
		t.Fatalf("alice's first 250 units (her burst) wait %d ms, want 0", d)
	}
	d1 := p.Delay("alice", 100, rate, 0)
	d2 := p.Delay("alice", 100, rate, 0)
	if d1 < 100 || d2 < 200 || d2 <= d1 {
		t.Fatalf("alice's next pieces of 100 wait %d and %d ms, want >= 100 and >= 200, the second later", d1, d2)
	}
	if d := p.Delay("bob", 250, rate, 0); d != 0 {
		t.Fatalf("bob's first 250 units wait %d ms while alice is paced, want 0", d)
	}
	// Time that passes pays off what is owed: after 200 ms alice owes 0 again.
	if d := p.Delay("alice", 1, rate, 200); d > 2 {
		t.Fatalf("alice's unit after her rate paid her debt waits %d ms, want <= 2", d)
	}
	// No rate: nothing paced.
	if d := p.Delay("alice", 1_000_000, 0, 0); d != 0 {
		t.Fatalf("a rate of 0 waits %d ms, want 0", d)
	}
}

// Callers in many goroutines (natively a Handler serves requests concurrently)
// share one Pacer: the units counted add up, whatever the order.
func TestAPacerCountsEveryUnitUnderConcurrency(t *testing.T) {
	var p Pacer
	const rate = 1000
	var wg sync.WaitGroup
	for i := 0; i < 64; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 100; j++ {
				p.Delay("alice", 1, rate, 0)
				p.Delay("t"+string(rune('a'+j%26)), 1, rate, int64(j))
			}
		}()
	}
	wg.Wait()
	// 6,400 units at once, 250 of them burst: the next waits for the 6,150
	// beyond it, 6.15 s at 1,000 a second.
	if d := p.Delay("alice", 1, rate, 0); d < 6150 || d > 6153 {
		t.Fatalf("after 6,400 units at once the next waits %d ms, want about 6,151", d)
	}
}
