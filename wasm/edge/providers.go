package edge

import (
	"strconv"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/provider"
	"github.com/sessiontree/sessiontree/core/rawjson"
)

// modelProjection answers GET /v1/trees/{id}/projection?for=API[&branch=]
// [&budget=][&thinking=false]: the branch's path as a request body for a model API
// (core/provider), {"branch","for","request":{…},"report":{…}}; request is
// the body's fields (add model, max_tokens, …) and report what was changed
// or left out, as the JS API's t.projectFor gives them.
func (h *Handler) modelProjection(q *request, id, name string) *apiError {
	api, ok := provider.ParseAPI(name)
	if !ok {
		return errf(statusBadRequest, string(core.CodeInvalidInput), "unknown API "+quote(name)+
			"; for=openai-chat, openai-responses or anthropic")
	}
	var opts provider.Options
	if b := q.r.URL.Query().Get("budget"); b != "" {
		n, err := strconv.Atoi(b)
		if err != nil || n < 0 {
			return errf(statusBadRequest, string(core.CodeInvalidInput), "budget must be a whole number of tokens, 0 or more, not "+quote(b))
		}
		opts.Budget = n
	}
	switch th := q.r.URL.Query().Get("thinking"); th {
	case "", "true":
	case "false":
		opts.DropThinking = true
	default:
		return errf(statusBadRequest, string(core.CodeInvalidInput), "thinking must be true or false, not "+quote(th))
	}
	return h.read(q, id, func(t *core.Tree, m Meta) *apiError {
		// As every projection: a client (or the glue's kept gzip of a large
		// one) holding the current version gets 304, not the request again.
		if inm := q.r.Header.Get("If-None-Match"); inm != "" && etagListHas(inm, m.ETag) {
			q.w.Header().Set("ETag", h.readETag(q, m.ETag))
			q.w.WriteHeader(statusNotModified)
			return nil
		}
		branch := q.r.URL.Query().Get("branch")
		if branch == "" {
			branch = t.ActiveBranch()
		}
		req, err := provider.ProjectTree(t, branch, api, opts)
		if err != nil {
			return fromCore(err)
		}
		buf := []byte(`{"branch":`)
		buf = rawjson.AppendString(buf, branch)
		buf = append(buf, `,"for":`...)
		buf = rawjson.AppendString(buf, string(api))
		buf = append(buf, `,"request":`...)
		buf = append(buf, req.Body()...)
		buf = append(buf, `,"report":`...)
		buf = req.Report.AppendJSON(buf)
		buf = append(buf, "}\n"...)
		q.w.Header().Set("ETag", h.readETag(q, m.ETag))
		writeJSON(q.w, statusOK, buf)
		return nil
	})
}
