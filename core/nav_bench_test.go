package core

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BenchmarkNavigation times what a user of a chat view does in chats of 100,
// 20k and 200k messages of ~500 bytes with a fork every 5, 50 and 2,000
// messages (a regenerated reply, the chat going on from the new one), and a
// tool-heavy chat with a fork every 50: the ‹ › switch (Open), the switch and
// the render after it, Siblings, PathLen, PathIndex and the tree view's
// Subtree. Each op runs over forks spread from the root to the leaf; ns/op is
// their mean, p50-ns and max-ns the median and the slowest fork, and
// first-max-ns the slowest first meeting with a fork (for open: the first
// switch to an alternative not used since it was made). `make bench-nav`
// prints the 200k÷100 ratios (core/internal/benchtable).
func BenchmarkNavigation(b *testing.B) {
	for _, s := range navShapes {
		for _, n := range []int{100, 20_000, 200_000} {
			b.Run(s.name+"/"+navSize(n), func(b *testing.B) {
				c := buildNavChat(b, n, s.every, s.tools)
				for _, op := range navOps {
					b.Run(op.name, func(b *testing.B) {
						forks := c.forks
						if op.whole {
							// The same read whichever fork: a few times is enough.
							forks = forks[:min(4, len(forks))]
						}
						runNavOp(b, &navChat{t: c.t, forks: forks, at: c.at}, op.run)
					})
				}
			})
		}
	}
}

var navShapes = []struct {
	name  string
	every int
	tools bool
}{
	{"fork5", 5, false},
	{"fork50", 50, false},
	{"fork2000", 2000, false},
	{"tools50", 50, true},
}

func navSize(n int) string {
	if n < 1000 {
		return strconv.Itoa(n)
	}
	return strconv.Itoa(n/1000) + "k"
}

// navFork is a fork of a nav chat: the reply that was regenerated (alt, the
// leaf of its branch altBranch) and the one the chat went on from (cont).
type navFork struct {
	parent, alt, cont, altBranch string
}

type navChat struct {
	t     *Tree
	forks []navFork // spread from the root to the leaf, at most navTargets
	at    int64
}

const navTargets = 64

var navFiller = strings.Repeat("The tree keeps every branch of the conversation; this sentence pads a message. ", 6)[:440]

// navMessages are the shapes a nav chat cycles through; tools adds tool calls
// and their results.
func navMessages(tools bool) []Message {
	text := func(role string, i int) Message {
		return Message(`{"role":"` + role + `","content":"` + strconv.Itoa(i) + " " + navFiller + `"}`)
	}
	if !tools {
		return []Message{text("user", 0), text("assistant", 1), text("user", 2), text("assistant", 3)}
	}
	call := func(i int) Message {
		return Message(`{"role":"assistant","content":null,"tool_calls":[{"id":"call_` + strconv.Itoa(i) +
			`","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"core/` + navFiller[:300] + `.go\"}"}}]}`)
	}
	result := func(i int) Message {
		return Message(`{"role":"tool","tool_call_id":"call_` + strconv.Itoa(i) + `","content":"` + navFiller + `"}`)
	}
	return []Message{text("user", 0), call(1), result(1), call(2), result(2), call(3), result(3), text("assistant", 4)}
}

// buildNavChat builds a chat of n messages that regenerates its last message
// every `every` messages (once, halfway, when n < 2*every) and goes on from the
// new one: a long active path with a one-message alternative at each fork,
// each on a branch of its own.
func buildNavChat(tb testing.TB, n, every int, tools bool) *navChat {
	if n < 2*every {
		every = n / 2
	}
	msgs := navMessages(tools)
	t := New()
	var forks []navFork
	last := ""
	for count := 0; count < n; count++ {
		m := msgs[count%len(msgs)]
		if count > 0 && count%every == 0 {
			old := t.ActiveBranch()
			parent := t.nodes[last].parent
			id, err := t.Regenerate(last, m, int64(count))
			if err != nil {
				tb.Fatal(err)
			}
			forks = append(forks, navFork{parent: parent, alt: last, cont: id, altBranch: old})
			last = id
			continue
		}
		id, err := t.Append(m, int64(count))
		if err != nil {
			tb.Fatal(err)
		}
		last = id
	}
	if len(forks) > navTargets {
		spread := make([]navFork, navTargets)
		for i := range spread {
			spread[i] = forks[i*(len(forks)-1)/(navTargets-1)]
		}
		forks = spread
	}
	return &navChat{t: t, forks: forks, at: int64(n)}
}

