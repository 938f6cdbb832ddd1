package edge

import (
	"errors"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/formats"
	"github.com/sessiontree/sessiontree/core/rawjson"
)

// maxAttempts bounds the retries of a write that keeps losing races.
const maxAttempts = 24

func storeError(id string, err error) *apiError {
	if errors.Is(err, ErrNoTree) {
		return errTreeNotFound(id)
	}
	return errf(statusInternalServerError, CodeInternal, "storage: "+err.Error())
}

// ensure makes e hold the stored state of tree id for q's tenant. With
// validate, a cached copy is checked against the stored version first.
// It reports whether e was read from storage (or checked) just now.
func (h *Handler) ensure(q *request, e *entry, validate bool) (bool, *apiError) {
	if e.tree != nil && e.meta.Tenant != q.tenant {
		return false, errTreeNotFound(e.id)
	}
	if e.tree != nil && !validate {
		return false, nil
	}
	if e.tree != nil {
		m, err := h.store.Meta(q.ctx, q.tenant, e.id)
		if err != nil {
			return false, storeError(e.id, err)
		}
		if m.ETag == e.meta.ETag {
			return true, nil
		}
	}
	e.tree = nil
	m, nodes, branches, err := h.store.Load(q.ctx, q.tenant, e.id)
	if err != nil {
		return false, storeError(e.id, err)
	}
	// A message an earlier version stored with a key named twice is kept (the
	// tree stays readable), and every projection through it fails closed.
	// The joined file is this load's alone: the tree keeps it rather than a
	// copy (a 15 MB tree's copy, its new memory cleared and touched, was a
	// piece of 22 ms in the worker's CPU profile).
	t, err := core.UnmarshalOwned(core.JoinRows(m.Root, m.Active, branches, nodes), core.KeepDuplicateKeys())
	if err != nil {
		return false, errf(statusInternalServerError, string(core.CodeCorrupt),
			"the stored tree "+quote(e.id)+" cannot be read: "+err.Error())
	}
	t.TakeChanges()
	e.tree, e.meta = t, m
	e.rows, e.exact = rowBytes(nodes)+rowBytes(branches), true
	e.sizes = make(map[string]int, len(branches))
	for _, f := range branches {
		e.sizes["\x00"+f.Key] = len(f.Key) + len(f.JSON)
	}
	return true, nil
}

// knowSizes notes the stored lengths of the rows w puts and deletes in e.sizes.
func (e *entry) knowSizes(w Write) {
	if e.sizes == nil || len(e.sizes)+len(w.PutNodes)+len(w.PutBranches) > maxSizes {
		e.sizes = make(map[string]int, len(w.PutNodes)+len(w.PutBranches))
	}
	if len(w.PutNodes) <= maxSizes {
		for _, f := range w.PutNodes {
			e.sizes[f.Key] = len(f.Key) + len(f.JSON)
		}
	}
	for _, f := range w.PutBranches {
		e.sizes["\x00"+f.Key] = len(f.Key) + len(f.JSON)
	}
	for _, k := range w.DelNodes {
		e.sizes[k] = 0
	}
	for _, k := range w.DelBranches {
		e.sizes["\x00"+k] = 0
	}
}

// wroteRows tells a tree's glue the bytes its tree takes as stored after a
// write (HeaderRows).
func (h *Handler) wroteRows(q *request, rows int64) {
	if h.role == RoleObject {
		q.w.Header().Set(HeaderRows, strconv.FormatInt(rows, 10))
	}
}

// rowBytes is the bytes of rows as stored.
func rowBytes(rows []core.Fragment) int64 {
	var n int64
	for _, f := range rows {
		n += int64(len(f.Key) + len(f.JSON))
	}
	return n
}

// checkTreeSize refuses a tree whose rows would take more than the limit,
// 413 too_large.
func (h *Handler) checkTreeSize(rows int64) *apiError {
	if max := h.limits.Tree; max > 0 && rows > max {
		ae := errTooLarge("the tree would take " + strconv.FormatInt(rows, 10) + " bytes as stored; a tree may take at most " + strconv.FormatInt(max, 10) +
			"; nothing was stored (start a new tree with what you keep)")
		ae.limit = "tree"
		return ae
	}
	return nil
}

