package core

import "testing"

func TestTheNodeLoopsCallTheYieldFunctionEveryFewHundredNodes(t *testing.T) {
	calls := 0
	SetYield(func() { calls++ })
	defer SetYield(nil)
	tr := New()
	for i := 0; i < 2000; i++ {
		if _, err := tr.Append(Message(`{"role":"user","content":"hi"}`), 1_700_000_000_000); err != nil {
			t.Fatal(err)
		}
	}
	if calls < 2000/yieldEvery-1 {
		t.Fatalf("2,000 appends called yield %d times, want about %d", calls, 2000/yieldEvery)
	}
	calls = 0
	if _, err := Unmarshal(tr.Marshal()); err != nil {
		t.Fatal(err)
	}
	if calls < 2*2000/yieldEvery-1 {
		t.Fatalf("a marshal and an unmarshal of 2,000 nodes called yield %d times, want about %d", calls, 2*2000/yieldEvery)
	}
}
