//go:build js && wasm

// Command worker is the sessiontree edge worker: the HTTP API of package edge,
// served by github.com/syumai/workers over trees stored in Cloudflare D1.
//
// Built normally, it keeps serving once started, for glue/isolate.mjs, which
// starts it twice per isolate. As the router (the Worker's fetch) it
// authenticates, lists trees from D1 and names the Durable Object of every
// other request's tree; as the objects' instance (SESSIONTREE_ROLE=object in
// its environment) it serves each tree's object synchronously over that
// object's SQLite storage (object.go). Built with -ldflags
// "-X main.runtimeMode=stock" it behaves like a stock syumai/workers program
// (one Go instance per request, every tree in D1 rows), for the benchmark
// that compares the two.
package main

import (
	"net/http"
	"os"
	"sync"

	"github.com/hack-pad/safejs"
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
	role edge.Role
	h    *edge.Handler
}

func (l *lazyHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	l.once.Do(func() {
		l.h = edge.New(routerConfig(&d1Store{}, l.role, cloudflare.Getenv("SESSIONTREE_SIGNING_KEY"),
			cloudflare.Getenv("SESSIONTREE_CORS_ORIGINS"), cloudflare.Getenv("SESSIONTREE_RATE_LIMIT")))
	})
	bw := &bufferedWriter{ResponseWriter: w}
	l.h.ServeHTTP(bw, r)
	bw.finish()
}

func main() {
	if os.Getenv("SESSIONTREE_ROLE") == "object" {
		fn, err := safejs.FuncOf(serveObject)
		if err == nil {
			err = safejs.Global().Set("sessiontreeObject", fn)
		}
		if err == nil {
			if fn, err = safejs.FuncOf(serveRoute); err == nil {
				err = safejs.Global().Set("sessiontreeRoute", fn)
			}
		}
		if err == nil {
			if fn, err = safejs.FuncOf(serveResume); err == nil {
				err = safejs.Global().Set("sessiontreeResume", fn)
			}
		}
		if err == nil {
			if fn, err = safejs.FuncOf(serveObjectBatch); err == nil {
				err = safejs.Global().Set("sessiontreeObjectBatch", fn)
			}
		}
		if err == nil {
			if fn, err = safejs.FuncOf(serveMigrate); err == nil {
				err = safejs.Global().Set("sessiontreeMigrate", fn)
			}
		}
		if err != nil {
			os.Stderr.WriteString("sessiontree worker: " + err.Error() + "\n")
			os.Exit(1)
		}
		workers.Ready()
		select {}
	}
	h := &lazyHandler{role: edge.RoleRouter}
	if runtimeMode == "stock" {
		h.role = edge.RoleAll
		workers.Serve(h)
		return
	}
	workers.ServeNonBlock(h)
	workers.Ready()
	select {}
}
