package edge

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"io"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Limits bound what one request may carry; anything over is 413 too_large.
type Limits struct {
	Body    int64 // bytes of a request body
	Message int   // bytes of one message
	Ops     int   // operations in one /ops request
	Nodes   int   // nodes of a tree created in one request
	Label   int   // bytes of one label
	// Tree bounds a stored tree: its rows (nodes and branches as stored)
	// may take at most this many bytes, and a write that would take them
	// past it is refused, nothing stored (0: no bound). A loaded tree takes
	// ~2.4 times its rows in Go's heap, and a deployed isolate has 128 MB.
	Tree int64
}

// DefaultLimits are the limits of SPEC §6: 8 MiB bodies, 1 MiB messages,
// 1,000 ops per request (and 100,000 nodes per created tree, 4 KiB labels,
// summaries as long as a message), and trees of at most DefaultTreeBytes.
var DefaultLimits = Limits{Body: 8 << 20, Message: 1 << 20, Ops: 1000, Nodes: 100_000, Label: 4096, Tree: DefaultTreeBytes}

// DefaultTreeBytes is the default bound of a tree's stored rows, 24 MiB:
// loaded, such a tree takes ~60 MB of a deployed isolate's 128 MB, and a
// write of a whole body (8 MiB) on it still fits beside it. Past ~22 MB of
// rows a batch of megabytes ran Go's collector at its limit, again and again
// (7 s a batch, docs/edge.md), and a tree larger than the isolate's budget
// of kept trees was read again from storage for every append (1.4 s an
// append at 71 MB).
const DefaultTreeBytes = 24 << 20

// Config is what a Handler needs.
type Config struct {
	Store      Store
	SigningKey []byte       // HMAC key of the bearer tokens; empty refuses every request
	Limits     Limits       // zero means DefaultLimits
	Now        func() int64 // milliseconds since the epoch; nil means the clock
	CacheTrees int          // trees kept loaded; 0 means 64

	// Role splits the work between the worker and one object per tree (see
	// objects.go): RoleRouter authenticates, answers the tree list from
	// Store and hands every other request to its tree's object; RoleObject
	// serves the requests of one tree that a router handed it. The zero
	// value, RoleAll, does everything itself over Store.
	Role Role
	// CORSOrigins are the browser origins allowed to call the API
	// ("https://app.example"; "*" allows any). Empty: no CORS headers.
	CORSOrigins []string
	// RateLimit is each tenant's requests per second (with a burst of twice
	// as many, at least one) in one router, or 0 for none; over it, 429 with
	// Retry-After.
	RateLimit float64
	// Quota bounds each tenant's trees and their bytes, counted by Store if
	// it is a QuotaStore (one step per create: racing creates never pass
	// it). In the worker the router's glue counts in D1 instead and tells
	// each create's object (HeaderQuota, HeaderUsage).
	Quota Quota
	// OnWrite, if set, is called after each write a Handler stored, with the
	// write (deleted: the tree is gone, and only w.Meta's ID and Tenant are
	// set). An object keeps its router's index (the tree list) with it, and
	// pushes the change to its live clients (Delta).
	OnWrite func(w Write, deleted bool)
}

// Handler serves the HTTP API of SPEC §6. It is safe for concurrent use.
type Handler struct {
	role    Role
	cors    []string
	limiter *limiter
	onWrite func(Write, bool)
	store   Store
	key     []byte
	limits  Limits
	now     func() int64
	cache   *treeCache

	exportMu   sync.Mutex
	lastExport exportCache
	quota      Quota
	turns      *turns // RoleObject: the writers who lost, in line (turns.go)

	builtMu sync.Mutex
	built   *builtCreate // RoleObject: a create refused for its reservation, kept for its glue's second call (keepBuilt)
}

// New returns a Handler for cfg.
func New(cfg Config) *Handler {
	h := &Handler{role: cfg.Role, onWrite: cfg.OnWrite, store: cfg.Store, key: cfg.SigningKey, limits: cfg.Limits, now: cfg.Now}
	if h.limits == (Limits{}) {
		h.limits = DefaultLimits
	}
	if h.now == nil {
		h.now = func() int64 { return time.Now().UnixMilli() }
	}
	n := cfg.CacheTrees
	if n <= 0 {
		n = 64
	}
	h.cache = newTreeCache(n)
	h.cors = cfg.CORSOrigins
	h.quota = cfg.Quota
	if cfg.RateLimit > 0 {
		h.limiter = newLimiter(cfg.RateLimit)
	}
	if cfg.Role == RoleObject {
		h.turns = newTurns()
	}
	return h
}

