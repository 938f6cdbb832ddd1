//go:build !js || stock

package edge

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"strconv"
	"strings"
	"testing"

	"github.com/sessiontree/sessiontree/core"
)

// syncClient is a client of one tree as js/sync.js's live() is: a copy of its
// own, changed at random, pushed by the rows of its sync feed (POST /delta on
// the ETag it last saw), and on 409 or 412 pulled, merged and pushed whole
// (POST /merge), as live() does.
type syncClient struct {
	c    *client
	id   string
	copy *core.Tree
	etag string
}

// deltaDoc is the delta document of the rows a tree's sync feed names, as
// js/sync.js writes it (deltaText).
func deltaDoc(tr *core.Tree, ch core.Changes) string {
	// part writes the rows of keys as a JSON object and the keys with no row
	// (removed) as a JSON array.
	part := func(keys []string, row func(string) ([]byte, bool)) (live, gone string) {
		var l, g []string
		for _, k := range keys {
			if r, ok := row(k); ok {
				l = append(l, strconv.Quote(k)+":"+string(r))
			} else {
				g = append(g, strconv.Quote(k))
			}
		}
		return "{" + strings.Join(l, ",") + "}", "[" + strings.Join(g, ",") + "]"
	}
	nodes, goneNodes := part(ch.Nodes, tr.NodeJSON)
	branches, goneBranches := part(ch.Branches, tr.BranchJSON)
	return `{"root":` + strconv.Quote(tr.Root()) + `,"active":` + strconv.Quote(tr.ActiveBranch()) +
		`,"nodes":` + nodes + `,"deleted_nodes":` + goneNodes + `,"branches":` + branches + `,"deleted_branches":` + goneBranches + `}`
}

// pull merges the stored tree into the client's copy.
func (s *syncClient) pull(t *testing.T) {
	t.Helper()
	r := s.c.do("GET", "/v1/trees/"+s.id, "")
	if r.status != 200 {
		t.Fatalf("pull: %d %s", r.status, r.body)
	}
	stored, err := core.Unmarshal(r.body)
	if err != nil {
		t.Fatalf("the stored tree does not load: %v", err)
	}
	if _, err := s.copy.MergeWith(stored, core.MergeOptions{}); err != nil {
		t.Fatalf("merging the stored tree: %v", err)
	}
	s.etag = r.header.Get("ETag")
}

// push sends what the copy changed since its last push: a delta, or after a
// 409 or 412 a pull and the whole copy to /merge (until it goes in).
func (s *syncClient) push(t *testing.T) {
	t.Helper()
	ch := s.copy.TakeSynced()
	if !ch.All {
		r := s.c.do("POST", "/v1/trees/"+s.id+"/delta", deltaDoc(s.copy, ch), "If-Match", s.etag)
		fuzzAnswerOK(t, "delta", r)
		tallyOf[strconv.Itoa(r.status)+" delta"]++
		if r.status == 200 {
			s.etag = r.header.Get("ETag")
			return
		}
		if r.status != 409 && r.status != 412 {
			t.Fatalf("delta: %d %s", r.status, r.body)
		}
	}
	for tries := 0; ; tries++ {
		s.pull(t)
		r := s.c.do("POST", "/v1/trees/"+s.id+"/merge", string(s.copy.Marshal()), "If-Match", s.etag)
		fuzzAnswerOK(t, "merge", r)
		tallyOf[strconv.Itoa(r.status)+" merge"]++
		if r.status == 200 {
			s.etag = r.header.Get("ETag")
			return
		}
		if r.status != 412 || tries > 3 {
			t.Fatalf("merge: %d %s", r.status, r.body)
		}
	}
}

// step changes the copy at random: appends, regenerates, edits, rewinds,
// labels, branch deletions and prunes, the kinds of change a chat makes.
func (s *syncClient) step(rng *rand.Rand, at int64) {
	tr := s.copy
	path, _ := tr.ActivePath()
	pick := func() string {
		if len(path) == 0 {
			return "none"
		}
		return path[rng.Intn(len(path))]
	}
	m := core.Message(`{"role":"user","content":"m` + strconv.FormatInt(at, 10) + `"}`)
	switch rng.Intn(9) {
	case 0, 1, 2:
		tr.Append(m, at)
	case 3:
		tr.Regenerate(pick(), m, at)
	case 4:
		tr.Edit(pick(), m, at)
	case 5:
		tr.Rewind(pick(), at)
	case 6:
		tr.LabelAt(pick(), "l"+strconv.Itoa(rng.Intn(3)), at)
	case 7:
		bs := tr.Branches()
		tr.DeleteBranchAt(bs[rng.Intn(len(bs))].Name, at)
	case 8:
		tr.Prune()
	}
}

// Two clients of one tree change their copies apart and sync as live() does:
// by deltas, and on a refusal by a pull, a merge and a whole push. The stored
// tree stays sound after every request (no answer is a 500, every refusal has
// a code), and once both have synced again, after the other's last push, the
// two copies and the stored tree hold the same nodes and branches.
// tallyOf counts the answers the sync clients met ("200 delta", "412 delta",
// "200 merge"…), so that the test can say it took every path.
var tallyOf = map[string]int{}

func TestTwoSyncClientsConvergeOnTheStoredTree(t *testing.T) {
	clear(tallyOf)
	defer func() {
		if tallyOf["200 delta"] == 0 || tallyOf["412 delta"] == 0 || tallyOf["200 merge"] == 0 {
			t.Errorf("the clients did not take every path: %v", tallyOf)
		}
	}()
	for seed := int64(1); seed <= 6; seed++ {
		rng := rand.New(rand.NewSource(seed))
		c := newClient(t, newTestHandler(NewMemStore()), "alice")
		id := c.create(`{"messages":[{"role":"user","content":"hi"}]}`)
		clients := make([]*syncClient, 2)
		for i := range clients {
			clients[i] = &syncClient{c: c, id: id, copy: core.New()}
			clients[i].pull(t)
			clients[i].copy.TakeSynced() // the copy holds the stored rows
		}
		at := int64(1_000)
		for step := 0; step < 300; step++ {
			s := clients[rng.Intn(2)]
			for k := rng.Intn(3); k >= 0; k-- {
				at++
				s.step(rng, at)
			}
			switch rng.Intn(4) {
			case 0:
				s.pull(t)
			default:
				s.push(t)
			}
			fuzzTreeReadsBack(t, c, id)
		}
		for _, s := range append(clients, clients[0]) {
			s.push(t)
			s.pull(t)
		}
		r := c.do("GET", "/v1/trees/"+id, "")
		stored, err := core.Unmarshal(r.body)
		if err != nil {
			t.Fatal(err)
		}
		for i, s := range clients {
			if !sameRecords(s.copy, stored) {
				t.Fatalf("seed %d: client %d's copy and the stored tree differ after both synced:\n%s\n%s", seed, i, s.copy.Marshal(), stored.Marshal())
			}
		}
	}
}

// sameRecords reports whether a and b hold the same node and branch records,
// the active branch (each copy's own) aside.
func sameRecords(a, b *core.Tree) bool {
	type file struct{ Nodes, Branches map[string]json.RawMessage }
	var x, y file
	if json.Unmarshal(a.Marshal(), &x) != nil || json.Unmarshal(b.Marshal(), &y) != nil {
		return false
	}
	same := func(p, q map[string]json.RawMessage) bool {
		if len(p) != len(q) {
			return false
		}
		for k, v := range p {
			if !bytes.Equal(v, q[k]) {
				return false
			}
		}
		return true
	}
	return same(x.Nodes, y.Nodes) && same(x.Branches, y.Branches)
}
