package edge

import (
	"bytes"
	"context"
	"io"
	"net/url"
)

// The Handler's own request, header and response types. They are what
// net/http's are to the handler (Handler.Serve), without importing net/http:
// in the worker's WebAssembly that package alone keeps its HTTP client, TLS
// and x509 reachable, about 0.5 MB of a gzipped upload that must stay under
// 2 MB (issue 25). Natively, Handler.ServeHTTP (nethttp.go) serves net/http
// requests through them; a Header is the same map as an http.Header, so it
// is shared, not copied.

// Header is a request's or an answer's header fields, keyed by their
// canonical names (as net/http's Header).
type Header map[string][]string

// Get is the first value of key, or "".
func (h Header) Get(key string) string {
	if vs := h[canonicalKey(key)]; len(vs) > 0 {
		return vs[0]
	}
	return ""
}

// Values is every value of key.
func (h Header) Values(key string) []string { return h[canonicalKey(key)] }

// Set makes value key's only value.
func (h Header) Set(key, value string) { h[canonicalKey(key)] = []string{value} }

// Add adds value to key's values.
func (h Header) Add(key, value string) {
	k := canonicalKey(key)
	h[k] = append(h[k], value)
}

// Del removes key.
func (h Header) Del(key string) { delete(h, canonicalKey(key)) }

// canonicalKey is key as net/http keeps it: the first letter and each one
// after a hyphen upper case, the rest lower case; a key with a byte that
// cannot be in a field name (space, control, non-ASCII, …) is kept as given.
func canonicalKey(key string) string {
	upper := true
	canonical := true
	for i := 0; i < len(key); i++ {
		c := key[i]
		if !tokenByte(c) {
			return key
		}
		if upper && 'a' <= c && c <= 'z' || !upper && 'A' <= c && c <= 'Z' {
			canonical = false
		}
		upper = c == '-'
	}
	if canonical {
		return key
	}
	b := []byte(key)
	upper = true
	for i, c := range b {
		if upper && 'a' <= c && c <= 'z' {
			b[i] = c - 'a' + 'A'
		} else if !upper && 'A' <= c && c <= 'Z' {
			b[i] = c - 'A' + 'a'
		}
		upper = c == '-'
	}
	return string(b)
}

// tokenByte reports whether c may be in a header field's name (RFC 9110's tchar).
func tokenByte(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	switch c {
	case '!', '#', '$', '%', '&', '\'', '*', '+', '-', '.', '^', '_', '`', '|', '~':
		return true
	}
	return false
}

// Request is one request to the Handler.
type Request struct {
	Method        string
	URL           *url.URL
	Header        Header
	Body          io.Reader // nil for none
	ContentLength int64     // -1 when not known
	ctx           context.Context
	raw           []byte // the whole body, when NewRequest was given it: read without a copy
}

// NewRequest is a request of method for rawURL (absolute, or a path) with
// body (nil for none) and no header fields yet. The Handler reads body as it
// is, without a copy: it must not change while the request is served.
func NewRequest(method, rawURL string, body []byte) (*Request, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, err
	}
	r := &Request{Method: method, URL: u, Header: Header{}, ContentLength: int64(len(body)), raw: body}
	if body != nil {
		r.Body = bytes.NewReader(body)
	}
	return r, nil
}

// Context is the request's context (context.Background unless set).
func (r *Request) Context() context.Context {
	if r.ctx == nil {
		return context.Background()
	}
	return r.ctx
}

// WithContext is a shallow copy of r with ctx as its context.
func (r *Request) WithContext(ctx context.Context) *Request {
	c := *r
	c.ctx = ctx
	return &c
}

// ResponseWriter is where the Handler writes an answer: its header fields,
// then its status (WriteHeader, 200 if the first Write comes first), then its body.
type ResponseWriter interface {
	Header() Header
	WriteHeader(status int)
	Write(p []byte) (int, error)
}

// The statuses and methods the Handler answers and serves (RFC 9110).
const (
	statusOK                    = 200
	statusCreated               = 201
	statusNoContent             = 204
	statusNotModified           = 304
	statusBadRequest            = 400
	statusUnauthorized          = 401
	statusNotFound              = 404
	statusMethodNotAllowed      = 405
	statusConflict              = 409
	statusGone                  = 410
	statusPreconditionFailed    = 412
	statusRequestEntityTooLarge = 413
	statusUnprocessableEntity   = 422
	statusUpgradeRequired       = 426
	statusPreconditionRequired  = 428
	statusTooManyRequests       = 429
	statusInternalServerError   = 500
	statusNotImplemented        = 501
	statusServiceUnavailable    = 503

	methodGet     = "GET"
	methodHead    = "HEAD"
	methodPost    = "POST"
	methodDelete  = "DELETE"
	methodOptions = "OPTIONS"
)