// read runs fn on the current state of tree id.
func (h *Handler) read(q *request, id string, fn func(*core.Tree, Meta) *apiError) *apiError {
	e := h.cache.acquire(id)
	defer h.cache.release(e)
	if _, ae := h.ensure(q, e, true); ae != nil {
		return ae
	}
	return fn(e.tree, e.meta)
}

func (h *Handler) list(q *request) *apiError {
	query := q.r.URL.Query()
	limit := maxListPage
	if v := query.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxListPage {
			return errInput(`"limit" must be a whole number from 1 to ` + itoa(maxListPage))
		}
		limit = n
	}
	after, ae := parseAfter(query.Get("after"))
	if ae != nil {
		return ae
	}
	metas, err := h.store.List(q.ctx, q.tenant, after, limit+1) // one more: is there a next page?
	if errors.Is(err, ErrNoTree) && after.ByID {
		return errAfter(after.ID)
	}
	if err != nil {
		return storeError("", err)
	}
	next := ""
	if len(metas) > limit {
		metas = metas[:limit]
		next = cursorAfter(metas[limit-1]).String()
	}
	buf := []byte(`{"trees":[`)
	for i, m := range metas {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, `{"id":`...)
		buf = rawjson.AppendString(buf, m.ID)
		buf = append(buf, `,"etag":`...)
		buf = rawjson.AppendString(buf, m.ETag)
		buf = append(buf, `,"version":`...)
		buf = rawjson.AppendInt(buf, m.Version)
		buf = append(buf, `,"created_at_ms":`...)
		buf = rawjson.AppendInt(buf, m.CreatedMs)
		buf = append(buf, `,"updated_at_ms":`...)
		buf = rawjson.AppendInt(buf, m.UpdatedMs)
		buf = append(buf, `,"title":`...)
		buf = rawjson.AppendString(buf, m.Title)
		buf = append(buf, `,"nodes":`...)
		buf = rawjson.AppendInt(buf, m.Nodes)
		buf = append(buf, `,"bytes":`...)
		buf = rawjson.AppendInt(buf, m.Bytes)
		buf = append(buf, '}')
	}
	buf = append(buf, ']')
	if next != "" { // the last page has no "next"
		buf = append(buf, `,"next":`...)
		buf = rawjson.AppendString(buf, next)
	}
	buf = append(buf, "}\n"...)
	writeJSON(q.w, statusOK, buf)
	return nil
}

// maxListPage is the most trees one page of the list holds.
const maxListPage = 1000

// builtCreate is the tree a create's body made, and its rows, within the
// limits of a created tree.
type builtCreate struct {
	t               *core.Tree
	report          []byte // an import's report, or nil
	nodes, branches []core.Fragment
	rows            int64 // their bytes as stored
	now             int64 // when it was made: the tree's created time
	id              string
	body            []byte
}

// buildCreate makes the tree of a create's body: {"messages":[…]}, a tree
// file, or a file of an interchange format (?format=).
func (h *Handler) buildCreate(q *request, body []byte) (*builtCreate, *apiError) {
	b := &builtCreate{now: h.now()}
	var ae *apiError
	if format := q.r.URL.Query().Get("format"); format != "" {
		b.t, b.report, ae = h.importTree(format, body)
	} else {
		b.t, ae = h.treeFromBody(body, b.now)
	}
	if ae != nil {
		return nil, ae
	}
	b.branches, b.nodes = b.t.Rows()
	b.t.TakeChanges()
	if ae := h.checkRows(b.nodes, b.branches); ae != nil {
		return nil, ae
	}
	b.rows = rowBytes(b.nodes) + rowBytes(b.branches)
	if ae := h.checkTreeSize(b.rows); ae != nil {
		return nil, ae
	}
	return b, nil
}