// KeptBytes is the size of the answer h keeps serialized (its last export or
// .tree.json), which it holds beside its loaded trees, and of a create it
// keeps built (keepBuilt).
func (h *Handler) KeptBytes() int64 {
	h.exportMu.Lock()
	n := int64(len(h.lastExport.body))
	h.exportMu.Unlock()
	h.builtMu.Lock()
	defer h.builtMu.Unlock()
	if b := h.built; b != nil {
		n += b.rows + int64(len(b.body))
	}
	return n
}

// request is one call, authenticated.
type request struct {
	ctx    context.Context
	tenant string
	w      ResponseWriter
	r      *Request
	idem   *Idem  // the request's Idempotency-Key, if it has one (beginIdem)
	turn   string // the writer's place in the line of If-Match writers (turns.go)
}

// Serve routes r. Every failure is a JSON error; a panic below becomes a
// 500, never a dropped connection.
func (h *Handler) Serve(w ResponseWriter, r *Request) {
	defer func() {
		if p := recover(); p != nil {
			msg := "internal error"
			if err, ok := p.(error); ok {
				msg += ": " + err.Error()
			}
			writeError(w, errf(statusInternalServerError, CodeInternal, msg))
		}
	}()
	// Answers are per tenant and change with every write: no cache keeps them.
	w.Header().Set("Cache-Control", "private, no-store")
	if h.corsHeaders(w, r) && r.Method == methodOptions {
		w.WriteHeader(statusNoContent) // a preflight, answered for any route
		return
	}
	if e := h.serve(w, r); e != nil {
		writeError(w, e)
	}
}

func (h *Handler) serve(w ResponseWriter, r *Request) *apiError {
	path := r.URL.Path
	if path == "/" || path == "/healthz" {
		if r.Method != methodGet && r.Method != methodHead {
			return methodNotAllowed(w, "GET")
		}
		writeJSON(w, statusOK, []byte(`{"service":"sessiontree","api":"/v1/trees"}`+"\n"))
		return nil
	}
	rest, ok := strings.CutPrefix(path, "/v1/trees")
	if !ok || (rest != "" && rest[0] != '/') {
		return errf(statusNotFound, "not_found", "no route "+quote(path)+"; the API is under /v1/trees")
	}
	parts := strings.Split(strings.Trim(rest, "/"), "/")
	if rest == "" || rest == "/" {
		parts = nil
	}
	var allow string
	var run func(*request) *apiError
	switch {
	case len(parts) == 0:
		allow = "GET, POST"
		switch r.Method {
		case methodGet:
			run = h.list
		case methodPost:
			run = h.create
		}
	case len(parts) == 1:
		allow = "GET, DELETE"
		switch r.Method {
		case methodGet:
			run = func(q *request) *apiError { return h.get(q, parts[0]) }
		case methodDelete:
			run = func(q *request) *apiError { return h.delete(q, parts[0]) }
		}
	case len(parts) == 2:
		id := parts[0]
		switch parts[1] {
		case "ops":
			allow = "POST"
			if r.Method == methodPost {
				run = func(q *request) *apiError { return h.ops(q, id) }
			}
		case "merge":
			allow = "POST"
			if r.Method == methodPost {
				run = func(q *request) *apiError { return h.merge(q, id) }
			}
		case "delta":
			allow = "POST"
			if r.Method == methodPost {
				run = func(q *request) *apiError { return h.applyDelta(q, id) }
			}
		case "projection":
			allow = "GET"
			if r.Method == methodGet {
				run = func(q *request) *apiError { return h.projection(q, id) }
			}
		case "export":
			allow = "GET"
			if r.Method == methodGet {
				run = func(q *request) *apiError { return h.export(q, id) }
			}
		case "changes", "search", "stats":
			allow = "GET"
			if r.Method == methodGet {
				route := parts[1]
				run = func(q *request) *apiError { return h.extra(q, id, route) }
			}
		case "live":
			allow = "GET"
			if r.Method == methodGet {
				run = func(q *request) *apiError { return h.live(q, id) }
			}
		}
	}
	if allow == "" {
		return errf(statusNotFound, "not_found", "no route "+quote(path))
	}
	if run == nil {
		return methodNotAllowed(w, allow)
	}
	if h.role == RoleObject {
		return h.serveObject(w, r, parts, run)
	}
	tenant, exp, e := h.authenticate(r)
	if e != nil {
		challenge := `Bearer realm="sessiontree"`
		if r.Header.Get("Authorization") != "" || r.URL.Query().Get("access_token") != "" {
			challenge += `, error="invalid_token"`
		}
		w.Header().Set("WWW-Authenticate", challenge)
		return e
	}
	if len(parts) > 0 && !validTreeID(parts[0]) {
		return errTreeNotFound(parts[0])
	}
	if e := checkQuery(r.URL.RawQuery); e != nil {
		return e
	}
	if h.limiter != nil {
		if wait := h.limiter.take(tenant, h.now()); wait > 0 {
			w.Header().Set("Retry-After", strconv.FormatInt((wait+999)/1000, 10))
			return errf(statusTooManyRequests, "rate_limited",
				"too many requests for this tenant; try again in "+strconv.FormatInt((wait+999)/1000, 10)+" s")
		}
	}
	if h.role == RoleRouter && (len(parts) > 0 || r.Method == methodPost) {
		return h.forward(w, r, tenant, exp, parts)
	}
	return run(&request{ctx: r.Context(), tenant: tenant, w: w, r: r})
}

