package edge

import (
	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/rawjson"
)

// applyDelta answers POST /v1/trees/{id}/delta: a client that holds the tree
// at the ETag it names in If-Match sends only what it changed since, as the
// rows of a delta document (core.ApplyDelta: {"nodes":{id: node},
// "branches":{name: branch},"deleted_nodes","deleted_branches"}, what
// takeChanges gives in JS, what live clients are pushed), instead of the
// whole tree to /merge. If-Match is required (428 without it): a delta means
// something only on top of the version it was taken from. Rows that
// contradict the stored tree (another node under the same id, a parent or
// leaf in neither) are 409 conflict, and nothing changes: the client merges
// instead. The rules of /merge hold otherwise: 412, the node, message and
// row limits (413), Idempotency-Key, an unchanged ETag when nothing changed.
// The answer is {"etag","nodes","branches"}: how many rows the delta carried.
func (h *Handler) applyDelta(q *request, id string) (ae *apiError) {
	defer func() { h.endTurn(q, ae) }()
	body, done, ae := h.readWrite(q)
	if done || ae != nil {
		return ae
	}
	if ae := h.read(q, id, func(*core.Tree, Meta) *apiError { return nil }); ae != nil {
		return ae
	}
	ifMatch := q.r.Header.Get("If-Match")
	if ifMatch == "" {
		return errf(statusPreconditionRequired, "precondition_required",
			"a delta applies on top of the version it was taken from: send that ETag in If-Match")
	}
	if ae := checkJSON(body, `a delta {"nodes":{…},"branches":{…},"deleted_nodes":[…],"deleted_branches":[…]}`); ae != nil {
		return ae
	}
	nodes, branches, ae := h.checkDelta(body)
	if ae != nil {
		return ae
	}
	return retrying(id, "delta; nothing was applied", func() (*apiError, bool) {
		e := h.cache.acquire(id)
		defer h.cache.release(e)
		fresh, ae := h.ensure(q, e, e.tree != nil)
		if ae != nil {
			return ae, false
		}
		if ae := h.precondition(q, ifMatch, e.meta.ETag); ae != nil {
			return ae, false
		}
		if ae := h.checkBrought(body, e.tree); ae != nil {
			if !fresh {
				e.tree = nil // what it holds already passes: check the stored tree
				return nil, true
			}
			return ae, false
		}
		e.tree.TakeChanges()
		if err := e.tree.ApplyDelta(body, false); err != nil {
			if !fresh {
				e.tree = nil
				return nil, true
			}
			return fromCore(err), false // the tree is unchanged
		}
		m, buf, ae, retry := h.commit(q, id, e, fresh, nil, func(etag string) []byte {
			b := []byte(`{"etag":`)
			b = rawjson.AppendString(b, etag)
			b = append(b, `,"nodes":`...)
			b = rawjson.AppendInt(b, int64(nodes))
			b = append(b, `,"branches":`...)
			b = rawjson.AppendInt(b, int64(branches))
			return append(b, "}\n"...)
		})
		if retry || ae != nil {
			return ae, retry
		}
		return h.answerWrite(q, m, buf), false
	})
}

// checkDelta counts a delta's rows and refuses, before anything is applied, a
// message over the limit (413) or more rows than a tree may have nodes.
func (h *Handler) checkDelta(body []byte) (nodes, branches int, ae *apiError) {
	count := func(key string, each func(k string, row []byte) *apiError) (int, *apiError) {
		raw, ok := rawjson.Lookup(body, key)
		if !ok || rawjson.NewDecoder(raw).Null() {
			return 0, nil
		}
		if raw[0] != '{' {
			return 0, errInput(quote(key) + " is an object of rows")
		}
		n := 0
		d := rawjson.NewDecoder(raw)
		var bad *apiError
		err := d.Object(func(k string) error {
			row, err := d.Raw()
			if err != nil {
				return err
			}
			if n++; n > h.limits.Nodes {
				bad = errTooLarge("the delta has more than " + itoa(h.limits.Nodes) + " rows in " + quote(key))
				return bad
			}
			if bad = each(k, row); bad != nil {
				return bad
			}
			return nil
		})
		if bad != nil {
			return 0, bad
		}
		if err != nil {
			return 0, errBadJSON(quote(key), err)
		}
		return n, nil
	}
	nodes, ae = count("nodes", func(k string, row []byte) *apiError {
		if msg, ok := rawjson.Lookup(row, "message"); ok && len(msg) > h.limits.Message {
			return h.messageTooLarge("the message of node "+quote(k), len(msg))
		}
		return nil
	})
	if ae != nil {
		return 0, 0, ae
	}
	branches, ae = count("branches", func(string, []byte) *apiError { return nil })
	return nodes, branches, ae
}