func (h *Handler) create(q *request) *apiError {
	body, done, ae := h.readWrite(q)
	if done || ae != nil {
		return ae // a retried create is answered even at the quota
	}
	if ae := h.checkQuota(q); ae != nil {
		return ae
	}
	id := newTreeID()
	if h.role == RoleObject {
		id = q.r.Header.Get(HeaderCreate) // checked by serveObject
		if ae := h.checkCreateKey(q, id); ae != nil {
			return ae
		}
	}
	// A place first, at the body's size and createSlack (the count of
	// trees, and a tenant at its quota of bytes already: refused before the
	// body is parsed); the tree's bytes once it is built (reserveRows).
	release, ae := h.reserve(q, id, int64(len(body))+createSlack)
	if ae != nil {
		return ae
	}
	if release != nil {
		defer func() {
			if release != nil {
				release()
			}
		}()
	}
	b := h.takeBuilt(id, body)
	if b == nil {
		if b, ae = h.buildCreate(q, body); ae != nil {
			return ae
		}
	}
	if ae := h.reserveRows(q, id, b.rows, release != nil); ae != nil {
		h.keepBuilt(q, id, body, b)
		return ae
	}
	t, nodes, branches, rows, now, report := b.t, b.nodes, b.branches, b.rows, b.now, b.report
	m := Meta{ID: id, Tenant: q.tenant, Version: 1, ETag: newETag(1), Root: t.Root(), Active: t.ActiveBranch(),
		CreatedMs: now, UpdatedMs: now, Title: t.Title(), Nodes: int64(t.Len()), Bytes: rows}
	location := "/v1/trees/" + m.ID
	buf := append([]byte(`{"id":`), rawjson.AppendString(nil, m.ID)...)
	buf = append(buf, `,"etag":`...)
	buf = rawjson.AppendString(buf, m.ETag)
	buf = append(buf, `,"nodes":`...)
	buf = rawjson.AppendInt(buf, int64(t.Len()))
	if report != nil {
		buf = append(buf, `,"import":`...)
		buf = append(buf, report...)
	}
	buf = append(buf, "}\n"...)
	w := Write{Meta: m, PutNodes: nodes, PutBranches: branches,
		Idem: h.keep(q, statusCreated, m.ETag, location, buf)}
	if err := h.store.Create(q.ctx, w); err != nil {
		if errors.Is(err, ErrTreeExists) {
			return h.afterFailedWrite(q, errCreateKeyUsed(q, m.ID))
		}
		return h.afterFailedWrite(q, storeError(m.ID, err))
	}
	release = nil // the tree holds the place now
	h.wrote(Write{Meta: m, PutNodes: nodes, PutBranches: branches}, false)
	e := h.cache.acquire(m.ID)
	e.tree, e.meta = t, m
	e.rows, e.exact = rows, true
	e.sizes = nil
	e.knowSizes(w)
	h.cache.release(e)
	h.wroteRows(q, rows)
	q.w.Header().Set("ETag", h.readETag(q, m.ETag))
	q.w.Header().Set("Location", location)
	writeJSON(q.w, statusCreated, buf)
	return nil
}

func (h *Handler) get(q *request, id string) *apiError {
	return h.read(q, id, func(t *core.Tree, m Meta) *apiError {
		q.w.Header().Set("ETag", h.readETag(q, m.ETag))
		if inm := q.r.Header.Get("If-None-Match"); inm != "" && etagListHas(inm, m.ETag) {
			q.w.WriteHeader(statusNotModified)
			return nil
		}
		writeJSON(q.w, statusOK, h.treeJSON(t, id, m.ETag))
		return nil
	})
}

// treeJSON is the .tree.json of tree id at etag, serialized once per
// version: GETs and exports of an unchanged tree share the bytes.
func (h *Handler) treeJSON(t *core.Tree, id, etag string) []byte {
	h.exportMu.Lock()
	c := h.lastExport
	h.exportMu.Unlock()
	if c.id == id && c.etag == etag && c.format == "" {
		return c.body
	}
	body := append(t.Marshal(), '\n')
	h.exportMu.Lock()
	h.lastExport = exportCache{id: id, etag: etag, body: body}
	h.exportMu.Unlock()
	return body
}

