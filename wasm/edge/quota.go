package edge

import (
	"context"
	"strconv"
)

// Quota bounds what one tenant holds: its trees and the bytes they take
// (0: no limit). A create is refused (429 quota_exceeded) when the tenant
// already holds Trees trees, or Bytes bytes or more.
type Quota struct{ Trees, Bytes int64 }

// Usage is what a tenant holds: its trees and their bytes, counting the
// creates in flight that reserved their place.
type Usage struct{ Trees, Bytes int64 }

// QuotaStore is a Store that counts a tenant's trees in one place, so that
// creates racing each other never take the tenant over its Quota: Reserve
// checks the quota and takes a place for tree id (its bytes estimated as
// bytes) in one step, and Release gives back a place whose create failed.
// A create consumes its reservation. In the worker the router's glue reserves
// in D1, with one statement (glue/isolate.mjs, RESERVE).
type QuotaStore interface {
	// Reserve takes a place for tree id of tenant under q, or reports ok
	// false and what the tenant holds. A tree or reservation that already
	// has id is taken as this create's (a retry): ok, and nothing counted.
	Reserve(ctx context.Context, tenant, id string, bytes int64, q Quota) (u Usage, ok bool, err error)
	// Release drops the reservation of tree id, if it is still one.
	Release(ctx context.Context, tenant, id string) error
}

// errQuota is the 429 of a create over q with u already held.
func errQuota(q Quota, u Usage) *apiError {
	if q.Trees > 0 && u.Trees >= q.Trees {
		return errf(statusTooManyRequests, "quota_exceeded", "this tenant holds "+strconv.FormatInt(u.Trees, 10)+
			" trees, its quota; delete one before creating another")
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
