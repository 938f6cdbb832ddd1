//go:build js && wasm

package main

import (
	"context"
	"errors"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/hack-pad/safejs"
	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/rawjson"
	"github.com/sessiontree/sessiontree/wasm/edge"
	"github.com/sessiontree/sessiontree/wasm/worker/internal/collector"
	"github.com/sessiontree/sessiontree/wasm/worker/internal/jsread"
	"github.com/sessiontree/sessiontree/wasm/worker/internal/pieces"
)

// The object role: this Go instance serves the Durable Objects of the
// isolate, one tree each (glue/isolate.mjs, class TreeObject). Every call is
// synchronous from start to end: the object's SQLite storage answers
// ctx.storage.sql.exec at once, so nothing here awaits a promise, and a call
// never runs inside another request's I/O context. The glue runs the D1
// statements a call returns (the router's index of trees) afterwards.

// objectStore is edge.Store over one Durable Object's SQLite storage: the
// tree's row, one row per node and per branch, and its Idempotency-Keys.
type objectStore struct {
	sql    safejs.Value // ctx.storage.sql of the object being served
	tx     safejs.Value // the glue's tx(fn): fn inside storage.transactionSync, rolled back if fn answers an error
	schema bool
}

// bytes is the size of the object's SQLite storage (its rows and their
// Idempotency-Keys), or 0 if the runtime does not say.
func (s *objectStore) bytes() int64 {
	v, err := s.sql.Get("databaseSize")
	if err != nil {
		return 0
	}
	if f, err := v.Float(); err == nil && f > 0 {
		return int64(f)
	}
	return 0
}

var objectSchema = []string{
	`CREATE TABLE IF NOT EXISTS tree (id TEXT PRIMARY KEY, tenant TEXT NOT NULL, version INTEGER NOT NULL, etag TEXT NOT NULL, root TEXT NOT NULL, active TEXT NOT NULL, created_ms INTEGER NOT NULL, updated_ms INTEGER NOT NULL)`,
	`CREATE TABLE IF NOT EXISTS nodes (id TEXT PRIMARY KEY, json TEXT NOT NULL) WITHOUT ROWID`,
	`CREATE TABLE IF NOT EXISTS branches (name TEXT PRIMARY KEY, json TEXT NOT NULL) WITHOUT ROWID`,
	`CREATE TABLE IF NOT EXISTS changes (version INTEGER PRIMARY KEY, delta TEXT NOT NULL)`,
	// The bytes of each kept change, so that the log is bounded by bytes
	// without reading it (logChange).
	`CREATE TABLE IF NOT EXISTS change_sizes (version INTEGER PRIMARY KEY, bytes INTEGER NOT NULL)`,
	`CREATE TABLE IF NOT EXISTS idempotency (key TEXT PRIMARY KEY, tenant TEXT NOT NULL, fingerprint TEXT NOT NULL, status INTEGER NOT NULL, etag TEXT NOT NULL, location TEXT NOT NULL, body TEXT NOT NULL, created_ms INTEGER NOT NULL) WITHOUT ROWID`,
	// The new node rows of a large write stored ahead of its transaction
	// (stage), with the version they belong to.
	`CREATE TABLE IF NOT EXISTS staged (id TEXT PRIMARY KEY, version INTEGER NOT NULL) WITHOUT ROWID`,
	// A write whose object stopped between its staged rows and its
	// transaction never went in: its rows go (they are not the tree's).
	`DELETE FROM nodes WHERE id IN (SELECT id FROM staged WHERE version > (SELECT COALESCE(MAX(version), 0) FROM tree))`,
	`DELETE FROM staged`,
	// A deleted tree's rows are deleted after its transaction, in pieces
	// (Delete): the rows of an object that stopped in between go now.
	`DELETE FROM nodes WHERE NOT EXISTS (SELECT 1 FROM tree)`,
	`DELETE FROM changes WHERE NOT EXISTS (SELECT 1 FROM tree)`,
	`DELETE FROM change_sizes WHERE NOT EXISTS (SELECT 1 FROM tree)`,
	// A change kept before change_sizes (older than any in it) counts as
	// edge.MaxDelta, the most a kept change takes: its size is not read.
	`INSERT INTO change_sizes (version, bytes) SELECT version, ` + strconv.Itoa(edge.MaxDelta) + ` FROM changes
  WHERE version < COALESCE((SELECT MIN(version) FROM change_sizes), 9223372036854775807)`,
}

const (
	oSelectMeta = `SELECT id, tenant, version, etag, root, active, created_ms, updated_ms FROM tree WHERE id = ?1 AND tenant = ?2`
	oInsertTree = `INSERT INTO tree (id, tenant, version, etag, root, active, created_ms, updated_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)`
	oUpdateTree = `UPDATE tree SET version = ?3, etag = ?4, root = ?5, active = ?6, updated_ms = ?7 WHERE id = ?1 AND tenant = ?2`
	oPutNodes   = `INSERT INTO nodes (id, json) SELECT key, value FROM json_each(?1) WHERE true ON CONFLICT (id) DO UPDATE SET json = excluded.json`
	oPutBranch  = `INSERT INTO branches (name, json) SELECT key, value FROM json_each(?1) WHERE true ON CONFLICT (name) DO UPDATE SET json = excluded.json`
	oDelNodes   = `DELETE FROM nodes WHERE id IN (SELECT value FROM json_each(?1))`
	oDelBranch  = `DELETE FROM branches WHERE name IN (SELECT value FROM json_each(?1))`
	oKeepIdem   = `INSERT INTO idempotency (key, tenant, fingerprint, status, etag, location, body, created_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)`
	oPurgeIdem  = `DELETE FROM idempotency WHERE created_ms < ?1`
	oReplay     = `SELECT fingerprint, status, etag, location, body, created_ms FROM idempotency WHERE key = ?1 AND tenant = ?2`
	// A table's rows in chunks of about ?2 bytes, each one string of
	// key US json RS key US json …: JSON text holds no raw control character,
	// ids and branch names none either. ?1 is the last key of the chunk before.
	// At most ?3 rows (the running sum is then over those only, not the
	// rest of the table: a chunk costs its own rows).
	oChunk = `SELECT group_concat(k || char(31) || json, char(30)) AS rows, max(k) AS last FROM (
  SELECT k, json, sum(length(k) + length(json) + 2) OVER (ORDER BY k) AS run, length(k) + length(json) + 2 AS size
  FROM (SELECT {key} AS k, json FROM {table} WHERE {key} > ?1 ORDER BY {key} LIMIT ?3) ORDER BY k) WHERE run <= ?2 OR run = size`
)

