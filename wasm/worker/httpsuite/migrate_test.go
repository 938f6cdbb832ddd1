//go:build !js

package httpsuite

import (
	"strconv"
	"strings"
	"testing"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/wasm/worker/devserver"
)

// A tree stored by the older version of the worker (every tree in D1 rows:
// the trees, nodes and branches tables of migrations/0001_trees.sql) is moved
// into its object on its first request: read at the ETag it had, written,
// listed, and still invisible to another tenant.
func TestATreeOfTheD1RowVersionMovesIntoItsObjectOnFirstAccess(t *testing.T) {
	tr := core.New()
	for _, text := range []string{"first", "it's second", `third, "quoted"`} {
		if _, err := tr.Append(core.Message(`{"role":"user","content":`+strconv.Quote(text)+`}`), 1_750_000_000_000); err != nil {
			t.Fatal(err)
		}
	}
	id, etag := strings.Repeat("0d", 16), `"3-0ld0ld0ld0ld"`
	q := func(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
	var sql strings.Builder
	sql.WriteString("INSERT INTO trees (id, tenant, version, etag, root, active, created_ms, updated_ms) VALUES (" +
		q(id) + ", 'migrating', 3, " + q(etag) + ", " + q(tr.Root()) + ", " + q(tr.ActiveBranch()) + ", 1750000000000, 1750000000000);\n")
	branches, nodes := tr.Rows()
	for _, f := range nodes {
		sql.WriteString("INSERT INTO nodes (tree, id, json) VALUES (" + q(id) + ", " + q(f.Key) + ", " + q(string(f.JSON)) + ");\n")
	}
	for _, f := range branches {
		sql.WriteString("INSERT INTO branches (tree, name, json) VALUES (" + q(id) + ", " + q(f.Key) + ", " + q(string(f.JSON)) + ");\n")
	}
	server.Stop()
	if err := devserver.ExecD1(options, sql.String()); err != nil {
		t.Fatal(err)
	}
	var err error
	if server, err = startAgain(); err != nil {
		t.Fatal(err)
	}

	c := &client{t: t, token: token(t, "migrating")}
	got := c.do("GET", "/v1/trees/"+id, "")
	if got.status != 200 || got.header.Get("ETag") != etag || string(got.body) != string(tr.Marshal())+"\n" {
		t.Fatalf("the older version's tree: %d %s %s", got.status, got.header.Get("ETag"), got.body)
	}
	wantError(t, (&client{t: t, token: token(t, "someone-else")}).do("GET", "/v1/trees/"+id, ""), 404, "not_found")
	if r := c.do("POST", "/v1/trees/"+id+"/ops", appendBody("fourth"), "If-Match", etag); r.status != 200 {
		t.Fatalf("a write on the moved tree: %d %s", r.status, r.body)
	}
	if n := len(c.projection(id)); n != 4 {
		t.Fatalf("%d messages after the write, want 4", n)
	}
	list := c.do("GET", "/v1/trees", "").object(t)["trees"].([]any)
	if len(list) != 1 || list[0].(map[string]any)["id"] != id {
		t.Fatalf("the list: %v", list)
	}
}