func (h *Handler) delete(q *request, id string) *apiError {
	if done, ae := h.beginIdem(q, nil); done || ae != nil {
		return ae
	}
	e := h.cache.acquire(id)
	defer h.cache.release(e)
	var ifVersion int64
	ifMatch := q.r.Header.Get("If-Match")
	if ifMatch != "" || q.idem != nil { // a kept answer is only for a tree that was there
		if _, ae := h.ensure(q, e, true); ae != nil {
			return ae
		}
	}
	if ifMatch != "" {
		if !etagListHas(ifMatch, e.meta.ETag) {
			return errStaleIfMatch(q, ifMatch, e.meta.ETag)
		}
		ifVersion = e.meta.Version
	}
	err := h.store.Delete(q.ctx, q.tenant, id, ifVersion, h.keep(q, statusNoContent, "", "", nil))
	e.tree = nil
	if errors.Is(err, ErrStale) {
		return errf(statusPreconditionFailed, CodePreconditionFail,
			"the tree "+quote(id)+" changed since the If-Match "+q.r.Header.Get("If-Match")+"; nothing was deleted")
	}
	if err != nil {
		return h.afterFailedWrite(q, storeError(id, err))
	}
	h.wrote(Write{Meta: Meta{ID: id, Tenant: q.tenant}}, true)
	h.cache.drop(id)
	q.w.WriteHeader(statusNoContent)
	return nil
}

// maxWindow bounds the messages of one projection window.
const maxWindow = 10_000

// projection answers the linear projection of a branch (the active one by
// default): the whole path, or with ?tail=N (and ?skip=M) only the window of
// N messages that ends M messages above the leaf, walking only that window,
// with "length" (the whole path's) and "start" (the window's first index).
func (h *Handler) projection(q *request, id string) *apiError {
	query := q.r.URL.Query()
	// A parameter of the other kind of answer is refused, not dropped: a
	// budget sent without "for" was answered with every message, unbudgeted.
	if api := query.Get("for"); api != "" {
		for _, k := range []string{"tail", "skip"} {
			if query.Has(k) {
				return errInput(quote(k) + ` is a window of the stored messages; a request for a model API ("for") is bounded by "budget"`)
			}
		}
		return h.modelProjection(q, id, api)
	}
	for _, k := range []string{"budget", "thinking"} {
		if query.Has(k) {
			return errInput(quote(k) + ` needs "for" (openai-chat, openai-responses or anthropic); without it the stored messages are answered as they are`)
		}
	}
	if query.Has("skip") && !query.Has("tail") {
		return errInput(`"skip" needs "tail": the window is tail messages ending skip above the leaf`)
	}
	tail, skip := -1, 0
	if v := query.Get("tail"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxWindow {
			return errInput(`"tail" must be a whole number from 1 to ` + itoa(maxWindow))
		}
		tail = n
		if v := query.Get("skip"); v != "" {
			if skip, err = strconv.Atoi(v); err != nil || skip < 0 {
				return errInput(`"skip" must be a whole number from 0`)
			}
		}
	}
	return h.read(q, id, func(t *core.Tree, m Meta) *apiError {
		if inm := q.r.Header.Get("If-None-Match"); inm != "" && etagListHas(inm, m.ETag) {
			q.w.Header().Set("ETag", h.readETag(q, m.ETag))
			q.w.WriteHeader(statusNotModified)
			return nil
		}
		branch := query.Get("branch")
		if branch == "" {
			branch = t.ActiveBranch()
		}
		var msgs []core.Message
		var err error
		length := -1
		if tail < 0 {
			msgs, err = t.LinearProjectionOf(branch)
		} else if length, err = t.PathLen(branch); err == nil {
			_, msgs, err = t.AppendTailOf(nil, nil, branch, skip, tail)
		}
		if err != nil {
			return fromCore(err)
		}
		buf := []byte(`{"branch":`)
		buf = rawjson.AppendString(buf, branch)
		if length >= 0 {
			buf = append(buf, `,"length":`...)
			buf = rawjson.AppendInt(buf, int64(length))
			buf = append(buf, `,"start":`...)
			buf = rawjson.AppendInt(buf, int64(max(0, length-skip-len(msgs))))
		}
		buf = append(buf, `,"messages":[`...)
		for i, msg := range msgs {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = append(buf, msg...)
		}
		buf = append(buf, "]}\n"...)
		q.w.Header().Set("ETag", h.readETag(q, m.ETag))
		writeJSON(q.w, statusOK, buf)
		return nil
	})
}