// A tree is loaded pieces.LoadChunk bytes or a row limit a query at most,
// with a yield after each (issue 25: chunks of 1 MiB, one query each and no
// yield between them, held the isolate for the whole first load of a large
// tree). The rows of a deleted tree are deleted pieces.DropRows at a time, a
// yield after each.
const (
	oDropNodes       = `DELETE FROM nodes WHERE id IN (SELECT id FROM nodes LIMIT ?1)`
	oDropChanges     = `DELETE FROM changes WHERE version IN (SELECT version FROM changes LIMIT ?1)`
	oDropChangeSizes = `DELETE FROM change_sizes WHERE version IN (SELECT version FROM change_sizes LIMIT ?1)`
)

// The change log keeps the last edge.KeepChanges changes, and of those no
// more bytes than edge.ChangeLogBytes, the newest whatever its size
// (logChange). oLogCut is the newest version to drop for a log of at most
// ?1 bytes whose newest change is ?2 (0: none): the newest change whose sum
// with the later ones is over ?1. It reads change_sizes only, a row of two
// numbers per change (the window over the changes themselves read each
// change's text: ~1 ms a write with 1,000 changes of 2 KB kept).
const (
	oLogChange  = `INSERT OR REPLACE INTO changes (version, delta) VALUES (?1, ?2)`
	oLogSize    = `INSERT OR REPLACE INTO change_sizes (version, bytes) VALUES (?1, ?2)`
	oLogBytes   = `SELECT COALESCE(SUM(bytes), 0) AS n FROM change_sizes`
	oLogCut     = `SELECT COALESCE(MAX(version), 0) AS cut FROM (SELECT version, SUM(bytes) OVER (ORDER BY version DESC) AS run FROM change_sizes) WHERE run > ?1 AND version < ?2`
	oDropLog    = `DELETE FROM changes WHERE version <= ?1`
	oDropLogSum = `DELETE FROM change_sizes WHERE version <= ?1`
)

// Large writes are stored in slices (issue 25: one tenant's 1,000-op batch
// or 100,000-message create held the isolate's thread, every other tenant's,
// for the seconds of one storage transaction). A write whose new node rows
// take at least stageMin bytes stores them first, stageBytes at a time, each
// piece in a small transaction of its own (with the ids in the staged table)
// and a yield after it. No stored row refers to those rows yet: they become
// the tree's in the write's own transaction, which then holds only the tree's
// row, the changed rows that existed before, the branches and the keys. If
// the object stops in between, the write never went in, and its staged rows
// are deleted when the object's storage is next opened (objectSchema).
const (
	stageMin = 1 << 20
	// stageBytes is 32 KiB: a piece of 128 KiB (its rows' text handed to
	// SQLite twice, and their insert) took 15-50 ms under load, and every
	// other request waited for it.
	stageBytes = 32 << 10

	oStage    = `INSERT INTO staged (id, version) SELECT key, ?2 FROM json_each(?1) WHERE true ON CONFLICT (id) DO UPDATE SET version = excluded.version`
	oExisting = `SELECT id FROM nodes WHERE id IN (SELECT value FROM json_each(?1))`
	oUnstage  = `DELETE FROM staged WHERE id IN (SELECT id FROM staged LIMIT 1000)`
	oDrop     = `DELETE FROM nodes WHERE id IN (SELECT id FROM staged WHERE version = ?1)`
)

// exec runs one statement and returns its rows.
func (s *objectStore) exec(query string, args ...any) ([]safejs.Value, error) {
	if !s.schema {
		s.schema = true
		for _, q := range objectSchema {
			if _, err := s.sql.Call("exec", q); err != nil {
				s.schema = false
				return nil, errors.New("object storage: " + err.Error())
			}
		}
	}
	cursor, err := s.sql.Call("exec", append([]any{query}, args...)...)
	if err != nil {
		return nil, errors.New("object storage: " + err.Error())
	}
	arr, err := cursor.Call("toArray")
	if err != nil {
		return nil, errors.New("object storage: " + err.Error())
	}
	return jsread.Elements(arr)
}

// inTx runs fn in one transaction of the object's storage: all of it or none.
func (s *objectStore) inTx(fn func() error) error {
	var inner error
	cb, err := safejs.FuncOf(func(safejs.Value, []safejs.Value) any {
		if inner = fn(); inner != nil {
			return inner.Error()
		}
		return ""
	})
	if err != nil {
		return err
	}
	defer cb.Release()
	inTx++
	defer func() { inTx-- }()
	if _, err := s.tx.Invoke(cb); err != nil {
		if inner != nil {
			return inner
		}
		return errors.New("object storage: " + err.Error())
	}
	return inner
}

func (s *objectStore) Meta(_ context.Context, tenant, id string) (edge.Meta, error) {
	rs, err := s.exec(oSelectMeta, id, tenant)
	if err != nil {
		return edge.Meta{}, err
	}
	if len(rs) == 0 {
		return edge.Meta{}, edge.ErrNoTree
	}
	return metaOf(rs[0])
}

// chunks reads table (keyed by key) a chunk a query, a yield between two
// (pieces.Load).
func (s *objectStore) chunks(key, table string) ([]core.Fragment, error) {
	q := strings.NewReplacer("{key}", key, "{table}", table).Replace(oChunk)
	return pieces.Load(func(last string, bytes, rows int) (string, string, error) {
		rs, err := s.exec(q, last, bytes, rows)
		if err != nil || len(rs) == 0 {
			return "", "", err
		}
		all, err := jsread.Text(rs[0], "rows")
		if err != nil || all == "" {
			return "", "", err
		}
		next, err := jsread.Text(rs[0], "last")
		return all, next, err
	}, yieldSlice)
}

func (s *objectStore) Load(ctx context.Context, tenant, id string) (edge.Meta, []core.Fragment, []core.Fragment, error) {
	m, err := s.Meta(ctx, tenant, id)
	if err != nil {
		return m, nil, nil, err
	}
	nodes, err := s.chunks("id", "nodes")
	if err != nil {
		return m, nil, nil, err
	}
	branches, err := s.chunks("name", "branches")
	return m, nodes, branches, err
}

