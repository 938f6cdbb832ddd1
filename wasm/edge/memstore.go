package edge

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strings"
	"sync"

	"github.com/sessiontree/sessiontree/core"
)

// MemStore is a Store in memory, for tests and local runs. It counts the rows
// it writes, so tests can check that an append writes only what it touches.
type MemStore struct {
	mu        sync.Mutex
	trees     map[string]*memTree
	idem      map[string]Idem           // by tenant + "\x00" + key
	reserved  map[string]memReservation // by tree id: creates in flight (Reserve)
	granted   map[string]int64          // by tree id: the bytes its tenant's quota grants it (Grant)
	reserves  uint64                    // reservations made, in all: each one's place in their order
	RowWrites int                       // node and branch rows put or deleted, in total
}

// memReservation is the place a create in flight took under its tenant's quota.
type memReservation struct {
	tenant string
	bytes  int64
	seq    uint64 // its place in the order of reservations
	rows   bool   // bytes are the tree's rows, granted (Grant): no longer the body's estimate
}

type memTree struct {
	deltas   map[int64][]byte // by version: the change log
	first    int64            // the oldest version the log may hold
	logged   int64            // the bytes of the deltas
	meta     Meta
	nodes    map[string][]byte
	branches map[string][]byte
}

// RowBytes implements RowSizer.
func (s *MemStore) RowBytes(_ context.Context, tenant, id string, nodes, branches []string) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, err := s.get(tenant, id)
	if err != nil {
		return 0, err
	}
	var n int64
	for _, k := range nodes {
		if b, ok := t.nodes[k]; ok {
			n += int64(len(k) + len(b))
		}
	}
	for _, k := range branches {
		if b, ok := t.branches[k]; ok {
			n += int64(len(k) + len(b))
		}
	}
	return n, nil
}

// NewMemStore returns an empty MemStore.
func NewMemStore() *MemStore {
	return &MemStore{trees: map[string]*memTree{}, idem: map[string]Idem{}, reserved: map[string]memReservation{}, granted: map[string]int64{}}
}

// errKeyTaken stands for the unique constraint of a real database.
var errKeyTaken = errors.New("the Idempotency-Key is already stored")

// keepIdem stores idem for tenant, or refuses (writing nothing) a key already kept.
func (s *MemStore) idemFree(tenant string, idem *Idem) error {
	if idem == nil {
		return nil
	}
	if _, ok := s.idem[tenant+"\x00"+idem.Key]; ok {
		return errKeyTaken
	}
	return nil
}

func (s *MemStore) keepIdem(tenant string, idem *Idem) {
	if idem != nil {
		s.idem[tenant+"\x00"+idem.Key] = *idem
	}
}

// Replay implements Store.
func (s *MemStore) Replay(_ context.Context, tenant, key string) (Idem, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.idem[tenant+"\x00"+key]
	return r, ok, nil
}

func (s *MemStore) get(tenant, id string) (*memTree, error) {
	t := s.trees[id]
	if t == nil || t.meta.Tenant != tenant {
		return nil, ErrNoTree
	}
	return t, nil
}

// Meta implements Store.
func (s *MemStore) Meta(_ context.Context, tenant, id string) (Meta, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, err := s.get(tenant, id)
	if err != nil {
		return Meta{}, err
	}
	return t.meta, nil
}

// Load implements Store.
func (s *MemStore) Load(_ context.Context, tenant, id string) (Meta, []core.Fragment, []core.Fragment, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, err := s.get(tenant, id)
	if err != nil {
		return Meta{}, nil, nil, err
	}
	return t.meta, fragments(t.nodes), fragments(t.branches), nil
}

func fragments(m map[string][]byte) []core.Fragment {
	out := make([]core.Fragment, 0, len(m))
	for k, v := range m {
		out = append(out, core.Fragment{Key: k, JSON: v})
	}
	slices.SortFunc(out, func(a, b core.Fragment) int { return strings.Compare(a.Key, b.Key) })
	return out
}