// ops applies a batch of operations atomically. The cached tree is used
// without a read first; the write is conditional on the stored version, and a
// write that lost a race (or an op that failed on a copy not checked this
// request) is retried on a fresh copy.
func (h *Handler) ops(q *request, id string) (ae *apiError) {
	defer func() { h.endTurn(q, ae) }()
	body, done, ae := h.readWrite(q)
	if done || ae != nil {
		return ae
	}
	ops, ae := h.opsFromBody(body)
	if ae != nil {
		return ae
	}
	ifMatch := q.r.Header.Get("If-Match")
	check := ifMatch != ""
	return retrying(id, "write; nothing was applied", func() (*apiError, bool) {
		m, buf, ae, retry := h.tryOps(q, id, ops, ifMatch, check)
		check = true // a retry checks the cached copy against the stored version
		if retry || ae != nil {
			return ae, retry
		}
		return h.answerWrite(q, m, buf), false
	})
}

// opsAnswer is the body of a /ops answer.
func opsAnswer(results []string, etag string) []byte {
	buf := []byte(`{"results":[`)
	for i, r := range results {
		if i > 0 {
			buf = append(buf, ',')
		}
		if r == "" {
			buf = append(buf, "null"...)
		} else {
			buf = rawjson.AppendString(buf, r)
		}
	}
	buf = append(buf, `],"etag":`...)
	buf = rawjson.AppendString(buf, etag)
	return append(buf, "}\n"...)
}

// errStaleIfMatch is the 412 of a stale If-Match; it carries the current
// ETag, so a client that only needs the version can skip a read.
func errStaleIfMatch(q *request, ifMatch, etag string) *apiError {
	q.w.Header().Set("ETag", etag)
	return errf(statusPreconditionFailed, CodePreconditionFail,
		"If-Match "+ifMatch+" does not match the tree's ETag "+etag)
}

// retrying runs try until it answers without asking for a retry, backing off
// a little between attempts; a write that keeps losing races for maxAttempts
// gets 503 with code conflict, naming what was not done.
func retrying(id, notDone string, try func() (ae *apiError, retry bool)) *apiError {
	for attempt := 0; attempt < maxAttempts; attempt++ {
		if attempt > 1 {
			time.Sleep(time.Duration(rand.IntN(2+attempt*attempt)) * time.Millisecond)
		}
		if ae, retry := try(); !retry {
			return ae
		}
	}
	return errf(statusServiceUnavailable, string(core.CodeConflict), // Retry-After: see writeError
		"the tree "+quote(id)+" kept changing under this "+notDone+", try again")
}

// tryOps is one attempt of ops; check says to compare a cached copy with the
// stored version first (with If-Match, and on a retry). A copy that may be
// stale is checked, not dropped, before an op that failed on it or a switch
// that changed nothing is answered: Apply leaves it as it was, and reading
// the whole tree again made every refused op cost the tree's size (1.2–1.7 s
// on a 21 MB tree in the worker, where an append took 45–370 ms).
func (h *Handler) tryOps(q *request, id string, ops []core.Op, ifMatch string, check bool) (Meta, []byte, *apiError, bool) {
	e := h.cache.acquire(id)
	defer h.cache.release(e)
	fresh, ae := h.ensure(q, e, check && e.tree != nil)
	if ae != nil {
		return Meta{}, nil, ae, false
	}
	if ae := h.precondition(q, ifMatch, e.meta.ETag); ae != nil {
		return Meta{}, nil, ae, false
	}
	e.tree.TakeChanges()
	if onlySwitchesToActive(ops, e.tree.ActiveBranch()) {
		// core records a switch as a touch of the branch even when it is
		// already active; for the API it changes nothing.
		if !fresh {
			return Meta{}, nil, nil, true
		}
		return e.meta, opsAnswer(make([]string, len(ops)), e.meta.ETag), nil, false
	}
	results, err := e.tree.Apply(ops, h.now())
	if err != nil {
		if !fresh {
			return Meta{}, nil, nil, true // the copy may be stale: check before blaming the ops
		}
		return Meta{}, nil, fromCore(err), false
	}
	return h.commit(q, id, e, fresh, createdBy(ops, results), func(etag string) []byte { return opsAnswer(results, etag) })
}