const (
	oNodeBytes   = `SELECT COALESCE(SUM(length(CAST(id AS BLOB)) + length(CAST(json AS BLOB))), 0) AS n FROM nodes WHERE id IN (SELECT value FROM json_each(?1))`
	oBranchBytes = `SELECT COALESCE(SUM(length(CAST(name AS BLOB)) + length(CAST(json AS BLOB))), 0) AS n FROM branches WHERE name IN (SELECT value FROM json_each(?1))`
)

// RowBytes implements edge.RowSizer: the stored bytes (UTF-8) of those rows.
func (s *objectStore) RowBytes(_ context.Context, _, _ string, nodes, branches []string) (int64, error) {
	var total int64
	for _, st := range []struct {
		sql  string
		keys []string
	}{{oNodeBytes, nodes}, {oBranchBytes, branches}} {
		for _, arg := range keyArgs(st.keys) {
			rs, err := s.exec(st.sql, arg)
			if err != nil {
				return 0, err
			}
			if len(rs) > 0 {
				n, err := jsread.Number(rs[0], "n")
				if err != nil {
					return 0, err
				}
				total += int64(n)
			}
		}
	}
	return total, nil
}

// keyArgs renders keys as JSON arrays of at most 2,000 keys, one a statement.
func keyArgs(keys []string) []string {
	var out []string
	for len(keys) > 0 {
		n := min(len(keys), 2000)
		out = append(out, string(rawjson.AppendStrings(nil, keys[:n])))
		keys = keys[n:]
	}
	return out
}

// rowStmt is one statement of a write's rows and its one argument.
type rowStmt struct{ sql, arg string }

// rowStmts are the statements that store w's rows, rendered before the
// write's transaction (in slices: nothing yields inside a transaction), so
// that the transaction itself only runs them.
func rowStmts(w edge.Write) []rowStmt {
	var out []rowStmt
	for _, st := range []struct {
		sql  string
		put  []core.Fragment
		keys []string
	}{{oPutNodes, w.PutNodes, nil}, {oPutBranch, w.PutBranches, nil}, {oDelNodes, nil, w.DelNodes}, {oDelBranch, nil, w.DelBranches}} {
		for _, arg := range chunkRows(st.put) {
			out = append(out, rowStmt{st.sql, arg})
		}
		for _, arg := range keyArgs(st.keys) {
			out = append(out, rowStmt{st.sql, arg})
		}
	}
	return out
}

func (s *objectStore) rows(stmts []rowStmt) error {
	for _, st := range stmts {
		if _, err := s.exec(st.sql, st.arg); err != nil {
			return err
		}
	}
	return nil
}

// chunkRows renders frags as JSON objects {key: fragment} of about chunkBytes.
func chunkRows(frags []core.Fragment) []string { return chunkRowsOf(frags, chunkBytes) }

// chunkRowsOf renders frags as JSON objects {key: fragment} of about size
// bytes (pieces.EachRows, each object copied out of its reused buffer).
func chunkRowsOf(frags []core.Fragment, size int) []string {
	var out []string
	_ = pieces.EachRows(frags, size, func(row string) error {
		out = append(out, strings.Clone(row))
		return nil
	})
	return out
}

func (s *objectStore) keepIdem(tenant string, k *edge.Idem) error {
	if k == nil {
		return nil
	}
	if _, err := s.exec(oPurgeIdem, k.CreatedMs-edge.IdemKeepMs); err != nil {
		return err
	}
	_, err := s.exec(oKeepIdem, k.Key, tenant, k.Fingerprint, k.Status, k.ETag, k.Location, string(k.Body), k.CreatedMs)
	return err
}

func (s *objectStore) Create(ctx context.Context, w edge.Write) error {
	// Rows a delete left (dropRest failed): not the new tree's.
	if err := s.dropRest(); err != nil {
		return err
	}
	if !staging(w) {
		return s.create(w)
	}
	rs, err := s.exec(`SELECT 1 AS x FROM tree`)
	if err != nil {
		return err
	}
	if len(rs) > 0 {
		return edge.ErrTreeExists
	}
	return s.staged(w, w.PutNodes, func(w edge.Write) error { return s.create(w) })
}

// staging reports whether w's node rows are large enough to be stored in
// slices ahead of its transaction. Never inside a transaction (a group of
// small writes): nothing yields there.
func staging(w edge.Write) bool {
	if inTx > 0 {
		return false
	}
	n := 0
	for _, f := range w.PutNodes {
		n += len(f.JSON)
	}
	return n >= stageMin
}

// staged stores the rows fresh of w (new: no stored row has their ids) in
// slices, then w without them by write, and then forgets which rows were
// staged. If write fails, the staged rows are deleted.
func (s *objectStore) staged(w edge.Write, fresh []core.Fragment, write func(edge.Write) error) error {
	var rest []core.Fragment // the rows of w that are not fresh (none for a create)
	if len(fresh) < len(w.PutNodes) {
		isFresh := make(map[string]bool, len(fresh))
		for _, f := range fresh {
			core.Tick()
			isFresh[f.Key] = true
		}
		for _, f := range w.PutNodes {
			if !isFresh[f.Key] {
				rest = append(rest, f)
			}
		}
	}
	v := w.Meta.Version
	err := s.stage(fresh, v)
	if err == nil {
		w.PutNodes = rest
		err = write(w)
	}
	if err != nil {
		if derr := s.inTx(func() error {
			if _, err := s.exec(oDrop, v); err != nil {
				return err
			}
			_, err := s.exec(`DELETE FROM staged`)
			return err
		}); derr != nil {
			// The object's storage is next opened with them (objectSchema).
			os.Stderr.WriteString("sessiontree worker: the staged rows of a failed write stay until the object is opened again: " + derr.Error() + "\n")
		}
		return err
	}
	return s.unstage()
}

// stage stores frags as node rows of version v ahead of their write, in
// pieces of about stageBytes, one transaction each, yielding after each;
// each piece is rendered when its turn comes, into one buffer
// (pieces.EachRows).
func (s *objectStore) stage(frags []core.Fragment, v int64) error {
	return pieces.EachRows(frags, stageBytes, func(arg string) error {
		if err := s.inTx(func() error {
			if _, err := s.exec(oStage, arg, v); err != nil {
				return err
			}
			_, err := s.exec(oPutNodes, arg)
			return err
		}); err != nil {
			return err
		}
		yieldSlice()
		return nil
	})
}

