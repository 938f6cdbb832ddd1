//go:build !js || stock

package edge

import "net/http"

// ServeHTTP serves a net/http request (natively: tests, a Go server; the
// worker's stock build). The worker's own build leaves net/http out (see
// http.go) and calls Serve.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	req := &Request{Method: r.Method, URL: r.URL, Header: Header(r.Header), ContentLength: r.ContentLength, ctx: r.Context()}
	if r.Body != nil && r.Body != http.NoBody {
		req.Body = r.Body
	}
	h.Serve(netWriter{w}, req)
}

// netWriter is a net/http ResponseWriter as the Handler's: its Header is the
// same map.
type netWriter struct{ w http.ResponseWriter }

func (n netWriter) Header() Header              { return Header(n.w.Header()) }
func (n netWriter) WriteHeader(status int)      { n.w.WriteHeader(status) }
func (n netWriter) Write(p []byte) (int, error) { return n.w.Write(p) }