// createdBy is the ids of the nodes ops made (their results): an append's,
// an edit's and a regenerate's result is a new node's id, every other op's a
// branch name or "".
func createdBy(ops []core.Op, results []string) []string {
	var out []string
	for i, op := range ops {
		switch op.Op {
		case "append", "edit", "regenerate":
			if i < len(results) && results[i] != "" {
				out = append(out, results[i])
			}
		}
	}
	return out
}

// commit stores what changed in the cached tree e since its TakeChanges, as
// one version-guarded write with its answer (answer(etag)) kept for the
// request's Idempotency-Key. A write that changed nothing stores nothing and
// keeps the ETag; on a copy that was not fresh it asks for a retry, as it does
// when the stored version moved meanwhile. created are the ids of the new
// nodes the change made, if known (Write.Created). It returns what the try functions
// return: the new meta, the answer, an error, or a retry.
func (h *Handler) commit(q *request, id string, e *entry, fresh bool, created []string, answer func(etag string) []byte) (Meta, []byte, *apiError, bool) {
	w, changed, ae := h.writeOf(e.tree, e.meta)
	w.Created = created
	if ae != nil {
		e.takeBack()
		return Meta{}, nil, ae, false
	}
	if !changed {
		if !fresh {
			return Meta{}, nil, nil, true // a no-op here may not be one on the stored tree: check it
		}
		return e.meta, answer(e.meta.ETag), nil, false // nothing to store: the ETag stays
	}
	rows, exact, ae := h.sizeAfter(q, e, w)
	if ae != nil {
		e.takeBack()
		return Meta{}, nil, ae, false
	}
	if rows < 0 {
		e.tree = nil // the size is not known exactly: read the tree again and retry
		return Meta{}, nil, nil, true
	}
	w.Meta.Bytes = rows
	buf := answer(w.Meta.ETag)
	w.Idem = h.keep(q, statusOK, w.Meta.ETag, "", buf)
	if err := h.store.Commit(q.ctx, e.meta.Version, w); err != nil {
		e.tree = nil
		if errors.Is(err, ErrStale) {
			return Meta{}, nil, nil, true
		}
		return Meta{}, nil, h.afterFailedWrite(q, storeError(id, err)), false
	}
	e.meta = w.Meta
	e.rows, e.exact = rows, exact
	e.knowSizes(w)
	h.wroteRows(q, rows)
	h.wrote(w, false)
	return w.Meta, buf, nil, false
}

