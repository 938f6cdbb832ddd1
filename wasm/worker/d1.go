//go:build js && wasm

package main

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/hack-pad/safejs"
	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/rawjson"
	"github.com/sessiontree/sessiontree/wasm/edge"
	"github.com/sessiontree/sessiontree/wasm/worker/internal/jsread"
)

// d1Store is edge.Store over a D1 database (schema: migrations/). Every write is
// one D1 batch, which D1 runs as one transaction: all of it or none of it.
// Rows travel in chunks of a JSON object {key: fragment} expanded by
// json_each, so a write is a handful of statements however many rows it has.
// Each fragment is embedded as the JSON it is (json_each's value of an object
// is its JSON text), not escaped a second time as a string: a 1 MiB message
// of quotes stays about 1 MiB, under D1's 2,000,000-byte limit on a value.
//
// The binding is looked up on every call: the runtime hands each request its
// own env, and an object of one request may not be used by another.
type d1Store struct {
	binding func(name string) safejs.Value // a binding of the current request's env
}

func (s *d1Store) db() safejs.Value { return s.binding("DB") }

type stmt struct {
	sql  string
	args []any
}

// chunkBytes bounds one JSON parameter (D1 caps a value at 2 MB).
const chunkBytes = 900 << 10

const (
	sqlMeta = `SELECT id, tenant, version, etag, root, active, created_ms, updated_ms FROM trees WHERE id = ?1 AND tenant = ?2`
	// A page of the list, at most ?2 trees read along the index
	// trees_by_tenant from where the page starts: the first tree
	// (sqlListFirst), the place (created_ms ?3, id ?4) of a cursor, whether
	// or not its tree lives (sqlListAt), or the place of tree ?3
	// (sqlListAfterTree; sqlListed says whether ?3 is one). Each is a range
	// of the index: an OR of the three would read every row of the tenant
	// before the page (EXPLAIN QUERY PLAN: SEARCH … (tenant=?) only).
	sqlListColumns   = `SELECT id, tenant, version, etag, root, active, created_ms, updated_ms, title, nodes, bytes FROM trees WHERE tenant = ?1 AND version > 0`
	sqlListFirst     = sqlListColumns + ` ORDER BY created_ms, id LIMIT ?2`
	sqlListAt        = sqlListColumns + ` AND (created_ms, id) > (?3, ?4) ORDER BY created_ms, id LIMIT ?2`
	sqlListAfterTree = sqlListColumns + ` AND (created_ms, id) > (SELECT created_ms, id FROM trees WHERE id = ?3 AND tenant = ?1 AND version > 0) ORDER BY created_ms, id LIMIT ?2`
	sqlListed        = `SELECT 1 AS x FROM trees WHERE id = ?1 AND tenant = ?2 AND version > 0`

	sqlLoadNodes    = `SELECT id AS k, json FROM nodes WHERE tree = ?1 AND EXISTS (SELECT 1 FROM trees WHERE id = ?1 AND tenant = ?2) ORDER BY id`
	sqlLoadBranches = `SELECT name AS k, json FROM branches WHERE tree = ?1 AND EXISTS (SELECT 1 FROM trees WHERE id = ?1 AND tenant = ?2) ORDER BY name`

	sqlInsertTree = `INSERT INTO trees (id, tenant, version, etag, root, active, created_ms, updated_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)`
	// sqlBump is the version guard: it changes one row only if nobody wrote since.
	sqlBump = `UPDATE trees SET version = ?3, etag = ?4, root = ?5, active = ?6, updated_ms = ?7 WHERE id = ?1 AND tenant = ?2 AND version = ?8`

	// The row statements run only if the guard above took effect (the etag is new).
	guard          = ` EXISTS (SELECT 1 FROM trees WHERE id = ?1 AND etag = ?3)`
	sqlPutNodes    = `INSERT INTO nodes (tree, id, json) SELECT ?1, j.key, j.value FROM json_each(?2) AS j WHERE` + guard + ` ON CONFLICT (tree, id) DO UPDATE SET json = excluded.json`
	sqlPutBranches = `INSERT INTO branches (tree, name, json) SELECT ?1, j.key, j.value FROM json_each(?2) AS j WHERE` + guard + ` ON CONFLICT (tree, name) DO UPDATE SET json = excluded.json`
	sqlDelNodes    = `DELETE FROM nodes WHERE tree = ?1 AND id IN (SELECT value FROM json_each(?2)) AND` + guard
	sqlDelBranches = `DELETE FROM branches WHERE tree = ?1 AND name IN (SELECT value FROM json_each(?2)) AND` + guard

	// The tree row goes first, if its version is still ?3 (any if 0); its
	// rows follow only once it is gone.
	sqlDeleteTree     = `DELETE FROM trees WHERE id = ?1 AND tenant = ?2 AND (?3 = 0 OR version = ?3)`
	sqlDeleteNodes    = `DELETE FROM nodes WHERE tree = ?1 AND NOT EXISTS (SELECT 1 FROM trees WHERE id = ?1)`
	sqlDeleteBranches = `DELETE FROM branches WHERE tree = ?1 AND NOT EXISTS (SELECT 1 FROM trees WHERE id = ?1)`

	sqlReplay = `SELECT fingerprint, status, etag, location, body, created_ms FROM idempotency WHERE tenant = ?1 AND key = ?2`
	// An answer is kept only if its write took effect: ?9 is the tree, ?10 its
	// new etag (the guard above), or '' for a delete (the tree is gone). A key
	// stored meanwhile fails the whole batch on the primary key.
	sqlKeepIdem  = `INSERT INTO idempotency (tenant, key, fingerprint, status, etag, location, body, created_ms) SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8 WHERE CASE WHEN ?10 = '' THEN NOT EXISTS (SELECT 1 FROM trees WHERE id = ?9) ELSE EXISTS (SELECT 1 FROM trees WHERE id = ?9 AND etag = ?10) END`
	sqlPurgeIdem = `DELETE FROM idempotency WHERE tenant = ?1 AND created_ms < ?2`
)

