//go:build !js

package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sessiontree/sessiontree/wasm/edge"
	"github.com/sessiontree/sessiontree/wasm/worker/devserver"
	"github.com/sessiontree/sessiontree/wasm/worker/internal/wsclient"
)

// The stalls part (issue 25 §1 and §4): another tenant's requests while one
// tenant makes a 100,000-message tree, sends 1,000-op batches to 8 MB
// trees (four in turn), or opens 2,000 live sockets on one tree and writes
// to it. The other
// tenant reads the stats of a 3-node tree and then /healthz, one after
// another, for the whole time; each load is compared with the same probe
// measured quiet just before it, in the same run (the machine's load varies).
// Targets: the other tenant's p99 <= 1.5x its quiet p99; /healthz p99 <= 100 ms.

type probeResult struct {
	reads, health []time.Duration
	cpu           cpuUse
}

// cpuUse is the processor time each process took during a phase, in clock
// ticks (100 a second), and the phase's wall time: CPU time is steadier than
// latency on a busy machine, and says which process a load costs.
type cpuUse struct {
	at    time.Time
	wall  time.Duration
	ticks map[string]int64 // worker, proxy, wrangler (servers[0]'s group), bench, machine (all processes, busy)
}

// cpuNow is what each process used so far.
func cpuNow() cpuUse {
	u := cpuUse{at: time.Now(), ticks: map[string]int64{}}
	if len(servers) > 0 {
		for k, v := range servers[0].CPU() {
			u.ticks[k] = v
		}
	}
	if st, err := devserver.ProcStat("/proc/self/stat"); err == nil {
		u.ticks["bench"] = st.Ticks
	}
	if b, err := os.ReadFile("/proc/stat"); err == nil {
		// cpu  user nice system idle iowait irq softirq steal …
		f := strings.Fields(strings.SplitN(string(b), "\n", 2)[0])
		for i, v := range f[1:] {
			n, _ := strconv.ParseInt(v, 10, 64)
			if i != 3 && i != 4 {
				u.ticks["machine"] += n
			}
		}
	}
	return u
}

// since is the use from u0 to now.
func (u0 cpuUse) since() cpuUse {
	u := cpuNow()
	u.wall = u.at.Sub(u0.at)
	for k := range u.ticks {
		u.ticks[k] -= u0.ticks[k]
	}
	return u
}

// String is each process's share of a core during the phase (100% = one
// core busy all along), and its CPU seconds.
func (u cpuUse) String() string {
	if u.wall <= 0 {
		return ""
	}
	var parts []string
	for _, k := range []string{"worker", "proxy", "wrangler", "bench", "machine"} {
		parts = append(parts, fmt.Sprintf("%s %.0f%% (%.1f s)", k, float64(u.ticks[k])/u.wall.Seconds(), float64(u.ticks[k])/100))
	}
	return "cpu over " + strconv.FormatFloat(u.wall.Seconds(), 'f', 1, 64) + " s: " + strings.Join(parts, ", ")
}

// probeUntil runs the other tenant's stats read and /healthz in turn until
// stop is closed (at least once).
func probeUntil(other target, tree string, stop <-chan struct{}) probeResult {
	var r probeResult
	c0 := cpuNow()
	for {
		t0 := time.Now()
		if err := expect(200)(other.do("GET", "/v1/trees/"+tree+"/stats", "")); err != nil {
			fail("the other tenant's stats: %v", err)
		}
		t1 := time.Now()
		if err := expect(200)(other.do("GET", "/healthz", "")); err != nil {
			fail("/healthz: %v", err)
		}
		r.reads = append(r.reads, t1.Sub(t0))
		r.health = append(r.health, time.Since(t1))
		select {
		case <-stop:
			r.cpu = c0.since()
			slices.Sort(r.reads)
			slices.Sort(r.health)
			return r
		default:
		}
	}
}

func probeFor(other target, tree string, d time.Duration) probeResult {
	stop := make(chan struct{})
	time.AfterFunc(d, func() { close(stop) })
	return probeUntil(other, tree, stop)
}

// during runs load until it returns, probing meanwhile.
func during(other target, tree string, load func()) probeResult {
	stop := make(chan struct{})
	done := make(chan probeResult)
	go func() { done <- probeUntil(other, tree, stop) }()
	load()
	close(stop)
	return <-done
}

func messagesBody(n, size int) string {
	var b strings.Builder
	b.Grow(n * (size + 40))
	b.WriteString(`{"messages":[`)
	fill := strings.Repeat("x", max(0, size-20))
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"role":"user","content":"m%d %s"}`, i, fill)
	}
	b.WriteString(`]}`)
	return b.String()
}

func opsBody(n, size int) string {
	var b strings.Builder
	b.Grow(n * (size + 80))
	b.WriteString(`{"ops":[`)
	fill := strings.Repeat("y", size)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"op":"append","message":{"role":"user","content":"%d %s"}}`, i, fill)
	}
	b.WriteString(`]}`)
	return b.String()
}

