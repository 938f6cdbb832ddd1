package edge

import (
	"context"
	"errors"

	"github.com/sessiontree/sessiontree/core"
)

// ErrNoTree is returned by a Store for a tree that does not exist or belongs
// to another tenant: the two cases are one to the caller.
var ErrNoTree = errors.New("no such tree")

// ErrTreeExists is returned by Store.Create when a tree with the new tree's
// id is stored already: in a tree's object, one an Idempotency-Key made
// more than a day ago (createID).
var ErrTreeExists = errors.New("a tree with this id is stored already")

// ErrStale is returned by Store.Commit when the tree's stored version is not
// the one the write was based on: another writer got there first.
var ErrStale = errors.New("the tree changed since it was read")

// Meta is the row of one tree: who owns it, its version and ETag (both change
// on every write), its root and active branch.
type Meta struct {
	ID        string
	Tenant    string
	Version   int64
	ETag      string // a quoted string, as sent in the ETag header
	Root      string
	Active    string
	CreatedMs int64
	UpdatedMs int64
	// What the list shows of the tree besides: its title (core's Tree.Title),
	// its nodes, and the bytes its rows take as stored (their keys and JSON;
	// set by the Handler on each write, at most that: see sizeAfter). Kept in
	// the index of trees, not needed to read or write a tree.
	Title string
	Nodes int64
	Bytes int64
}

// Write is one atomic change of a stored tree: its new meta row, the node and
// branch rows to put, and those to delete, and the answer to keep for the
// request's Idempotency-Key (nil without one), stored in the same transaction.
type Write struct {
	Meta        Meta
	PutNodes    []core.Fragment
	DelNodes    []string
	PutBranches []core.Fragment
	DelBranches []string
	Idem        *Idem
	// Created are the ids of PutNodes this write made (the new nodes of
	// append, edit and regenerate ops): no stored row has them, so a Store
	// that stores new rows apart need not look them up (the worker's
	// objects stage a large write's new rows ahead of its transaction).
	// Other rows of PutNodes may be new or stored; nil says nothing.
	Created []string
	// Delta is the change as pushed to live clients (Delta), for a Store
	// that keeps a ChangeLog; set by the Handler when its Store is one.
	Delta []byte
}

// ChangeLog is a Store that keeps the deltas of a tree's last writes, for
// GET /v1/trees/{id}/changes?since=. Stores without one answer 501. It keeps
// the delta of each write (Write.Delta) and drops older ones past
// KeepChanges deltas or ChangeLogBytes bytes, the newest kept whatever its
// size.
type ChangeLog interface {
	// Changes returns the deltas of the writes after version since, oldest
	// first, or ok false if some of them are no longer kept.
	Changes(ctx context.Context, tenant, id string, since int64) (deltas [][]byte, ok bool, err error)
}

// KeepChanges is how many deltas a ChangeLog keeps per tree at most.
const KeepChanges = 1000

// ChangeLogBytes is how many bytes of deltas a ChangeLog keeps for a tree
// whose meta after its newest write is m: as many as the tree's rows take
// (m.Bytes), and at least MinChangeLogBytes. A tenant's quota of bytes
// counts its trees' rows, not their logs: kept by count alone, the log of a
// tree whose 800 KiB summary was rewritten 200 times held 164 MB under a
// quota of 4 MiB. So bounded, a tree's log takes no more than the tree
// (or MinChangeLogBytes), and a client further behind than the log reaches
// reads the tree instead, which then costs it no more than the log would.
func ChangeLogBytes(m Meta) int64 { return max(m.Bytes, MinChangeLogBytes) }

// MinChangeLogBytes is the log a small tree keeps all the same: a few
// hundred small changes.
const MinChangeLogBytes = 64 << 10

// Idem is the answer to a write sent with an Idempotency-Key, kept so that
// the same request sent again (a client retrying after a lost answer, or
// after the worker died between storing and answering) gets the same answer
// instead of being applied twice. Keys are per tenant and kept IdemKeepMs.
type Idem struct {
	Key         string
	Fingerprint string // of the request (method, path, body): a key reused for another request is refused
	Status      int
	ETag        string
	Location    string
	Body        []byte
	CreatedMs   int64
}

// IdemKeepMs is how long an Idempotency-Key is remembered: a day.
const IdemKeepMs = 24 * 60 * 60 * 1000

// Store keeps trees as rows: one per tree, one per node, one per branch.
// Every method is scoped to a tenant: another tenant's tree is ErrNoTree.
// RowSizer is a Store that says what rows of a stored tree take, for
// Limits.Tree: the bytes (key and JSON) of the node rows of ids nodes and the
// branch rows named branches, 0 for a key with no row. A Handler asks it only
// for a write that would take a tree past its limit.
type RowSizer interface {
	RowBytes(ctx context.Context, tenant, id string, nodes, branches []string) (int64, error)
}

type Store interface {
	// Meta reads the row of tree id.
	Meta(ctx context.Context, tenant, id string) (Meta, error)
	// Load reads tree id whole, meta and rows from one consistent snapshot.
	Load(ctx context.Context, tenant, id string) (Meta, []core.Fragment, []core.Fragment, error)
	// Create stores a new tree; w.Meta.ID is new (ErrTreeExists if not).
	Create(ctx context.Context, w Write) error
	// Commit applies w atomically if the stored version is still prev, and
	// fails with ErrStale (writing nothing) otherwise.
	Commit(ctx context.Context, prev int64, w Write) error
	// List returns at most limit rows of tenant's trees, oldest first (by
	// creation time, then id): those after the place after names (from the
	// first if it is the zero Cursor). It is ErrNoTree only for a Cursor
	// ByID whose tree is none of the tenant's. One page is read, not the
	// list: read whole for each page, a page of one tree took 457 ms in the
	// worker at 4,000 trees.
	List(ctx context.Context, tenant string, after Cursor, limit int) ([]Meta, error)
	// Delete removes tree id and its rows, if its stored version is still
	// ifVersion (any version if 0; ErrStale otherwise), keeping idem (if not
	// nil) in the same transaction.
	Delete(ctx context.Context, tenant, id string, ifVersion int64, idem *Idem) error
	// Replay returns the kept answer of tenant's Idempotency-Key key.
	Replay(ctx context.Context, tenant, key string) (Idem, bool, error)
}
