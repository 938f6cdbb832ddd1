//go:build js && wasm

package main

import (
	"context"
	"errors"
	"syscall/js"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/rawjson"
	"github.com/sessiontree/sessiontree/wasm/edge"
	"github.com/syumai/workers/cloudflare"
)

// d1Store is edge.Store over a D1 database (schema: migrations/). Every write is
// one D1 batch, which D1 runs as one transaction: all of it or none of it.
// Rows travel in chunks of a JSON object {key: "fragment"} expanded by
// json_each, so a write is a handful of statements however many rows it has.
//
// The binding is looked up on every call: the runtime hands each request its
// own env, and an object of one request may not be used by another.
type d1Store struct{}

func (s *d1Store) db() js.Value { return cloudflare.GetBinding("DB") }

type stmt struct {
	sql  string
	args []any
}

// chunkBytes bounds one JSON parameter (D1 caps a value at 2 MB).
const chunkBytes = 900 << 10

const (
	sqlMeta = `SELECT id, tenant, version, etag, root, active, created_ms, updated_ms FROM trees WHERE id = ?1 AND tenant = ?2`
	sqlList = `SELECT id, tenant, version, etag, root, active, created_ms, updated_ms FROM trees WHERE tenant = ?1 ORDER BY created_ms, id`

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

	sqlDeleteNodes    = `DELETE FROM nodes WHERE tree = ?1 AND EXISTS (SELECT 1 FROM trees WHERE id = ?1 AND tenant = ?2)`
	sqlDeleteBranches = `DELETE FROM branches WHERE tree = ?1 AND EXISTS (SELECT 1 FROM trees WHERE id = ?1 AND tenant = ?2)`
	sqlDeleteTree     = `DELETE FROM trees WHERE id = ?1 AND tenant = ?2`
)

// batch runs stmts as one D1 batch and returns its results.
func (s *d1Store) batch(stmts []stmt) ([]js.Value, error) {
	p, err := jsCall(func() js.Value {
		db := s.db()
		list := js.Global().Get("Array").New()
		for _, st := range stmts {
			list.Call("push", db.Call("prepare", st.sql).Call("bind", st.args...))
		}
		return db.Call("batch", list)
	})
	if err != nil {
		return nil, err
	}
	res, err := await(p)
	if err != nil {
		return nil, errors.New("D1: " + err.Error())
	}
	out := make([]js.Value, res.Length())
	for i := range out {
		out[i] = res.Index(i)
	}
	return out, nil
}

func rows(res js.Value) []js.Value {
	r := res.Get("results")
	out := make([]js.Value, r.Length())
	for i := range out {
		out[i] = r.Index(i)
	}
	return out
}

func changes(res js.Value) int { return res.Get("meta").Get("changes").Int() }

func metaOf(row js.Value) edge.Meta {
	str := func(k string) string {
		v := row.Get(k)
		if v.Type() != js.TypeString {
			return ""
		}
		return v.String()
	}
	num := func(k string) int64 { return int64(row.Get(k).Float()) }
	return edge.Meta{ID: str("id"), Tenant: str("tenant"), Version: num("version"), ETag: str("etag"),
		Root: str("root"), Active: str("active"), CreatedMs: num("created_ms"), UpdatedMs: num("updated_ms")}
}

func fragmentsOf(res js.Value) []core.Fragment {
	rs := rows(res)
	out := make([]core.Fragment, len(rs))
	for i, r := range rs {
		out[i] = core.Fragment{Key: r.Get("k").String(), JSON: []byte(r.Get("json").String())}
	}
	return out
}

func (s *d1Store) Meta(_ context.Context, tenant, id string) (edge.Meta, error) {
	res, err := s.batch([]stmt{{sqlMeta, []any{id, tenant}}})
	if err != nil {
		return edge.Meta{}, err
	}
	rs := rows(res[0])
	if len(rs) == 0 {
		return edge.Meta{}, edge.ErrNoTree
	}
	return metaOf(rs[0]), nil
}

func (s *d1Store) Load(_ context.Context, tenant, id string) (edge.Meta, []core.Fragment, []core.Fragment, error) {
	args := []any{id, tenant}
	res, err := s.batch([]stmt{{sqlMeta, args}, {sqlLoadNodes, args}, {sqlLoadBranches, args}})
	if err != nil {
		return edge.Meta{}, nil, nil, err
	}
	rs := rows(res[0])
	if len(rs) == 0 {
		return edge.Meta{}, nil, nil, edge.ErrNoTree
	}
	return metaOf(rs[0]), fragmentsOf(res[1]), fragmentsOf(res[2]), nil
}

func (s *d1Store) List(_ context.Context, tenant string) ([]edge.Meta, error) {
	res, err := s.batch([]stmt{{sqlList, []any{tenant}}})
	if err != nil {
		return nil, err
	}
	var out []edge.Meta
	for _, r := range rows(res[0]) {
		out = append(out, metaOf(r))
	}
	return out, nil
}

func (s *d1Store) Create(_ context.Context, w edge.Write) error {
	m := w.Meta
	stmts := []stmt{{sqlInsertTree, []any{m.ID, m.Tenant, m.Version, m.ETag, m.Root, m.Active, m.CreatedMs, m.UpdatedMs}}}
	stmts = appendRows(stmts, sqlPutNodes, m, w.PutNodes)
	stmts = appendRows(stmts, sqlPutBranches, m, w.PutBranches)
	_, err := s.batch(stmts)
	return err
}

func (s *d1Store) Commit(_ context.Context, prev int64, w edge.Write) error {
	m := w.Meta
	stmts := []stmt{{sqlBump, []any{m.ID, m.Tenant, m.Version, m.ETag, m.Root, m.Active, m.UpdatedMs, prev}}}
	stmts = appendRows(stmts, sqlPutNodes, m, w.PutNodes)
	stmts = appendRows(stmts, sqlPutBranches, m, w.PutBranches)
	stmts = appendKeys(stmts, sqlDelNodes, m, w.DelNodes)
	stmts = appendKeys(stmts, sqlDelBranches, m, w.DelBranches)
	res, err := s.batch(stmts)
	if err != nil {
		return err
	}
	if changes(res[0]) != 1 {
		return edge.ErrStale
	}
	return nil
}

func (s *d1Store) Delete(_ context.Context, tenant, id string) error {
	args := []any{id, tenant}
	res, err := s.batch([]stmt{{sqlDeleteNodes, args}, {sqlDeleteBranches, args}, {sqlDeleteTree, args}})
	if err != nil {
		return err
	}
	if changes(res[2]) != 1 {
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
		buf = rawjson.AppendString(buf, string(f.JSON))
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
