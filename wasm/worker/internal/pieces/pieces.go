// Package pieces holds the loops of a tree object's storage that run in
// pieces with a yield between them (issue 25: one tenant's first load of an
// 8 MB tree, or the delete of a 100,000-node tree, held the isolate, every
// other tenant's requests, for the whole of it): a first load reads a table a
// chunk at a time, and a deleted tree's rows go a statement at a time. The
// worker (wasm/worker/object.go) gives them its SQL and its yield; they are
// here so that native tests can count the pieces and the yields between them.
package pieces

import (
	"errors"
	"strings"
	"unsafe"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/rawjson"
)

// A table is loaded LoadChunk bytes or its row limit a query at most (the
// first query LoadRows rows, then NextLoadRows), a yield after each.
const (
	LoadChunk   = 128 << 10
	LoadRows    = 64
	MinLoadRows = 4
	MaxLoadRows = 4096
)

// Chunk reads the rows of a table whose keys come after last ("" for the
// first chunk), in key order: at most rows of them and as many as fit in
// bytes (one row however large). It answers them as one string, each row
// key US json, rows joined by RS (JSON text, ids and branch names hold no
// raw control character), and the last key read; "" when none are left.
type Chunk func(last string, bytes, rows int) (joined, lastKey string, err error)

// Load reads a whole table with chunk, a chunk a query, and calls yield
// between two queries (never before the first: a small table is one query
// and no yield). Each row read ticks core by its bytes.
func Load(chunk Chunk, yield func()) ([]core.Fragment, error) {
	var out []core.Fragment
	last := ""
	rows := LoadRows
	for first := true; ; first = false {
		if !first {
			yield()
		}
		all, next, err := chunk(last, LoadChunk, rows)
		if err != nil {
			return nil, err
		}
		if all == "" {
			return out, nil
		}
		n := 0
		for row := range strings.SplitSeq(all, "\x1e") {
			n++
			core.TickBytes(len(row))
			k, j, ok := strings.Cut(row, "\x1f")
			if !ok {
				return nil, errors.New("object storage: a row without its separator")
			}
			// The row's bytes are the chunk's, not a copy: a fragment is
			// only read (core.JoinRows copies it into the tree's file).
			out = append(out, core.Fragment{Key: k, JSON: unsafe.Slice(unsafe.StringData(j), len(j))})
		}
		last = next
		rows = NextLoadRows(rows, n, len(all))
	}
}

// NextLoadRows is how many rows the next chunk of a load reads, after one
// that read limit rows and kept n of them, size bytes: the query reads its
// limit of rows whole (their sizes are summed), so rows of 7 KB under a
// limit of 512 read 3.5 MB to keep 128 KiB (40-110 ms a query in a
// profile). The limit follows what fits: doubled while whole chunks stay
// small, about what fitted (and a quarter more) when bytes cut the chunk.
func NextLoadRows(limit, n, size int) int {
	switch {
	case n >= limit && size < LoadChunk/2:
		return min(limit*2, MaxLoadRows)
	case n < limit:
		return max(MinLoadRows, n+n/4+1)
	}
	return limit
}

// DropRows is how many rows of a deleted tree one statement deletes.
const DropRows = 1024

// Rows is one table of a deleted tree's rows: Any reports whether it has
// rows left, Drop deletes at most n of them.
type Rows struct {
	Any  func() (bool, error)
	Drop func(n int) error
}

// DropRest deletes the rows of tables (in order) of an object that holds no
// tree, DropRows a statement, a yield after each. It stops, leaving the
// rest, as soon as hasTree says the object holds a tree again (one created
// between two pieces: its rows are its own).
func DropRest(hasTree func() (bool, error), yield func(), tables ...Rows) error {
	for _, t := range tables {
		for {
			if has, err := hasTree(); err != nil || has {
				return err
			}
			left, err := t.Any()
			if err != nil {
				return err
			}
			if !left {
				break
			}
			if err := t.Drop(DropRows); err != nil {
				return err
			}
			yield()
		}
	}
	return nil
}

// EachRows renders frags as JSON objects {key: fragment, …} of about size
// bytes (at least one fragment each) and calls fn with each, in order. The
// objects are written into one buffer, reused: the string fn gets is valid
// only until it returns (the worker hands it to SQLite, which copies it).
// A large write's rows are stored this way a piece at a time (issue 25: all
// its pieces rendered ahead, twice over, were 26 MB of garbage for a
// 100,000-message create, and more marking for Go's collector).
func EachRows(frags []core.Fragment, size int, fn func(string) error) error {
	var buf []byte
	flush := func() error {
		if len(buf) == 0 {
			return nil
		}
		buf = append(buf, '}')
		err := fn(unsafe.String(unsafe.SliceData(buf), len(buf)))
		buf = buf[:0]
		return err
	}
	for _, f := range frags {
		core.TickBytes(len(f.JSON))
		if len(buf) > size {
			if err := flush(); err != nil {
				return err
			}
		}
		if len(buf) == 0 {
			buf = append(buf, '{')
		} else {
			buf = append(buf, ',')
		}
		buf = rawjson.AppendString(buf, f.Key)
		buf = append(buf, ':')
		buf = append(buf, f.JSON...)
	}
	return flush()
}

// FreshIDs is how many ids Fresh asks about in one query: a query of 2,000
// took 12-50 ms under load, in one piece.
const FreshIDs = 256

// Fresh is the rows of frags whose ids no stored row has. Those named in
// created are new by what made them (edge.Write.Created: an append's node);
// the others are asked of stored, at most FreshIDs ids a call, which answers
// the ones that are stored. A batch of 1,000 appends asks about its parent
// alone (before: 1,000 ids in 4 queries, 30-60 ms each in a profile).
func Fresh(frags []core.Fragment, created []string, stored func(ids []string) ([]string, error)) ([]core.Fragment, error) {
	isNew := make(map[string]bool, len(created))
	for _, id := range created {
		core.Tick()
		isNew[id] = true
	}
	var ask []string
	for _, f := range frags {
		if !isNew[f.Key] {
			ask = append(ask, f.Key)
		}
	}
	isStored := map[string]bool{}
	for i := 0; i < len(ask); i += FreshIDs {
		ids := ask[i:min(len(ask), i+FreshIDs)]
		for range ids {
			core.Tick()
		}
		got, err := stored(ids)
		if err != nil {
			return nil, err
		}
		for _, id := range got {
			isStored[id] = true
		}
	}
	var out []core.Fragment
	for _, f := range frags {
		if !isStored[f.Key] {
			out = append(out, f)
		}
	}
	return out, nil
}
