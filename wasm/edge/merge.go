package edge

import (
	"strconv"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/rawjson"
)

// mergeTree merges the .tree.json in the body into tree id (core.Merge), as
// one atomic write with the rules of /ops: If-Match → 412 on mismatch, the
// node limit → 413, and a write that lost a race is retried on a fresh copy.
// The answer is {"etag","report"} with the report of what changed.
func (h *Handler) mergeTree(q *request, id string) (ae *apiError) {
	defer func() { h.endTurn(q, ae) }()
	body, done, ae := h.readWrite(q)
	if done || ae != nil {
		return ae
	}
	// A tree the caller cannot see is 404 whatever the body says.
	if ae := h.read(q, id, func(*core.Tree, Meta) *apiError { return nil }); ae != nil {
		return ae
	}
	if ae := checkJSON(body, "a .tree.json file"); ae != nil {
		return ae
	}
	incoming, ae := h.treeFromFile(body)
	if ae != nil {
		return ae
	}
	ifMatch := q.r.Header.Get("If-Match")
	check := ifMatch != ""
	return retrying(id, "merge; nothing was merged", func() (*apiError, bool) {
		m, buf, ae, retry := h.tryMerge(q, id, body, incoming, ifMatch, check)
		check = true // a retry checks the cached copy against the stored version (see tryOps)
		if retry || ae != nil {
			return ae, retry
		}
		return h.answerWrite(q, m, buf), false
	})
}

// answerWrite answers a write that was stored as m: 200 with its ETag and buf, the
// If-Match line told that the writer's turn went well (wonTurn).
func (h *Handler) answerWrite(q *request, m Meta, buf []byte) *apiError {
	h.wonTurn(q)
	q.w.Header().Set("ETag", m.ETag)
	writeJSON(q.w, statusOK, buf)
	return nil
}

// mergeAnswer is the body of a /merge answer: with "differs":true when the
// tree stored is not the one the sender sent, which then pulls it.
func mergeAnswer(rep core.MergeReport, etag string, differs bool) []byte {
	buf := []byte(`{"etag":`)
	buf = rawjson.AppendString(buf, etag)
	buf = append(buf, `,"report":`...)
	buf = rep.AppendJSON(buf)
	buf = append(buf, `,"differs":`...)
	buf = strconv.AppendBool(buf, differs)
	return append(buf, "}\n"...)
}

func (h *Handler) tryMerge(q *request, id string, body []byte, incoming *core.Tree, ifMatch string, check bool) (Meta, []byte, *apiError, bool) {
	e := h.cache.acquire(id)
	defer h.cache.release(e)
	fresh, ae := h.ensure(q, e, check && e.tree != nil)
	if ae != nil {
		return Meta{}, nil, ae, false
	}
	if ae := h.precondition(q, ifMatch, e.meta.ETag); ae != nil {
		return Meta{}, nil, ae, false
	}
	if ae := h.checkBrought(body, e.tree); ae != nil {
		if !fresh {
			return Meta{}, nil, nil, true // what it holds already passes: check the stored tree
		}
		return Meta{}, nil, ae, false
	}
	e.tree.TakeChanges()
	rep, err := e.tree.Merge(incoming)
	if err != nil {
		e.tree = nil
		if !fresh {
			return Meta{}, nil, nil, true
		}
		return Meta{}, nil, fromCore(err), false
	}
	// Whether the sender holds what is stored now (its active branch aside):
	// a merge may hide or show a kept value of a branch that the sender's own
	// calls left as it was, and a sender that does not learn it holds another
	// tree under the same ETag for good (live sync, found by live-random.mjs).
	differs := !e.tree.SameRecords(incoming)
	return h.commit(q, id, e, fresh, nil, func(etag string) []byte { return mergeAnswer(rep, etag, differs) })
}
