//go:build !js

package httpsuite

import (
	"strconv"
	"strings"
	"testing"
)

// A tree's object kept the changes of its last 1,000 writes whatever their
// size (the changes table), and the bytes quota counts only the tree's rows:
// rewriting a summary of 800 KiB kept ~800 KiB of log a write. Now the log
// keeps no more bytes than the tree takes (edge.ChangeLogBytes), the newest
// change always: after 12 rewrites of a 300 KiB summary, the newest change
// is there and the changes since the first write are gone (410, read the
// tree); a small tree keeps all of its small changes.
func TestATreesChangeLogKeepsNoMoreBytesThanTheTreeTakes(t *testing.T) {
	c := &client{t: t, token: token(t, "change-log")}
	id, _ := c.create(`{"messages":[{"role":"user","content":"hi"}]}`)
	const writes = 12
	for i := 0; i < writes; i++ {
		summary := strconv.Itoa(i) + strings.Repeat("s", 300<<10)
		if r := c.do("POST", "/v1/trees/"+id+"/ops", `{"ops":[{"op":"summarize","branch":"main","summary":"`+summary+`"}]}`); r.status != 200 {
			t.Fatalf("write %d: %d %.300s", i, r.status, r.body)
		}
	}
	newest := c.do("GET", "/v1/trees/"+id+"/changes?since="+strconv.Itoa(writes), "")
	if v := newest.object(t); newest.status != 200 || len(v["changes"].([]any)) != 1 {
		t.Fatalf("the newest change: %d %.300s", newest.status, newest.body)
	}
	wantError(t, c.do("GET", "/v1/trees/"+id+"/changes?since=1", ""), 410, "gone")

	small, _ := c.create(`{"messages":[{"role":"user","content":"hi"}]}`)
	for i := 0; i < 30; i++ {
		if r := c.do("POST", "/v1/trees/"+small+"/ops", appendBody("m"+strconv.Itoa(i))); r.status != 200 {
			t.Fatalf("append %d: %d %.300s", i, r.status, r.body)
		}
	}
	all := c.do("GET", "/v1/trees/"+small+"/changes?since=1", "")
	if v := all.object(t); all.status != 200 || len(v["changes"].([]any)) != 30 {
		t.Fatalf("the 30 changes of a small tree: %d %.300s", all.status, all.body)
	}
}