func stalls(iso target, key string, dur time.Duration, which string) {
	run := func(part string) bool { return which == "" || slices.Contains(strings.Split(which, ","), part) }
	tok, _ := edge.IssueToken([]byte(key), "bench-probe", time.Now().Unix()+3600)
	other := target{iso.url, tok}
	tree := other.create(3)
	quietFor := max(dur/2, 3*time.Second)
	type result struct {
		name        string
		quiet, busy probeResult
		what        string
	}
	var results []result
	loadStart := loadavg()

	// A 100,000-message create (about 5.6 MB), back to back for dur (at least one).
	if run("create") {
		quiet := probeFor(other, tree, quietFor)
		body := messagesBody(100_000, 40)
		var took []time.Duration
		busy := during(other, tree, func() {
			took = timed(dur, 0, func() {
				code, b, err := iso.do("POST", "/v1/trees", body)
				if err != nil || code != 201 {
					fail("a 100,000-message create: %d %v %.200s", code, err, b)
				}
			})
		})
		results = append(results, result{"a 100,000-message create", quiet, busy,
			fmt.Sprintf("%d creates of %.1f MB, each %s s", len(took), float64(len(body))/1e6, secs(took))})
	}
	// 1,000-op batches (1,000 appends of 7 KB) on 8 MB trees: each batch
	// adds 7 MB to its tree, so they go to six trees in turn, two to each
	// at most (on trees of 8 and 15 MB: a third, at 22 MB, would take the
	// tree past the default SESSIONTREE_MAX_TREE_BYTES of 24 MiB and be
	// refused). Three batches on one tree were 2 s of load: ~300 probes,
	// whose p99 is their third slowest.
	if run("batch") {
		quiet := probeFor(other, tree, quietFor)
		const trees = 6
		bigs := make([]string, trees)
		for i := range bigs {
			bigs[i] = iso.createBody(messagesBody(1_100, 7_000))
		}
		body := opsBody(1_000, 7_000)
		var took []time.Duration
		n := 0
		busy := during(other, tree, func() {
			took = timed(dur, 2*trees, func() {
				big := bigs[n%trees]
				n++
				code, b, err := iso.do("POST", "/v1/trees/"+big+"/ops", body)
				if err != nil || code != 200 {
					fail("a 1,000-op batch: %d %v %.200s", code, err, b)
				}
			})
		})
		results = append(results, result{"a 1,000-op batch on an 8 MB tree", quiet, busy,
			fmt.Sprintf("%d batches of %.1f MB, each %s s", len(took), float64(len(body))/1e6, secs(took))})
	}
	// 2,000 live sockets on one tree (the tree's limit closes all but 128
	// with 4029), then appends to the tree, each fanned out to its sockets.
	if run("sockets") {
		quiet := probeFor(other, tree, quietFor)
		id := iso.create(10)
		var open, refused, frames atomic.Int64
		var socks []*wsclient.Conn
		var mu sync.Mutex
		var wg sync.WaitGroup
		var writes int
		opening := during(other, tree, func() {
			sem := make(chan struct{}, 64)
			for i := 0; i < 2000; i++ {
				wg.Add(1)
				sem <- struct{}{}
				go func() {
					defer wg.Done()
					defer func() { <-sem }()
					ws, _, err := wsclient.Dial(iso.url+"/v1/trees/"+id+"/live?access_token="+iso.token, nil)
					if err != nil {
						fail("live socket %d: %v", i, err)
					}
					if _, err := ws.Read(30 * time.Second); err != nil {
						var ce *wsclient.CloseError
						if !errors.As(err, &ce) || ce.Code != edge.CloseTooManySockets {
							fail("live socket %d: %v", i, err)
						}
						refused.Add(1)
						ws.Close()
						return
					}
					open.Add(1)
					mu.Lock()
					socks = append(socks, ws)
					mu.Unlock()
					go func() {
						for {
							// Long: the tenant's upgrades are paced
							// (SESSIONTREE_UPGRADE_RATE), so the first sockets
							// wait a minute or more for the appends.
							if _, err := ws.Read(10 * time.Minute); err != nil {
								return
							}
							frames.Add(1)
						}
					}()
				}()
			}
			wg.Wait()
		})
		results = append(results, result{"opening 2,000 sockets on one tree", quiet, opening,
			fmt.Sprintf("%d sockets open, %d refused with 4029", open.Load(), refused.Load())})
		quiet = probeFor(other, tree, quietFor)
		busy := during(other, tree, func() {
			for end := time.Now().Add(dur); time.Now().Before(end); writes++ {
				if err := expect(200)(iso.do("POST", "/v1/trees/"+id+"/ops", appendBody)); err != nil {
					fail("an append to the tree of 2,000 sockets: %v", err)
				}
			}
		})
		results = append(results, result{"appends to the tree of those sockets, back to back", quiet, busy,
			fmt.Sprintf("%d appends, each fanned out to the %d open sockets: %d frames received", writes, open.Load(), frames.Load())})
	}

	fmt.Printf("\nstalls (load average %s at the end; %s at the start): another tenant's stats read of a 3-node tree, then /healthz, one after another (issue 25: p99 <= 1.5x its quiet p99; /healthz p99 <= 100 ms)\n", loadavg(), loadStart)
	for _, r := range results {
		q, b := r.quiet, r.busy
		fmt.Printf("%s (%s)\n", r.name, r.what)
		fmt.Printf("  %-8s stats p50 %s  p99 %s  max %s ms (%d)   /healthz p50 %s  p99 %s  max %s ms\n", "quiet",
			ms(pct(q.reads, .5)), ms(pct(q.reads, .99)), ms(q.reads[len(q.reads)-1]), len(q.reads),
			ms(pct(q.health, .5)), ms(pct(q.health, .99)), ms(q.health[len(q.health)-1]))
		fmt.Printf("  %-8s stats p50 %s  p99 %s  max %s ms (%d)   /healthz p50 %s  p99 %s  max %s ms   p99 %.2fx quiet, p50 %.2fx\n", "during",
			ms(pct(b.reads, .5)), ms(pct(b.reads, .99)), ms(b.reads[len(b.reads)-1]), len(b.reads),
			ms(pct(b.health, .5)), ms(pct(b.health, .99)), ms(b.health[len(b.health)-1]),
			float64(pct(b.reads, .99))/float64(pct(q.reads, .99)), float64(pct(b.reads, .5))/float64(pct(q.reads, .5)))
		fmt.Printf("  quiet    %s\n  during   %s\n", q.cpu, b.cpu)
		fmt.Printf("  the load's own CPU (during, less the probes at their quiet cost each): %s\n", loadCPU(q, b))
	}
	// The targets, one line each: the ratio the issue names and /healthz's
	// p99 quiet and during (the machine's load average beside them: on a
	// shared machine it moves every number).
	fmt.Printf("\nstalls against issue 25's targets (load average %s):\n", loadavg())
	fmt.Printf("  %-52s %12s %22s  %s\n", "during", "p99/quiet", "/healthz p99 q/during", "status")
	for _, r := range results {
		ratio := float64(pct(r.busy.reads, .99)) / float64(pct(r.quiet.reads, .99))
		hq, hb := pct(r.quiet.health, .99), pct(r.busy.health, .99)
		var miss []string
		if ratio > 1.5 {
			miss = append(miss, fmt.Sprintf("p99 %.2fx > 1.5x", ratio))
		}
		if max(hq, hb) > 100*time.Millisecond {
			miss = append(miss, "/healthz p99 > 100 ms")
		}
		status := "met"
		if len(miss) > 0 {
			status = "NOT MET: " + strings.Join(miss, ", ")
		}
		fmt.Printf("  %-52s %11.2fx %10s / %7s ms  %s\n", r.name, ratio, ms(hq), ms(hb), status)
	}
}

