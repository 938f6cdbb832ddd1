//go:build js && wasm

// Command worker is the sessiontree edge worker: the HTTP API of package edge,
// served by github.com/syumai/workers over trees stored in Cloudflare D1.
//
// Built normally, it keeps serving once started, for glue/isolate.mjs, which
// starts one Go instance per isolate and hands it every request, so that the
// trees it has loaded stay loaded. Built with -ldflags "-X main.runtimeMode=stock"
// it behaves like a stock syumai/workers program (one Go instance per request),
// for the benchmark that compares the two.
package main

import (
	"net/http"
	"sync"

	"github.com/sessiontree/sessiontree/wasm/edge"
	"github.com/syumai/workers"
	"github.com/syumai/workers/cloudflare"
)

// runtimeMode is "isolate" (serve forever) or "stock" (serve, then exit).
var runtimeMode = "isolate"

// lazyHandler builds the edge handler on the first request, when the
// environment (the D1 binding and the signing key) is known.
type lazyHandler struct {
	once sync.Once
	h    *edge.Handler
}

func (l *lazyHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	l.once.Do(func() {
		l.h = edge.New(edge.Config{
			Store:      &d1Store{},
			SigningKey: []byte(cloudflare.Getenv("SESSIONTREE_SIGNING_KEY")),
		})
	})
	bw := &bufferedWriter{ResponseWriter: w}
	l.h.ServeHTTP(bw, r)
	bw.finish()
}

func main() {
	h := &lazyHandler{}
	if runtimeMode == "stock" {
		workers.Serve(h)
		return
	}
	workers.ServeNonBlock(h)
	workers.Ready()
	select {}
}
