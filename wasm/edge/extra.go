package edge

import (
	"strconv"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/rawjson"
)

// extra answers the read routes a chat client builds on beside the tree
// itself: changes since a version, search, stats.
func (h *Handler) extra(q *request, id, route string) *apiError {
	query := q.r.URL.Query()
	switch route {
	case "changes":
		return h.changes(q, id)
	case "search":
		text := query.Get("q")
		if text == "" || len(text) > 1024 {
			return errInput(`"q" is the text to find: 1 to 1024 bytes`)
		}
		limit := 50
		if v := query.Get("limit"); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > 1000 {
				return errInput(`"limit" must be a whole number from 1 to 1000`)
			}
			limit = n
		}
		return h.read(q, id, func(t *core.Tree, m Meta) *apiError {
			buf := []byte(`{"hits":[`)
			for i, hit := range t.Search(text, limit) {
				if i > 0 {
					buf = append(buf, ',')
				}
				buf = append(buf, `{"node":`...)
				buf = rawjson.AppendString(buf, hit.NodeID)
				buf = append(buf, `,"role":`...)
				buf = rawjson.AppendString(buf, hit.Role)
				buf = append(buf, `,"snippet":`...)
				buf = rawjson.AppendString(buf, hit.Snippet)
				buf = append(buf, '}')
			}
			buf = append(buf, "]}\n"...)
			q.w.Header().Set("ETag", h.readETag(q, m.ETag))
			writeJSON(q.w, statusOK, buf)
			return nil
		})
	default: // stats
		return h.read(q, id, func(t *core.Tree, m Meta) *apiError {
			st := t.Stats()
			buf := []byte(`{"nodes":`)
			buf = rawjson.AppendInt(buf, int64(st.Nodes))
			for _, f := range []struct {
				k string
				v int
			}{{"branches", st.Branches}, {"roots", st.Roots}, {"leaves", st.Leaves}, {"depth", st.Depth}, {"message_bytes", st.MessageBytes}} {
				buf = append(buf, `,"`+f.k+`":`...)
				buf = rawjson.AppendInt(buf, int64(f.v))
			}
			buf = append(buf, `,"version":`...)
			buf = rawjson.AppendInt(buf, m.Version)
			buf = append(buf, `,"updated_at_ms":`...)
			buf = rawjson.AppendInt(buf, m.UpdatedMs)
			buf = append(buf, "}\n"...)
			q.w.Header().Set("ETag", h.readETag(q, m.ETag))
			writeJSON(q.w, statusOK, buf)
			return nil
		})
	}
}

// changes answers GET /v1/trees/{id}/changes?since=V: the deltas of the
// writes after version V (as live clients get them), oldest first, so a
// client that holds version V catches up without reading the tree; 410 gone
// when they are no longer all kept (read the tree instead).
func (h *Handler) changes(q *request, id string) *apiError {
	log, ok := h.store.(ChangeLog)
	if !ok {
		return errf(statusNotImplemented, CodeNotImplemented,
			"changes need the Durable Object build of the worker; read the tree instead")
	}
	since, err := strconv.ParseInt(q.r.URL.Query().Get("since"), 10, 64)
	if err != nil || since < 0 {
		return errInput(`"since" must be the version a client holds (a whole number)`)
	}
	return h.read(q, id, func(_ *core.Tree, m Meta) *apiError {
		if since > m.Version {
			return errInput("version " + strconv.FormatInt(since, 10) + " is newer than the tree's (" + strconv.FormatInt(m.Version, 10) + ")")
		}
		deltas, kept, err := log.Changes(q.ctx, q.tenant, id, since)
		if err != nil {
			return storeError(id, err)
		}
		if !kept && since == 0 {
			// A tree's create is no change of it: a client that holds nothing reads the tree.
			return errf(statusGone, "gone", "version 0 is before the tree was made, and its create is not kept as a change; read the tree instead")
		}
		if !kept {
			return errf(statusGone, "gone", "the changes since version "+strconv.FormatInt(since, 10)+
				" are no longer all kept (the last "+itoa(KeepChanges)+" are, within as many bytes as the tree takes); read the tree instead")
		}
		buf := []byte(`{"etag":`)
		buf = rawjson.AppendString(buf, m.ETag)
		buf = append(buf, `,"version":`...)
		buf = rawjson.AppendInt(buf, m.Version)
		buf = append(buf, `,"changes":[`...)
		for i, d := range deltas {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = append(buf, d...)
		}
		buf = append(buf, "]}\n"...)
		q.w.Header().Set("ETag", h.readETag(q, m.ETag))
		writeJSON(q.w, statusOK, buf)
		return nil
	})
}