// awaitLimit bounds a wait for D1: a request canceled meanwhile (its client
// went away) never settles its promises, and the goroutine must not hold a
// tree's lock for ever.
const awaitLimit = 20 * time.Second

// batch runs stmts as one D1 batch and returns its results.
func (s *d1Store) batch(stmts []stmt) ([]safejs.Value, error) {
	db := s.db()
	if db.Type() != safejs.TypeObject {
		return nil, errors.New("no D1 database bound as DB (see wrangler.toml)")
	}
	list := make([]any, len(stmts))
	for i, st := range stmts {
		prepared, err := db.Call("prepare", st.sql)
		if err != nil {
			return nil, errors.New("D1 prepare: " + err.Error())
		}
		bound, err := prepared.Call("bind", st.args...)
		if err != nil {
			return nil, errors.New("D1 bind: " + err.Error())
		}
		list[i] = bound
	}
	p, err := db.Call("batch", list)
	if err != nil {
		return nil, errors.New("D1: " + err.Error())
	}
	res, err := jsread.Await(p, awaitLimit)
	if err != nil {
		return nil, errors.New("D1: " + err.Error())
	}
	out, err := jsread.Elements(res)
	if err != nil {
		return nil, errors.New("D1 batch result: " + err.Error())
	}
	if len(out) != len(stmts) {
		return nil, errors.New("D1 answered " + strconv.Itoa(len(out)) + " results to a batch of " + strconv.Itoa(len(stmts)))
	}
	return out, nil
}

// rows returns the rows of one statement's result.
func rows(res safejs.Value) ([]safejs.Value, error) {
	r, err := jsread.Field(res, "results")
	if err != nil {
		return nil, errors.New("D1 result: " + err.Error())
	}
	out, err := jsread.Elements(r)
	if err != nil {
		return nil, errors.New("D1 results: " + err.Error())
	}
	return out, nil
}

// changes returns how many rows one statement's result changed.
func changes(res safejs.Value) (int, error) {
	meta, err := jsread.Field(res, "meta")
	if err == nil {
		var n float64
		if n, err = jsread.Number(meta, "changes"); err == nil {
			return int(n), nil
		}
	}
	return 0, errors.New("D1 result: " + err.Error())
}

// text returns the text column k of row ("" for NULL).
func text(row safejs.Value, k string) (string, error) {
	s, err := jsread.Text(row, k)
	if err != nil {
		return "", errors.New("D1 row: " + err.Error())
	}
	return s, nil
}

// number returns the numeric column k of row.
func number(row safejs.Value, k string) (float64, error) {
	f, err := jsread.Number(row, k)
	if err != nil {
		return 0, errors.New("D1 row: " + err.Error())
	}
	return f, nil
}

func metaOf(row safejs.Value) (edge.Meta, error) {
	var m edge.Meta
	var err error
	str := func(k string, dst *string) {
		if err == nil {
			*dst, err = text(row, k)
		}
	}
	num := func(k string, dst *int64) {
		if err == nil {
			var f float64
			f, err = number(row, k)
			*dst = int64(f)
		}
	}
	str("id", &m.ID)
	str("tenant", &m.Tenant)
	num("version", &m.Version)
	str("etag", &m.ETag)
	str("root", &m.Root)
	str("active", &m.Active)
	num("created_ms", &m.CreatedMs)
	num("updated_ms", &m.UpdatedMs)
	return m, err
}

