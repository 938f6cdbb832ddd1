//go:build !js

package httpsuite

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/wasm/worker/devserver"
)

// A tree stored by the older version of the worker (every tree in D1 rows:
// the trees, nodes and branches tables of migrations/0001_trees.sql) is moved
// into its object on its first request: read at the ETag it had, written,
// listed, and still invisible to another tenant. A write the older version
// stored with an Idempotency-Key (its idempotency table in D1), retried after
// the move, is answered from the kept answer, not applied twice; the key sent
// with another request is refused, as the older version did.
func TestATreeOfTheD1RowVersionMovesIntoItsObjectOnFirstAccess(t *testing.T) {
	tr := core.New()
	for _, text := range []string{"first", "it's second", `third, "quoted"`, "sent before the upgrade"} {
		if _, err := tr.Append(core.Message(`{"role":"user","content":`+strconv.Quote(text)+`}`), 1_750_000_000_000); err != nil {
			t.Fatal(err)
		}
	}
	id, etag := strings.Repeat("0d", 16), `"4-0ld0ld0ld0ld"`
	q := func(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
	var sql strings.Builder
	sql.WriteString("INSERT INTO trees (id, tenant, version, etag, root, active, created_ms, updated_ms) VALUES (" +
		q(id) + ", 'migrating', 4, " + q(etag) + ", " + q(tr.Root()) + ", " + q(tr.ActiveBranch()) + ", 1750000000000, 1750000000000);\n")
	// The older version's answer to the fourth message's write, kept for its key.
	keptBody := appendBody("sent before the upgrade")
	sum := sha256.Sum256([]byte("POST /v1/trees/" + id + "/ops\n" + keptBody))
	kept := `{"etag":` + strconv.Quote(etag) + `}`
	sql.WriteString("INSERT INTO idempotency (tenant, key, fingerprint, status, etag, location, body, created_ms) VALUES ('migrating', 'sent-before', " +
		q(hex.EncodeToString(sum[:])) + ", 200, " + q(etag) + ", '', " + q(kept) + ", " + strconv.FormatInt(time.Now().UnixMilli(), 10) + ");\n")
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
	if r := c.do("POST", "/v1/trees/"+id+"/ops", appendBody("fifth"), "If-Match", etag); r.status != 200 {
		t.Fatalf("a write on the moved tree: %d %s", r.status, r.body)
	}
	if n := len(c.projection(id)); n != 5 {
		t.Fatalf("%d messages after the write, want 5", n)
	}
	// The client that never saw the older version's answer retries with its key.
	again := c.do("POST", "/v1/trees/"+id+"/ops", keptBody, "Idempotency-Key", "sent-before")
	if again.status != 200 || again.header.Get("Idempotent-Replayed") != "true" || again.header.Get("ETag") != etag ||
		strings.TrimSpace(string(again.body)) != kept {
		t.Fatalf("the retry of a write the older version kept: %d %v %s", again.status, again.header, again.body)
	}
	wantError(t, c.do("POST", "/v1/trees/"+id+"/ops", appendBody("another"), "Idempotency-Key", "sent-before"), 422, "invalid_input")
	if n := len(c.projection(id)); n != 5 {
		t.Fatalf("%d messages after the retries, want 5: a kept write was applied again", n)
	}
	list := c.do("GET", "/v1/trees", "").object(t)["trees"].([]any)
	if len(list) != 1 || list[0].(map[string]any)["id"] != id {
		t.Fatalf("the list: %v", list)
	}
}