// checkQuery refuses a query string url.Query would read only in part: a
// malformed %-escape or a ';' separator makes it drop that pair without a
// word, and a request would then run without a parameter its client sent
// (a ?branch= or ?since= taken as absent).
func checkQuery(raw string) *apiError {
	if raw == "" {
		return nil
	}
	if _, err := url.ParseQuery(raw); err != nil {
		return errf(statusBadRequest, "invalid_input", "the query string cannot be read: "+err.Error())
	}
	return nil
}

func methodNotAllowed(w ResponseWriter, allow string) *apiError {
	w.Header().Set("Allow", allow)
	return errf(statusMethodNotAllowed, CodeMethodNotAllowed, "this route allows "+allow)
}

func (h *Handler) authenticate(r *Request) (string, int64, *apiError) {
	if len(h.key) == 0 {
		return "", 0, errf(statusInternalServerError, CodeInternal,
			"the worker has no signing key: set the secret SESSIONTREE_SIGNING_KEY")
	}
	auth := r.Header.Get("Authorization")
	if auth == "" && strings.HasSuffix(r.URL.Path, "/live") {
		// A browser cannot set headers on a WebSocket: the live route also
		// takes the token as ?access_token= (RFC 6750 §2.3).
		if t := r.URL.Query().Get("access_token"); t != "" {
			auth = "Bearer " + t
		}
	}
	tok, err := bearer(auth)
	if err == nil {
		var tenant string
		var exp int64
		tenant, exp, err = verifyToken(h.key, tok, h.now()/1000)
		if err == nil {
			return tenant, exp, nil
		}
	}
	return "", 0, errf(statusUnauthorized, CodeUnauthorized, err.Error())
}

// readBody reads the request body within the body limit.
func (h *Handler) readBody(q *request) ([]byte, *apiError) {
	max := h.limits.Body
	if q.r.raw != nil {
		// The worker reads a body up to one byte past the limit and hands
		// over that much: its length says only that the body is over it.
		if int64(len(q.r.raw)) > max {
			return nil, errTooLarge("the body is over the limit of " + strconv.FormatInt(max, 10) + " bytes")
		}
		return q.r.raw, nil // the whole body, handed over by the worker: no copy of megabytes
	}
	if q.r.ContentLength > max {
		return nil, errTooLarge("the body is " + strconv.FormatInt(q.r.ContentLength, 10) +
			" bytes; the limit is " + strconv.FormatInt(max, 10))
	}
	if q.r.Body == nil {
		return nil, nil // the Workers runtime gives no body for a request without one
	}
	b, err := io.ReadAll(io.LimitReader(q.r.Body, max+1))
	if err != nil {
		return nil, errf(statusBadRequest, "invalid_input", "reading the body: "+err.Error())
	}
	if int64(len(b)) > max {
		return nil, errTooLarge("the body is over the limit of " + strconv.FormatInt(max, 10) + " bytes")
	}
	return b, nil
}

// wrote reports a stored write to OnWrite.
func (h *Handler) wrote(w Write, deleted bool) {
	if h.onWrite != nil {
		h.onWrite(w, deleted)
	}
}

// newTreeID returns 16 random bytes in hex.
func newTreeID() string {
	return randomTreeID()
}

func randomTreeID() string {
	var b [16]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// newETag returns a fresh quoted ETag for version v.
func newETag(v int64) string {
	var b [6]byte
	rand.Read(b[:])
	return `"` + strconv.FormatInt(v, 10) + "-" + hex.EncodeToString(b[:]) + `"`
}

func validTreeID(id string) bool {
	if len(id) != 32 {
		return false
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

func itoa(n int) string { return strconv.Itoa(n) }