// sizeAfter is the size of e's tree as stored once w is, and whether it is
// exact; or -1 to read the tree again and retry, or the refusal of a write
// that grows the tree past the limit (Limits.Tree) or past what its tenant's
// quota of bytes grants it (checkGrant). One that does not grow it (a label,
// a switch, a deletion) goes in even over them (a tree stored before the
// limit, or under a larger one).
//
// Where a store can say what its rows take (a RowSizer), the size is exact:
// the rows the write stores, less those it replaces or deletes (an append
// replaces two: its parent's, whose children grew, and its branch's; the new
// nodes, w.Created, replace none), known from the last writes (e.sizes) or
// else asked of the store. Counted as an upper bound
// instead (every row stored counted whole, none taken off), the size of a
// tree of 2.4 KB messages doubled with each append's parent row: its
// tenant's quota filled twice as fast as its trees did. A size counted since
// the tree was read is exact only once the tree is read again (-1).
func (h *Handler) sizeAfter(q *request, e *entry, w Write) (int64, bool, *apiError) {
	put := rowBytes(w.PutNodes) + rowBytes(w.PutBranches)
	if put == 0 && len(w.DelNodes)+len(w.DelBranches) == 0 {
		return e.rows, e.exact, nil
	}
	max := h.limits.Tree
	sizer, ok := h.store.(RowSizer)
	if !ok || max <= 0 && !h.hasGrant(q) {
		bound := e.rows + put
		if put > 0 {
			if ae := h.checkTreeSize(bound); ae != nil {
				return 0, false, ae
			}
			if ae := h.checkGrant(q, e.id, bound); ae != nil {
				return 0, false, ae
			}
		}
		return bound, false, nil
	}
	if !e.exact {
		return -1, false, nil
	}
	var old int64
	var keys, names []string
	known := func(k string) bool {
		n, ok := e.sizes[k]
		old += int64(n)
		return ok
	}
	created := make(map[string]bool, len(w.Created))
	for _, id := range w.Created {
		created[id] = true
	}
	for _, f := range w.PutNodes {
		if !created[f.Key] && !known(f.Key) {
			keys = append(keys, f.Key)
		}
	}
	for _, k := range w.DelNodes {
		if !known(k) {
			keys = append(keys, k)
		}
	}
	for _, f := range w.PutBranches {
		if !known("\x00" + f.Key) {
			names = append(names, f.Key)
		}
	}
	for _, k := range w.DelBranches {
		if !known("\x00" + k) {
			names = append(names, k)
		}
	}
	if len(keys)+len(names) > 0 {
		n, err := sizer.RowBytes(q.ctx, q.tenant, e.id, keys, names)
		if err != nil {
			return 0, false, storeError(e.id, err)
		}
		old += n
	}
	after := e.rows + put - old
	if after > e.rows {
		if ae := h.checkTreeSize(after); ae != nil {
			return 0, false, ae
		}
		if ae := h.checkGrant(q, e.id, after); ae != nil {
			return 0, false, ae
		}
	}
	return after, true, nil
}

// onlySwitchesToActive reports whether ops are all switches to the branch
// that is already active.
func onlySwitchesToActive(ops []core.Op, active string) bool {
	for _, op := range ops {
		if op.Op != "switch" || op.Branch != active {
			return false
		}
	}
	return true
}

// maxRowOver is how much a stored row (one node or branch as JSON) may exceed
// the message limit: its ids, times and label.
const maxRowOver = 64 << 10

// checkRows refuses rows over the row limit, before anything is stored.
func (h *Handler) checkRows(nodes, branches []core.Fragment) *apiError {
	max := h.limits.Message + maxRowOver
	for _, set := range [2][]core.Fragment{nodes, branches} {
		for _, f := range set {
			if len(f.JSON) > max {
				return errTooLarge("the stored form of " + quote(f.Key) + " would be " + itoa(len(f.JSON)) +
					" bytes; a node or branch may have at most " + itoa(max) + "; nothing was stored")
			}
		}
	}
	return nil
}