// navOps are the operations timed, each given a fork and the iteration's
// parity (a switch goes one way, then back).
var navOps = []struct {
	name  string
	run   func(c *navChat, f navFork, odd bool) error
	whole bool // reads the whole tree, not a fork
}{
	{"open", func(c *navChat, f navFork, odd bool) error {
		c.at++
		_, err := c.t.Open(pick(odd, f.cont, f.alt), c.at)
		return err
	}, false},
	{"switch+render", func(c *navChat, f navFork, odd bool) error {
		// A ‹ › click in the demo: open the other alternative, then what the
		// chat view reads to paint the last 50 messages and their switchers.
		c.at++
		id := pick(odd, f.cont, f.alt)
		if _, err := c.t.Open(id, c.at); err != nil {
			return err
		}
		if _, err := c.t.PathLen(c.t.ActiveBranch()); err != nil {
			return err
		}
		ids, _, err := c.t.AppendTailOf(nil, nil, c.t.ActiveBranch(), 0, 50)
		if err != nil {
			return err
		}
		for _, v := range ids {
			if _, _, err := c.t.Siblings(v); err != nil {
				return err
			}
		}
		_, err = c.t.PathIndex(id)
		return err
	}, false},
	{"siblings", func(c *navChat, f navFork, odd bool) error {
		_, _, err := c.t.Siblings(pick(odd, f.cont, f.alt))
		return err
	}, false},
	{"pathLength", func(c *navChat, f navFork, odd bool) error {
		_, err := c.t.PathLen(pick(odd, c.t.ActiveBranch(), f.altBranch))
		return err
	}, false},
	{"pathIndex", func(c *navChat, f navFork, odd bool) error {
		// A node on the active path, then one off it (the whole path, walking).
		_, err := c.t.PathIndex(pick(odd, f.alt, f.parent))
		return err
	}, false},
	{"subtree", func(c *navChat, f navFork, odd bool) error {
		// The demo's tree view: every entry in runs, at most 50,000 boxes.
		_, _, err := c.t.Subtree("", -1, 50_000, true)
		return err
	}, true},
}

func pick(odd bool, a, b string) string {
	if odd {
		return a
	}
	return b
}

// runNavOp times op on each of c's forks once, both ways (the first time it
// meets the fork: first-max-ns, the slowest), then runs it over the forks in
// turn (ns/op), then times each fork again on its own, eight runs both ways
// (p50-ns, the median fork, and max-ns, the slowest).
func runNavOp(b *testing.B, c *navChat, op func(*navChat, navFork, bool) error) {
	timeFork := func(f navFork, runs int) float64 {
		start := time.Now()
		for i := 0; i < runs; i++ {
			if err := op(c, f, i%2 == 1); err != nil {
				b.Fatal(err)
			}
		}
		return float64(time.Since(start).Nanoseconds()) / float64(runs)
	}
	first := 0.0
	for _, f := range c.forks {
		first = max(first, timeFork(f, 2))
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if err := op(c, c.forks[i/2%len(c.forks)], i%2 == 1); err != nil {
			b.Fatal(err)
		}
	}
	per := make([]float64, len(c.forks))
	for k, f := range c.forks {
		per[k] = timeFork(f, 8)
	}
	slices.Sort(per)
	b.ReportMetric(per[len(per)/2], "p50-ns")
	b.ReportMetric(per[len(per)-1], "max-ns")
	b.ReportMetric(first, "first-max-ns")
}
