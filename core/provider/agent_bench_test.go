package provider

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/sessiontree/sessiontree/core"
)

// agentMsg is message i of an agent session in Claude Code's shape: a
// person's question every 6 messages, between them tool calls and their
// results.
func agentMsg(i int) core.Message {
	filler := strings.Repeat("The tree keeps every branch of the conversation; this sentence pads a message. ", 4)
	switch {
	case i%6 == 0:
		return core.Message(fmt.Sprintf(`{"role":"user","content":"Question %d: %s"}`, i, filler))
	case i%2 == 1:
		return core.Message(fmt.Sprintf(`{"role":"assistant","content":[{"type":"text","text":"Answer %d: looking."},{"type":"tool_use","id":"toolu_%d","name":"Bash","input":{"command":"grep -rn needle%d src/","description":"search"}}]}`, i, i, i))
	default:
		return core.Message(fmt.Sprintf(`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_%d","content":"src/a.go:%d: needle%d %s"}]}`, i-1, i, i, filler))
	}
}

func agentTree(tb testing.TB, n int) *core.Tree {
	t := core.New()
	for i := range n {
		if _, err := t.Append(agentMsg(i), int64(i+1)); err != nil {
			tb.Fatal(err)
		}
	}
	return t
}

// chatTurns makes requests as a chat does, after each user turn, holding
// what the last one sent; each returns how many messages it sent.
func chatTurns(tb testing.TB, t *core.Tree, api API) func() int {
	var held []uint64
	k := 0
	return func() int {
		if _, err := t.Append(core.Message(fmt.Sprintf(`{"role":"user","content":"Round %d: one more question."}`, k)), int64(1e9+k)); err != nil {
			tb.Fatal(err)
		}
		req, err := ProjectTree(t, "", api, Options{Budget: 32000, Held: held})
		if err != nil {
			tb.Fatal(err)
		}
		held = req.Serials
		if _, err := t.Append(core.Message(fmt.Sprintf(`{"role":"assistant","content":"Round %d: the answer."}`, k)), int64(1e9+k)); err != nil {
			tb.Fatal(err)
		}
		k++
		return len(req.Serials)
	}
}

// A chat's request reuses the buffers of the one before: what it allocates
// is the request's own bytes (a serial for each message it holds) and what
// changed, not its window's blocks and pieces again. In wasm, where a
// collection stops the page, every such byte brings the next one closer.
func TestARequestAllocatesLittleMoreThanItsOwnBytes(t *testing.T) {
	for _, c := range []struct {
		api API
		n   int
	}{{OpenAIChat, 4000}, {OpenAIResponses, 4000}, {OpenAIChat, 300}} { // 300: all of it fits the budget
		api := c.api
		tr := agentTree(t, c.n)
		turn := chatTurns(t, tr, api)
		for range 20 {
			turn()
		}
		var sent int
		req, err := ProjectTree(tr, "", api, Options{Budget: 32000})
		if err != nil {
			t.Fatal(err)
		}
		opts := Options{Budget: 32000, Held: req.Serials}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		const n = 20
		for range n {
			req, err = ProjectTree(tr, "", api, opts)
			if err != nil {
				t.Fatal(err)
			}
			sent = len(req.Serials)
		}
		runtime.ReadMemStats(&after)
		perMsg := float64(after.TotalAlloc-before.TotalAlloc) / n / float64(sent)
		t.Logf("%s: %d messages sent, %.0f B allocated a message a request", api, sent, perMsg)
		if sent < 300 {
			t.Fatalf("%s: %d messages sent; the test wants a window of hundreds", api, sent)
		}
		// The serials (8 B), the request's bytes (a held message is its
		// serial: ~10 B) and slack: 21-26 B; the window's blocks and pieces
		// written again at every request were 85-140 B.
		if perMsg > 45 {
			t.Errorf("%s: %.0f B allocated a message sent a request, want ≤ 45", api, perMsg)
		}
	}
}

func BenchmarkAgentRequestAfterTurn(b *testing.B) {
	for _, n := range []int{100, 20000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			turn := chatTurns(b, agentTree(b, n), OpenAIChat)
			for range 200 {
				turn()
			}
			b.ResetTimer()
			m := 0
			for range b.N {
				m = turn()
			}
			b.ReportMetric(float64(m), "msgs")
		})
	}
}

// BenchmarkRequestAfterTurn times the request alone, as a send makes it:
// after the user's turn is appended, with what the last request sent held
// as runs (as the JS wrapper holds it), over rounds of 101 turns on a fresh
// tree (make bench-huge's shape), each after the tree's first request. A 100-message chat beside a 20k one: the
// budget, not the session, should set the cost.
func BenchmarkRequestAfterTurn(b *testing.B) {
	for _, n := range []int{100, 20000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			var t *core.Tree
			var held []Run
			sent := 0
			b.ResetTimer()
			for k := range b.N {
				b.StopTimer()
				if k%101 == 0 { // a fresh tree and its first request (the window's conversion), untimed
					t = agentTree(b, n)
					first, err := ProjectTree(t, "", OpenAIChat, Options{Budget: 32000, HeldRuns: []Run{}})
					if err != nil {
						b.Fatal(err)
					}
					held = first.SerialRuns
				}
				if _, err := t.Append(core.Message(fmt.Sprintf(`{"role":"user","content":"Round %d: one more question."}`, k)), int64(1e9+k)); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				req, err := ProjectTree(t, "", OpenAIChat, Options{Budget: 32000, HeldRuns: held})
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				held = req.SerialRuns
				sent += req.Report.Sent
				if _, err := t.Append(core.Message(fmt.Sprintf(`{"role":"assistant","content":"Round %d: the answer."}`, k)), int64(1e9+k)); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
			b.ReportMetric(float64(sent)/float64(b.N), "msgs/op")
		})
	}
}
