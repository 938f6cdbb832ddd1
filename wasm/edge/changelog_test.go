//go:build !js || stock

package edge

import (
	"strconv"
	"strings"
	"testing"
)

// changeLogBytes is what the change log of tree id takes in store.
func changeLogBytes(store *MemStore, id string) (logged int64, records int) {
	store.mu.Lock()
	defer store.mu.Unlock()
	for _, d := range store.trees[id].deltas {
		logged += int64(len(d))
		records++
	}
	return logged, records
}

// A tree's change log is stored beside its rows, and the bytes quota counts
// only the rows: the log keeps no more bytes than its tree takes (at least
// MinChangeLogBytes), the newest change always. Before, it kept the last
// 1,000 changes whatever their size: rewriting a summary of 400 KiB 40 times
// under a quota of 4 MiB kept 16 MB of log. A client further behind than
// the log reaches reads the tree (410), which then costs less than the log.
func TestATreesChangeLogKeepsNoMoreBytesThanTheTreeTakes(t *testing.T) {
	store := NewMemStore()
	h := New(Config{Store: store, SigningKey: testKey, Quota: Quota{Bytes: 4 << 20}})
	c := newClient(t, h, "alice")
	id := c.create(`{"messages":[{"role":"user","content":"hi"}]}`)
	const writes = 40
	for i := 0; i < writes; i++ {
		summary := strconv.Itoa(i) + strings.Repeat("s", 400<<10)
		if r := c.do("POST", "/v1/trees/"+id+"/ops", `{"ops":[{"op":"summarize","branch":"main","summary":"`+summary+`"}]}`); r.status != 200 {
			t.Fatalf("write %d: %d %.300s", i, r.status, r.body)
		}
	}
	logged, records := changeLogBytes(store, id)
	rows := storedBytes(store, id)
	if records == 0 || records > 1 && logged > max(rows, MinChangeLogBytes) {
		t.Fatalf("after %d writes the change log keeps %d bytes in %d changes; its tree takes %d", writes, logged, records, rows)
	}
	// The newest change is kept (alone, here: it is about as large as the
	// tree); older ones past the budget are gone.
	version := int64(writes + 1)
	if r := c.do("GET", "/v1/trees/"+id+"/changes?since="+strconv.FormatInt(version-1, 10), ""); r.status != 200 {
		t.Fatalf("the newest change: %d %.300s", r.status, r.body)
	}
	wantError(t, c.do("GET", "/v1/trees/"+id+"/changes?since=1", ""), 410, "gone")

	// A small tree keeps a useful log: MinChangeLogBytes of small changes.
	small := c.create(`{"messages":[{"role":"user","content":"hi"}]}`)
	for i := 0; i < 50; i++ {
		if r := c.appendMsg(small, "m"+strconv.Itoa(i)); r.status != 200 {
			t.Fatalf("append %d: %d %s", i, r.status, r.body)
		}
	}
	if r := c.do("GET", "/v1/trees/"+small+"/changes?since=1", ""); r.status != 200 || len(r.json(t)["changes"].([]any)) != 50 {
		t.Fatalf("the 50 changes of a small tree: %d %.300s", r.status, r.body)
	}
}
