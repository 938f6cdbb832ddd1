//go:build js && wasm && stock

package main

import (
	"net/http"
	"sync"

	"github.com/sessiontree/sessiontree/wasm/edge"
	"github.com/sessiontree/sessiontree/wasm/worker/internal/workersjs"
	"github.com/syumai/workers"
	"github.com/syumai/workers/cloudflare"
)

// The stock build (-tags stock): a stock syumai/workers program, one Go
// instance per request, every tree in D1 rows, for the benchmark that
// compares it with the worker (main.go). It serves net/http requests, so it
// carries net/http; the worker's own build does not.

// lazyHandler builds the edge handler on the first request, when the
// environment (the D1 binding and the signing key) is known.
type lazyHandler struct {
	once sync.Once
	h    *edge.Handler
}

func (l *lazyHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	l.once.Do(func() {
		l.h = edge.New(routerConfig(&d1Store{binding: workersjs.Binding}, edge.RoleAll, cloudflare.Getenv("SESSIONTREE_SIGNING_KEY"),
			cloudflare.Getenv("SESSIONTREE_CORS_ORIGINS"), cloudflare.Getenv("SESSIONTREE_RATE_LIMIT")))
	})
	bw := &bufferedWriter{ResponseWriter: w}
	l.h.ServeHTTP(bw, r)
	bw.finish()
}

func main() {
	workers.Serve(&lazyHandler{})
}