// unstage forgets the staged ids of a write that went in, in slices.
func (s *objectStore) unstage() error {
	for {
		rs, err := s.exec(`SELECT 1 AS x FROM staged LIMIT 1`)
		if err != nil || len(rs) == 0 {
			return err
		}
		if _, err := s.exec(oUnstage); err != nil {
			return err
		}
		yieldSlice()
	}
}

// fresh is the rows of w's PutNodes whose ids no stored node has: its
// Created are, the others are asked (pieces.Fresh).
func (s *objectStore) fresh(w edge.Write) ([]core.Fragment, error) {
	return pieces.Fresh(w.PutNodes, w.Created, func(ids []string) ([]string, error) {
		rs, err := s.exec(oExisting, string(rawjson.AppendStrings(nil, ids)))
		if err != nil {
			return nil, err
		}
		stored := make([]string, 0, len(rs))
		for _, r := range rs {
			id, err := jsread.Text(r, "id")
			if err != nil {
				return nil, err
			}
			stored = append(stored, id)
		}
		return stored, nil
	})
}

func (s *objectStore) create(w edge.Write) error {
	stmts := rowStmts(w)
	return s.inTx(func() error {
		rs, err := s.exec(`SELECT 1 AS x FROM tree`)
		if err != nil {
			return err
		}
		if len(rs) > 0 {
			return edge.ErrTreeExists
		}
		m := w.Meta
		if _, err := s.exec(oInsertTree, m.ID, m.Tenant, m.Version, m.ETag, m.Root, m.Active, m.CreatedMs, m.UpdatedMs); err != nil {
			return err
		}
		if err := s.rows(stmts); err != nil {
			return err
		}
		return s.keepIdem(m.Tenant, w.Idem)
	})
}

func (s *objectStore) Commit(ctx context.Context, prev int64, w edge.Write) error {
	if !staging(w) {
		return s.commit(ctx, prev, w)
	}
	cur, err := s.Meta(ctx, w.Meta.Tenant, w.Meta.ID)
	if err != nil {
		return err
	}
	if cur.Version != prev {
		return edge.ErrStale
	}
	fresh, err := s.fresh(w)
	if err != nil {
		return err
	}
	return s.staged(w, fresh, func(w edge.Write) error { return s.commit(ctx, prev, w) })
}

func (s *objectStore) commit(ctx context.Context, prev int64, w edge.Write) error {
	stmts := rowStmts(w)
	return s.inTx(func() error {
		m := w.Meta
		cur, err := s.Meta(ctx, m.Tenant, m.ID)
		if err != nil {
			return err
		}
		if cur.Version != prev {
			return edge.ErrStale
		}
		if _, err := s.exec(oUpdateTree, m.ID, m.Tenant, m.Version, m.ETag, m.Root, m.Active, m.UpdatedMs); err != nil {
			return err
		}
		if err := s.rows(stmts); err != nil {
			return err
		}
		if w.Delta != nil {
			if err := s.logChange(m, w.Delta); err != nil {
				return err
			}
		}
		return s.keepIdem(m.Tenant, w.Idem)
	})
}

// logChange keeps delta, the change of the write that made m, in the log,
// and drops the oldest changes: by count every 64 versions (the log holds
// 1,000 to 1,063 changes at most), and by bytes (edge.ChangeLogBytes) when
// the sum of its sizes is over.
func (s *objectStore) logChange(m edge.Meta, delta []byte) error {
	if _, err := s.exec(oLogChange, m.Version, string(delta)); err != nil {
		return err
	}
	if _, err := s.exec(oLogSize, m.Version, len(delta)); err != nil {
		return err
	}
	drop := func(v int64) error {
		if _, err := s.exec(oDropLog, v); err != nil {
			return err
		}
		_, err := s.exec(oDropLogSum, v)
		return err
	}
	if m.Version%64 == 0 {
		if err := drop(m.Version - edge.KeepChanges); err != nil {
			return err
		}
	}
	budget := edge.ChangeLogBytes(m)
	rs, err := s.exec(oLogBytes)
	if err != nil || len(rs) == 0 {
		return err
	}
	if n, err := jsread.Number(rs[0], "n"); err != nil || int64(n) <= budget {
		return err
	}
	if rs, err = s.exec(oLogCut, budget, m.Version); err != nil || len(rs) == 0 {
		return err
	}
	cut, err := jsread.Number(rs[0], "cut")
	if err != nil || cut <= 0 {
		return err
	}
	return drop(int64(cut))
}

// Changes implements edge.ChangeLog.
func (s *objectStore) Changes(ctx context.Context, tenant, id string, since int64) ([][]byte, bool, error) {
	m, err := s.Meta(ctx, tenant, id)
	if err != nil {
		return nil, false, err
	}
	rs, err := s.exec(`SELECT delta FROM changes WHERE version > ?1 ORDER BY version`, since)
	if err != nil {
		return nil, false, err
	}
	if int64(len(rs)) != m.Version-since {
		return nil, false, nil
	}
	out := make([][]byte, len(rs))
	for i, r := range rs {
		d, err := jsread.Text(r, "delta")
		if err != nil {
			return nil, false, err
		}
		out[i] = []byte(d)
	}
	return out, true, nil
}

func (s *objectStore) Delete(ctx context.Context, tenant, id string, ifVersion int64, idem *edge.Idem) error {
	if err := s.inTx(func() error {
		cur, err := s.Meta(ctx, tenant, id)
		if err != nil {
			return err
		}
		if ifVersion != 0 && cur.Version != ifVersion {
			return edge.ErrStale
		}
		// The tree's row goes in this transaction (the tree is gone for
		// every later call); its node rows and kept changes after it, in
		// pieces (dropRest).
		for _, q := range []string{`DELETE FROM branches`, `DELETE FROM tree`} {
			if _, err := s.exec(q); err != nil {
				return err
			}
		}
		return s.keepIdem(tenant, idem)
	}); err != nil {
		return err
	}
	if err := s.dropRest(); err != nil {
		// Deleted anyway: the rows go when the object's storage is next
		// opened (objectSchema), or before its next create.
		os.Stderr.WriteString("sessiontree worker: the rows of a deleted tree stay until the object is opened again: " + err.Error() + "\n")
	}
	return nil
}