// loadCPU is the CPU time the load itself took of each of the worker's
// processes: the use during it less the probe's requests made meanwhile, each
// at what a probe cost quiet. Steadier than the probe's latency on a busy
// machine, where other work moves every latency by 2-4x.
func loadCPU(q, b probeResult) string {
	if len(q.reads) == 0 {
		return ""
	}
	var parts []string
	var all float64
	for _, k := range []string{"worker", "proxy", "wrangler"} {
		per := float64(q.cpu.ticks[k]) / float64(len(q.reads))
		s := (float64(b.cpu.ticks[k]) - per*float64(len(b.reads))) / 100
		all += s
		parts = append(parts, fmt.Sprintf("%s %.1f s", k, s))
	}
	return fmt.Sprintf("%.1f s: %s", all, strings.Join(parts, ", "))
}

// loadavg is the machine's 1, 5 and 15 minute load averages, or "?".
func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "?"
}

// secs is each duration in seconds, comma-separated.
func secs(d []time.Duration) string {
	var s []string
	for _, x := range d {
		s = append(s, strconv.FormatFloat(x.Seconds(), 'f', 1, 64))
	}
	return strings.Join(s, ", ")
}

// createBody creates a tree of the create request body and returns its id.
func (t target) createBody(body string) string {
	code, b, err := t.do("POST", "/v1/trees", body)
	if err != nil || code != 201 {
		fail("create: %d %v %.200s", code, err, b)
	}
	var v struct{ ID string }
	if err := json.Unmarshal(b, &v); err != nil {
		fail("create: %v", err)
	}
	return v.ID
}

// timed runs one until dur has passed (at least once; at most limit times
// when limit > 0) and returns how long each run took.
func timed(dur time.Duration, limit int, one func()) []time.Duration {
	var took []time.Duration
	for end := time.Now().Add(dur); len(took) == 0 || time.Now().Before(end) && (limit <= 0 || len(took) < limit); {
		t0 := time.Now()
		one()
		took = append(took, time.Since(t0))
	}
	return took
}
