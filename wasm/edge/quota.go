package edge

import (
	"bytes"
	"context"
	"strconv"
)

// Quota bounds what one tenant holds: its trees and the bytes they take
// (0: no limit). A create is refused (429 quota_exceeded) when the tenant
// already holds Trees trees, or when the tree it makes would take the
// tenant past Bytes (its rows, as stored: see reserveRows).
type Quota struct{ Trees, Bytes int64 }

// Usage is what a tenant holds: its trees and their bytes, counting the
// creates in flight that reserved their place.
type Usage struct{ Trees, Bytes int64 }

// QuotaStore is a Store that counts a tenant's trees in one place, so that
// creates racing each other never take the tenant over its Quota: Reserve
// checks the quota and takes a place for tree id (its bytes estimated as
// bytes) in one step, and Release gives back a place whose create failed.
// A create consumes its reservation. A Handler reserves a place at a
// create's body's size before it parses the body, and then, if the store is
// a Grower too, grants the place the bytes of the tree it built
// (reserveRows). In the
// worker the router's glue reserves in D1, with one statement
// (glue/isolate.mjs, RESERVE), and the object's glue raises the reservation
// when the tree takes more (RAISE).
type QuotaStore interface {
	// Reserve takes a place for tree id of tenant under q, or reports ok
	// false and what the tenant holds. A tree or reservation that already
	// has id is taken as this create's (a retry): ok, and nothing counted.
	Reserve(ctx context.Context, tenant, id string, bytes int64, q Quota) (u Usage, ok bool, err error)
	// Release drops the reservation of tree id, if it is still one.
	Release(ctx context.Context, tenant, id string) error
}

// createSlack is what a create's place is reserved at beyond its body's size
// (the glue's CREATE_SLACK, glue/isolate.mjs): a tree's rows take a little
// more than its body (each node's id, links and time), and a place that
// covers them needs no second step that a racing create could fail.
const createSlack = 16 << 10

// errQuota is the 429 of a create over q with u already held.
func errQuota(q Quota, u Usage) *apiError {
	if q.Trees > 0 && u.Trees >= q.Trees {
		// (Its count has the creates under way: each holds its place from
		// the start, so racing creates never pass the quota.)
		return errf(statusTooManyRequests, "quota_exceeded", "this tenant holds or is creating "+strconv.FormatInt(u.Trees, 10)+
			" trees, its quota of "+strconv.FormatInt(q.Trees, 10)+"; delete one before creating another")
	}
	return errf(statusTooManyRequests, "quota_exceeded", "this tenant's trees take "+strconv.FormatInt(u.Bytes, 10)+
		" bytes, over its quota of "+strconv.FormatInt(q.Bytes, 10)+"; delete trees before creating another")
}

// over reports whether u leaves no room under q for another tree.
func (q Quota) over(u Usage) bool {
	return q.Trees > 0 && u.Trees >= q.Trees || q.Bytes > 0 && u.Bytes >= q.Bytes
}

// reserve takes the place of tree id (a create of size bytes) under the
// Handler's quota, where its Store counts (QuotaStore); release, if not nil,
// gives it back and must be called when the create fails.
func (h *Handler) reserve(q *request, id string, bytes int64) (release func(), ae *apiError) {
	qs, ok := h.store.(QuotaStore)
	if !ok || h.quota == (Quota{}) || h.role == RoleObject {
		return nil, nil
	}
	u, ok, err := qs.Reserve(q.ctx, q.tenant, id, bytes, h.quota)
	if err != nil {
		return nil, storeError(id, err)
	}
	if !ok {
		return nil, errQuota(h.quota, u)
	}
	return func() { qs.Release(q.ctx, q.tenant, id) }, nil
}

// reserveRows takes the bytes of new tree id, rows as stored, from its
// tenant's quota now that they are known (reserved: its place was taken by
// reserve). A create was counted at its body's size before: a body of short
// messages stores about twelve times its size, and creates racing each other
// took the tenant far past its quota. Natively the place is granted rows
// (Grower) if the tenant's other trees and reservations leave the room, in
// one step; in a tree's object, rows must fit in what the router's glue
// reserved for it (HeaderGrant), or the answer says what it needs
// (HeaderNeed), and the object's glue raises the reservation and sends the
// create again if there is room. Over the quota: 429 quota_exceeded,
// "limit":"bytes", nothing stored.
func (h *Handler) reserveRows(q *request, id string, rows int64, reserved bool) *apiError {
	if h.role == RoleObject {
		if q.r.Header.Get(HeaderGrant) == "" {
			return nil
		}
		return h.checkGrant(q, id, rows)
	}
	g, ok := h.store.(Grower)
	if !ok || !reserved || h.quota.Bytes <= 0 {
		return nil
	}
	u, fits, err := g.Grant(q.ctx, q.tenant, id, rows, h.quota)
	if err != nil {
		return storeError(id, err)
	}
	if !fits {
		return errGrant(rows, h.quota.Bytes-u.Bytes, h.quota.Bytes)
	}
	return nil
}