// dropRest deletes the node rows and kept changes of an object that holds no
// tree (a tree deleted, or rows left when the object stopped in a delete),
// pieces.DropRows at a time, each piece its own statement with a yield after
// it (pieces.DropRest).
func (s *objectStore) dropRest() error {
	has := func(query string) func() (bool, error) {
		return func() (bool, error) {
			rs, err := s.exec(query)
			return len(rs) > 0, err
		}
	}
	drop := func(stmt string) func(int) error {
		return func(n int) error {
			_, err := s.exec(stmt, n)
			return err
		}
	}
	return pieces.DropRest(has(`SELECT 1 AS x FROM tree LIMIT 1`), yieldSlice,
		pieces.Rows{Any: has(`SELECT 1 AS x FROM nodes LIMIT 1`), Drop: drop(oDropNodes)},
		pieces.Rows{Any: has(`SELECT 1 AS x FROM changes LIMIT 1`), Drop: drop(oDropChanges)},
		pieces.Rows{Any: has(`SELECT 1 AS x FROM change_sizes LIMIT 1`), Drop: drop(oDropChangeSizes)})
}

func (s *objectStore) Replay(_ context.Context, tenant, key string) (edge.Idem, bool, error) {
	rs, err := s.exec(oReplay, key, tenant)
	if err != nil || len(rs) == 0 {
		return edge.Idem{}, false, err
	}
	return idemOf(rs[0], key)
}

func (s *objectStore) List(context.Context, string, edge.Cursor, int) ([]edge.Meta, error) {
	return nil, errors.New("a tree's object does not list trees")
}

// The router's index in D1 (the trees table), kept by each object after its
// writes: a row only moves forward (objects' index writes may arrive out of order);
// a create's row replaces its reservation (version 0, glue/isolate.mjs RESERVE).
const (
	sqlIndexPut = `INSERT INTO trees (id, tenant, version, etag, root, active, created_ms, updated_ms, title, nodes, bytes) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)
  ON CONFLICT (id) DO UPDATE SET created_ms = excluded.created_ms, version = excluded.version, etag = excluded.etag, root = excluded.root, active = excluded.active, updated_ms = excluded.updated_ms,
    title = excluded.title, nodes = excluded.nodes, bytes = excluded.bytes
  WHERE excluded.version > trees.version AND excluded.tenant = trees.tenant`
	sqlIndexDel = `DELETE FROM trees WHERE id = ?1 AND tenant = ?2`
)

// objects holds one Handler per object name, each with its tree loaded,
// within maxObjects and keptBytes (edge.Kept): the runtime evicts idle
// objects, and a Handler dropped here is made again (its tree read again) on
// the next call.
var objects = edge.NewKept[*objectEntry](maxObjects, keptBytes())

// objectEntry is one object's Handler and storage; pending collects the index
// statements of the call being served, push its messages to live clients.
type objectEntry struct {
	h        *edge.Handler
	store    *objectStore
	pending  []any
	push     []any
	indexNow bool
	stored   int64 // the bytes of its storage as of its last write, or -1 before it was measured
}

// maxObjects bounds the Handlers kept by count.
const maxObjects = 256

// defaultKeptBytes bounds them by size: an object counts the bytes of its
// storage (its rows, which its loaded tree mirrors in memory) and of the
// answer its Handler keeps serialized. Go's memory came to about 2.4 times
// the trees' stored bytes (256 trees of 256 KiB: 156 MB), and a deployed
// isolate has 128 MB, shared with the router's instance.
const defaultKeptBytes = 32 << 20

// keptBytes is SESSIONTREE_KEPT_BYTES (bytes; 0 for no bound by size), set
// by the glue when it starts the objects' instance, or defaultKeptBytes.
func keptBytes() int64 {
	if v, err := strconv.ParseInt(strings.TrimSpace(os.Getenv("SESSIONTREE_KEPT_BYTES")), 10, 64); err == nil && v >= 0 {
		return v
	}
	return defaultKeptBytes
}

// limits are edge.DefaultLimits with SESSIONTREE_MAX_TREE_BYTES (bytes of a
// tree's stored rows; 0 for no bound), set by the glue when it starts the
// objects' instance, as Tree.
func limits() edge.Limits {
	l := edge.DefaultLimits
	if v, err := strconv.ParseInt(strings.TrimSpace(os.Getenv("SESSIONTREE_MAX_TREE_BYTES")), 10, 64); err == nil && v >= 0 {
		l.Tree = v
	}
	return l
}

// makeRoom drops other objects' kept trees before a call whose body is
// large (a create of 100,000 messages, a batch of megabytes): its working set
// (the body, the tree it builds or loads, the rows it stores) is up to
// heapPerBodyByte times the body in Go's heap, roomPerBodyByte times it in
// the stored bytes the budget counts, and it must fit beside the trees kept. With three
// 100,000-message trees kept (the budget's 32 MiB of stored rows are ~80 MB
// of heap), the second of back-to-back creates took 18-30 s and more (the
// bench's client gave up at 30 s once), and another tenant waited up to
// 1.2 s: the collector running again and again near its limit (issue 25).
// Then Go's heap grows in one step to hold that working set, where the call
// would have grown it 512 KB at a time within its slices (collector.Room).
func makeRoom(name string, body int64) {
	if body >= roomFrom {
		objects.MakeRoom(name, roomPerBodyByte*body)
		collector.Room(heapPerBodyByte * body)
	}
}

const (
	roomFrom        = 1 << 20
	roomPerBodyByte = 4
	// heapPerBodyByte: a 100,000-message create of 5.6 MB took Go's heap from
	// 21 to 90 MB in a fresh isolate (ten times its body left 13 MB to grow
	// within its slices); Room never goes past collector.Cap in all.
	heapPerBodyByte = 14
)

// sized notes what object name holds after a call, which may drop others.
// Its storage is measured once and then after each write (OnWrite), not on
// every read.
func sized(name string, e *objectEntry) {
	if e.stored < 0 {
		e.stored = e.store.bytes()
	}
	objects.Sized(name, e.stored+e.h.KeptBytes())
}

