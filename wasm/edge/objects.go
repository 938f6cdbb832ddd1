package edge

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"

	"github.com/sessiontree/sessiontree/core"
)

// Role is what a Handler does; see Config.Role.
type Role int

const (
	RoleAll    Role = iota // every route, over one Store
	RoleRouter             // auth, the tree list, and the hand-off to each tree's object
	RoleObject             // the routes of one tree, handed over by a router
)

// The headers between a router and an object. A router answers a request of
// one tree with HeaderObject (the name of the tree's object: tenant "/" id)
// and the headers the object needs (HeaderTenant, and HeaderCreate for a new
// tree); the platform glue forwards the client's request to that object with
// exactly these X-Sessiontree- headers, every other one of that prefix
// removed. An object trusts them: it is reachable only through its router.
const (
	HeaderObject = "X-Sessiontree-Object"
	HeaderTenant = "X-Sessiontree-Tenant"
	HeaderCreate = "X-Sessiontree-Create" // the id of the tree a POST /v1/trees creates
	// HeaderQuota and HeaderUsage come with a create: the tenant's limits
	// ("trees bytes", 0 for none) and what it holds now ("trees bytes", from
	// the index of trees), both set by the router's glue.
	HeaderQuota = "X-Sessiontree-Quota"
	HeaderUsage = "X-Sessiontree-Usage"
	// HeaderGrant comes with a tree's write when its tenant has a quota of
	// bytes: "grant quota", the bytes the tree may take as stored (its rows'
	// keys and JSON) and the quota, both from the object's glue, which takes
	// the grant from the tenant's quota in D1 (edge.Grower). A write that
	// would take the tree past its grant is 429 quota_exceeded, with
	// HeaderNeed on the answer: the size it would take the tree to, so that
	// the glue may grant more and send it again. With a create it is the
	// bytes the router's glue reserved for the new tree (reserveRows).
	HeaderGrant = "X-Sessiontree-Grant"
	HeaderNeed  = "X-Sessiontree-Need"
	// HeaderRows is on every answer of a tree's object: the bytes its tree
	// takes as stored (at most; exact after its load and after any write
	// weighed exactly), which the glue keeps its grant ahead of.
	HeaderRows = "X-Sessiontree-Rows"
	// HeaderExpires is the expiry of the request's token (Unix seconds): on
	// the answer that accepts a live socket, the glue closes the socket then
	// (code CloseTokenExpired), however long it stays open.
	HeaderExpires = "X-Sessiontree-Expires"
)

// CloseTokenExpired is the WebSocket close code of a live socket whose token
// expired: the client connects again with a new token.
const CloseTokenExpired = 4001

// ObjectName is the name of the object of tenant's tree id: each tenant's
// trees are their own objects, so a tree id of another tenant names an empty one.
func ObjectName(tenant, id string) string { return tenant + "/" + id }

// forward answers a request of one tree (or a create) with the hand-off.
func (h *Handler) forward(w ResponseWriter, r *Request, tenant string, exp int64, parts []string) *apiError {
	var id string
	if len(parts) > 0 {
		id = parts[0]
	} else {
		id = h.createID(tenant, r.Header.Get("Idempotency-Key"))
		w.Header().Set(HeaderCreate, id)
	}
	w.Header().Set(HeaderObject, ObjectName(tenant, id))
	w.Header().Set(HeaderTenant, tenant)
	w.Header().Set(HeaderExpires, strconv.FormatInt(exp, 10))
	w.WriteHeader(statusNoContent)
	return nil
}

// createID is the id of a new tree: random, or, for a create sent with an
// Idempotency-Key, derived from the tenant and the key (under the signing
// key), so that a retried create reaches the same object, which answers it
// from the kept answer instead of making a second tree.
func (h *Handler) createID(tenant, idemKey string) string {
	if idemKey == "" {
		return randomTreeID()
	}
	m := hmac.New(sha256.New, h.key)
	m.Write([]byte("create\x00" + tenant + "\x00" + idemKey))
	return hex.EncodeToString(m.Sum(nil)[:16])
}

// checkCreateKey refuses a create with an Idempotency-Key whose object
// holds the tree that key made already: its kept answer expired (it is kept
// IdemKeepMs), so the create is neither answered from it nor, with the
// tree's id taken, stored. Before, that was 500 for as long as the tree
// lived. It is 409 conflict naming the tree, before the body is parsed.
func (h *Handler) checkCreateKey(q *request, id string) *apiError {
	if q.idem == nil {
		return nil
	}
	if _, err := h.store.Meta(q.ctx, q.tenant, id); err == nil {
		return errCreateKeyUsed(q, id)
	} else if !errors.Is(err, ErrNoTree) {
		return storeError(id, err)
	}
	return nil
}

// errCreateKeyUsed is the 409 of a create whose Idempotency-Key made tree
// id more than a day ago.
func errCreateKeyUsed(q *request, id string) *apiError {
	if q.idem == nil { // a random id taken: no key made it
		return errf(statusConflict, string(core.CodeConflict), "a tree with the id "+quote(id)+" exists already; send the create again")
	}
	return errf(statusConflict, string(core.CodeConflict), "the Idempotency-Key "+quote(q.idem.Key)+" created the tree "+quote(id)+
		" more than a day ago, and its answer is no longer kept; read that tree, or send a new key to create another")
}

// serveObject runs a route of one tree for the tenant its router named.
func (h *Handler) serveObject(w ResponseWriter, r *Request, parts []string, run func(*request) *apiError) *apiError {
	tenant := r.Header.Get(HeaderTenant)
	if !ValidTenant(tenant) {
		return errf(statusInternalServerError, CodeInternal, "the tree's object was reached without a tenant")
	}
	if len(parts) == 0 {
		if r.Method != methodPost || !validTreeID(r.Header.Get(HeaderCreate)) {
			return errf(statusInternalServerError, CodeInternal, "a tree's object serves one tree, not the list")
		}
	} else if !validTreeID(parts[0]) {
		return errTreeNotFound(parts[0])
	}
	return run(&request{ctx: r.Context(), tenant: tenant, w: w, r: r})
}

// checkQuota refuses a create that would take the tenant over its quota
// (HeaderQuota, HeaderUsage: set only by the router's glue, which drops any
// X-Sessiontree- header a client sends), 429 quota_exceeded. Only a tree's
// object reads them: elsewhere a client could send its own.
func (h *Handler) checkQuota(q *request) *apiError {
	if h.role != RoleObject {
		return nil
	}
	limits, ok1 := twoInts(q.r.Header.Get(HeaderQuota))
	used, ok2 := twoInts(q.r.Header.Get(HeaderUsage))
	if !ok1 || !ok2 {
		return nil
	}
	qt := Quota{Trees: limits[0], Bytes: limits[1]}
	if u := (Usage{Trees: used[0], Bytes: used[1]}); qt.over(u) {
		return errQuota(qt, u)
	}
	return nil
}

// twoInts reads "a b", two whole numbers of at least 0.
func twoInts(s string) ([2]int64, bool) {
	var out [2]int64
	a, b, ok := strings.Cut(s, " ")
	if !ok {
		return out, false
	}
	for i, v := range []string{a, b} {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return out, false
		}
		out[i] = n
	}
	return out, true
}