// metasOf reads the rows of res as metas, each also through more (the
// columns a query selects besides metaOf's) when it is not nil.
func metasOf(res safejs.Value, more func(safejs.Value, *edge.Meta) error) ([]edge.Meta, error) {
	rs, err := rows(res)
	if err != nil {
		return nil, err
	}
	var out []edge.Meta
	for _, r := range rs {
		m, err := metaOf(r)
		if err == nil && more != nil {
			err = more(r, &m)
		}
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

func fragmentsOf(res safejs.Value) ([]core.Fragment, error) {
	rs, err := rows(res)
	if err != nil {
		return nil, err
	}
	out := make([]core.Fragment, len(rs))
	for i, r := range rs {
		k, err := text(r, "k")
		if err != nil {
			return nil, err
		}
		j, err := text(r, "json")
		if err != nil {
			return nil, err
		}
		out[i] = core.Fragment{Key: k, JSON: []byte(j)}
	}
	return out, nil
}

func (s *d1Store) Meta(_ context.Context, tenant, id string) (edge.Meta, error) {
	res, err := s.batch([]stmt{{sqlMeta, []any{id, tenant}}})
	if err != nil {
		return edge.Meta{}, err
	}
	ms, err := metasOf(res[0], nil)
	if err != nil {
		return edge.Meta{}, err
	}
	if len(ms) == 0 {
		return edge.Meta{}, edge.ErrNoTree
	}
	return ms[0], nil
}

func (s *d1Store) Load(_ context.Context, tenant, id string) (edge.Meta, []core.Fragment, []core.Fragment, error) {
	args := []any{id, tenant}
	res, err := s.batch([]stmt{{sqlMeta, args}, {sqlLoadNodes, args}, {sqlLoadBranches, args}})
	if err != nil {
		return edge.Meta{}, nil, nil, err
	}
	ms, err := metasOf(res[0], nil)
	if err != nil {
		return edge.Meta{}, nil, nil, err
	}
	if len(ms) == 0 {
		return edge.Meta{}, nil, nil, edge.ErrNoTree
	}
	nodes, err := fragmentsOf(res[1])
	if err != nil {
		return edge.Meta{}, nil, nil, err
	}
	branches, err := fragmentsOf(res[2])
	if err != nil {
		return edge.Meta{}, nil, nil, err
	}
	return ms[0], nodes, branches, nil
}

func (s *d1Store) List(_ context.Context, tenant string, after edge.Cursor, limit int) ([]edge.Meta, error) {
	var stmts []stmt
	switch {
	case after.ByID:
		stmts = []stmt{{sqlListAfterTree, []any{tenant, limit, after.ID}}, {sqlListed, []any{after.ID, tenant}}}
	case after.ID != "":
		stmts = []stmt{{sqlListAt, []any{tenant, limit, after.CreatedMs, after.ID}}}
	default:
		stmts = []stmt{{sqlListFirst, []any{tenant, limit}}}
	}
	res, err := s.batch(stmts)
	if err != nil {
		return nil, err
	}
	if after.ByID {
		listed, err := rows(res[1])
		if err != nil {
			return nil, err
		}
		if len(listed) == 0 {
			return nil, edge.ErrNoTree
		}
	}
	return metasOf(res[0], listColumns)
}

// listColumns reads what only the list selects of a row of the index: the
// tree's title, nodes and bytes.
func listColumns(row safejs.Value, m *edge.Meta) (err error) {
	var nodes, bytes float64
	if m.Title, err = text(row, "title"); err != nil {
		return err
	}
	if nodes, err = number(row, "nodes"); err != nil {
		return err
	}
	if bytes, err = number(row, "bytes"); err != nil {
		return err
	}
	m.Nodes, m.Bytes = int64(nodes), int64(bytes)
	return nil
}

func (s *d1Store) Create(_ context.Context, w edge.Write) error {
	m := w.Meta
	stmts := []stmt{{sqlInsertTree, []any{m.ID, m.Tenant, m.Version, m.ETag, m.Root, m.Active, m.CreatedMs, m.UpdatedMs}}}
	stmts = appendRows(stmts, sqlPutNodes, m, w.PutNodes)
	stmts = appendRows(stmts, sqlPutBranches, m, w.PutBranches)
	stmts = appendIdem(stmts, m.Tenant, m.ID, m.ETag, w.Idem)
	_, err := s.batch(stmts)
	return err
}

// appendIdem adds the statements that keep idem (if any) with a write of
// tree id that leaves it at etag (” for a delete), and purge old keys.
func appendIdem(stmts []stmt, tenant, id, etag string, idem *edge.Idem) []stmt {
	if idem == nil {
		return stmts
	}
	return append(stmts,
		stmt{sqlPurgeIdem, []any{tenant, idem.CreatedMs - edge.IdemKeepMs}},
		stmt{sqlKeepIdem, []any{tenant, idem.Key, idem.Fingerprint, idem.Status, idem.ETag,
			idem.Location, string(idem.Body), idem.CreatedMs, id, etag}})
}

func (s *d1Store) Replay(_ context.Context, tenant, key string) (edge.Idem, bool, error) {
	res, err := s.batch([]stmt{{sqlReplay, []any{tenant, key}}})
	if err != nil {
		return edge.Idem{}, false, err
	}
	rs, err := rows(res[0])
	if err != nil || len(rs) == 0 {
		return edge.Idem{}, false, err
	}
	return idemOf(rs[0], key)
}

// idemOf reads a kept answer (fingerprint, status, etag, location, body, created_ms).
func idemOf(r safejs.Value, key string) (edge.Idem, bool, error) {
	k := edge.Idem{Key: key}
	var body string
	var status, created float64
	for _, f := range []func() error{
		func() (err error) { k.Fingerprint, err = text(r, "fingerprint"); return },
		func() (err error) { status, err = number(r, "status"); return },
		func() (err error) { k.ETag, err = text(r, "etag"); return },
		func() (err error) { k.Location, err = text(r, "location"); return },
		func() (err error) { body, err = text(r, "body"); return },
		func() (err error) { created, err = number(r, "created_ms"); return },
	} {
		if err := f(); err != nil {
			return edge.Idem{}, false, err
		}
	}
	k.Status, k.Body, k.CreatedMs = int(status), []byte(body), int64(created)
	return k, true, nil
}

func (s *d1Store) Commit(_ context.Context, prev int64, w edge.Write) error {
	m := w.Meta
	stmts := []stmt{{sqlBump, []any{m.ID, m.Tenant, m.Version, m.ETag, m.Root, m.Active, m.UpdatedMs, prev}}}
	stmts = appendRows(stmts, sqlPutNodes, m, w.PutNodes)
	stmts = appendRows(stmts, sqlPutBranches, m, w.PutBranches)
	stmts = appendKeys(stmts, sqlDelNodes, m, w.DelNodes)
	stmts = appendKeys(stmts, sqlDelBranches, m, w.DelBranches)
	stmts = appendIdem(stmts, m.Tenant, m.ID, m.ETag, w.Idem)
	res, err := s.batch(stmts)
	if err != nil {
		return err
	}
	n, err := changes(res[0])
	if err != nil {
		return err
	}
	if n != 1 {
		return edge.ErrStale
	}
	return nil
}

func (s *d1Store) Delete(_ context.Context, tenant, id string, ifVersion int64, idem *edge.Idem) error {
	stmts := []stmt{{sqlDeleteTree, []any{id, tenant, ifVersion}}, {sqlDeleteNodes, []any{id}}, {sqlDeleteBranches, []any{id}}}
	stmts = appendIdem(stmts, tenant, id, "", idem)
	res, err := s.batch(stmts)
	if err != nil {
		return err
	}
	n, err := changes(res[0])
	if err != nil {
		return err
	}
	if n != 1 {
		if ifVersion != 0 {
			if _, err := s.Meta(context.Background(), tenant, id); err == nil {
				return edge.ErrStale
			}
		}
		return edge.ErrNoTree
	}
	return nil
}

// appendRows adds statements that put frags, each with a JSON object
// {key: "fragment"} of at most about chunkBytes.
func appendRows(stmts []stmt, sql string, m edge.Meta, frags []core.Fragment) []stmt {
	var buf []byte
	flush := func() {
		if len(buf) > 0 {
			stmts = append(stmts, stmt{sql, []any{m.ID, string(append(buf, '}')), m.ETag}})
			buf = nil
		}
	}
	for _, f := range frags {
		if len(buf) > chunkBytes {
			flush()
		}
		if buf == nil {
			buf = append(buf, '{')
		} else {
			buf = append(buf, ',')
		}
		buf = rawjson.AppendString(buf, f.Key)
		buf = append(buf, ':')
		buf = append(buf, f.JSON...)
	}
	flush()
	return stmts
}

// appendKeys adds statements that delete keys, given as a JSON array.
func appendKeys(stmts []stmt, sql string, m edge.Meta, keys []string) []stmt {
	for len(keys) > 0 {
		n := min(len(keys), 2000)
		stmts = append(stmts, stmt{sql, []any{m.ID, string(rawjson.AppendStrings(nil, keys[:n])), m.ETag}})
		keys = keys[n:]
	}
	return stmts
}