// Create implements Store.
func (s *MemStore) Create(_ context.Context, w Write) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.trees[w.Meta.ID] != nil {
		return ErrTreeExists
	}
	if err := s.idemFree(w.Meta.Tenant, w.Idem); err != nil {
		return err
	}
	t := &memTree{nodes: map[string][]byte{}, branches: map[string][]byte{}}
	s.trees[w.Meta.ID] = t
	delete(s.reserved, w.Meta.ID)
	s.apply(t, w)
	return nil
}

// Commit implements Store.
func (s *MemStore) Commit(_ context.Context, prev int64, w Write) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.trees[w.Meta.ID]
	if t == nil || t.meta.Tenant != w.Meta.Tenant || t.meta.Version != prev {
		return ErrStale
	}
	if err := s.idemFree(w.Meta.Tenant, w.Idem); err != nil {
		return err
	}
	s.apply(t, w)
	return nil
}

func (s *MemStore) apply(t *memTree, w Write) {
	s.keepIdem(w.Meta.Tenant, w.Idem)
	if w.Delta != nil {
		t.logDelta(w.Meta.Version, slices.Clone(w.Delta), ChangeLogBytes(w.Meta))
	}
	t.meta = w.Meta
	for _, f := range w.PutNodes {
		t.nodes[f.Key] = slices.Clone(f.JSON)
	}
	for _, id := range w.DelNodes {
		delete(t.nodes, id)
	}
	for _, f := range w.PutBranches {
		t.branches[f.Key] = slices.Clone(f.JSON)
	}
	for _, name := range w.DelBranches {
		delete(t.branches, name)
	}
	s.RowWrites += len(w.PutNodes) + len(w.DelNodes) + len(w.PutBranches) + len(w.DelBranches)
}

// logDelta keeps d, the delta of version v, in t's change log, and drops the
// oldest deltas past KeepChanges or budget bytes (the newest stays).
func (t *memTree) logDelta(v int64, d []byte, budget int64) {
	if t.deltas == nil {
		t.deltas, t.first = map[int64][]byte{}, v
	}
	t.deltas[v] = d
	t.logged += int64(len(d))
	for t.first < v && (t.logged > budget || t.first <= v-KeepChanges) {
		if old, ok := t.deltas[t.first]; ok {
			t.logged -= int64(len(old))
			delete(t.deltas, t.first)
		}
		t.first++
	}
}

// List implements Store.
func (s *MemStore) List(_ context.Context, tenant string, after Cursor, limit int) ([]Meta, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if after.ByID {
		t, err := s.get(tenant, after.ID)
		if err != nil {
			return nil, err
		}
		after.CreatedMs = t.meta.CreatedMs
	}
	var out []Meta
	for _, t := range s.trees {
		if t.meta.Tenant == tenant && (after.ID == "" || listOrder(cursorAfter(t.meta), after) > 0) {
			out = append(out, t.meta)
		}
	}
	slices.SortFunc(out, func(a, b Meta) int { return listOrder(cursorAfter(a), cursorAfter(b)) })
	return out[:min(len(out), limit)], nil
}

// listOrder compares two places in the list: by creation time, then id.
func listOrder(a, b Cursor) int {
	if a.CreatedMs != b.CreatedMs {
		return cmp.Compare(a.CreatedMs, b.CreatedMs)
	}
	return strings.Compare(a.ID, b.ID)
}

// Delete implements Store.
func (s *MemStore) Delete(_ context.Context, tenant, id string, ifVersion int64, idem *Idem) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, err := s.get(tenant, id)
	if err != nil {
		return err
	}
	if ifVersion != 0 && t.meta.Version != ifVersion {
		return ErrStale
	}
	if err := s.idemFree(tenant, idem); err != nil {
		return err
	}
	s.keepIdem(tenant, idem)
	delete(s.trees, id)
	delete(s.granted, id)
	return nil
}

// Index keeps the row of w's tree without rows of nodes or branches
// (deleted: removes it), as a router's index of trees that live in objects.
// It has the signature of Config.OnWrite.
func (s *MemStore) Index(w Write, deleted bool) {
	m := w.Meta
	s.mu.Lock()
	defer s.mu.Unlock()
	if deleted {
		delete(s.trees, m.ID)
		return
	}
	if t := s.trees[m.ID]; t != nil {
		if t.meta.Version < m.Version {
			t.meta = m
		}
		return
	}
	s.trees[m.ID] = &memTree{meta: m}
}

