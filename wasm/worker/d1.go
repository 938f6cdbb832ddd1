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
	"github.com/sessiontree/sessiontree/wasm/worker/internal/workersjs"
)

// d1Store is edge.Store over a D1 database (schema: migrations/). Every write is
// one D1 batch, which D1 runs as one transaction: all of it or none of it.
// Rows travel in chunks of a JSON object {key: "fragment"} expanded by
// json_each, so a write is a handful of statements however many rows it has.
//
// The binding is looked up on every call: the runtime hands each request its
// own env, and an object of one request may not be used by another.
type d1Store struct{}

func (s *d1Store) db() safejs.Value { return workersjs.Binding("DB") }

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

func metasOf(res safejs.Value) ([]edge.Meta, error) {
	rs, err := rows(res)
	if err != nil {
		return nil, err
	}
	var out []edge.Meta
	for _, r := range rs {
		m, err := metaOf(r)
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
	ms, err := metasOf(res[0])
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
	ms, err := metasOf(res[0])
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

func (s *d1Store) List(_ context.Context, tenant string) ([]edge.Meta, error) {
	res, err := s.batch([]stmt{{sqlList, []any{tenant}}})
	if err != nil {
		return nil, err
	}
	return metasOf(res[0])
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
	n, err := changes(res[0])
	if err != nil {
		return err
	}
	if n != 1 {
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
	n, err := changes(res[2])
	if err != nil {
		return err
	}
	if n != 1 {
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