// keepBuilt keeps b, the tree a create of tree id with body built, when its
// object refused it for taking more than the router's glue reserved
// (HeaderNeed): the object's glue raises the reservation and sends the same
// create again at once, which takes b (takeBuilt) instead of building the
// tree again (a create of 100,000 messages took 0.4 s to build natively).
// One is kept at most; it counts in KeptBytes until taken.
func (h *Handler) keepBuilt(q *request, id string, body []byte, b *builtCreate) {
	if h.role != RoleObject || q.w.Header().Get(HeaderNeed) == "" {
		return
	}
	b.id, b.body = id, body
	h.builtMu.Lock()
	h.built = b
	h.builtMu.Unlock()
}

// takeBuilt returns the create kept by keepBuilt if it is the create of tree
// id with body, and forgets it whatever it was.
func (h *Handler) takeBuilt(id string, body []byte) *builtCreate {
	h.builtMu.Lock()
	b := h.built
	h.built = nil
	h.builtMu.Unlock()
	if b == nil || b.id != id || !bytes.Equal(b.body, body) {
		return nil
	}
	return b
}

// Grower is a QuotaStore that also bounds what its tenants' trees grow to
// after their creates, in the same count: a tree is granted the bytes it may
// take as stored (its rows: keys and JSON), and a tenant's trees' grants and
// sizes together stay within its Quota.Bytes. Grant takes tree id's grant to
// bytes if the tenant's other trees (each at the larger of its size and its
// grant) and its reservations leave room for it, in one step, or reports ok
// false and what the tenant would hold. Tree id may be a create's
// reservation still (reserveRows). A Handler grants a reservation the
// tree's rows before its create stores it, whenever the quota has Bytes, so
// a store may leave out of a reservation's grant the reservations made after
// it and not granted yet (MemStore does): each is granted after it, counting
// its grant. In the worker the object's glue
// grants in D1 (glue/isolate.mjs, GRANT) and hands the grant to the object
// with each write (HeaderGrant); there a create whose tree fits its
// reservation is stored without a second step, so RAISE counts every
// reservation.
type Grower interface {
	Grant(ctx context.Context, tenant, id string, bytes int64, q Quota) (u Usage, ok bool, err error)
}

// errGrant is the 429 of a write that would take its tree to after bytes as
// stored where its tenant's quota of quota bytes leaves it grant.
func errGrant(after, grant, quota int64) *apiError {
	ae := errf(statusTooManyRequests, "quota_exceeded", "the tree would take "+strconv.FormatInt(after, 10)+
		" bytes as stored; its tenant's quota of "+strconv.FormatInt(quota, 10)+" bytes leaves it "+strconv.FormatInt(max(grant, 0), 10)+
		"; nothing was stored (delete trees to make room)")
	ae.limit = "bytes"
	return ae
}

// hasGrant reports whether a write of q is bounded by its tenant's quota of
// bytes: in a tree's object, by the grant its glue sent (HeaderGrant);
// natively, by a Grower under a Quota of bytes.
func (h *Handler) hasGrant(q *request) bool {
	if h.role == RoleObject {
		return q.r.Header.Get(HeaderGrant) != ""
	}
	_, ok := h.store.(Grower)
	return ok && h.quota.Bytes > 0
}

// checkGrant refuses a write that takes tree id to after bytes as stored,
// past what its tenant's quota grants it: 429 quota_exceeded, its error
// saying "limit":"bytes", and in a tree's object HeaderNeed (after), so that
// the glue may grant more and send the write again.
func (h *Handler) checkGrant(q *request, id string, after int64) *apiError {
	grant, quota, ok, err := h.grantOf(q, id, after)
	if err != nil {
		return storeError(id, err)
	}
	if !ok || after <= grant || quota <= 0 {
		return nil
	}
	if h.role == RoleObject {
		q.w.Header().Set(HeaderNeed, strconv.FormatInt(after, 10))
	}
	return errGrant(after, grant, quota)
}

// grantOf is the bytes tree id may take as stored under its tenant's quota,
// and the quota; ok false where no bytes quota applies. Natively it asks the
// Grower for after (which keeps it as the tree's grant when it fits).
func (h *Handler) grantOf(q *request, id string, after int64) (grant, quota int64, ok bool, err error) {
	if h.role == RoleObject {
		v, ok := twoInts(q.r.Header.Get(HeaderGrant))
		return v[0], v[1], ok, nil
	}
	g, isGrower := h.store.(Grower)
	if !isGrower || h.quota.Bytes <= 0 {
		return 0, 0, false, nil
	}
	u, fits, err := g.Grant(q.ctx, q.tenant, id, after, h.quota)
	if err != nil || fits {
		return after, h.quota.Bytes, true, err
	}
	return h.quota.Bytes - u.Bytes, h.quota.Bytes, true, nil
}
