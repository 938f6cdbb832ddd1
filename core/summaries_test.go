package core

import (
	"math/rand/v2"
	"strconv"
	"testing"
)

// BranchSummaries keeps the summarized branches from one call to the next
// (the branch-change log): after any mix of summaries, new branches, deleted
// ones, switches, appends and batches rolled back, it answers what a walk
// over every branch does.
func TestBranchSummariesFollowEveryChange(t *testing.T) {
	for seed := range uint64(8) {
		r := rand.New(rand.NewPCG(seed, 3))
		tr := New()
		var ids []string
		at := int64(1)
		add := func() {
			id, err := tr.Append(Message(`{"role":"user","content":"m`+strconv.Itoa(len(ids))+`"}`), at)
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, id)
			at++
		}
		for range 20 {
			add()
		}
		names := func() []string {
			var out []string
			for _, b := range tr.Branches() {
				out = append(out, b.Name)
			}
			return out
		}
		for step := range 150 {
			bs := names()
			pick := bs[r.IntN(len(bs))]
			k := r.IntN(14)
			if k == 6 && r.IntN(4) > 0 {
				k = 0 // 130 branches at a time, now and then
			}
			switch min(k, 7) {
			case 0, 7:
				add()
			case 1:
				if _, err := tr.Branch(ids[r.IntN(len(ids))], "", at); err != nil {
					t.Fatal(err)
				}
				at++
			case 2:
				_ = tr.SummarizeBranch(pick, "s"+strconv.Itoa(step), "", at) // a leafless branch refuses
				at++
			case 3:
				if pick != tr.ActiveBranch() && pick != MainBranch {
					if err := tr.DeleteBranch(pick); err != nil {
						t.Fatal(err)
					}
				}
			case 4:
				if err := tr.SwitchBranch(pick); err != nil {
					t.Fatal(err)
				}
			case 5: // a batch that summarizes, then fails: rolled back
				if _, err := tr.Apply([]Op{{Op: "summarize", Branch: pick, Summary: "gone"}, {Op: "switch", Branch: "no such branch"}}, at); err == nil {
					t.Fatal("a batch with a bad switch went through")
				}
			case 6:
				for range 130 { // more rows than the log keeps
					if _, err := tr.Branch(ids[r.IntN(len(ids))], "", at); err != nil {
						t.Fatal(err)
					}
					at++
				}
			}
			for _, branch := range []string{tr.ActiveBranch(), pick, "none"} {
				checkSummaries(t, tr, branch, "seed "+strconv.FormatUint(seed, 10)+" step "+strconv.Itoa(step))
			}
		}
	}
}