func objectFor(name string) *objectEntry {
	if e, ok := objects.Get(name); ok {
		return e
	}
	e := &objectEntry{store: &objectStore{}, stored: -1}
	e.h = edge.New(edge.Config{Store: e.store, Role: edge.RoleObject, CacheTrees: 1, Limits: limits(),
		OnWrite: func(w edge.Write, deleted bool) {
			m := w.Meta
			e.push = append(e.push, string(edge.Delta(w, deleted, edge.MaxDelta)))
			// A new or deleted tree is in the list before its answer goes out;
			// other writes update their row soon after (coalesced by the glue).
			e.indexNow = e.indexNow || deleted || m.Version == 1
			if deleted {
				e.pending = append(e.pending, []any{sqlIndexDel, m.ID, m.Tenant})
				e.stored = -1
				return
			}
			e.stored = e.store.bytes()
			e.pending = append(e.pending, []any{sqlIndexPut, m.ID, m.Tenant, m.Version, m.ETag, m.Root, m.Active, m.CreatedMs, m.UpdatedMs,
				m.Title, m.Nodes, m.Bytes})
		}})
	objects.Put(name, e)
	return e
}

// serveObject is globalThis.sessiontreeObject(name, sql, tx, method, url,
// headers ("name\nvalue\n…", jsread.Pack; or [[k, v]…]), body Uint8Array) → {status, headers, body, index, push},
// or a number n when the call paused (see slices.go): the glue then calls
// globalThis.sessiontreeResume(n) after letting other work run, until an answer.
func serveObject(_ safejs.Value, args []safejs.Value) any {
	if len(args) != 7 {
		return internalAnswer(errors.New("sessiontreeObject takes 7 arguments, got " + strconv.Itoa(len(args))))
	}
	name, err := args[0].String()
	if err != nil {
		return internalAnswer(err)
	}
	req, fill, err := requestLater(args[3], args[4], args[5], args[6])
	if err != nil {
		return internalAnswer(err)
	}
	e := objectFor(name)
	e.store.sql, e.store.tx = args[1], args[2]
	makeRoom(name, req.ContentLength)
	return runSliced(func() any {
		if fill != nil {
			if err := fill(); err != nil {
				return internalAnswer(err)
			}
		}
		res, err := objectCall(e, req)
		if err != nil {
			return internalAnswer(err)
		}
		sized(name, e)
		return res
	})
}

// serveObjectBatch is globalThis.sessiontreeObjectBatch(name, sql, tx,
// calls [[method, url, headers, body]…]) → {batch: [answer…]}: a group
// commit. The glue gathers the small writes of one object that arrived while
// its previous call ran, and they are applied here in one Go call and one
// storage transaction, in order, each with its own answer (its own ETag or
// error). Each write stays atomic: its own transaction is nested in the
// batch's (a savepoint), so a write that fails leaves nothing, and the others
// stand. Nothing yields inside a transaction, so a batch runs as one slice;
// the glue puts only small writes in one.
func serveObjectBatch(_ safejs.Value, args []safejs.Value) any {
	if len(args) != 4 {
		return internalAnswer(errors.New("sessiontreeObjectBatch takes 4 arguments, got " + strconv.Itoa(len(args))))
	}
	name, err := args[0].String()
	if err != nil {
		return internalAnswer(err)
	}
	calls, err := jsread.Elements(args[3])
	if err != nil {
		return internalAnswer(err)
	}
	reqs := make([]*edge.Request, len(calls))
	for i, c := range calls {
		parts, err := jsread.Elements(c)
		if err != nil || len(parts) != 4 {
			return internalAnswer(errors.New("a call of a batch is [method, url, headers, body]"))
		}
		if reqs[i], err = requestOf(parts[0], parts[1], parts[2], parts[3]); err != nil {
			return internalAnswer(err)
		}
	}
	e := objectFor(name)
	e.store.sql, e.store.tx = args[1], args[2]
	return runSliced(func() any {
		out := make([]any, len(reqs))
		err := e.store.inTx(func() error {
			for i, req := range reqs {
				res, err := objectCall(e, req)
				if err != nil {
					out[i] = internalAnswer(err)
				} else {
					out[i] = res
				}
			}
			return nil
		})
		if err != nil {
			// The group's transaction failed as a whole (its commit, not a
			// write: a write's own error rolls back only its savepoint), so
			// nothing of it is stored while the loaded tree holds its writes:
			// the object reads its tree again on its next call.
			objects.Delete(name)
			return internalAnswer(err)
		}
		sized(name, e)
		obj, err := safejs.ValueOf(map[string]any{})
		if err == nil {
			err = obj.Set("batch", out) // Set converts the safejs.Values inside
		}
		if err != nil {
			return internalAnswer(err)
		}
		return obj
	})
}

func internalAnswer(err error) any {
	res, _ := answer(500, edge.Header{"Content-Type": {"application/json; charset=utf-8"}},
		[]byte(`{"error":{"code":"internal","message":`+string(rawjson.AppendString(nil, "the tree's object: "+err.Error()))+"}}\n"), nil, nil)
	return res
}

// methodSocket is the method the glue gives a write message of a live
// socket (edge.ServeSocket): its url is the tree's, its body the message, its
// headers the socket's tenant and client (and HeaderHeld and HeaderTurn when asked again).
const methodSocket = "SOCKET"

func objectCall(e *objectEntry, req *edge.Request) (safejs.Value, error) {
	e.pending, e.push, e.indexNow = nil, nil, false
	w := edge.NewRecorder()
	var ack []byte
	if req.Method == methodSocket {
		msg, err := io.ReadAll(req.Body)
		if err != nil {
			return safejs.Value{}, err
		}
		held, _ := strconv.ParseInt(req.Header.Get(edge.HeaderHeld), 10, 64)
		var h edge.Header
		ack, h = e.h.ServeSocket(router, msg, req.URL.String(), req.Header.Get(edge.HeaderTenant),
			req.Header.Get(edge.ClientHeader), held, req.Header.Get(edge.HeaderTurn), req.Header.Get(edge.HeaderGrant))
		for _, k := range []string{edge.HeaderHold, edge.HeaderNext, edge.HeaderTurn, edge.HeaderRows, edge.HeaderNeed} {
			if v := h.Get(k); v != "" {
				w.Header().Set(k, v)
			}
		}
	} else {
		e.h.Serve(w, req)
	}
	index, msgs, now := e.pending, e.push, e.indexNow
	e.pending, e.push, e.indexNow = nil, nil, false
	res, err := answer(w.Status(), w.Header(), w.Bytes(), index, msgs)
	if err == nil {
		err = res.Set("indexNow", now)
	}
	if err == nil {
		err = res.Set("pushExcept", edge.WriterClient(req))
	}
	if err == nil && ack != nil {
		err = res.Set("ack", string(ack))
	}
	return res, err
}

