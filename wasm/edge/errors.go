package edge

import (
	"errors"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/rawjson"
)

// Codes of the HTTP layer, beside the core codes of SPEC §4.
const (
	CodeUnauthorized     = "unauthorized"       // no bearer token, or a bad one
	CodeMethodNotAllowed = "method_not_allowed" // the route exists, the method does not
	CodePreconditionFail = "precondition_failed"
	CodeNotImplemented   = "not_implemented"
	CodeInternal         = "internal"
)

// apiError is an error response: a status and the {"error":{"code","message"}} body,
// with "limit" too when a limit that no retry of the same write passes refused it
// ("tree": Limits.Tree; "message": Limits.Message).
type apiError struct {
	status  int
	code    string
	message string
	limit   string
}

func (e *apiError) Error() string { return e.code + ": " + e.message }

func errf(status int, code, message string) *apiError {
	return &apiError{status: status, code: code, message: message}
}

func errTreeNotFound(id string) *apiError {
	return errf(statusNotFound, string(core.CodeNotFound), "no tree with id "+quote(id))
}

func errTooLarge(message string) *apiError {
	return errf(statusRequestEntityTooLarge, string(core.CodeTooLarge), message)
}

func errBadJSON(what string, err error) *apiError {
	return errf(statusBadRequest, string(core.CodeInvalidInput), what+" is not valid JSON: "+err.Error())
}

// fromCore maps an error of the core package to its HTTP status, keeping its code.
func fromCore(err error) *apiError {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae
	}
	var ce *core.Error
	if !errors.As(err, &ce) {
		return errf(statusInternalServerError, CodeInternal, err.Error())
	}
	status := statusBadRequest
	switch ce.Code {
	case core.CodeNotFound, core.CodeBranchNotFound:
		status = statusNotFound
	case core.CodeBranchExists, core.CodeConflict, core.CodeEmptyBranch:
		status = statusConflict
	case core.CodeTooLarge:
		status = statusRequestEntityTooLarge
	}
	return errf(status, string(ce.Code), ce.Message)
}

func writeError(w ResponseWriter, e *apiError) {
	if e.status == statusServiceUnavailable && w.Header().Get("Retry-After") == "" {
		w.Header().Set("Retry-After", "1")
	}
	buf := append([]byte(nil), `{"error":{"code":`...)
	buf = rawjson.AppendString(buf, e.code)
	buf = append(buf, `,"message":`...)
	buf = rawjson.AppendString(buf, e.message)
	if e.limit != "" {
		buf = append(buf, `,"limit":`...)
		buf = rawjson.AppendString(buf, e.limit)
	}
	buf = append(buf, "}}\n"...)
	writeJSON(w, e.status, buf)
}

func writeJSON(w ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	writeBody(w, status, body)
}

// writeBody writes body with its length, keeping a Content-Type already set
// (JSON by default).
func writeBody(w ResponseWriter, status int, body []byte) {
	h := w.Header()
	if h.Get("Content-Type") == "" {
		h.Set("Content-Type", "application/json; charset=utf-8")
	}
	h.Set("Content-Length", itoa(len(body)))
	w.WriteHeader(status)
	w.Write(body)
}

// quote renders a client-supplied id for a message, cut short if long.
func quote(s string) string {
	if len(s) > 80 {
		s = s[:80] + "…"
	}
	return string(rawjson.AppendString(nil, s))
}
