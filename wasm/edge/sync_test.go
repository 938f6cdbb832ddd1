//go:build !js || stock

package edge

import (
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/sessiontree/sessiontree/core"
)

// syncOnce is what a sync client does: pull the stored tree, merge it into the
// local copy, push the local copy with If-Match, and on 412 start again.
func syncOnce(t *testing.T, c *client, id string, local *core.Tree) {
	for attempt := 0; attempt < 50; attempt++ {
		r := c.do("GET", "/v1/trees/"+id, "")
		if r.status != 200 {
			t.Errorf("pull: %d %s", r.status, r.body)
			return
		}
		remote, err := core.Unmarshal(r.body)
		if err != nil {
			t.Errorf("pull: %v", err)
			return
		}
		if _, err := local.Merge(remote); err != nil {
			t.Errorf("merge: %v", err)
			return
		}
		p := c.do("POST", "/v1/trees/"+id+"/merge", string(local.Marshal()), "If-Match", r.header.Get("ETag"))
		switch p.status {
		case 200:
			return
		case 412:
			continue
		default:
			t.Errorf("push: %d %s", p.status, p.body)
			return
		}
	}
	t.Errorf("sync did not get through in 50 attempts")
}

func TestTwoSyncClientsPushingConcurrentlyConvergeWithNothingLost(t *testing.T) {
	h := newTestHandler(NewMemStore())
	c := newClient(t, h, "alice")
	id := c.create(`{"messages":[{"role":"user","content":"start"}]}`)
	base, err := core.Unmarshal(c.do("GET", "/v1/trees/"+id, "").body)
	if err != nil {
		t.Fatal(err)
	}
	devices := []*core.Tree{base.Clone(), base.Clone()}
	var wg sync.WaitGroup
	for d, local := range devices {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 10 {
				if _, err := local.Append(core.Message(`{"role":"user","content":"device `+strconv.Itoa(d)+` turn `+strconv.Itoa(i)+`"}`), int64(100+i)); err != nil {
					t.Error(err)
				}
				syncOnce(t, c, id, local)
			}
		}()
	}
	wg.Wait()
	for _, local := range devices {
		syncOnce(t, c, id, local)
	}
	stored, err := core.Unmarshal(c.do("GET", "/v1/trees/"+id, "").body)
	if err != nil {
		t.Fatal(err)
	}
	if stored.Len() != 21 {
		t.Fatalf("stored tree has %d nodes, want 21 (1 + 10 from each device)", stored.Len())
	}
	for d, local := range devices {
		for _, k := range []*core.Tree{local} {
			if string(k.Marshal()) != string(stored.Marshal()) {
				t.Fatalf("device %d did not converge with the stored tree", d)
			}
		}
	}
	if p := stored.Validate(); len(p) > 0 {
		t.Fatalf("%+v", p)
	}
}

func TestMergeRouteAnswers412OnAStaleIfMatchAndMergesOtherwise(t *testing.T) {
	h := newTestHandler(NewMemStore())
	c := newClient(t, h, "alice")
	id := c.create(`{"messages":[{"role":"user","content":"start"}]}`)
	r := c.do("GET", "/v1/trees/"+id, "")
	local, _ := core.Unmarshal(r.body)
	local.Append(core.Message(`{"role":"assistant","content":"reply"}`), 5)
	c.appendMsg(id, "moved on")
	wantError(t, c.do("POST", "/v1/trees/"+id+"/merge", string(local.Marshal()), "If-Match", r.header.Get("ETag")), 412, CodePreconditionFail)
	p := c.do("POST", "/v1/trees/"+id+"/merge", string(local.Marshal()))
	if p.status != 200 {
		t.Fatalf("%d %s", p.status, p.body)
	}
	rep := p.json(t)["report"].(map[string]any)
	if len(rep["nodesAdded"].([]any)) != 1 || len(rep["conflicts"].([]any)) != 1 {
		t.Fatalf("report %s", p.body)
	}
	other := newClient(t, h, "bob")
	wantError(t, other.do("POST", "/v1/trees/"+id+"/merge", string(local.Marshal())), 404, "not_found")
}

// A merge may store another tree than the one a copy sent, though the copy
// held everything stored: the copy's own calls leave a kept value of a branch
// visible where a merge hides it (here: a branch made at the value's leaf).
// The answer says so ("differs"), so that the copy pulls it; before, a live
// client kept its own tree under the stored tree's ETag for good, and two
// devices ended apart (js/test/live-random.mjs, seed 2).
func TestAMergeAnswerSaysWhetherTheStoredTreeDiffersFromTheOneSent(t *testing.T) {
	h := newTestHandler(NewMemStore())
	c := newClient(t, h, "alice")
	id := c.create(`{"messages":[{"role":"user","content":"start"}]}`)
	pull := func() (*core.Tree, string) { return treeOf(t, c, id) }
	push := func(local *core.Tree, etag string) bool {
		t.Helper()
		p := c.do("POST", "/v1/trees/"+id+"/merge", string(local.Marshal()), "If-Match", etag)
		if p.status != 200 {
			t.Fatalf("push: %d %s", p.status, p.body)
		}
		differs, ok := p.json(t)["differs"].(bool)
		if !ok {
			t.Fatalf("the answer has no \"differs\": %s", p.body)
		}
		return differs
	}
	a, etag := pull()
	b := a.Clone()
	now := time.Now().UnixMilli()
	leafA, _ := a.Append(core.Message(`{"role":"user","content":"from a"}`), now+10)
	b.Append(core.Message(`{"role":"user","content":"from b"}`), now+20)
	if push(b, etag) {
		t.Fatal("a push of the stored tree and an append: the answer says the stored tree differs")
	}
	stored, etag := pull()
	a.Merge(stored) // main goes to b's leaf; a's is kept as main~<leafA>
	if push(a, etag) {
		t.Fatal("a push of a merged copy: the answer says the stored tree differs")
	}
	_, etag = pull()
	if _, err := a.Branch(leafA, "y", now+30); err != nil {
		t.Fatal(err)
	}
	if !push(a, etag) {
		t.Fatal("the merge hid main~<leafA>, and the answer does not say the stored tree differs")
	}
	stored, _ = pull()
	if stored.SameRecords(a) {
		t.Fatal("the stored tree is the one sent: the test proves nothing")
	}
	a.Merge(stored)
	if !stored.SameRecords(a) {
		t.Fatal("a copy that pulled after the answer does not hold the stored tree")
	}
}