// requestOf makes the request of method, url, headers ("name\nvalue\n…", jsread.Pack; or [[k, v]…]) and body
// (a Uint8Array, {chunks: [Uint8Array…], length}, or null).
func requestOf(jsMethod, jsURL, jsHeaders, jsBody safejs.Value) (*edge.Request, error) {
	req, fill, err := requestLater(jsMethod, jsURL, jsHeaders, jsBody)
	if err == nil && fill != nil {
		err = fill()
	}
	return req, err
}

// copyPiece is how much of a body is copied into Go between two yields.
const copyPiece = 256 << 10

// requestLater is requestOf whose body, if over copyPiece, is copied by
// fill, in pieces with a yield after each (so inside runSliced): a body of
// megabytes copied in one piece held the thread for 30 ms under load.
//
// A large body read from a stream comes as its chunks ({chunks, length}:
// the glue's chunked) and is copied from them: joined into one array in
// JavaScript first, its 7 MB of new memory took 20 ms in one piece (the
// first touch of each page; 2.8 ms a MB on this project's machine).
func requestLater(jsMethod, jsURL, jsHeaders, jsBody safejs.Value) (*edge.Request, func() error, error) {
	var fill func() error
	req, err := requestWith(jsMethod, jsURL, jsHeaders, jsBody, func(body []byte) error {
		chunks, err := jsBody.Get("chunks")
		if err != nil {
			return err
		}
		if chunks.Type() != safejs.TypeObject {
			chunks = safejs.Null()
		}
		if chunks.IsNull() && len(body) <= copyPiece {
			_, err := safejs.CopyBytesToGo(body, jsBody)
			return err
		}
		fill = func() error {
			if chunks.IsNull() {
				return copyPieces(body, jsBody, new(int))
			}
			n, err := chunks.Length()
			at, since := 0, 0
			for i := 0; err == nil && i < n && at < len(body); i++ {
				var c safejs.Value
				var size int
				if c, err = chunks.Index(i); err == nil {
					size, err = c.Length()
				}
				if err == nil {
					size = min(size, len(body)-at)
					err = copyPieces(body[at:at+size], c, &since)
					at += size
				}
			}
			if err == nil && at < len(body) {
				err = errors.New("the body's chunks hold fewer bytes than its length")
			}
			return err
		}
		return nil
	})
	return req, fill, err
}

// copyPieces copies the first len(body) bytes of js (a Uint8Array) into
// body, at most copyPiece bytes at a time, and yields whenever *since (the
// bytes copied since the last yield, counted across calls: a stream's
// chunks may be a few KB each) reaches copyPiece.
func copyPieces(body []byte, js safejs.Value, since *int) error {
	for at := 0; at < len(body); {
		end := min(len(body), at+copyPiece-*since)
		piece := js
		if at > 0 || end < len(body) {
			var err error
			if piece, err = js.Call("subarray", at, end); err != nil {
				return err
			}
		}
		if _, err := safejs.CopyBytesToGo(body[at:end], piece); err != nil {
			return err
		}
		*since += end - at
		at = end
		if *since >= copyPiece {
			*since = 0
			yieldSlice()
		}
	}
	return nil
}

// requestWith makes the request with a body of jsBody's length, which
// fillBody fills (at once or later).
func requestWith(jsMethod, jsURL, jsHeaders, jsBody safejs.Value, fillBody func([]byte) error) (*edge.Request, error) {
	method, err := jsMethod.String()
	if err != nil {
		return nil, err
	}
	url, err := jsURL.String()
	if err != nil {
		return nil, err
	}
	var body []byte
	if jsBody.Type() == safejs.TypeObject {
		n, err := jsBody.Length()
		if err != nil {
			return nil, err
		}
		body = make([]byte, n)
		if err := fillBody(body); err != nil {
			return nil, err
		}
	}
	req, err := edge.NewRequest(method, url, body)
	if err != nil {
		return nil, err
	}
	if jsHeaders.Type() == safejs.TypeString {
		// Packed into one string by the glue (jsread.Unpack): one value to
		// fetch, not three a header.
		packed, err := jsHeaders.String()
		if err != nil {
			return nil, err
		}
		if err := jsread.Unpack(packed, req.Header.Add); err != nil {
			return nil, err
		}
		return req, nil
	}
	pairs, err := jsread.Elements(jsHeaders)
	if err != nil {
		return nil, err
	}
	for _, p := range pairs {
		kv, err := jsread.Elements(p)
		if err != nil || len(kv) != 2 {
			return nil, errors.New("a header is not a [name, value] pair")
		}
		k, err1 := kv[0].String()
		v, err2 := kv[1].String()
		if err1 != nil || err2 != nil {
			return nil, errors.New("a header is not a pair of strings")
		}
		req.Header.Add(k, v)
	}
	return req, nil
}

// router is the Handler that routes synchronously, for the settings it was made with.
var (
	router     *edge.Handler
	routerConf string
)

// serveRoute is globalThis.sessiontreeRoute(signingKey, corsOrigins,
// rateLimit, method, url, headers ("name\nvalue\n…", jsread.Pack; or [[k, v]…])) → {status, headers, body, index,
// push}, or null: the
// router's decision for a request, made synchronously in this instance (no
// I/O, no wait for the router's instance), which names the tree's object for
// every request of one tree and answers auth and route errors itself. null
// means the request needs D1 (the tree list): the glue hands it to the
// router's instance.
func serveRoute(_ safejs.Value, args []safejs.Value) any {
	res, err := routeCall(args)
	if err != nil {
		res, _ = answer(500, edge.Header{"Content-Type": {"application/json; charset=utf-8"}},
			[]byte(`{"error":{"code":"internal","message":`+string(rawjson.AppendString(nil, "routing: "+err.Error()))+"}}\n"), nil, nil)
	}
	return res
}