// Changes implements ChangeLog.
func (s *MemStore) Changes(_ context.Context, tenant, id string, since int64) ([][]byte, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, err := s.get(tenant, id)
	if err != nil {
		return nil, false, err
	}
	var out [][]byte
	for v := since + 1; v <= t.meta.Version; v++ {
		d, ok := t.deltas[v]
		if !ok {
			return nil, false, nil
		}
		out = append(out, d)
	}
	return out, true, nil
}

// Reserve implements QuotaStore: the check and the reservation are one step
// under the store's lock.
func (s *MemStore) Reserve(_ context.Context, tenant, id string, bytes int64, q Quota) (Usage, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.trees[id] != nil || s.reserved[id] != (memReservation{}) {
		return Usage{}, true, nil // a retry of a create: its place is taken already
	}
	u := s.usage(tenant, "")
	if q.over(u) {
		return u, false, nil
	}
	// At most what the quota leaves, as the glue's RESERVE takes it in D1:
	// reservations together never pass the quota, so a create that lost
	// the race for the last of it cannot hold room another create's grant
	// needs (50 creates at once under 4.5 trees' bytes made 3 of the 4
	// that fit, now and then, when the fifth held a whole tree's place).
	if q.Bytes > 0 {
		bytes = min(bytes, q.Bytes-u.Bytes)
	}
	s.reserves++
	s.reserved[id] = memReservation{tenant: tenant, bytes: bytes, seq: s.reserves}
	return u, true, nil
}

// usage is what tenant holds, its tree or reservation but (if any) left
// out: each tree at the larger of its size and its grant, and the
// reservations.
func (s *MemStore) usage(tenant, but string) Usage {
	return s.usageBefore(tenant, but, ^uint64(0))
}

// usageBefore is usage counting, of the reservations whose bytes are still
// their body's estimate, only those made before the one at seq.
func (s *MemStore) usageBefore(tenant, but string, seq uint64) Usage {
	var u Usage
	for id, t := range s.trees {
		if t.meta.Tenant == tenant && id != but {
			u.Trees++
			u.Bytes += max(t.bytes(), s.granted[id])
		}
	}
	for id, r := range s.reserved {
		if r.tenant == tenant && id != but && (r.rows || r.seq < seq) {
			u.Trees++
			u.Bytes += r.bytes
		}
	}
	return u
}

// Grant implements Grower: the check and the grant are one step under the
// store's lock. The grant of a reservation is its bytes. A reservation's
// grant counts the other reservations' grants, and the reservations made
// before it that are not granted yet at their estimates, but not the later
// ones not granted yet: each of those is granted or refused after this one,
// counting its grant. Counted at their estimates, creates in flight refused
// each other: 16 creates of 942 KB trees at once under 2 MiB made one tree
// now and then (each ~112 KB of estimate, so two others in flight left no
// room), where two fit. Now, of creates the same size, as many are made as
// fit: the oldest in flight waits for no estimate.
func (s *MemStore) Grant(_ context.Context, tenant, id string, bytes int64, q Quota) (Usage, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, reserved := s.reserved[id]
	if reserved = reserved && r.tenant == tenant; !reserved {
		if _, err := s.get(tenant, id); err != nil {
			return Usage{}, false, err
		}
	}
	seq := ^uint64(0) // a tree's own grant counts every reservation
	if reserved {
		seq = r.seq
	}
	u := s.usageBefore(tenant, id, seq)
	if q.Bytes > 0 && u.Bytes+bytes > q.Bytes {
		return u, false, nil
	}
	if reserved {
		r.bytes, r.rows = bytes, true
		s.reserved[id] = r
	} else {
		s.granted[id] = bytes
	}
	return u, true, nil
}

// Release implements QuotaStore.
func (s *MemStore) Release(_ context.Context, tenant, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.reserved[id].tenant == tenant {
		delete(s.reserved, id)
	}
	return nil
}

// bytes is what the tree's rows take.
func (t *memTree) bytes() int64 {
	var n int64
	for k, b := range t.nodes {
		n += int64(len(k) + len(b))
	}
	for k, b := range t.branches {
		n += int64(len(k) + len(b))
	}
	return n
}