// writeOf is the Write of what changed in t since the last TakeChanges, and
// whether anything did (a write that changes nothing keeps the ETag). A row
// over the limit is refused.
func (h *Handler) writeOf(t *core.Tree, prev Meta) (Write, bool, *apiError) {
	ch := t.TakeChanges()
	m := prev
	m.Version++
	m.ETag = newETag(m.Version)
	m.Root, m.Active = t.Root(), t.ActiveBranch()
	m.Title, m.Nodes = t.Title(), int64(t.Len())
	m.UpdatedMs = h.now()
	w := Write{Meta: m}
	for _, id := range ch.Nodes {
		if id == "" {
			continue // the parent of a root
		}
		if b, ok := t.NodeJSON(id); ok {
			core.TickBytes(len(b))
			w.PutNodes = append(w.PutNodes, core.Fragment{Key: id, JSON: b})
		} else {
			w.DelNodes = append(w.DelNodes, id)
		}
	}
	for _, name := range ch.Branches {
		if b, ok := t.BranchJSON(name); ok {
			w.PutBranches = append(w.PutBranches, core.Fragment{Key: name, JSON: b})
		} else {
			w.DelBranches = append(w.DelBranches, name)
		}
	}
	changed := len(w.PutNodes)+len(w.DelNodes)+len(w.PutBranches)+len(w.DelBranches) > 0 ||
		m.Root != prev.Root || m.Active != prev.Active
	if _, ok := h.store.(ChangeLog); ok && changed {
		w.Delta = Delta(w, false, MaxDelta)
	}
	return w, changed, h.checkRows(w.PutNodes, w.PutBranches)
}

// contentTypes of the export formats that are not plain JSON.
var contentTypes = map[string]string{
	formats.Markdown:    "text/markdown; charset=utf-8",
	formats.ClaudeCode:  "application/x-ndjson; charset=utf-8",
	formats.Pi:          "application/x-ndjson; charset=utf-8",
	formats.Codex:       "application/x-ndjson; charset=utf-8",
	formats.SillyTavern: "application/x-ndjson; charset=utf-8",
}

// export writes the tree in a format of SPEC §7 (core/formats), or as its
// own .tree.json for format=sessiontree (the default).
func (h *Handler) export(q *request, id string) *apiError {
	format := q.r.URL.Query().Get("format")
	if format != "" && format != "sessiontree" && !contains(formats.Names, format) {
		return errf(statusBadRequest, string(core.CodeInvalidInput), "unknown format "+quote(format)+
			"; formats: sessiontree, "+strings.Join(formats.Names, ", "))
	}
	if format == "sessiontree" {
		format = "" // one kept export for both spellings
	}
	return h.read(q, id, func(t *core.Tree, m Meta) *apiError {
		q.w.Header().Set("ETag", h.readETag(q, m.ETag))
		if inm := q.r.Header.Get("If-None-Match"); inm != "" && etagListHas(inm, m.ETag) {
			q.w.WriteHeader(statusNotModified)
			return nil
		}
		var body []byte
		ext := ".tree.json"
		// The last export is kept with the ETag it was made at: downloading
		// an unchanged tree again costs no second rendering.
		h.exportMu.Lock()
		if c := h.lastExport; c.id == id && c.etag == m.ETag && c.format == format {
			body = c.body
		}
		h.exportMu.Unlock()
		if body == nil {
			if format != "" {
				var err error
				if body, err = formats.Export(t, format); err != nil {
					return fromCore(err)
				}
			} else {
				body = h.treeJSON(t, id, m.ETag)
			}
			h.exportMu.Lock()
			h.lastExport = exportCache{id: id, etag: m.ETag, format: format, body: body}
			h.exportMu.Unlock()
		}
		if format != "" && format != "sessiontree" {
			ext = "." + format + ".json"
			if ct := contentTypes[format]; ct != "" {
				q.w.Header().Set("Content-Type", ct)
				ext = "." + format + ".jsonl"
				if format == formats.Markdown {
					ext = ".md"
				}
			}
		}
		q.w.Header().Set("Content-Disposition", `attachment; filename="`+id+ext+`"`)
		writeBody(q.w, statusOK, body)
		return nil
	})
}

func (h *Handler) merge(q *request, id string) *apiError { return h.mergeTree(q, id) }

// exportCache is a Handler's last export: tree, ETag, format and bytes.
type exportCache struct {
	id, etag, format string
	body             []byte
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// etagListHas reports whether an If-Match / If-None-Match header value names
// etag ("*" names any), whatever ticket it carries (turns.go).
func etagListHas(header, etag string) bool {
	for _, part := range strings.Split(header, ",") {
		part, _ = splitTicket(strings.TrimPrefix(strings.TrimSpace(part), "W/"))
		if part == "*" || part == etag {
			return true
		}
	}
	return false
}