func routeCall(args []safejs.Value) (any, error) {
	if len(args) != 6 {
		return nil, errors.New("sessiontreeRoute takes 6 arguments, got " + strconv.Itoa(len(args)))
	}
	var conf [3]string // signing key, CORS origins, rate limit: "" when not set
	for i := range conf {
		conf[i], _ = args[i].String()
	}
	req, err := requestOf(args[3], args[4], args[5], safejs.Null())
	if err != nil {
		return nil, err
	}
	if p := strings.TrimSuffix(req.URL.Path, "/"); p == "/v1/trees" && req.Method == "GET" {
		return nil, nil // the list: D1
	}
	if c := strings.Join(conf[:], "\x00"); router == nil || routerConf != c {
		router = edge.New(routerConfig(noStore{}, edge.RoleRouter, conf[0], conf[1], conf[2]))
		routerConf = c
	}
	w := edge.NewRecorder()
	router.Serve(w, req)
	return answer(w.Status(), w.Header(), w.Bytes(), nil, nil)
}

// noStore is the synchronous router's Store: it never lists (the glue sends
// the list to the router's instance) and holds no tree.
type noStore struct{}

var errNoStorage = errors.New("the synchronous router has no storage")

func (noStore) Meta(context.Context, string, string) (edge.Meta, error) {
	return edge.Meta{}, errNoStorage
}
func (noStore) Load(context.Context, string, string) (edge.Meta, []core.Fragment, []core.Fragment, error) {
	return edge.Meta{}, nil, nil, errNoStorage
}
func (noStore) Create(context.Context, edge.Write) error        { return errNoStorage }
func (noStore) Commit(context.Context, int64, edge.Write) error { return errNoStorage }
func (noStore) List(context.Context, string, edge.Cursor, int) ([]edge.Meta, error) {
	return nil, errNoStorage
}
func (noStore) Delete(context.Context, string, string, int64, *edge.Idem) error { return errNoStorage }
func (noStore) Replay(context.Context, string, string) (edge.Idem, bool, error) {
	return edge.Idem{}, false, errNoStorage
}

// bigBody is the last large body handed to JavaScript, and its Uint8Array:
// the same export downloaded again is not copied again.
var bigBody struct {
	ptr *byte
	n   int
	js  safejs.Value
}

// jsBytes is body as a Uint8Array.
func jsBytes(body []byte) (safejs.Value, error) {
	if len(body) >= 1<<20 && bigBody.n == len(body) && bigBody.ptr == &body[0] {
		return bigBody.js, nil
	}
	u8, err := safejs.Global().Get("Uint8Array")
	if err != nil {
		return safejs.Value{}, err
	}
	arr, err := u8.New(len(body))
	if err != nil {
		return safejs.Value{}, err
	}
	if _, err := safejs.CopyBytesToJS(arr, body); err != nil {
		return safejs.Value{}, err
	}
	if len(body) >= 1<<20 {
		bigBody.ptr, bigBody.n, bigBody.js = &body[0], len(body), arr
	}
	return arr, nil
}

// answer is the JS object {status, headers (packed), body, index, push} of an object's
// call: push holds the messages for the object's live WebSockets.
func answer(status int, h edge.Header, body []byte, index, push []any) (safejs.Value, error) {
	// The headers go packed into one string (jsread.Pack), which the glue
	// unpacks (unpacked): an array of pairs cost a call into JavaScript and a
	// value of its own for each pair and each string in it.
	var hs []byte
	for k, vs := range h {
		for _, v := range vs {
			hs = jsread.Pack(hs, k, v)
		}
	}
	arr, err := jsBytes(body)
	if err != nil {
		return safejs.Value{}, err
	}
	obj, err := safejs.ValueOf(map[string]any{"status": status, "headers": string(hs), "index": index, "push": push})
	if err != nil {
		return safejs.Value{}, err
	}
	if err := obj.Set("body", arr); err != nil {
		return safejs.Value{}, err
	}
	return obj, nil
}

// routerConfig is the configuration of a router from the worker's variables:
// SESSIONTREE_SIGNING_KEY, SESSIONTREE_CORS_ORIGINS (comma-separated origins,
// or *) and SESSIONTREE_RATE_LIMIT (requests per second per tenant).
func routerConfig(store edge.Store, role edge.Role, key, cors, rate string) edge.Config {
	cfg := edge.Config{Store: store, SigningKey: []byte(key), Role: role}
	for _, o := range strings.Split(cors, ",") {
		if o = strings.TrimSpace(o); o != "" {
			cfg.CORSOrigins = append(cfg.CORSOrigins, o)
		}
	}
	if r, err := strconv.ParseFloat(strings.TrimSpace(rate), 64); err == nil && r > 0 {
		cfg.RateLimit = r
	}
	return cfg
}

// serveMigrate is globalThis.sessiontreeMigrate(name, sql, tx, meta, nodes,
// branches) → "" or an error's text: it stores a tree kept by the older
// version of the worker (every tree in D1 rows: the trees, nodes and
// branches tables) in its object, as that object's first write. meta is the
// tree's D1 row, nodes and branches D1 results of {k, json} rows. The rows must load
// as a sound tree; an object that holds a tree already is left as it is.
func serveMigrate(_ safejs.Value, args []safejs.Value) any {
	if err := migrate(args); err != nil {
		return "migrating the tree from D1: " + err.Error()
	}
	return ""
}

func migrate(args []safejs.Value) error {
	if len(args) != 6 {
		return errors.New("sessiontreeMigrate takes 6 arguments, got " + strconv.Itoa(len(args)))
	}
	name, err := args[0].String()
	if err != nil {
		return err
	}
	m, err := metaOf(args[3])
	if err != nil {
		return err
	}
	nodes, err := fragmentsOf(args[4])
	if err != nil {
		return err
	}
	branches, err := fragmentsOf(args[5])
	if err != nil {
		return err
	}
	t, err := core.Unmarshal(core.JoinRows(m.Root, m.Active, branches, nodes))
	if err != nil {
		return errors.New("the stored tree cannot be read: " + err.Error())
	}
	if probs := t.Validate(); len(probs) > 0 {
		return errors.New("the stored tree has problems: " + probs[0].Message)
	}
	e := objectFor(name)
	e.store.sql, e.store.tx = args[1], args[2]
	if _, err := e.store.Meta(context.Background(), m.Tenant, m.ID); err == nil {
		return nil // migrated already
	}
	return e.store.Create(context.Background(), edge.Write{Meta: m, PutNodes: nodes, PutBranches: branches})
}
