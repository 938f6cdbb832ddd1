//go:build !js

package httpsuite

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// A seeded random run of requests from two tenants against wrangler dev:
// creates, imports, appends (plain, with a current If-Match and with a stale
// one, and several at once, on one tree or on several), deletes, bodies that
// are not what the route reads, and every request again with the other
// tenant's token. After each step the trees it touched are read back, and at
// the end every tree and each tenant's list:
//   - every write the worker acknowledged (2xx) is in its tree, and a refused
//     one (4xx) changed nothing anyone can see;
//   - a deleted tree is gone (404) and out of its tenant's list, and a tree
//     is listed by its own tenant alone, exactly the trees it made and kept;
//   - the other tenant's token gets 404 for every one of them, and nothing
//     it sends changes them;
//   - no answer is a 5xx, every refusal carries the error envelope.
//
// HTTP_RANDOM_SEEDS=3,4 HTTP_RANDOM_STEPS=400 for a longer look.
func TestARandomRunOfRequestsKeepsEveryAcknowledgedWriteAndNothingElse(t *testing.T) {
	seeds := []uint64{1, 2}
	if s := os.Getenv("HTTP_RANDOM_SEEDS"); s != "" {
		seeds = nil
		for _, f := range strings.Split(s, ",") {
			n, err := strconv.ParseUint(f, 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			seeds = append(seeds, n)
		}
	}
	steps := 120
	if s := os.Getenv("HTTP_RANDOM_STEPS"); s != "" {
		steps, _ = strconv.Atoi(s)
	}
	for _, seed := range seeds {
		runRandomRequests(t, seed, steps)
	}
}

// randomTree is what the run knows of one tree: the texts of the messages
// the worker acknowledged, and its last ETag seen.
type randomTree struct {
	texts []string
	etag  string
}

func runRandomRequests(t *testing.T, seed uint64, steps int) {
	r := rand.New(rand.NewPCG(seed, 0x5e55))
	tenants := []*client{
		{t: t, token: token(t, fmt.Sprintf("random-%d-a", seed))},
		{t: t, token: token(t, fmt.Sprintf("random-%d-b", seed))},
	}
	trees := []map[string]*randomTree{{}, {}}
	var log []string
	tally := map[string]int{} // "kind status": how often
	fail := func(format string, args ...any) {
		t.Helper()
		n := max(0, len(log)-15)
		t.Fatalf("seed %d: %s\nthe last steps: %s", seed, fmt.Sprintf(format, args...), strings.Join(log[n:], " "))
	}
	// answered checks an answer that is not a success: never a 5xx, and the
	// error envelope with a code.
	answered := func(what string, rep reply) {
		t.Helper()
		tally[fmt.Sprintf("%s %d", what, rep.status)]++
		if rep.status >= 500 {
			fail("%s: %d %.300s", what, rep.status, rep.body)
		}
		if rep.status >= 400 {
			var v struct {
				Error *struct{ Code, Message string }
			}
			if err := json.Unmarshal(rep.body, &v); err != nil || v.Error == nil || v.Error.Code == "" || v.Error.Message == "" {
				fail("%s: %d without an error envelope: %.300s", what, rep.status, rep.body)
			}
		}
	}
	ids := func(k int) []string {
		out := make([]string, 0, len(trees[k]))
		for id := range trees[k] {
			out = append(out, id)
		}
		slices.Sort(out) // the map's order is not the seed's
		return out
	}
	// check reads tree id of tenant k: every acknowledged text is in it, and
	// the other tenant reads nothing of it.
	check := func(k int, id string) {
		t.Helper()
		rep := tenants[k].do("GET", "/v1/trees/"+id, "")
		if rep.status != 200 {
			fail("GET of tenant %d's tree %s: %d %.300s", k, id, rep.status, rep.body)
		}
		for _, text := range trees[k][id].texts {
			if !strings.Contains(string(rep.body), strconv.Quote(text)) {
				fail("tree %s lost the acknowledged message %q", id, text)
			}
		}
		trees[k][id].etag = rep.header.Get("ETag")
		if o := tenants[1-k].do("GET", "/v1/trees/"+id, ""); o.status != 404 {
			fail("tenant %d read tenant %d's tree %s: %d", 1-k, k, id, o.status)
		}
	}
	appendTo := func(k int, id, text string, hdr ...string) reply {
		rep := tenants[k].do("POST", "/v1/trees/"+id+"/ops", appendBody(text), hdr...)
		answered("append", rep)
		return rep
	}
	n := 0
	text := func() string { n++; return fmt.Sprintf("r%d-%d", seed, n) }
	for step := 0; step < steps; step++ {
		k := r.IntN(2)
		c := tenants[k]
		mine := ids(k)
		some := func() string { return mine[r.IntN(len(mine))] }
		x := r.IntN(100)
		if len(mine) == 0 {
			x = 0
		}
		var touched []string
		switch {
		case x < 10: // create
			s := text()
			rep := c.do("POST", "/v1/trees", `{"messages":[{"role":"user","content":`+strconv.Quote(s)+`}]}`)
			answered("create", rep)
			if rep.status == 201 {
				id := rep.object(t)["id"].(string)
				trees[k][id] = &randomTree{texts: []string{s}, etag: rep.header.Get("ETag")}
				touched = append(touched, id)
			}
			log = append(log, fmt.Sprintf("%d.%d:create", step, k))
		case x < 14: // import another tool's file
			s := text()
			rep := c.do("POST", "/v1/trees?format=auto", `[{"role":"user","content":`+strconv.Quote(s)+`},{"role":"assistant","content":"ok"}]`)
			answered("import", rep)
			if rep.status == 201 {
				id := rep.object(t)["id"].(string)
				trees[k][id] = &randomTree{texts: []string{s}}
				touched = append(touched, id)
			}
			log = append(log, fmt.Sprintf("%d.%d:import", step, k))
		case x < 40: // append, plain
			id, s := some(), text()
			if rep := appendTo(k, id, s); rep.status == 200 {
				trees[k][id].texts = append(trees[k][id].texts, s)
			}
			touched = append(touched, id)
			log = append(log, fmt.Sprintf("%d.%d:append", step, k))
		case x < 52: // append with If-Match: the last ETag seen, which another write may have made stale
			id, s := some(), text()
			rep := appendTo(k, id, s, "If-Match", trees[k][id].etag)
			switch rep.status {
			case 200:
				trees[k][id].texts = append(trees[k][id].texts, s)
			case 412:
			default:
				fail("an append with If-Match: %d %.300s", rep.status, rep.body)
			}
			touched = append(touched, id)
			log = append(log, fmt.Sprintf("%d.%d:ifmatch(%d)", step, k, rep.status))
		case x < 66: // several appends at once, on one tree or on several, from both tenants
			type sent struct {
				k       int
				id, s   string
				ok      bool
				ifMatch bool
			}
			var batch []*sent
			for range 2 + r.IntN(4) {
				kk := r.IntN(2)
				if len(trees[kk]) == 0 {
					kk = k
				}
				list := ids(kk)
				b := &sent{k: kk, id: list[r.IntN(len(list))], s: text(), ifMatch: r.IntN(3) == 0}
				if r.IntN(2) == 0 {
					b.id = some() // several on one tree
					b.k = k
				}
				batch = append(batch, b)
			}
			var wg sync.WaitGroup
			reps := make([]reply, len(batch))
			for i, b := range batch {
				wg.Add(1)
				go func() {
					defer wg.Done()
					cl := &client{t: t, token: tenants[b.k].token}
					if b.ifMatch {
						reps[i] = cl.do("POST", "/v1/trees/"+b.id+"/ops", appendBody(b.s), "If-Match", trees[b.k][b.id].etag)
					} else {
						reps[i] = cl.do("POST", "/v1/trees/"+b.id+"/ops", appendBody(b.s))
					}
				}()
			}
			wg.Wait()
			for i, b := range batch {
				answered("an append at once", reps[i])
				if reps[i].status == 200 {
					trees[b.k][b.id].texts = append(trees[b.k][b.id].texts, b.s)
				} else if reps[i].status != 412 && reps[i].status != 429 {
					fail("an append at once: %d %.300s", reps[i].status, reps[i].body)
				}
				if b.k == k {
					touched = append(touched, b.id)
				}
			}
			log = append(log, fmt.Sprintf("%d.%d:together(%d)", step, k, len(batch)))
		case x < 72: // delete
			id := some()
			rep := c.do("DELETE", "/v1/trees/"+id, "")
			answered("delete", rep)
			if rep.status/100 != 2 {
				fail("delete: %d %.300s", rep.status, rep.body)
			}
			delete(trees[k], id)
			if g := c.do("GET", "/v1/trees/"+id, ""); g.status != 404 {
				fail("a deleted tree read back: %d", g.status)
			}
			if a := appendTo(k, id, text()); a.status != 404 {
				fail("an append to a deleted tree: %d %.300s", a.status, a.body)
			}
			log = append(log, fmt.Sprintf("%d.%d:delete", step, k))
		case x < 84: // a body the route does not read, on a tree of this tenant
			id := some()
			body := []string{``, `{`, `[]`, `{"ops":5}`, `{"ops":[{"op":"append"}]}`, `{"ops":[{"op":"append","message":{"role":"user","role":"assistant"}}]}`,
				`{"ops":[{"op":"nope"}]}`, `{"ops":[{"op":"switch","branch":"nope"}]}`, `{"ops":[{"op":"rewind","node":"x"}]}`, "\x00\xff"}[r.IntN(10)]
			rep := c.do("POST", "/v1/trees/"+id+"/ops", body)
			answered("a bad body", rep)
			if rep.status/100 == 2 {
				fail("the bad body %q was taken: %.300s", body, rep.body)
			}
			touched = append(touched, id)
			log = append(log, fmt.Sprintf("%d.%d:bad", step, k))
		case x < 94: // the other tenant, on this tenant's tree
			id, o := some(), tenants[1-k]
			for _, req := range [][3]string{{"GET", "/v1/trees/" + id, ""}, {"POST", "/v1/trees/" + id + "/ops", appendBody(text())},
				{"DELETE", "/v1/trees/" + id, ""}, {"GET", "/v1/trees/" + id + "/projection", ""}, {"POST", "/v1/trees/" + id + "/merge", `{}`}} {
				rep := o.do(req[0], req[1], req[2])
				answered("the other tenant", rep)
				if rep.status/100 == 2 {
					fail("tenant %d's %s %s of tenant %d's tree: %d %.300s", 1-k, req[0], req[1], k, rep.status, rep.body)
				}
			}
			touched = append(touched, id)
			log = append(log, fmt.Sprintf("%d.%d:other", step, k))
		default: // the list
			checkList(t, c, trees[k], fail)
			log = append(log, fmt.Sprintf("%d.%d:list", step, k))
		}
		slices.Sort(touched)
		for _, id := range slices.Compact(touched) {
			if trees[k][id] != nil {
				check(k, id)
			}
		}
	}
	for k := range tenants {
		for _, id := range ids(k) {
			check(k, id)
		}
		checkList(t, tenants[k], trees[k], fail)
	}
	t.Logf("seed %d: %d steps, %d messages sent, trees kept: %d and %d; answers: %v", seed, steps, n, len(trees[0]), len(trees[1]), tally)
	tally["412"] = tally["append 412"] + tally["an append at once 412"]
	for _, want := range []string{"append 200", "412", "an append at once 200", "a bad body 400", "the other tenant 404", "create 201", "import 201", "delete 204"} {
		if tally[want] == 0 && steps >= 100 {
			t.Errorf("seed %d: no %q in the run: %v", seed, want, tally)
		}
	}
}

// checkList compares a tenant's list (every page) with the trees it made and kept.
func checkList(t *testing.T, c *client, trees map[string]*randomTree, fail func(string, ...any)) {
	t.Helper()
	var got []string
	after := ""
	for {
		rep := c.do("GET", "/v1/trees?limit=7&after="+after, "")
		if rep.status != 200 {
			fail("the list: %d %.300s", rep.status, rep.body)
		}
		var page struct {
			Trees []struct{ ID string }
			Next  string
		}
		if err := json.Unmarshal(rep.body, &page); err != nil {
			fail("the list: %v", err)
		}
		for _, x := range page.Trees {
			got = append(got, x.ID)
		}
		if page.Next == "" {
			break
		}
		after = page.Next
	}
	want := make([]string, 0, len(trees))
	for id := range trees {
		want = append(want, id)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		fail("the list holds %v, the tenant kept %v", got, want)
	}
}
